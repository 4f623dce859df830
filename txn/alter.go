package txn

import (
	"context"
	"fmt"
	"time"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Alter is a schema change (ALTER TABLE): it computes the new schema from
// the committed head, which holds every row of the table (nothing is
// buffered and no write runs while it is called; it may read the table).
// It runs once per commit attempt (another process may have changed the
// head in between) and must not modify head. New columns take ids above
// every id ever used (schema.Schema.AddColumn).
type Alter func(head *manifest.Manifest) (*schema.Schema, error)

// Alter changes the table's schema: it commits everything buffered (in
// the old schema), then one manifest version with the new schema. Files
// written before keep their field ids: a column keeps its id across a
// rename, a dropped column's data stays in old files unread, an added
// column is absent in them (read as its initial default). Readers of
// files of several schema versions map columns by field id
// (schema.Schema.Version > 0).
//
// The handle is retired when Alter returns, with or without an error
// (later calls get ErrClosed): writes in the new schema go through a
// newly opened handle, whose WAL has the new schema. Committing the WAL's
// contents first, with no write running, means no WAL segment written in
// the old schema holds an uncommitted transaction: recovery never replays
// a record into the wrong schema.
func (t *Table) Alter(ctx context.Context, fn Alter) (*manifest.Manifest, error) {
	if t.closed.Load() {
		return nil, ErrClosed
	}
	m, err := t.alter(ctx, fn)
	// Retire the handle (unless Close did meanwhile).
	if t.closed.CompareAndSwap(false, true) {
		close(t.stopCh)
		<-t.doneCh
		t.maint.Lock()
		_ = t.wal.Close()
		t.releaseBuffers()
		t.maint.Unlock()
	}
	return m, err
}

func (t *Table) alter(ctx context.Context, fn Alter) (*manifest.Manifest, error) {
	if err := t.flush(ctx); err != nil {
		return nil, fmt.Errorf("alter %s: commit the buffer: %w", t.opts.Prefix, err)
	}
	t.maint.Lock()
	defer t.maint.Unlock()
	if t.closed.Load() {
		return nil, ErrClosed
	}
	t.commitMu.Lock()
	defer t.commitMu.Unlock()
	if err := t.finishTailLocked(ctx); err != nil {
		return nil, err
	}
	// Writes that arrived between the flush and maint: commit them too.
	if err := t.wal.Rotate(); err != nil {
		return nil, fmt.Errorf("alter %s: rotate WAL: %w", t.opts.Prefix, err)
	}
	if t.beginStaging() {
		if err := t.stageAndCommitManifest(ctx); err != nil {
			t.restoreStaging()
			return nil, fmt.Errorf("alter %s: commit the buffer: %w", t.opts.Prefix, err)
		}
		if err := t.finishTailLocked(ctx); err != nil {
			return nil, err
		}
	}
	// From here until the handle is retired no write runs (maint).
	for attempt := 0; ; attempt++ {
		head, err := t.manifests.LoadLatest(ctx, true)
		if err != nil {
			return nil, fmt.Errorf("alter %s: %w", t.opts.Prefix, err)
		}
		sch, err := fn(head)
		if err != nil {
			return nil, err
		}
		sch.Version = head.Schema.Version + 1
		if sch.LastColumnID < head.Schema.MaxColumnID() {
			sch.LastColumnID = head.Schema.MaxColumnID()
		}
		if err := sch.Validate(); err != nil {
			return nil, fmt.Errorf("alter %s: %w", t.opts.Prefix, err)
		}
		next := head.Next()
		next.TimestampMS = time.Now().UnixMilli()
		next.Schema = *sch
		err = t.manifests.Create(ctx, next)
		if err == nil {
			crash.Point(crash.AlterAfterManifest)
			if _, err := t.publisher.Publish(ctx, next); err != nil {
				t.opts.Logger.Warn("alter: Iceberg publish failed; converges at the next commit", "table", t.opts.Prefix, "err", err)
			}
			if err := t.pruneWAL(next); err != nil {
				t.opts.Logger.Warn("alter: pruning the WAL failed", "table", t.opts.Prefix, "err", err)
			}
			return next, nil
		}
		if !isConflict(err) {
			return nil, fmt.Errorf("alter %s: %w", t.opts.Prefix, err)
		}
		if attempt >= maxCommitAttempts {
			return nil, fmt.Errorf("alter %s: %w", t.opts.Prefix, err)
		}
	}
}

// KnownSchemaVersion is the schema version of the newest manifest this
// handle has seen (no I/O): above Schema().Version once another process's
// ALTER was seen by a snapshot.
func (t *Table) KnownSchemaVersion() int {
	if m := t.manifests.Cached(); m != nil {
		return m.Schema.Version
	}
	return t.schema.Version
}
