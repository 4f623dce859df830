package wal

import (
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"
)

// TestCorruptionTableSmallChunks reruns the corruption table with every
// frame decoded as its own parallel chunk: the merge must report the first
// failing frame and keep exactly the batches before it.
func TestCorruptionTableSmallChunks(t *testing.T) {
	old := chunkBytes
	chunkBytes = 1
	defer func() { chunkBytes = old }()
	TestCorruptionTable(t)
	TestCorruptionTornFinalFrameEveryOffset(t)
}

// TestParallelDecodeFirstErrorWins damages two frames: the error names the
// earlier one, whichever chunk finishes first.
func TestParallelDecodeFirstErrorWins(t *testing.T) {
	old := chunkBytes
	chunkBytes = 1
	defer func() { chunkBytes = old }()
	fx := buildFixture(t)
	b := append([]byte(nil), fx.data...)
	f := fx.frames
	b[f[2].end-(f[2].end-f[2].off)/3] ^= 0x10
	b[f[4].end-(f[4].end-f[4].off)/3] ^= 0x10
	for i := 0; i < 20; i++ {
		_, err := readSegment(fx.name, append([]byte(nil), b...))
		expectCorruption(t, err, fx.name, f[2].off, ErrChecksum)
	}
}

// TestMappedBatchesOutliveEverythingElse: recovered batches are slices of
// the segment mapping; the mapping stays while a batch is unreleased, and
// while a typed array of one is reachable after its last Release (see
// mmap.go), and goes once nothing recovered is reachable.
func TestMappedBatchesOutliveEverythingElse(t *testing.T) {
	dir := t.TempDir()
	w, _ := mustOpen(t, Options{Dir: dir, Schema: testSchema, UnsafeNoSync: true}, nil)
	for i := 0; i < 20; i++ {
		if _, err := appendTx(t, w, uuid.New(), int64(i*1000), 2, 500, DurabilityAsync); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	// Mappings of earlier tests are unmapped by GC cleanups at any time.
	settle := func() int64 {
		for i := 0; i < 5; i++ {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		return mapped.Load()
	}
	base := settle()
	w2, recs := mustOpen(t, Options{Dir: dir, Schema: testSchema, UnsafeNoSync: true}, nil)
	w2.Close()
	if got := mapped.Load() - base; got != 1 {
		t.Fatalf("%d segments mapped, want 1", got)
	}
	// Keep one column of one batch; drop the rest.
	var keep arrow.Array
	for i, r := range recs {
		if i == 7 {
			keep = r.Batches[1].Column(0)
			keep.Retain()
		}
	}
	releaseAll(recs)
	recs = nil
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := mapped.Load() - base; got != 1 {
		t.Fatalf("mapping dropped while a batch uses it (%d mapped)", got)
	}
	ids := keep.(*array.Int64)
	for j := 0; j < ids.Len(); j++ {
		if ids.Value(j) != 7000+500+int64(j) {
			t.Fatalf("row %d: id %d", j, ids.Value(j))
		}
	}
	keep.Release()
	keep = nil
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := mapped.Load() - base; got != 1 {
		// Reading ids now would be a fault.
		t.Fatalf("mapping dropped while a released array is reachable (%d mapped)", got)
	}
	if ids.Value(3) != 7000+500+3 {
		t.Fatalf("row 3: id %d", ids.Value(3))
	}
	ids = nil
	deadline := time.Now().Add(5 * time.Second)
	for mapped.Load() != base {
		if time.Now().After(deadline) {
			t.Fatalf("mapping not released after every batch was")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoMmapRecoversTheSame: the heap path returns the same data.
func TestNoMmapRecoversTheSame(t *testing.T) {
	dir := t.TempDir()
	writeEventsWAL(t, dir, 2<<20, 1000, 0)
	wa, a := mustOpen(t, Options{Dir: dir, Schema: eventsSchema, UnsafeNoSync: true}, nil)
	wa.Close() // releases the segment locks
	defer releaseAll(a)
	wb, b := mustOpen(t, Options{Dir: dir, Schema: eventsSchema, UnsafeNoSync: true, NoMmap: true}, nil)
	wb.Close()
	defer releaseAll(b)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d records", len(a), len(b))
	}
	for i := range a {
		if a[i].TxID != b[i].TxID || !recordsEqual(a[i].Batches[0], b[i].Batches[0]) {
			t.Fatalf("record %d differs", i)
		}
	}
}
