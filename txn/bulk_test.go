package txn

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// bulkLoad writes ids [lo, hi) in batches of per rows through one bulk load
// and returns it uncommitted.
func bulkLoad(t *testing.T, tb *Table, lo, hi, per int64) *BulkLoad {
	t.Helper()
	b, err := tb.BeginBulk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := lo; i < hi; i += per {
		var ids []int64
		for j := i; j < min(i+per, hi); j++ {
			ids = append(ids, j)
		}
		r := batch(tb, ids...)
		err := b.Write(r)
		r.Release()
		if err != nil {
			b.Abort()
			t.Fatal(err)
		}
	}
	return b
}

// dataFiles lists the table's data files in the store.
func (e *env) dataFiles(tb *Table) []string {
	e.t.Helper()
	infos, err := e.local.List(context.Background(), tb.Prefix()+"/data/")
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, i := range infos {
		out = append(out, i.Key)
	}
	return out
}

// TestBulkCommitVisibleAndDurable: a bulk load is invisible until its
// commit, entirely visible right after it (same handle), in ONE manifest
// version, and still there after a reopen; its id is on the manifest.
func TestBulkCommitVisibleAndDurable(t *testing.T) {
	e := newEnv(t)
	e.opts.FileRows = 250 // several files
	e.opts.RowGroupRows = 100
	tb := e.create()
	if err := write(tb, 0); err != nil { // a buffered row before the load
		t.Fatal(err)
	}
	b := bulkLoad(t, tb, 1, 1001, 64)
	exactlyOnce(t, e.snapshotIDs(tb), set(0))
	before, _ := tb.manifests.LoadLatest(context.Background(), true)
	n, err := b.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Fatalf("committed %d rows, want 1000", n)
	}
	exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 1001))
	after, _ := tb.manifests.LoadLatest(context.Background(), true)
	if after.Version != before.Version+1 {
		t.Fatalf("bulk commit made manifest v%d from v%d: want exactly one new version", after.Version, before.Version)
	}
	if len(after.Files) < 4 {
		t.Fatalf("%d files, want >= 4 (FileRows 250)", len(after.Files))
	}
	if !after.Committed().Has(b.ID()) {
		t.Fatalf("manifest does not record the bulk load id")
	}
	if p := tb.Phase(); p != 0 {
		t.Fatalf("commit left phase %v (Iceberg not published?)", p)
	}
	if err := tb.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	tb2 := e.open()
	exactlyOnce(t, e.snapshotIDs(tb2), rangeSet(0, 1001))
	st := tb.BulkStats()
	if st.Committed != 1 || st.Rows != 1000 || st.Active != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestBulkFaults: a fault anywhere before the manifest is durable commits
// nothing and leaves no data file; an ambiguous manifest create converges
// on the bulk load id without adding the files twice.
func TestBulkFaults(t *testing.T) {
	cases := []struct {
		name    string
		rules   func() []*objstore.Rule
		wantErr bool
	}{
		{"data-file-write", func() []*objstore.Rule {
			r := objstore.FailBefore(keyHas("/data/"), objstore.OpPutFile)
			r.Nth = 2
			return rules(r)
		}, true},
		{"manifest-create", func() []*objstore.Rule {
			return rules(objstore.FailBefore(keyHas("/_manifest/"), objstore.OpPutIfAbsent))
		}, true},
		{"manifest-head-load", func() []*objstore.Rule {
			// The head is found by reading past the known version (v2).
			return rules(objstore.FailBefore(keyHas("/_manifest/v3.json"), objstore.OpGet))
		}, true},
		{"ambiguous-manifest-create", func() []*objstore.Rule {
			// The create lands, the caller sees an error and cannot read it
			// back: only the bulk id on the head tells the retry it succeeded.
			amb := objstore.FailAfter(keyHas("/_manifest/v3.json"), objstore.OpPutIfAbsent)
			amb.Nth = 1
			readback := objstore.FailBefore(keyHas("/_manifest/v3.json"), objstore.OpGet)
			readback.Nth = 2 // the first read of v3 is the head's probe, before the create
			return rules(amb, readback)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.FileRows = 300
			tb := e.create()
			if err := write(tb, 0); err != nil {
				t.Fatal(err)
			}
			if err := tb.Flush(context.Background()); err != nil { // v2
				t.Fatal(err)
			}
			base := len(e.dataFiles(tb))
			for _, r := range c.rules() {
				e.faulty.AddRule(r)
			}
			b := bulkLoad(t, tb, 1, 1001, 100)
			_, err := b.Commit(context.Background())
			e.faulty.ClearRules()
			if c.wantErr {
				if err == nil {
					t.Fatal("commit succeeded despite the fault")
				}
				exactlyOnce(t, e.snapshotIDs(tb), set(0))
				if got := len(e.dataFiles(tb)); got != base {
					t.Fatalf("%d data files after a failed bulk load, want %d (its files deleted)", got, base)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, 1001))
			vs, _ := tb.manifests.Versions(context.Background())
			if len(vs) != 3 {
				t.Fatalf("manifest versions %v, want [1 2 3] (no second commit of the same files)", vs)
			}
			if got, want := len(e.dataFiles(tb)), base+4; got != want {
				t.Fatalf("%d data files, want %d", got, want)
			}
			tb2 := e.open() // a second handle reads the store afresh
			exactlyOnce(t, e.snapshotIDs(tb2), rangeSet(0, 1001))
		})
	}
}

// TestBulkAbortDeletesFiles: an aborted load commits nothing and removes
// the files it already stored.
func TestBulkAbortDeletesFiles(t *testing.T) {
	e := newEnv(t)
	e.opts.FileRows = 100
	tb := e.create()
	b := bulkLoad(t, tb, 0, 1000, 50)
	time.Sleep(50 * time.Millisecond) // let the encoder store some files
	b.Abort()
	if f := e.dataFiles(tb); len(f) != 0 {
		t.Fatalf("files left after abort: %v", f)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set())
	if _, err := b.Commit(context.Background()); !errors.Is(err, ErrBulkDone) {
		t.Fatalf("commit after abort: %v", err)
	}
	if st := tb.BulkStats(); st.Aborted != 1 || st.Active != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestBulkCancelled: cancelling the load's context fails it; nothing is
// committed and no file stays.
func TestBulkCancelled(t *testing.T) {
	e := newEnv(t)
	e.opts.FileRows = 100
	tb := e.create()
	ctx, cancel := context.WithCancel(context.Background())
	b, err := tb.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := batch(tb, 1, 2, 3)
	_ = b.Write(r)
	r.Release()
	cancel()
	if _, err := b.Commit(ctx); err == nil {
		t.Fatal("cancelled load committed")
	}
	b.Abort()
	if f := e.dataFiles(tb); len(f) != 0 {
		t.Fatalf("files left: %v", f)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set())
}

// TestBulkConflictRetries: another handle commits between the load's head
// read and its create; the load retries on the new head and both survive.
func TestBulkConflictRetries(t *testing.T) {
	e := newEnv(t)
	tb := e.create()
	other := e.opts
	other.Store = e.local
	other.WALDir = e.walDir + "-other"
	tb2, err := Open(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	defer tb2.Abandon()
	var once sync.Once
	e.faulty.AddRule(objstore.HookAt(objstore.Before, keyHas("/_manifest/"), func(context.Context, objstore.Op, string) {
		once.Do(func() {
			if err := write(tb2, -1); err != nil {
				t.Error(err)
			}
			if err := tb2.Flush(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}, objstore.OpPutIfAbsent))
	b := bulkLoad(t, tb, 1, 501, 100)
	if _, err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := rangeSet(1, 501)
	want[-1] = true
	exactlyOnce(t, e.snapshotIDs(tb), want)
	if !strings.Contains(tb.Describe(), "conflicts=1") {
		t.Fatalf("no conflict recorded:\n%s", tb.Describe())
	}
}

// TestBulkReadersSeeAllOrNone: readers running through a large bulk load
// (many files) see either none of it or all of it, never a part.
func TestBulkReadersSeeAllOrNone(t *testing.T) {
	e := newEnv(t)
	e.opts.FileRows = 100
	tb := e.create()
	if err := write(tb, 0); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var partial, sawAll, sawNone atomic.Int64
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, err := tb.Snapshot(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				switch rows := s.Rows(); rows {
				case 1:
					sawNone.Add(1)
				case 1 + n:
					sawAll.Add(1)
				default:
					partial.Add(1)
					t.Errorf("reader saw %d rows: part of the bulk load", rows)
				}
				s.Release()
			}
		}()
	}
	// Readers also run while the manifest create is in flight.
	e.faulty.AddRule(objstore.HookAt(objstore.After, keyHas("/_manifest/"), func(context.Context, objstore.Op, string) {
		time.Sleep(20 * time.Millisecond)
	}, objstore.OpPutIfAbsent))
	b := bulkLoad(t, tb, 1, 1+n, 100)
	if _, err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Right after the commit, every reader sees it.
	if rows := e.snapshotIDs(tb); len(rows) != 1+n {
		t.Fatalf("after commit: %d rows", len(rows))
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	if partial.Load() > 0 || sawNone.Load() == 0 || sawAll.Load() == 0 {
		t.Fatalf("partial=%d none=%d all=%d", partial.Load(), sawNone.Load(), sawAll.Load())
	}
}

// TestBulkHeldRowsBounded: however long a load and however slow its
// encoder, the rows it holds in memory stay within the queue plus one row
// group — the producer blocks instead of buffering.
func TestBulkHeldRowsBounded(t *testing.T) {
	e := newEnv(t)
	e.opts.FileRows = 1000
	e.opts.RowGroupRows = 500
	tb := e.create()
	// A slow store: every data file takes 30 ms to land.
	e.faulty.AddRule(objstore.HookAt(objstore.Before, keyHas("/data/"), func(context.Context, objstore.Op, string) {
		time.Sleep(30 * time.Millisecond)
	}, objstore.OpPutFile))
	const per, total = 100, 20000
	b := bulkLoad(t, tb, 0, total, per)
	if _, err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Per encoder: its queue and its open row group; plus the batch the
	// producer is blocked on.
	bound := int64(len(b.encs))*(BulkQueueBatches*per+e.opts.RowGroupRows+per) + per
	if p := b.PeakHeldRows(); p > bound || p == 0 {
		t.Fatalf("peak held rows %d, want 1..%d for a %d-row load", p, bound, total)
	}
	if p := tb.BulkStats().PeakHeldRows; p != b.PeakHeldRows() {
		t.Fatalf("table peak %d != load peak %d", p, b.PeakHeldRows())
	}
	exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, total))
}
