package wal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

// TestPreallocatedSegmentLifecycle: the active segment is allocated ahead
// of its stream (appends overwrite zeros, so an fdatasync carries no size
// change), extended as appends reach the end of the reservation, read back
// after a crash with its zero tail, and trimmed to its stream when sealed.
func TestPreallocatedSegmentLifecycle(t *testing.T) {
	dir := t.TempDir()
	const chunk = 64 << 10
	opts := Options{Dir: dir, Schema: testSchema, Logger: testLogger(t), Preallocate: chunk}
	w, _ := mustOpen(t, opts, nil)
	var txs []uuid.UUID
	appendSome := func(n int) {
		for i := 0; i < n; i++ {
			tx := uuid.New()
			if _, err := appendTx(t, w, tx, int64(len(txs)*1000), 1, 50, DurabilitySync); err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tx)
		}
	}
	appendSome(1)
	seg := w.Segments()[0]
	path := filepath.Join(dir, seg.Name)
	fileSize := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if got := fileSize(); got != chunk {
		t.Fatalf("active segment is %d bytes on disk, want the %d-byte reservation (stream %d bytes)", got, chunk, seg.Size)
	}
	// Past the reservation: extended by another chunk beyond the stream.
	for w.Segments()[0].Size <= chunk {
		appendSome(1)
	}
	stream := w.Segments()[0].Size
	if got := fileSize(); got <= stream || got > stream+2*chunk {
		t.Fatalf("after extension: file %d bytes, stream %d", got, stream)
	}

	// A crash now: the copy has the zero tail and no end-of-stream marker.
	crashDir := t.TempDir()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crashDir, seg.Name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	w2, recs := mustOpen(t, Options{Dir: crashDir, Schema: testSchema, Logger: testLogger(t)}, nil)
	expectTxs(t, recs, txs)
	w2.Close()

	// Sealing trims the reservation: the file is the stream plus its marker.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sealed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(sealed)) != stream+8 || !endsSealed(sealed) {
		t.Fatalf("sealed segment: %d bytes (stream %d), sealed %v", len(sealed), stream, endsSealed(sealed))
	}
	w3, recs := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	expectTxs(t, recs, txs)
	w3.Close()
}

// TestTornWriteIntoPreallocatedSpace: a crash during a write into
// preallocated space leaves the sectors that were not persisted as zeros,
// in any order. Such a frame was never covered by an fdatasync, so neither
// it nor anything after it was acknowledged: recovery ends the segment
// there. Damage without an unwritten sector, or in a sealed segment, is
// still corruption.
func TestTornWriteIntoPreallocatedSpace(t *testing.T) {
	fx := buildFixture(t)
	f := fx.frames // schema, tx0, tx1a, tx1b, tx2, tx3
	for _, fr := range f[1:] {
		if fr.end-fr.off < 3*sectorSize {
			t.Fatalf("fixture frames are too small (%d bytes) to hold a whole sector", fr.end-fr.off)
		}
	}
	// The active segment of a crashed server: frames, then the reservation.
	unsealed := append(append([]byte(nil), fx.data[:f[5].end]...), make([]byte, 64<<10)...)
	mod := func(base []byte, fn func(b []byte)) []byte {
		b := append([]byte(nil), base...)
		fn(b)
		return b
	}
	// zeroSector zeroes the first whole sector inside fr.
	zeroSector := func(b []byte, fr frame) {
		s := (fr.off + sectorSize) &^ (sectorSize - 1)
		clear(b[s : s+sectorSize])
	}
	// zeroFrom zeroes fr from its second sector boundary to its end: the
	// last pages of a sequential write did not reach the disk.
	zeroFrom := func(b []byte, fr frame) {
		s := (fr.off + 2*sectorSize) &^ (sectorSize - 1)
		clear(b[s:fr.end])
	}
	sealedWithTail := append(append([]byte(nil), fx.data...), make([]byte, 4096)...)
	cases := []struct {
		name    string
		data    []byte
		want    []uuid.UUID
		errOff  int64
		errKind error
	}{
		{name: "zero-tail", data: unsealed, want: fx.txs, errOff: -1},
		{name: "final-frame-cut-short", data: mod(unsealed, func(b []byte) { zeroFrom(b, f[5]) }), want: fx.txs[:3], errOff: -1},
		{name: "final-frame-hole", data: mod(unsealed, func(b []byte) { zeroSector(b, f[5]) }), want: fx.txs[:3], errOff: -1},
		// Sectors persisted out of order: a hole in tx1's first batch, the
		// later frames on disk. tx1..tx3 were never acknowledged.
		{name: "hole-then-persisted-frames", data: mod(unsealed, func(b []byte) { zeroSector(b, f[2]) }), want: fx.txs[:1], errOff: -1},
		{name: "unwritten-frame-header", data: mod(unsealed, func(b []byte) {
			clear(b[f[4].off : (f[4].off+sectorSize)&^(sectorSize-1)])
		}), want: fx.txs[:2], errOff: -1},
		// Bit rot (no unwritten sector) is corruption, even before zeros.
		{name: "flip-middle-frame", data: mod(unsealed, func(b []byte) { b[f[3].end-(f[3].end-f[3].off)/3] ^= 0x10 }), errOff: f[3].off, errKind: ErrChecksum},
		{name: "flip-final-frame", data: mod(unsealed, func(b []byte) { b[f[5].off+(f[5].end-f[5].off)/2] ^= 0x10 }), errOff: f[5].off, errKind: ErrChecksum},
		// A sealed segment was synced whole: a hole in it is corruption.
		{name: "sealed-hole", data: mod(sealedWithTail, func(b []byte) { zeroSector(b, f[2]) }), errOff: f[2].off},
		{name: "sealed-unwritten-header", data: mod(sealedWithTail, func(b []byte) {
			clear(b[f[4].off : (f[4].off+sectorSize)&^(sectorSize-1)])
		}), errOff: f[4].off, errKind: ErrBadMagic},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := openBytes(t, fx.name, c.data)
			expectOpen(t, fx.name, recs, err, c.want, c.errOff, c.errKind)
		})
	}
}
