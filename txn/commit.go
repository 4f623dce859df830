package txn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// Phase is the phase of a PendingCommit.
type Phase uint8

// Phases, in order.
const (
	PhaseStaging Phase = iota + 1
	PhaseManifestCommitted
	PhaseIcebergPublished
)

func (p Phase) String() string {
	switch p {
	case PhaseStaging:
		return "Staging"
	case PhaseManifestCommitted:
		return "ManifestCommitted"
	case PhaseIcebergPublished:
		return "IcebergPublished"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// PendingCommit is the commit in flight. Guarded by Table.pcMu (fields are
// written by the committer holding commitMu and pcMu).
type PendingCommit struct {
	Phase   Phase
	Batches []Batch     // Staging: the staged batches, oldest first
	TxIDs   []uuid.UUID // tx ids of Batches, in order, deduplicated
	// Files written for this commit (keys relative to the table prefix).
	Files []manifest.DataFile
	// Deletes is the delete file written for the staged delete records.
	Deletes *manifest.DeleteFile
	// placed: where each staged batch's rows went (file, offset).
	placed       map[bufKey]batchPos
	filesWritten bool
	// Manifest is the committed manifest (phase >= ManifestCommitted).
	Manifest *manifest.Manifest
	// MetadataKey is the published Iceberg metadata (phase IcebergPublished).
	MetadataKey string
	// BatchIDs of the committed batches (for subscribers).
	BatchIDs []uint64
	notified bool
}

// CommitEvent tells subscribers that a commit finished.
type CommitEvent struct {
	ManifestVersion int64
	MetadataKey     string
	// BatchIDs are the buffered batches this commit moved into files (or, for
	// a truncate, discarded): no snapshot taken after the event holds them.
	BatchIDs []uint64
	Truncate bool
}

// Flush commits the buffer: everything acknowledged before the call is in a
// committed manifest when it returns nil.
func (t *Table) Flush(ctx context.Context) error {
	if t.closed.Load() {
		return ErrClosed
	}
	return t.flush(ctx)
}

func (t *Table) flush(ctx context.Context) error {
	t.maint.RLock()
	defer t.maint.RUnlock()
	t.commitMu.Lock()
	defer t.commitMu.Unlock()
	if err := t.finishTailLocked(ctx); err != nil {
		return err
	}
	// Rotate first: writers arriving from now on go to a fresh segment.
	if err := t.wal.Rotate(); err != nil {
		return fmt.Errorf("commit %s: rotate WAL: %w", t.opts.Prefix, err)
	}
	crash.Point(crash.CommitAfterRotate)
	if !t.beginStaging() {
		// Nothing buffered; still prune segments a recovery registered.
		return t.pruneWAL(nil)
	}
	if err := t.stageAndCommitManifest(ctx); err != nil {
		t.restoreStaging()
		t.stats.restores.Add(1)
		return err
	}
	return t.finishTailLocked(ctx)
}

// beginStaging moves the active buffer into a new PendingCommit{Staging}.
// It reports false (and leaves no PendingCommit) when the buffer is empty.
func (t *Table) beginStaging() bool {
	// A delete record naming buffered batches joins the buffer with them
	// (checkDeletable): never stage in between.
	t.stageMu.Lock()
	defer t.stageMu.Unlock()
	t.pcMu.Lock()
	defer t.pcMu.Unlock()
	t.pwMu.Lock()
	defer t.pwMu.Unlock()
	if len(t.pw.batches) == 0 {
		return false
	}
	pc := &PendingCommit{Phase: PhaseStaging, Batches: t.pw.batches}
	pc.TxIDs = txIDsOf(pc.Batches)
	t.pc = pc
	t.pw = pendingWrites{}
	return true
}

// restoreStaging puts the staged batches back AHEAD of newer writes.
func (t *Table) restoreStaging() {
	t.pcMu.Lock()
	defer t.pcMu.Unlock()
	if t.pc == nil || t.pc.Phase != PhaseStaging {
		return
	}
	t.pwMu.Lock()
	defer t.pwMu.Unlock()
	restored := make([]Batch, 0, len(t.pc.Batches)+len(t.pw.batches))
	restored = append(restored, t.pc.Batches...)
	restored = append(restored, t.pw.batches...)
	var n int64
	for _, b := range restored {
		n += recordBytes(b.Rec)
	}
	t.pw.batches = restored
	t.pw.bytes = n
	if t.pw.oldest.IsZero() {
		t.pw.oldest = time.Now()
	}
	t.pc = nil
}

// stageAndCommitManifest writes the Parquet files of the staged batches and
// creates the next manifest version. REQUIRES: commitMu held, t.pc Staging.
func (t *Table) stageAndCommitManifest(ctx context.Context) error {
	pc := t.pc // only this goroutine (holding commitMu) changes t.pc now
	var attempt int
	for {
		head, err := t.manifests.LoadLatest(ctx, true)
		if err != nil {
			return fmt.Errorf("commit %s: load manifest head: %w", t.opts.Prefix, err)
		}
		// Converge: drop batches whose transactions the durable head already
		// holds (an earlier create that returned an error but succeeded).
		if pending := t.dropCommitted(pc, head); !pending {
			t.stats.converged.Add(1)
			t.markManifestCommitted(head, pc)
			return nil
		}
		if !pc.filesWritten {
			files, placed, err := t.writeDataFiles(ctx, pc.Batches)
			if err != nil {
				return err
			}
			pc.Files, pc.placed = files, placed
			del, err := t.writeDeleteFile(ctx, head, pc.Batches, placed)
			if err != nil {
				t.deleteFiles(files)
				pc.Files = nil
				return err
			}
			pc.Deletes = del
			pc.filesWritten = true
			crash.Point(crash.CommitAfterParquet)
		}
		next := head.Next()
		next.TimestampMS = time.Now().UnixMilli()
		for i := range pc.Files {
			pc.Files[i].AddedVersion = next.Version
		}
		next.Files = append(append([]manifest.DataFile(nil), head.Files...), pc.Files...)
		if pc.Deletes != nil {
			if missing := missingData(pc.Deletes, head, pc.Files); missing {
				// Another process removed a file this delete names (a
				// TRUNCATE): the rows are gone; write it again without them.
				t.deleteDeleteFile(pc.Deletes)
				del, err := t.writeDeleteFile(ctx, head, pc.Batches, pc.placed)
				if err != nil {
					return err
				}
				pc.Deletes = del
			}
		}
		if pc.Deletes != nil {
			d := *pc.Deletes
			d.AddedVersion = next.Version
			next.Deletes = append(append([]manifest.DeleteFile(nil), head.Deletes...), d)
		}
		next.AddCommittedWALTx(pc.TxIDs...)
		err = t.manifests.Create(ctx, next)
		if err == nil {
			crash.Point(crash.CommitAfterManifest)
			t.markManifestCommitted(next, pc)
			t.stats.commits.Add(1)
			return nil
		}
		if !errors.Is(err, manifest.ErrConflict) {
			// Possibly ambiguous: the next attempt's convergence check decides.
			return fmt.Errorf("commit %s: create manifest v%d: %w", t.opts.Prefix, next.Version, err)
		}
		t.stats.conflicts.Add(1)
		attempt++
		if attempt >= maxCommitAttempts {
			return fmt.Errorf("commit %s: gave up after %d manifest conflicts: %w", t.opts.Prefix, attempt, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(2+rand.IntN(14)) * time.Millisecond):
		}
	}
}

// dropCommitted removes from pc the batches whose tx ids the head lists as
// committed, and reports whether any batch remains. Staged files written
// for the old batch set are abandoned (they are orphans no manifest names).
func (t *Table) dropCommitted(pc *PendingCommit, head *manifest.Manifest) bool {
	set := head.Committed()
	keep := pc.Batches[:0:0]
	for _, b := range pc.Batches {
		if !set.Has(b.TxID) {
			keep = append(keep, b)
		}
	}
	if len(keep) == len(pc.Batches) {
		return true
	}
	t.pcMu.Lock()
	for _, b := range pc.Batches {
		if set.Has(b.TxID) {
			pc.BatchIDs = append(pc.BatchIDs, b.ID)
			b.Rec.Release()
		}
	}
	pc.Batches = keep
	pc.TxIDs = txIDsOf(keep)
	if pc.filesWritten {
		t.deleteFiles(pc.Files)
		pc.Files, pc.placed = nil, nil
		if pc.Deletes != nil {
			t.deleteDeleteFile(pc.Deletes)
			pc.Deletes = nil
		}
		pc.filesWritten = false
	}
	t.pcMu.Unlock()
	return len(keep) > 0
}

func (t *Table) markManifestCommitted(m *manifest.Manifest, pc *PendingCommit) {
	t.resolveLog(m) // no I/O under pcMu (it may remove a log file)
	t.dead.mu.Lock()
	if pc.Deletes != nil {
		// Its positions are in the index already (claimed, or marked at
		// recovery).
		t.dead.loaded[pc.Deletes.Path] = true
	}
	t.dead.migrateLocked(pc.placed)
	t.dead.mu.Unlock()
	t.pcMu.Lock()
	pc.Phase = PhaseManifestCommitted
	pc.Manifest = m
	for _, b := range pc.Batches {
		pc.BatchIDs = append(pc.BatchIDs, b.ID)
		b.Rec.Release()
	}
	pc.Batches = nil
	t.epoch.Add(1)
	t.pcMu.Unlock()
}

// finishTailLocked drives a PendingCommit past ManifestCommitted to Idle.
// Idempotent; REQUIRES: commitMu held.
func (t *Table) finishTailLocked(ctx context.Context) error {
	pc := t.pc
	if pc == nil {
		return nil
	}
	if pc.Phase == PhaseStaging {
		return fmt.Errorf("BUG: txn: tail resumption found a commit in Staging")
	}
	if pc.Phase == PhaseManifestCommitted {
		key, err := t.publisher.Publish(ctx, pc.Manifest)
		if err != nil {
			return fmt.Errorf("commit %s: publish Iceberg metadata for manifest v%d: %w", t.opts.Prefix, pc.Manifest.Version, err)
		}
		t.pcMu.Lock()
		pc.MetadataKey = key
		pc.Phase = PhaseIcebergPublished
		t.pcMu.Unlock()
	}
	if err := t.pruneWAL(pc.Manifest); err != nil {
		return err
	}
	crash.Point(crash.CommitAfterPrune)
	if !pc.notified {
		pc.notified = true
		t.notify(CommitEvent{ManifestVersion: pc.Manifest.Version, MetadataKey: pc.MetadataKey, BatchIDs: pc.BatchIDs})
	}
	t.pcMu.Lock()
	t.pc = nil
	t.epoch.Add(1)
	t.pcMu.Unlock()
	t.signalDrained()
	return nil
}

// pruneWAL deletes sealed segments whose transactions are all committed.
func (t *Table) pruneWAL(m *manifest.Manifest) error {
	if m == nil {
		var err error
		m, err = t.manifests.LoadLatest(context.Background(), false)
		if err != nil {
			return err
		}
	}
	committed := m.Committed()
	done := func(id uuid.UUID) bool { return committed.Has(id) || t.isAborted(id) }
	if _, err := t.wal.Prune(done); err != nil {
		return fmt.Errorf("commit %s: prune WAL: %w", t.opts.Prefix, err)
	}
	return nil
}

// writeDataFiles writes the batches into Parquet files of at most FileRows
// rows and stores them under data/.
func (t *Table) writeDataFiles(ctx context.Context, batches []Batch) ([]manifest.DataFile, map[bufKey]batchPos, error) {
	var files []manifest.DataFile
	var group []arrow.RecordBatch
	var keys []bufKey
	var offs []int64
	placed := map[bufKey]batchPos{}
	var rows int64
	emit := func() error {
		if len(group) == 0 {
			return nil
		}
		f, err := t.writeDataFile(ctx, group)
		if err != nil {
			t.deleteFiles(files)
			return err
		}
		files = append(files, f)
		for i, k := range keys {
			placed[k] = batchPos{file: f.Path, off: offs[i]}
		}
		group, keys, offs, rows = nil, nil, nil, 0
		return nil
	}
	for _, b := range batches {
		if b.Del != nil {
			continue
		}
		group = append(group, b.Rec)
		keys = append(keys, bufKey{b.TxID, b.Ord})
		offs = append(offs, rows)
		rows += b.Rec.NumRows()
		if rows >= t.opts.FileRows {
			if err := emit(); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := emit(); err != nil {
		return nil, nil, err
	}
	return files, placed, nil
}

func (t *Table) writeDataFile(ctx context.Context, recs []arrow.RecordBatch) (manifest.DataFile, error) {
	key := "data/" + uuid.NewString() + ".parquet"
	tmpDir := t.opts.WALDir
	if tmpDir == "" {
		tmpDir = os.TempDir()
	}
	tmp, err := os.CreateTemp(tmpDir, ".stage-*.parquet")
	if err != nil {
		tmp, err = os.CreateTemp("", "bsdb-stage-*.parquet")
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("commit %s: stage file: %w", t.opts.Prefix, err)
		}
	}
	defer os.Remove(tmp.Name())
	df, err := parquet.WriteFile(vfs.NewWritebackWriter(tmp), t.schema, recs, parquet.WriteOptions{RowGroupRows: t.opts.RowGroupRows})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("commit %s: write parquet: %w", t.opts.Prefix, err)
	}
	if err := objstore.MoveFile(ctx, t.opts.Store, t.key(key), tmp.Name()); err != nil {
		return manifest.DataFile{}, fmt.Errorf("commit %s: store %s: %w", t.opts.Prefix, key, err)
	}
	df.Path = key
	return df, nil
}

func (t *Table) key(rel string) string {
	if t.opts.Prefix == "" {
		return rel
	}
	return t.opts.Prefix + "/" + rel
}

// deleteFiles removes staged files that no manifest references (best effort).
func (t *Table) deleteFiles(files []manifest.DataFile) {
	for _, f := range files {
		if err := t.opts.Store.Delete(context.Background(), t.key(f.Path)); err != nil {
			t.opts.Logger.Warn("could not delete orphaned data file", "file", f.Path, "err", err)
		}
	}
}

// deleteDeleteFile removes a staged delete file no manifest references.
func (t *Table) deleteDeleteFile(d *manifest.DeleteFile) {
	if err := t.opts.Store.Delete(context.Background(), t.key(d.Path)); err != nil {
		t.opts.Logger.Warn("could not delete orphaned delete file", "file", d.Path, "err", err)
	}
}

// missingData reports whether d names a data file neither head nor the
// commit's own files hold.
func missingData(d *manifest.DeleteFile, head *manifest.Manifest, own []manifest.DataFile) bool {
	rows := dataRows(head)
	for _, f := range own {
		rows[f.Path] = f.Rows
	}
	for _, f := range d.Data {
		if _, ok := rows[f]; !ok {
			return true
		}
	}
	return false
}

func txIDsOf(batches []Batch) []uuid.UUID {
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, b := range batches {
		if !seen[b.TxID] {
			seen[b.TxID] = true
			ids = append(ids, b.TxID)
		}
	}
	return ids
}

// Subscribe returns a channel told of every finished commit (buffered; a
// slow subscriber misses nothing up to 64 pending events, then blocks the
// committer's notification for that subscriber only until it reads) and a
// cancel function.
func (t *Table) Subscribe() (<-chan CommitEvent, func()) {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	ch := make(chan CommitEvent, 64)
	id := t.subID
	t.subID++
	t.subs[id] = ch
	return ch, func() {
		t.subMu.Lock()
		defer t.subMu.Unlock()
		if c, ok := t.subs[id]; ok {
			delete(t.subs, id)
			close(c)
		}
	}
}

func (t *Table) notify(ev CommitEvent) {
	t.subMu.Lock()
	defer t.subMu.Unlock()
	for _, ch := range t.subs {
		ch <- ev
	}
}

// Describe dumps the commit state for tests and diagnostics.
func (t *Table) Describe() string {
	var b strings.Builder
	t.pcMu.Lock()
	t.pwMu.RLock()
	fmt.Fprintf(&b, "table %s epoch=%d\n", t.opts.Prefix, t.epoch.Load())
	if t.pc == nil {
		b.WriteString("pending_commit: none\n")
	} else {
		fmt.Fprintf(&b, "pending_commit: phase=%s batches=%d txs=%d files=%d", t.pc.Phase, len(t.pc.Batches), len(t.pc.TxIDs), len(t.pc.Files))
		if t.pc.Manifest != nil {
			fmt.Fprintf(&b, " manifest=v%d", t.pc.Manifest.Version)
		}
		if t.pc.MetadataKey != "" {
			fmt.Fprintf(&b, " metadata=%s", filepath.Base(t.pc.MetadataKey))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "pending_writes: batches=%d bytes=%d\n", len(t.pw.batches), t.pw.bytes)
	t.pwMu.RUnlock()
	t.pcMu.Unlock()
	for _, s := range t.wal.Segments() {
		fmt.Fprintf(&b, "wal %s sealed=%v txs=%d untagged=%v size=%d\n", s.Name, s.Sealed, len(s.TxIDs), s.Untagged, s.Size)
	}
	fmt.Fprintf(&b, "stats: commits=%d restores=%d conflicts=%d converged=%d flush_errors=%d\n",
		t.stats.commits.Load(), t.stats.restores.Load(), t.stats.conflicts.Load(), t.stats.converged.Load(), t.stats.flushErrors.Load())
	return b.String()
}

// Phase returns the phase of the commit in flight, or 0 when idle.
func (t *Table) Phase() Phase {
	t.pcMu.Lock()
	defer t.pcMu.Unlock()
	if t.pc == nil {
		return 0
	}
	return t.pc.Phase
}

func isConflict(err error) bool { return errors.Is(err, manifest.ErrConflict) }
