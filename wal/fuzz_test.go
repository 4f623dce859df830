package wal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
)

// FuzzSegmentReader feeds arbitrary bytes to the segment reader: it must
// never panic (nor die of a huge allocation), every error must be a
// positioned *CorruptionError, and every returned tagged batch must verify
// against its stored checksum. Crashers are kept in testdata/fuzz/.
func FuzzSegmentReader(f *testing.F) {
	dir := f.TempDir()
	w, _, err := Open(Options{Dir: dir, Schema: testSchema}, nil)
	if err != nil {
		f.Fatal(err)
	}
	for i, nb := range []int{1, 2, 1} {
		if _, err := appendTx(f, w, uuid.New(), int64(i*100), nb, 7, DurabilitySync); err != nil {
			f.Fatal(err)
		}
	}
	// A transaction with auxiliary payloads (an empty one, and NUL and
	// invalid UTF-8 bytes on a zero-row batch).
	b0, b1 := makeBatch(900, 3), makeBatch(903, 0)
	if _, err := w.AppendAux(context.Background(), uuid.New(), []arrow.RecordBatch{b0, b1}, [][]byte{{}, auxPayload(5, 40)}, DurabilitySync); err != nil {
		f.Fatal(err)
	}
	b0.Release()
	b1.Release()
	seg := w.Segments()[0].Name
	w.Close()
	data, err := os.ReadFile(filepath.Join(dir, seg))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(data[:len(data)-8])
	f.Add(data[:300])
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	f.Add(eosMarker)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x08, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	// A crashed preallocated segment: the stream without its end marker,
	// then zeros; and the same with a sector of the middle never written.
	open := append(append([]byte(nil), data[:len(data)-8]...), make([]byte, 2048)...)
	f.Add(open)
	holed := append([]byte(nil), open...)
	clear(holed[len(data)/2&^(sectorSize-1) : len(data)/2&^(sectorSize-1)+sectorSize])
	f.Add(holed)

	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range []string{"log_00000000000000000001_000001_00000001.arrow", "foreign.arrow"} {
			c, err := readSegment(name, b)
			if err != nil {
				var ce *CorruptionError
				if !errors.As(err, &ce) || ce.Segment != name || ce.Offset < 0 || ce.Offset > int64(len(b)) {
					t.Fatalf("error %v is not a positioned CorruptionError", err)
				}
				continue
			}
			for _, bt := range c.batches {
				if !bt.tagged {
					continue
				}
				dc, err := dataCRC(bt.rec)
				if err != nil {
					t.Fatalf("returned batch fails validation: %v", err)
				}
				if got := finishCRC(dc, bt.tx, bt.seq, bt.index, bt.count, bt.aux); got != bt.crc {
					t.Fatalf("returned batch with checksum %08x, stored %08x", got, bt.crc)
				}
			}
			if _, err := assemble(name, c); err != nil {
				var ce *CorruptionError
				if !errors.As(err, &ce) {
					t.Fatalf("assemble error %v", err)
				}
			}
			c.release()
		}
	})
}
