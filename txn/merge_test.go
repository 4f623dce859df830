package txn

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bsdb/bsdb-pg/storage/vfs"
	"github.com/bsdb/bsdb-pg/wal"
)

// mergedWrite writes one row with Merge.
func mergedWrite(tb *Table, id int64, d wal.Durability) (WriteResult, error) {
	r := batch(tb, id)
	defer r.Release()
	return tb.Write(context.Background(), []arrow.RecordBatch{r}, WriteOptions{Durability: d, Merge: true})
}

// TestMergedWrites: concurrent single-row writes with Merge are
// acknowledged each once their group is durable, every row is visible
// exactly once at once and after a restart, and the writes did share WAL
// transactions (fewer appends than writes: the point of merging).
func TestMergedWrites(t *testing.T) {
	for _, d := range []wal.Durability{wal.DurabilitySync, wal.DurabilityAsync} {
		t.Run(d.String(), func(t *testing.T) {
			e := newEnv(t)
			tb := e.create()
			const writers, each = 32, 40
			var wg sync.WaitGroup
			var acked atomic.Int64
			errc := make(chan error, writers)
			for g := 0; g < writers; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						id := int64(g*each + i)
						res, err := mergedWrite(tb, id, d)
						if err != nil {
							errc <- err
							return
						}
						if res.Rows != 1 || res.Batches != nil {
							errc <- errors.New("merged result: want Rows 1 and no Batches")
							return
						}
						acked.Add(1)
						// Visible once acknowledged (to every reader).
						s, err := tb.Snapshot(context.Background())
						if err != nil {
							errc <- err
							return
						}
						found := false
						for _, b := range s.Batches {
							col := b.Rec.Column(0).(*array.Int64)
							for j := 0; j < col.Len(); j++ {
								if col.Value(j) == id {
									found = true
								}
							}
						}
						s.Release()
						if !found {
							errc <- errors.New("an acknowledged row is not in the next snapshot")
							return
						}
					}
				}(g)
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
			exactlyOnce(t, e.snapshotIDs(tb), rangeSet(0, writers*each))
			st := tb.WAL().Stats()
			t.Logf("%d writes in %d WAL appends", writers*each, st.Appends)
			// With sync durability a group forms during every fdatasync; async
			// appends are too short to be sure of an overlap (logged only).
			if d == wal.DurabilitySync && st.Appends >= writers*each {
				t.Errorf("%d WAL appends for %d concurrent writes: nothing was merged", st.Appends, writers*each)
			}
			if d == wal.DurabilityAsync {
				if err := tb.WAL().Sync(); err != nil {
					t.Fatal(err)
				}
			}
			_ = tb.Abandon() // the rows stay in the WAL only
			exactlyOnce(t, e.snapshotIDs(e.open()), rangeSet(0, writers*each))
		})
	}
}

// TestMergedWriteFailureFailsTheGroup: when the group's fdatasync fails,
// every write of the group gets the error and none is visible; the table
// goes on (a new segment) and later merged writes succeed.
func TestMergedWriteFailureFailsTheGroup(t *testing.T) {
	e := newEnv(t)
	var failSync atomic.Bool
	e.opts.WALFS = vfs.NewFaulty(vfs.Default, func(op vfs.Op, path string) error {
		if op == vfs.OpSyncData && failSync.Load() {
			return errors.New("injected fdatasync failure")
		}
		return nil
	})
	tb := e.create()
	if _, err := mergedWrite(tb, 1000, wal.DurabilitySync); err != nil {
		t.Fatal(err)
	}
	failSync.Store(true)
	const writers = 16
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			if _, err := mergedWrite(tb, int64(g), wal.DurabilitySync); err != nil {
				failed.Add(1)
			}
		}(g)
	}
	wg.Wait()
	if failed.Load() != writers {
		t.Fatalf("%d of %d writes failed with every fdatasync failing", failed.Load(), writers)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set(1000))
	failSync.Store(false)
	if _, err := mergedWrite(tb, 1001, wal.DurabilitySync); err != nil {
		t.Fatalf("write after the failure: %v", err)
	}
	exactlyOnce(t, e.snapshotIDs(tb), set(1000, 1001))
}
