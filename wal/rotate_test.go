package wal

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// TestRotateWhileWriting: 8 writers keep appending on one WAL while another
// goroutine rotates; every acknowledged tx is registered in exactly one
// segment and recovered exactly once.
func TestRotateWhileWriting(t *testing.T) {
	mem := vfs.NewMem()
	w, _ := mustOpen(t, memOpts(t, mem), nil)
	acks := newAckLog()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				tx, id := uuid.New(), int64(g*100000+i*100)
				if _, err := appendTx(t, w, tx, id, 1+i%2, 5, DurabilitySync); err != nil {
					t.Error(err)
					return
				}
				acks.add(tx, id)
			}
		}(g)
	}
	var rotations atomic.Int64
	rwg := sync.WaitGroup{}
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := w.Rotate(); err != nil {
				t.Error(err)
				return
			}
			rotations.Add(1)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	wg.Wait()
	close(stop)
	rwg.Wait()

	where := map[uuid.UUID]string{}
	segs := w.Segments()
	for _, s := range segs {
		for _, tx := range s.TxIDs {
			if prev, dup := where[tx]; dup {
				t.Fatalf("tx %s registered in %s and %s", tx, prev, s.Name)
			}
			where[tx] = s.Name
		}
	}
	acked := acks.snapshot()
	for tx := range acked {
		if _, ok := where[tx]; !ok {
			t.Fatalf("acknowledged tx %s in no segment", tx)
		}
	}
	t.Logf("%d rotations, %d segments, %d transactions", rotations.Load(), len(segs), len(acked))
	if len(segs) < 3 {
		t.Fatalf("only %d segments: rotation did not interleave with writes", len(segs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, recs := mustOpen(t, memOpts(t, mem), nil)
	defer w2.Close()
	defer releaseAll(recs)
	got := txSet(t, recs)
	if len(got) != len(acked) {
		t.Fatalf("recovered %d transactions, acknowledged %d", len(got), len(acked))
	}
	for tx, id := range acked {
		if got[tx] != id {
			t.Fatalf("tx %s: recovered id %d, want %d", tx, got[tx], id)
		}
	}
}

// TestPruneUnderContention: writers keep appending while a committer
// rotates, marks some acknowledged transactions committed and prunes.
// Prune must never remove a segment holding an uncommitted transaction:
// at the end every acknowledged uncommitted tx is still recoverable.
func TestPruneUnderContention(t *testing.T) {
	mem := vfs.NewMem()
	w, _ := mustOpen(t, memOpts(t, mem), nil)
	acks := newAckLog()
	var committed sync.Map
	isCommitted := func(id uuid.UUID) bool { _, ok := committed.Load(id); return ok }
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// The writers keep going until the pruner has removed something (on a
	// loaded machine 480 appends to memory can be over before it ran once).
	var pruned atomic.Int64
	deadline := time.Now().Add(10 * time.Second)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 80 || (pruned.Load() == 0 && time.Now().Before(deadline)); i++ {
				tx, id := uuid.New(), int64(g)*1_000_000_000+int64(i)*100
				if _, err := appendTx(t, w, tx, id, 1, 3, DurabilitySync); err != nil {
					t.Error(err)
					return
				}
				acks.add(tx, id)
			}
		}(g)
	}
	cwg := sync.WaitGroup{}
	cwg.Add(1)
	go func() {
		defer cwg.Done()
		r := rand.New(rand.NewSource(42))
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := w.Rotate(); err != nil {
				t.Error(err)
				return
			}
			for tx := range acks.snapshot() {
				if r.Intn(2) == 0 {
					committed.Store(tx, true)
				}
			}
			removed, err := w.Prune(isCommitted)
			if err != nil {
				t.Error(err)
				return
			}
			pruned.Add(int64(len(removed)))
			time.Sleep(100 * time.Microsecond)
		}
	}()
	wg.Wait()
	close(stop)
	cwg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if pruned.Load() == 0 {
		t.Fatal("nothing was pruned: the test did not exercise Prune")
	}
	w2, recs := mustOpen(t, memOpts(t, mem), isCommitted)
	defer w2.Close()
	defer releaseAll(recs)
	got := txSet(t, recs)
	lost := 0
	for tx, id := range acks.snapshot() {
		if isCommitted(tx) {
			continue
		}
		if got[tx] != id {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged uncommitted transactions lost by Prune", lost)
	}
	t.Logf("pruned %d segments", pruned.Load())
}

func TestPruneRules(t *testing.T) {
	mem := vfs.NewMem()
	w, _ := mustOpen(t, memOpts(t, mem), nil)
	defer w.Close()
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	appendTx(t, w, a, 0, 1, 1, DurabilitySync)
	appendTx(t, w, b, 10, 1, 1, DurabilitySync)
	if err := w.Rotate(); err != nil {
		t.Fatal(err)
	}
	appendTx(t, w, c, 20, 1, 1, DurabilitySync)
	all := func(uuid.UUID) bool { return true }
	onlyA := func(id uuid.UUID) bool { return id == a }
	if removed, err := w.Prune(onlyA); err != nil || len(removed) != 0 {
		t.Fatalf("pruned %v with b uncommitted (%v)", removed, err)
	}
	removed, err := w.Prune(all)
	if err != nil || len(removed) != 1 {
		t.Fatalf("Prune(all) removed %v, %v", removed, err)
	}
	segs := w.Segments()
	if len(segs) != 1 || segs[0].Sealed {
		t.Fatalf("active segment pruned or sealed one kept: %+v", segs)
	}
	if _, err := mem.Stat("/wal/" + removed[0]); err == nil {
		t.Fatal("pruned segment still on disk")
	}
	if _, err := mem.Stat("/wal/" + removed[0] + lockSuffix); err == nil {
		t.Fatal("pruned segment's lock file still on disk")
	}
	// The removal is durable.
	if _, err := mem.CrashClone().Stat("/wal/" + removed[0]); err == nil {
		t.Fatal("pruned segment back after a crash: no directory sync")
	}
}

// TestUntaggedSegmentNeverPruned: a foreign stream's batches are returned
// as untagged data and its segment is never pruned.
func TestUntaggedSegmentNeverPruned(t *testing.T) {
	mem := vfs.NewMem()
	w, _ := mustOpen(t, memOpts(t, mem), nil)
	appendTx(t, w, uuid.New(), 0, 2, 4, DurabilitySync)
	seg := w.Segments()[0].Name
	w.Close()
	// Rewrite it as a foreign stream without WAL metadata.
	w2, recs := mustOpen(t, memOpts(t, mem), nil)
	w2.Close()
	foreign := writeForeignStream(t, recs[0].Batches)
	releaseAll(recs)
	mem.Remove("/wal/" + seg)
	f, _ := mem.Create("/wal/legacy.arrow")
	f.Write(foreign)
	f.Sync()
	f.Close()
	mem.SyncDir("/wal")

	w3, recs := mustOpen(t, memOpts(t, mem), nil)
	defer w3.Close()
	defer releaseAll(recs)
	if len(recs) != 1 || recs[0].TxID != uuid.Nil || len(recs[0].Batches) != 2 {
		t.Fatalf("legacy stream recovered as %+v", recs)
	}
	segs := w3.Segments()
	if len(segs) != 1 || !segs[0].Untagged {
		t.Fatalf("segments %+v", segs)
	}
	if removed, _ := w3.Prune(func(uuid.UUID) bool { return true }); len(removed) != 0 {
		t.Fatalf("pruned untagged segment %v", removed)
	}
}

// TestMultiWriterLocks: two WALs on one directory (two processes) never
// read or register each other's live segments; after one closes (dies),
// the next Open recovers its segments.
func TestMultiWriterLocks(t *testing.T) {
	for _, osfs := range []bool{false, true} {
		name := "memfs"
		if osfs {
			name = "os-flock"
		}
		t.Run(name, func(t *testing.T) {
			var opts Options
			if osfs {
				opts = Options{Dir: t.TempDir(), Schema: testSchema, Logger: testLogger(t)}
			} else {
				opts = memOpts(t, vfs.NewMem())
			}
			a, _ := mustOpen(t, opts, nil)
			txA1, txA2 := uuid.New(), uuid.New()
			appendTx(t, a, txA1, 0, 1, 2, DurabilitySync)
			a.Rotate()
			appendTx(t, a, txA2, 10, 1, 2, DurabilitySync)

			b, recs := mustOpen(t, opts, nil)
			if len(recs) != 0 || len(b.Segments()) != 0 {
				t.Fatalf("second writer read the first's locked segments: %d records, %+v", len(recs), b.Segments())
			}
			txB := uuid.New()
			appendTx(t, b, txB, 20, 1, 2, DurabilitySync)
			if removed, _ := b.Prune(func(uuid.UUID) bool { return true }); len(removed) != 0 {
				t.Fatalf("b pruned %v", removed)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			c, recs := mustOpen(t, opts, nil)
			got := txSet(t, recs)
			releaseAll(recs)
			if len(got) != 2 || got[txA1] != 0 || got[txA2] != 10 {
				t.Fatalf("third writer recovered %v; want a's two transactions", got)
			}
			if _, ok := got[txB]; ok {
				t.Fatal("third writer read b's live segment")
			}
			c.Close()
			b.Close()
		})
	}
}

func TestVanishedSegmentSkipped(t *testing.T) {
	mem := vfs.NewMem()
	w, _ := mustOpen(t, memOpts(t, mem), nil)
	tx1, tx2 := uuid.New(), uuid.New()
	appendTx(t, w, tx1, 0, 1, 1, DurabilitySync)
	w.Rotate()
	appendTx(t, w, tx2, 10, 1, 1, DurabilitySync)
	segs := w.Segments()
	w.Close()
	// The first segment disappears between ReadDir and Open (a concurrent
	// Prune by another writer).
	victim := filepath.Join("/wal", segs[0].Name)
	fs := vfs.NewFaulty(mem, func(op vfs.Op, path string) error {
		if op == vfs.OpOpen && path == victim {
			mem.Remove(victim)
		}
		return nil
	})
	w2, recs := mustOpen(t, memOpts(t, fs), nil)
	defer w2.Close()
	defer releaseAll(recs)
	if got := txSet(t, recs); len(got) != 1 || got[tx2] != 10 {
		t.Fatalf("recovered %v", got)
	}
}

func TestCompactLargeSegment(t *testing.T) {
	for _, tornTail := range []bool{false, true} {
		t.Run(map[bool]string{false: "clean", true: "torn"}[tornTail], func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}
			w, _ := mustOpen(t, opts, nil)
			var txs []uuid.UUID
			for i := 0; i < 6; i++ {
				tx := uuid.New()
				appendTx(t, w, tx, int64(i*100), 1, 20, DurabilitySync)
				txs = append(txs, tx)
			}
			seg := w.Segments()[0].Name
			w.Close()
			path := filepath.Join(dir, seg)
			if tornTail {
				data, _ := os.ReadFile(path)
				os.WriteFile(path, data[:len(data)-100], 0o644) // cuts tx 5
			}
			committed := func(id uuid.UUID) bool { return id == txs[0] || id == txs[1] }
			opts.CompactBytes = 1024
			w2, recs := mustOpen(t, opts, committed)
			got := txSet(t, recs)
			want := txs[2:]
			if tornTail {
				want = txs[2:5]
			}
			if len(got) != len(want) {
				t.Fatalf("recovered %d, want %d", len(got), len(want))
			}
			for _, r := range recs {
				if r.Segment == seg {
					t.Fatalf("record still points at the compacted segment")
				}
			}
			releaseAll(recs)
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("original segment still there: %v", err)
			}
			_, err := os.Stat(path + brokenSuffix)
			if tornTail != (err == nil) {
				t.Fatalf("broken copy: torn=%v, stat err %v", tornTail, err)
			}
			segs := w2.Segments()
			if len(segs) != 1 || !segs[0].Sealed || len(segs[0].TxIDs) != len(want) {
				t.Fatalf("segments after compaction %+v", segs)
			}
			w2.Close()
			// Reopen: same transactions, once.
			opts.CompactBytes = 0
			w3, recs := mustOpen(t, opts, committed)
			defer w3.Close()
			defer releaseAll(recs)
			if got2 := txSet(t, recs); len(got2) != len(want) {
				t.Fatalf("after reopen %d", len(got2))
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), lockSuffix) && !strings.HasPrefix(e.Name(), segs[0].Name) {
					t.Fatalf("stale lock file %s", e.Name())
				}
			}
		})
	}
}

// TestDuplicateTxRecoveredOnce: a crash between a compaction's rewrite and
// the removal of the original leaves a transaction in two segments; it is
// replayed once.
func TestDuplicateTxRecoveredOnce(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}
	w, _ := mustOpen(t, opts, nil)
	tx := uuid.New()
	appendTx(t, w, tx, 7, 2, 3, DurabilitySync)
	seg := w.Segments()[0].Name
	w.Close()
	data, _ := os.ReadFile(filepath.Join(dir, seg))
	later := segmentName(segmentTS(seg)+1, 1, 1)
	os.WriteFile(filepath.Join(dir, later), data, 0o644)
	w2, recs := mustOpen(t, opts, nil)
	defer w2.Close()
	defer releaseAll(recs)
	if got := txSet(t, recs); len(got) != 1 || got[tx] != 7 {
		t.Fatalf("recovered %v", got)
	}
	// Both segments are registered with the tx, so both are pruned once
	// it is committed.
	removed, err := w2.Prune(func(id uuid.UUID) bool { return id == tx })
	if err != nil || len(removed) != 2 {
		t.Fatalf("pruned %v, %v", removed, err)
	}
}
