package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

// fixture is a real segment written by a WAL on the OS filesystem:
// tx0 (1 batch), tx1 (2 batches), tx2 (1), tx3 (1), then eos.
type fixture struct {
	data   []byte
	name   string
	txs    []uuid.UUID
	frames []frame // schema, b0, b1a, b1b, b2, b3
	eos    int64
}

func buildFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	var fx fixture
	for i, nb := range []int{1, 2, 1, 1} {
		tx := uuid.New()
		if _, err := appendTx(t, w, tx, int64(i*1000), nb, 50, DurabilitySync); err != nil {
			t.Fatal(err)
		}
		fx.txs = append(fx.txs, tx)
	}
	segs := w.Segments()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fx.name = segs[0].Name
	var err error
	if fx.data, err = os.ReadFile(filepath.Join(dir, fx.name)); err != nil {
		t.Fatal(err)
	}
	frames, tail, tailOff, _, cerr := scanFrames(fx.name, fx.data)
	if cerr != nil || tail != tailEOS || len(frames) != 6 {
		t.Fatalf("fixture: %d frames, tail %v, err %v", len(frames), tail, cerr)
	}
	fx.frames, fx.eos = frames, tailOff
	return fx
}

// openBytes writes data as the only segment of a fresh directory, opens a
// WAL on it and checks the file was not changed.
func openBytes(t *testing.T, name string, data []byte) ([]Record, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	w, recs, err := Open(Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	if err == nil {
		w.Close()
	}
	after, rerr := os.ReadFile(path)
	if rerr != nil || !bytes.Equal(after, data) {
		t.Fatalf("segment changed on disk by Open (err %v)", rerr)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != name && n != name+lockSuffix {
			t.Fatalf("Open created %s", n)
		}
	}
	return recs, err
}

func expectTxs(t *testing.T, recs []Record, want []uuid.UUID) {
	t.Helper()
	defer releaseAll(recs)
	if len(recs) != len(want) {
		t.Fatalf("recovered %d transactions, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if r.TxID != want[i] {
			t.Fatalf("record %d is tx %s, want %s", i, r.TxID, want[i])
		}
	}
}

func expectCorruption(t *testing.T, err error, seg string, off int64, class error) {
	t.Helper()
	var ce *CorruptionError
	if !errors.As(err, &ce) {
		t.Fatalf("want *CorruptionError, got %v", err)
	}
	if ce.Segment != seg || ce.Offset != off || !errors.Is(err, class) {
		t.Fatalf("got %v (segment %s offset %d); want segment %s offset %d class %v", err, ce.Segment, ce.Offset, seg, off, class)
	}
}

// expectOpen checks an Open of segment seg: with errOff < 0 it recovered
// exactly the transactions want; else it failed with corruption at errOff
// (of class errKind, unless nil).
func expectOpen(t *testing.T, seg string, recs []Record, err error, want []uuid.UUID, errOff int64, errKind error) {
	t.Helper()
	if errOff < 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		expectTxs(t, recs, want)
		return
	}
	if err == nil {
		releaseAll(recs)
		t.Fatalf("opened with %d records; want corruption at %d", len(recs), errOff)
	}
	if errKind == nil {
		var ce *CorruptionError
		if !errors.As(err, &ce) || ce.Segment != seg || ce.Offset != errOff {
			t.Fatalf("got %v; want corruption of %s at %d", err, seg, errOff)
		}
		return
	}
	expectCorruption(t, err, seg, errOff, errKind)
}

func TestCorruptionTornFinalFrameEveryOffset(t *testing.T) {
	fx := buildFixture(t)
	last := fx.frames[5]
	// Every cut inside the final batch frame: tx0..tx2 survive.
	for cut := last.off; cut < last.end; cut++ {
		recs, err := openBytes(t, fx.name, fx.data[:cut])
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		expectTxs(t, recs, fx.txs[:3])
	}
	// Cuts inside the eos marker (or before it): all four survive.
	for cut := fx.eos; cut < int64(len(fx.data)); cut++ {
		recs, err := openBytes(t, fx.name, fx.data[:cut])
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		expectTxs(t, recs, fx.txs)
	}
}

func TestCorruptionTable(t *testing.T) {
	fx := buildFixture(t)
	f := fx.frames
	mod := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), fx.data...)) }
	putU32 := func(b []byte, off int64, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	midBody := func(fr frame) int64 { return fr.end - (fr.end-fr.off)/3 }

	type tc struct {
		name    string
		data    []byte
		want    []uuid.UUID // survivors when no error
		errOff  int64       // expected corruption offset, -1 for none
		errKind error
	}
	zeroSectorAt := (f[2].off + 100) / 512 * 512
	if zeroSectorAt < f[1].end {
		zeroSectorAt += 512
	}
	var sectorFrame frame
	for _, fr := range f {
		if zeroSectorAt >= fr.off && zeroSectorAt < fr.end {
			sectorFrame = fr
		}
	}
	cases := []tc{
		{name: "intact", data: fx.data, want: fx.txs, errOff: -1},
		{name: "0-byte", data: nil, errOff: -1},
		{name: "all-zero", data: make([]byte, 4096), errOff: -1},
		{name: "shorter-than-header", data: fx.data[:5], errOff: -1},
		{name: "schema-cut", data: fx.data[:f[0].end-3], errOff: -1},
		{name: "header-only", data: fx.data[:f[0].end], errOff: -1},
		{name: "header-then-zeros", data: append(append([]byte(nil), fx.data[:f[0].end]...), make([]byte, 512)...), errOff: -1},
		{name: "truncate-mid-frame-of-second-tx", data: fx.data[:f[3].off+40], want: fx.txs[:1], errOff: -1},
		{name: "truncate-between-batches-of-a-tx", data: fx.data[:f[3].off], want: fx.txs[:1], errOff: -1},
		{name: "zero-tail-after-frames", data: append(append([]byte(nil), fx.data[:f[5].end]...), make([]byte, 1000)...), want: fx.txs, errOff: -1},
		{name: "zero-sector-middle", data: mod(func(b []byte) []byte {
			copy(b[zeroSectorAt:zeroSectorAt+512], make([]byte, 512))
			return b
		}), errOff: sectorFrame.off, errKind: nil},
		{name: "flip-body-first-batch", data: mod(func(b []byte) []byte { b[midBody(f[1])] ^= 0x10; return b }), errOff: f[1].off, errKind: ErrChecksum},
		{name: "flip-body-middle-batch", data: mod(func(b []byte) []byte { b[midBody(f[3])] ^= 0x01; return b }), errOff: f[3].off, errKind: ErrChecksum},
		{name: "flip-body-final-batch", data: mod(func(b []byte) []byte { b[midBody(f[5])] ^= 0x80; return b }), errOff: f[5].off, errKind: ErrChecksum},
		{name: "bad-magic", data: mod(func(b []byte) []byte { putU32(b, f[3].off, 0x12345678); return b }), errOff: f[3].off, errKind: ErrBadMagic},
		{name: "bad-length-huge", data: mod(func(b []byte) []byte { putU32(b, f[2].off+4, 0x7FFFFFF8); return b }), errOff: f[2].off, errKind: ErrBadLength},
		{name: "bad-length-negative", data: mod(func(b []byte) []byte { putU32(b, f[2].off+4, 0xFFFFFF00); return b }), errOff: f[2].off, errKind: ErrBadLength},
		{name: "bad-length-unaligned", data: mod(func(b []byte) []byte { putU32(b, f[2].off+4, binary.LittleEndian.Uint32(b[f[2].off+4:])+4); return b }), errOff: f[2].off, errKind: ErrBadLength},
		{name: "bad-length-overruns-following-frames", data: mod(func(b []byte) []byte {
			putU32(b, f[1].off+4, uint32(len(b)+64)&^7)
			return b
		}), errOff: f[1].off, errKind: ErrBadLength},
		{name: "data-after-eos", data: append(append([]byte(nil), fx.data...), 1, 2, 3, 4, 5, 6, 7, 8), errOff: fx.eos + 8, errKind: ErrBadFrame},
		{name: "garbage-after-frames", data: append(append([]byte(nil), fx.data[:f[5].end]...), 9, 9, 9, 9, 9, 9, 9, 9, 9), errOff: f[5].end, errKind: ErrBadMagic},
		{name: "tx-cut-then-eos", data: append(append([]byte(nil), fx.data[:f[3].off]...), eosMarker...), errOff: f[2].off, errKind: ErrBadTransaction},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := openBytes(t, fx.name, c.data)
			expectOpen(t, fx.name, recs, err, c.want, c.errOff, c.errKind)
		})
	}
}

// TestCorruptionEveryByteFlip flips each byte of the batch frames in turn:
// every flip is either detected (CorruptionError), or changes nothing that
// is returned (padding), never silently different data.
func TestCorruptionEveryByteFlip(t *testing.T) {
	fx := buildFixture(t)
	base, err := readSegment(fx.name, fx.data)
	if err != nil {
		t.Fatal(err)
	}
	defer base.release()
	for off := fx.frames[0].off; off < fx.eos; off++ {
		b := append([]byte(nil), fx.data...)
		b[off] ^= 0x04
		c, err := readSegment(fx.name, b)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("flip at %d: error %v is not a CorruptionError", off, err)
			}
			continue
		}
		if !sameBatches(base, c) {
			t.Fatalf("flip at %d: data changed silently", off)
		}
		c.release()
	}
}

func sameBatches(a, b *segmentContents) bool {
	if len(a.batches) != len(b.batches) {
		return false
	}
	for i := range a.batches {
		x, y := a.batches[i], b.batches[i]
		if x.tx != y.tx || x.seq != y.seq || x.index != y.index || x.count != y.count ||
			(x.aux == nil) != (y.aux == nil) || !bytes.Equal(x.aux, y.aux) {
			return false
		}
		if !recordsEqual(x.rec, y.rec) {
			return false
		}
	}
	return true
}
