package txn

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/storage/manifest"
)

// Snapshot is one consistent view of a table: the files of a committed
// manifest plus the buffered batches not in it. Every acknowledged write
// appears exactly once. Release it when done.
type Snapshot struct {
	Manifest *manifest.Manifest
	// Batches: staged batches (oldest first), then active ones.
	Batches []Batch
	// Deletes: the buffered delete records (Batch.Del set; their records
	// have no rows), in log order. The committed ones are the manifest's
	// delete files.
	Deletes []Batch
	Epoch   uint64
	// Attempts is how many tries the epoch check needed (1 = first).
	Attempts int
}

// Files returns the data files of the snapshot.
func (s *Snapshot) Files() []manifest.DataFile { return s.Manifest.Files }

// Rows returns the number of rows in the snapshot.
func (s *Snapshot) Rows() int64 {
	var n int64
	for _, f := range s.Manifest.Files {
		n += f.Rows
	}
	for _, b := range s.Batches {
		n += b.Rec.NumRows()
	}
	return n - s.DeletedRows()
}

// Release drops the snapshot's references to the buffered batches.
func (s *Snapshot) Release() {
	for _, b := range s.Batches {
		b.Rec.Release()
	}
	for _, b := range s.Deletes {
		b.Rec.Release()
	}
	s.Batches, s.Deletes = nil, nil
}

// DeletedRows is the number of rows the snapshot's deletes remove (each
// position is deleted once: a row cannot be deleted twice).
func (s *Snapshot) DeletedRows() int64 {
	var n int64
	for _, d := range s.Manifest.Deletes {
		n += d.Rows
	}
	for _, b := range s.Deletes {
		n += b.Del.Rows()
	}
	return n
}

// Snapshot takes a linearizable snapshot: it holds every write acknowledged
// before the call started.
func (t *Table) Snapshot(ctx context.Context) (*Snapshot, error) {
	if t.closed.Load() {
		return nil, ErrClosed
	}
	for attempt := 0; attempt < maxReadAttempts; attempt++ {
		e1 := t.epoch.Load()
		direct := attempt > 0 || t.refreshDue()
		m, err := t.manifests.LoadLatest(ctx, direct)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", t.opts.Prefix, err)
		}
		if t.testAfterManifestLoad != nil {
			t.testAfterManifestLoad()
		}
		var committedVer int64
		var batches []Batch
		t.pcMu.Lock()
		if t.pc != nil {
			if t.pc.Phase == PhaseStaging {
				batches = append(batches, t.pc.Batches...)
			} else {
				committedVer = t.pc.Manifest.Version
			}
		}
		t.pwMu.RLock()
		batches = append(batches, t.pw.batches...)
		for _, b := range batches {
			b.Rec.Retain()
		}
		t.pwMu.RUnlock()
		t.pcMu.Unlock()
		e2 := t.epoch.Load()
		if e1 != e2 || m.Version < committedVer {
			for _, b := range batches {
				b.Rec.Release()
			}
			continue
		}
		// A batch whose transaction the loaded manifest already holds is in
		// its files: leave it out (the window between the durable manifest
		// create and the phase change).
		if set := m.Committed(); !set.Empty() {
			keep := batches[:0]
			for _, b := range batches {
				if set.Has(b.TxID) {
					b.Rec.Release()
					continue
				}
				keep = append(keep, b)
			}
			batches = keep
		}
		var dels []Batch
		if hasDeletes(batches) {
			keep := batches[:0]
			for _, b := range batches {
				if b.Del != nil {
					dels = append(dels, b)
				} else {
					keep = append(keep, b)
				}
			}
			batches = keep
		}
		return &Snapshot{Manifest: m, Batches: batches, Deletes: dels, Epoch: e2, Attempts: attempt + 1}, nil
	}
	return nil, fmt.Errorf("snapshot %s: no consistent snapshot after %d attempts (commits too frequent)", t.opts.Prefix, maxReadAttempts)
}

func hasDeletes(bs []Batch) bool {
	for _, b := range bs {
		if b.Del != nil {
			return true
		}
	}
	return false
}

// refreshDue reports whether a snapshot should list the store for commits
// of other processes (bounded staleness for them; this process's own
// commits are always in the cache).
func (t *Table) refreshDue() bool {
	if t.opts.RefreshInterval < 0 {
		return false
	}
	now := time.Now().UnixNano()
	last := t.lastRefresh.Load()
	if now-last < int64(t.opts.RefreshInterval) {
		return false
	}
	return t.lastRefresh.CompareAndSwap(last, now)
}

// Truncate empties the table: a new manifest version with no files that
// marks every buffered transaction committed (so recovery never replays
// them). Exclusive with writes and commits.
func (t *Table) Truncate(ctx context.Context) error { return t.TruncateWith(ctx, nil) }

// TruncateWith empties the table and makes recs its rows, in one manifest
// commit: recs are written as data files first (before any lock), then
// one manifest version holds them and none of the old files. A crash
// before that manifest leaves the table as it was (the new files are
// orphans no manifest names), after it truncated with the rows; a reader
// sees the old rows or the new ones, never the table empty in between.
// (A transaction's TRUNCATE followed by writes to the table commits so.)
func (t *Table) TruncateWith(ctx context.Context, recs []arrow.RecordBatch) error {
	var files []manifest.DataFile
	if len(recs) > 0 {
		bs := make([]Batch, len(recs))
		for i, r := range recs {
			if !r.Schema().Equal(t.arrow) {
				return fmt.Errorf("txn: truncate %s: batch schema %s does not match table schema %s", t.opts.Prefix, r.Schema(), t.arrow)
			}
			bs[i] = Batch{Rec: r}
		}
		var err error
		if files, _, err = t.writeDataFiles(ctx, bs); err != nil {
			return err
		}
	}
	// The new files are deleted unless a manifest may name them: after
	// an error of a create other than a conflict (possibly ambiguous) they
	// stay.
	keep := false
	defer func() {
		if !keep {
			t.deleteFiles(files)
		}
	}()
	t.maint.Lock()
	defer t.maint.Unlock()
	if t.closed.Load() {
		return ErrClosed
	}
	t.commitMu.Lock()
	defer t.commitMu.Unlock()
	if err := t.finishTailLocked(ctx); err != nil {
		return err
	}
	if err := t.wal.Rotate(); err != nil {
		return fmt.Errorf("truncate %s: rotate WAL: %w", t.opts.Prefix, err)
	}
	// No writer runs (maint held exclusively): the buffer is stable.
	t.pwMu.RLock()
	batches := append([]Batch(nil), t.pw.batches...)
	t.pwMu.RUnlock()
	ids := txIDsOf(batches)
	var next *manifest.Manifest
	for attempt := 0; ; attempt++ {
		head, err := t.manifests.LoadLatest(ctx, true)
		if err != nil {
			return fmt.Errorf("truncate %s: %w", t.opts.Prefix, err)
		}
		next = head.Next()
		next.Files, next.Deletes = nil, nil
		if len(files) > 0 {
			next.TimestampMS = time.Now().UnixMilli()
			for i := range files {
				files[i].AddedVersion = next.Version
			}
			next.Files = files
		}
		next.AddCommittedWALTx(ids...)
		err = t.manifests.Create(ctx, next)
		if err == nil {
			keep = true
			t.resolveLog(next)
			break
		}
		if !isConflict(err) {
			keep = true
			return fmt.Errorf("truncate %s: %w", t.opts.Prefix, err)
		}
		if attempt >= maxCommitAttempts {
			return fmt.Errorf("truncate %s: %w", t.opts.Prefix, err)
		}
	}
	bids := make([]uint64, len(batches))
	t.pcMu.Lock()
	t.pwMu.Lock()
	for i, b := range t.pw.batches {
		bids[i] = b.ID
		b.Rec.Release()
	}
	t.pw = pendingWrites{}
	t.epoch.Add(1)
	t.pwMu.Unlock()
	t.pcMu.Unlock()
	t.dead.mu.Lock()
	t.dead.reset()
	t.dead.mu.Unlock()
	key, err := t.publisher.Publish(ctx, next)
	if err != nil {
		t.opts.Logger.Warn("truncate: Iceberg publish failed; converges at the next commit", "table", t.opts.Prefix, "err", err)
	}
	if err := t.pruneWAL(next); err != nil {
		return err
	}
	t.notify(CommitEvent{ManifestVersion: next.Version, MetadataKey: key, BatchIDs: bids, Truncate: true})
	return nil
}
