package wal

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// TestZeroFillAheadOfAppends: the preallocated space of a busy active
// segment (not of one that holds a few rows) is overwritten with zeros in
// the background, a window ahead of the appends, and the zeroing never
// touches appended bytes: appends of mixed sizes race the zeroer
// (small ones that leave it running, large ones that overtake it and
// extend the reservation), and after a crash (the files copied as they
// are) every acknowledged transaction is recovered with its rows intact.
func TestZeroFillAheadOfAppends(t *testing.T) {
	dir := t.TempDir()
	const prealloc = 8 << 20
	// The zeroer is slowed down once the racing appends start, so that they
	// overtake it (on a fast disk it would stay ahead).
	var slow atomic.Bool
	fs := vfs.NewFaulty(vfs.Default, func(op vfs.Op, path string) error {
		if op == vfs.OpWriteZeros && slow.Load() {
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
	opts := Options{Dir: dir, FS: fs, Schema: testSchema, Logger: testLogger(t), Preallocate: prealloc}
	w, _ := mustOpen(t, opts, nil)

	// A few small appends (a table taking a row now and then): no zeros.
	for i := 0; i < 3; i++ {
		if _, err := appendTx(t, w, uuid.New(), int64(i)<<10, 1, 10, DurabilitySync); err != nil {
			t.Fatal(err)
		}
	}
	w.mu.Lock()
	seg := w.mu.active
	w.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	if z := seg.zeroed.Load(); z != 0 {
		t.Fatalf("a segment of %d bytes got %d bytes of zeros", seg.written.Load(), z)
	}
	// Past zeroStartBytes: a window ahead of the appends is zeroed.
	for seg.written.Load() < zeroStartBytes {
		if _, err := appendTx(t, w, uuid.New(), 1<<20, 1, 5000, DurabilitySync); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); seg.zeroed.Load() < zeroWindow; {
		if time.Now().After(deadline) {
			t.Fatalf("zeroed %d bytes in 10 s, want the %d-byte window", seg.zeroed.Load(), zeroWindow)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if z := seg.zeroed.Load(); z != zeroWindow {
		t.Fatalf("zeroed %d bytes ahead of %d bytes of appends, want the window (%d)", z, seg.written.Load(), zeroWindow)
	}

	slow.Store(true)
	// Racing appends: 4 writers, batches of 1 to 20,000 rows (up to ~600 KB,
	// past the zeroer's slack and chunk, so they overtake it).
	type acked struct {
		id   int64
		rows int
	}
	var mu sync.Mutex
	got := map[uuid.UUID]acked{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; i < 60; i++ {
				rows := 1 + rng.IntN(40)
				if rng.IntN(6) == 0 {
					rows = 5000 + rng.IntN(15000)
				}
				id := int64(g)<<40 | int64(i)<<20
				tx := uuid.New()
				if _, err := appendTx(t, w, tx, id, 1, rows, DurabilitySync); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[tx] = acked{id, rows}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Crash: copy the segments as they are, zeroer possibly running.
	crash := t.TempDir()
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crash, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{crash, dir} { // after a crash, and after a clean close
		o := opts
		o.Dir, o.FS = d, nil
		w2, recs := mustOpen(t, o, nil)
		found := 0
		for _, r := range recs {
			a, ok := got[r.TxID]
			if !ok {
				continue // the appends before the race
			}
			found++
			b := r.Batches[0]
			if firstID(b) != a.id || int(b.NumRows()) != a.rows {
				t.Fatalf("%s: tx %s recovered with first id %d, %d rows; want %d, %d", d, r.TxID, firstID(b), b.NumRows(), a.id, a.rows)
			}
			ref := makeBatch(a.id, a.rows)
			if !recordsEqual(b, ref) {
				t.Fatalf("%s: tx %s recovered with different rows", d, r.TxID)
			}
			ref.Release()
		}
		if found != len(got) {
			t.Fatalf("%s: %d of %d acknowledged transactions recovered", d, found, len(got))
		}
		releaseAll(recs)
		w2.Close()
	}
}
