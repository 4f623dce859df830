package txn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// BulkQueueBatches is how many batches a bulk load queues between its
// producer and each encoder: the producer blocks when the encoder lags, so
// the rows a bulk load holds in memory stay bounded (see BulkLoad).
const BulkQueueBatches = 4

// bulkChunkRows bounds the rows a bulk load sends to one encoder before
// moving to the next (RowGroupRows when smaller); each chunk is one row
// group of that encoder's file.
const bulkChunkRows = 256 << 10

// maxBulkEncoders bounds the encoder goroutines of one bulk load.
const maxBulkEncoders = 4

// bulkZstdLevel is the zstd level of a bulk load's files: the fastest,
// because encoding is a COPY's bottleneck (measured on the events table,
// storage/parquet BenchmarkWriteEvents: ~30% less CPU than the default level
// for ~4% larger files).
const bulkZstdLevel = 1

// maxBulkCreateFailures bounds the retries of a manifest create that failed
// with an error other than a conflict.
const maxBulkCreateFailures = 3

// ErrBulkDone is returned by Write after Commit or Abort.
var ErrBulkDone = errors.New("txn: bulk load already finished")

// BulkLoad is one large write that bypasses the WAL and the buffer: its
// batches stream into Parquet data files of the table, written by encoder
// goroutines while the producer (a COPY) still parses, and Commit adds
// them all in ONE manifest commit. All rows or none: a failed or aborted bulk
// load deletes its files and commits nothing. It is durable when Commit
// returns: the files and the manifest are durable in the object store (the
// table itself is the log, as for PostgreSQL's bulk loads under
// wal_level=minimal). Readers see none of it before the manifest commit and
// all of it after.
//
// Parallelism: bulkEncoders encoders (one per core, at most 4), each
// writing its own files. The producer hands each encoder a chunk of
// bulkChunkRows consecutive rows in turn, and each chunk becomes one row
// group of that encoder's file: row groups hold rows that arrived together
// (tight min/max statistics for pruning) while every encoder works.
//
// Memory: each encoder has a queue of BulkQueueBatches batches, one batch
// being encoded and one open row group (at most bulkChunkRows rows, held
// encoded) — independent of the size of the load. HeldRows reports the rows
// in the queues plus the open row groups.
//
// Write, Commit and Abort are called by one producer goroutine.
type BulkLoad struct {
	t   *Table
	id  uuid.UUID
	ctx context.Context

	encs      []*bulkEncoder
	cur       int   // encoder of the current chunk
	chunkRows int64 // rows sent in the current chunk
	chunk     int64 // rows per chunk
	finished  bool  // Commit or Abort called (producer side)

	// Set after every encoder exited (wait).
	err   error
	files []manifest.DataFile
	rows  int64

	blocked time.Duration // producer time spent waiting for a full queue

	queued atomic.Int64 // rows sent to encoders and not yet in a file writer
	peak   atomic.Int64 // highest queued + open row group rows seen
}

// bulkEncoder is one encoder goroutine and the files it writes.
type bulkEncoder struct {
	b        *BulkLoad
	in       chan bulkItem
	done     chan struct{} // closed when the goroutine has exited
	buffered atomic.Int64  // rows of its open row group
	idle     time.Duration // time spent waiting for input (read after done)
	// Written by the goroutine, read after done is closed.
	err   error
	files []manifest.DataFile
	rows  int64
}

type bulkItem struct {
	rec      arrow.RecordBatch
	newGroup bool // first batch of a chunk: start a row group
}

// bulkStats are the table's bulk-load counters (Table.BulkStats).
type bulkStats struct {
	loads, committed, aborted, rows atomic.Int64
	peakHeldRows                    atomic.Int64
	active                          atomic.Int64
}

// BulkStats describes the bulk loads of a table handle.
type BulkStats struct {
	Loads, Committed, Aborted, Active int64
	// Rows committed by bulk loads.
	Rows int64
	// PeakHeldRows is the most rows any bulk load of this handle held in
	// memory at once (queued for the encoder plus the open row group).
	PeakHeldRows int64
}

// BulkStats returns the handle's bulk-load counters.
func (t *Table) BulkStats() BulkStats {
	return BulkStats{
		Loads: t.bulk.loads.Load(), Committed: t.bulk.committed.Load(), Aborted: t.bulk.aborted.Load(),
		Active: t.bulk.active.Load(), Rows: t.bulk.rows.Load(), PeakHeldRows: t.bulk.peakHeldRows.Load(),
	}
}

// BeginBulk starts a bulk load. ctx bounds the whole load (its file writes
// and its commit); cancelling it fails the load. The caller must end it
// with Commit or Abort.
func (t *Table) BeginBulk(ctx context.Context) (*BulkLoad, error) {
	if t.closed.Load() {
		return nil, ErrClosed
	}
	b := &BulkLoad{t: t, id: t.txids.New(), ctx: ctx, chunk: min(t.opts.RowGroupRows, bulkChunkRows)}
	n := max(1, min(runtime.GOMAXPROCS(0), maxBulkEncoders))
	for range n {
		e := &bulkEncoder{b: b, in: make(chan bulkItem, BulkQueueBatches), done: make(chan struct{})}
		b.encs = append(b.encs, e)
		go e.run()
	}
	t.bulk.loads.Add(1)
	t.bulk.active.Add(1)
	return b, nil
}

// ID is the bulk load's id, recorded in the manifest's committed_wal by
// its commit (so that a retried commit converges instead of adding the
// files twice).
func (b *BulkLoad) ID() uuid.UUID { return b.id }

// HeldRows returns the rows currently queued for or inside the encoders'
// open row groups.
func (b *BulkLoad) HeldRows() int64 {
	n := b.queued.Load()
	for _, e := range b.encs {
		n += e.buffered.Load()
	}
	return n
}

// PeakHeldRows returns the most rows the load held in memory at once.
func (b *BulkLoad) PeakHeldRows() int64 { return b.peak.Load() }

func (b *BulkLoad) notePeak() {
	if h := b.HeldRows(); h > b.peak.Load() {
		b.peak.Store(h) // racy max between encoders: may understate by one update
	}
}

// Write hands rec to an encoder (Write retains it; the caller keeps its
// reference). It blocks while that encoder's queue is full. An error means
// the load failed: call Abort.
func (b *BulkLoad) Write(rec arrow.RecordBatch) error {
	if b.finished {
		return ErrBulkDone
	}
	if !rec.Schema().Equal(b.t.arrow) {
		return fmt.Errorf("txn: bulk load into %s: batch schema %s does not match table schema %s", b.t.opts.Prefix, rec.Schema(), b.t.arrow)
	}
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	newGroup := false
	if b.chunkRows >= b.chunk {
		b.cur = (b.cur + 1) % len(b.encs)
		b.chunkRows = 0
		newGroup = true
	}
	b.chunkRows += n
	e := b.encs[b.cur]
	rec.Retain()
	b.queued.Add(n)
	it := bulkItem{rec: rec, newGroup: newGroup}
	select {
	case e.in <- it: // room in the queue: no wait
		return nil
	default:
	}
	t0 := time.Now()
	defer func() { b.blocked += time.Since(t0) }()
	select {
	case e.in <- it:
		return nil
	case <-e.done:
		rec.Release()
		b.queued.Add(-n)
		return e.err
	case <-b.ctx.Done():
		rec.Release()
		b.queued.Add(-n)
		return b.ctx.Err()
	}
}

// run is an encoder goroutine: it writes its queued batches into Parquet
// files of at most FileRows rows, staged in a local temporary file and
// stored under data/ when full. After an error it only drains.
func (e *bulkEncoder) run() {
	defer close(e.done)
	b := e.b
	t := b.t
	var (
		w   *parquet.Writer
		tmp *os.File
	)
	finishFile := func() error {
		df, err := w.Close()
		w = nil
		e.buffered.Store(0)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		name := tmp.Name()
		tmp = nil
		defer os.Remove(name)
		if err != nil {
			return fmt.Errorf("bulk load into %s: write parquet: %w", t.opts.Prefix, err)
		}
		key := "data/" + uuid.NewString() + ".parquet"
		if err := objstore.MoveFile(b.ctx, t.opts.Store, t.key(key), name); err != nil {
			// The store may hold it anyway (ambiguous): delete it with the rest.
			e.files = append(e.files, manifest.DataFile{Path: key})
			return fmt.Errorf("bulk load into %s: store %s: %w", t.opts.Prefix, key, err)
		}
		df.Path = key
		e.files = append(e.files, df)
		return nil
	}
	for {
		t0 := time.Now()
		it, ok := <-e.in
		e.idle += time.Since(t0)
		if !ok {
			break
		}
		n := it.rec.NumRows()
		if e.err == nil {
			e.err = e.write(&w, &tmp, it)
			if e.err == nil {
				e.rows += n
				// The batch is in the writer's open row group now, not queued.
				e.buffered.Store(w.BufferedRows())
				b.queued.Add(-n)
				b.notePeak()
				if w.Rows() >= t.opts.FileRows {
					e.err = finishFile()
				}
			} else {
				b.queued.Add(-n)
			}
		} else {
			b.queued.Add(-n)
		}
		it.rec.Release()
	}
	if e.err == nil && w != nil {
		e.err = finishFile()
	}
	if w != nil {
		w.Abort()
	}
	if tmp != nil {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	e.buffered.Store(0)
}

func (e *bulkEncoder) write(w **parquet.Writer, tmp **os.File, it bulkItem) error {
	t := e.b.t
	if err := e.b.ctx.Err(); err != nil {
		return err
	}
	if *w == nil {
		dir := t.opts.WALDir
		if dir == "" {
			dir = os.TempDir()
		}
		f, err := os.CreateTemp(dir, ".bulk-*.parquet")
		if err != nil {
			if f, err = os.CreateTemp("", "bsdb-bulk-*.parquet"); err != nil {
				return fmt.Errorf("bulk load into %s: stage file: %w", t.opts.Prefix, err)
			}
		}
		// Row groups end where chunks end (EndRowGroup): a chunk is whole
		// batches, so it may pass b.chunk by less than a batch; the
		// writer's own limit only guards against a runaway group.
		pw, err := parquet.NewWriter(vfs.NewWritebackWriter(f), t.schema, parquet.WriteOptions{RowGroupRows: 2 * e.b.chunk, CompressionLevel: bulkZstdLevel})
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
		*w, *tmp = pw, f
	} else if it.newGroup {
		if err := (*w).EndRowGroup(); err != nil {
			return fmt.Errorf("bulk load into %s: %w", t.opts.Prefix, err)
		}
	}
	if err := (*w).Write(it.rec); err != nil {
		return fmt.Errorf("bulk load into %s: %w", t.opts.Prefix, err)
	}
	return nil
}

// wait ends the input and waits for every encoder, collecting their
// files and the first error.
func (b *BulkLoad) wait() {
	if b.finished {
		return
	}
	b.finished = true
	for _, e := range b.encs {
		close(e.in)
	}
	for _, e := range b.encs {
		<-e.done
		if e.err != nil && b.err == nil {
			b.err = e.err
		}
		b.files = append(b.files, e.files...)
		b.rows += e.rows
	}
	if p := b.peak.Load(); p > b.t.bulk.peakHeldRows.Load() {
		b.t.bulk.peakHeldRows.Store(p) // one producer per load; a lost race only understates a peak of another load
	}
}

func (b *BulkLoad) encoderIdle() []time.Duration {
	out := make([]time.Duration, len(b.encs))
	for i, e := range b.encs {
		out[i] = e.idle.Round(time.Millisecond)
	}
	return out
}

// Abort ends a bulk load without committing: its files are deleted. Safe
// after Commit (no-op) and idempotent.
func (b *BulkLoad) Abort() {
	if b.finished {
		return
	}
	b.wait()
	b.t.deleteFiles(b.files)
	b.files = nil
	b.t.bulk.aborted.Add(1)
	b.t.bulk.active.Add(-1)
}

// Commit waits for the encoders and adds every file of the load to the table
// in one manifest commit, serialized with flushes (commitMu, after maint
// shared: the lock order of a flush). It returns the number of rows once the
// manifest is durable; the COPY may be acknowledged then. The Iceberg
// snapshot is published after it, as a flush's tail (a failure there is
// retried by the next flush, like a flush's). On error nothing is committed
// and the files are deleted — except when the outcome of a manifest create
// stayed ambiguous (the store failed and could not be re-read): then the
// files are left in place (at worst orphans, never a manifest naming a
// deleted file) and the error says so.
func (b *BulkLoad) Commit(ctx context.Context) (rows int64, err error) {
	if b.finished {
		return 0, ErrBulkDone
	}
	t := b.t
	t0 := time.Now()
	b.wait()
	tWait := time.Since(t0)
	defer t.bulk.active.Add(-1)
	keepFiles := false
	defer func() {
		if err != nil {
			t.bulk.aborted.Add(1)
			if !keepFiles {
				t.deleteFiles(b.files)
			}
			b.files = nil
		}
	}()
	if b.err != nil {
		return 0, b.err
	}
	if len(b.files) == 0 {
		t.bulk.committed.Add(1)
		return 0, nil
	}
	crash.Point(crash.CommitAfterParquet)
	t.maint.RLock()
	defer t.maint.RUnlock()
	if t.closed.Load() {
		return 0, ErrClosed
	}
	t.commitMu.Lock()
	defer t.commitMu.Unlock()
	// A tail an earlier flush left behind goes first (one commit in flight).
	if err := t.finishTailLocked(ctx); err != nil {
		return 0, err
	}
	m, ambiguous, err := b.commitManifestLocked(ctx)
	if err != nil {
		keepFiles = ambiguous
		return 0, err
	}
	crash.Point(crash.CommitAfterManifest)
	t.pcMu.Lock()
	t.pc = &PendingCommit{Phase: PhaseManifestCommitted, Manifest: m, TxIDs: []uuid.UUID{b.id}, Files: b.files}
	t.epoch.Add(1)
	t.pcMu.Unlock()
	t.stats.commits.Add(1)
	t.bulk.committed.Add(1)
	t.bulk.rows.Add(b.rows)
	tManifest := time.Since(t0)
	// Durable from here: a failing tail is the flusher's to resume.
	if terr := t.finishTailLocked(ctx); terr != nil {
		t.opts.Logger.Warn("bulk load committed; publishing its Iceberg snapshot failed (the next commit resumes it)", "table", t.opts.Prefix, "err", terr)
	}
	t.opts.Logger.Debug("bulk load committed", "table", t.opts.Prefix, "rows", b.rows, "files", len(b.files),
		"manifest", m.Version, "encoders_wait", tWait, "manifest_durable", tManifest, "total", time.Since(t0), "peak_held_rows", b.peak.Load(),
		"producer_blocked", b.blocked, "encoder_idle", b.encoderIdle())
	return b.rows, nil
}

// commitManifestLocked creates the manifest version that adds the load's
// files, retrying conflicts against the new head like a flush. ambiguous
// reports that a create may have succeeded without it being confirmed.
// REQUIRES: commitMu held.
func (b *BulkLoad) commitManifestLocked(ctx context.Context) (m *manifest.Manifest, ambiguous bool, err error) {
	t := b.t
	var conflicts, failures int
	var lastErr error
	for {
		head, err := t.manifests.LoadLatest(ctx, true)
		if err != nil {
			return nil, ambiguous, fmt.Errorf("bulk load into %s: load manifest head: %w", t.opts.Prefix, err)
		}
		if head.Committed().Has(b.id) {
			// An earlier create of ours that reported an error succeeded.
			t.stats.converged.Add(1)
			return head, false, nil
		}
		// Not on the head, and the head is newer than any create we tried:
		// nothing of ours is committed (manifests are never rewritten).
		ambiguous = false
		if failures >= maxBulkCreateFailures {
			return nil, false, fmt.Errorf("bulk load into %s: create manifest: %w", t.opts.Prefix, lastErr)
		}
		next := head.Next()
		next.TimestampMS = time.Now().UnixMilli()
		files := make([]manifest.DataFile, len(b.files))
		copy(files, b.files)
		for i := range files {
			files[i].AddedVersion = next.Version
		}
		next.Files = append(append([]manifest.DataFile(nil), head.Files...), files...)
		next.AddCommittedWALTx(b.id)
		err = t.manifests.Create(ctx, next)
		if err == nil {
			b.files = files
			return next, false, nil
		}
		if errors.Is(err, manifest.ErrConflict) {
			t.stats.conflicts.Add(1)
			conflicts++
			if conflicts >= maxCommitAttempts {
				return nil, false, fmt.Errorf("bulk load into %s: gave up after %d manifest conflicts: %w", t.opts.Prefix, conflicts, err)
			}
		} else {
			// Possibly ambiguous: the next head read decides.
			ambiguous = true
			failures++
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return nil, ambiguous, ctx.Err()
		case <-time.After(time.Duration(2+rand.IntN(14)) * time.Millisecond):
		}
	}
}
