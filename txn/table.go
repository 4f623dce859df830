package txn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/storage/vfs"
	"github.com/bsdb/bsdb-pg/wal"
)

// Defaults.
const (
	DefaultFlushBytes    = 256 << 20
	DefaultFlushInterval = 5 * time.Second
	DefaultRowGroupRows  = parquet.DefaultRowGroupRows // DuckDB-sized: the unit of pruning
	DefaultFileRows      = 8 << 20
	maxReadAttempts      = 8
	maxCommitAttempts    = 64
)

// ErrClosed is returned by operations on a closed table.
var ErrClosed = errors.New("txn: table is closed")

// Options configure a table handle.
type Options struct {
	Store  objstore.Store // where _manifest, data and metadata live
	Prefix string         // the table's key prefix in Store, e.g. "db/public/t"

	WALDir        string // directory of the table's WAL segments
	WALFS         vfs.FS // nil: the OS
	SyncBatchSize int    // async durability: sync every N batches
	SyncInterval  time.Duration
	CompactBytes  int64
	Preallocate   int64 // wal.Options.Preallocate: 0 default, < 0 off
	UnsafeNoSync  bool  // tests only

	// FlushBytes: a commit starts when the buffer holds this many bytes.
	FlushBytes int64
	// FlushInterval: a commit starts when the oldest buffered batch is this
	// old. Negative disables the age trigger (tests that flush by hand).
	FlushInterval time.Duration
	RowGroupRows  int64
	FileRows      int64 // rows per Parquet file, at most
	// RefreshInterval: how stale a snapshot may be about commits made by
	// OTHER processes on the same table (default 1s; negative: never list).
	RefreshInterval time.Duration

	// TxLog decides the table's multi-table transactions at recovery, and
	// learns when they are committed. Required for a table that takes part
	// in Coordinator commits; a table without it refuses to open a WAL
	// that holds multi-table transactions.
	TxLog *TxLog

	Logger *slog.Logger
	// OnFlushError is told about background flush failures (they are retried).
	OnFlushError func(error)
}

func (o *Options) fill() {
	if o.FlushBytes <= 0 {
		o.FlushBytes = DefaultFlushBytes
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.RowGroupRows <= 0 {
		o.RowGroupRows = DefaultRowGroupRows
	}
	if o.RefreshInterval == 0 {
		o.RefreshInterval = time.Second
	}
	if o.FileRows <= 0 {
		o.FileRows = DefaultFileRows
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Prefix = strings.Trim(o.Prefix, "/")
}

// Batch is one buffered Arrow record batch of one WAL transaction.
type Batch struct {
	ID   uint64 // unique per table handle, assigned at write
	TxID uuid.UUID
	Rec  arrow.RecordBatch
	// Ord is the batch's index among its transaction's batches (delete
	// records not counted): with TxID, a name that survives a restart.
	Ord int32
	// Del, when set, makes the batch a delete record: Rec has no rows and
	// Del names the rows its transaction deletes.
	Del *Deletes
}

// pendingWrites is the active buffer. Guarded by Table.pwMu.
type pendingWrites struct {
	batches []Batch
	bytes   int64
	oldest  time.Time // arrival of the oldest batch, zero when empty
}

// Table is an open table handle. Safe for concurrent use.
type Table struct {
	opts      Options
	schema    *schema.Schema
	arrow     *arrow.Schema
	wal       *wal.WAL
	manifests *manifest.Manager
	publisher *iceberg.Publisher
	// txids hands out the ids of this handle's WAL transactions (one
	// writer: consecutive ids, recorded as ranges by the manifest).
	txids *manifest.TxIDGen

	maint sync.RWMutex // maintenance lock: shared Write/Flush, exclusive Truncate/Close
	// stageMu: held shared by a write whose delete record names buffered
	// batches, from its check to its buffering; exclusively by staging.
	stageMu  sync.RWMutex
	commitMu sync.Mutex // one commit (or tail resumption) at a time

	// aborted: multi-table transactions in this table's WAL that never
	// committed (guarded by abortedMu); pruning treats them as done.
	abortedMu sync.Mutex
	aborted   map[uuid.UUID]struct{}

	epoch       atomic.Uint64
	nextID      atomic.Uint64
	lastRefresh atomic.Int64 // unix ns of the last listing snapshot
	closed      atomic.Bool
	flushCh     chan struct{}
	stopCh      chan struct{}
	doneCh      chan struct{}

	pcMu sync.Mutex // pending_commit; lock order: pcMu -> pwMu
	pc   *PendingCommit

	pwMu sync.RWMutex // pending_writes
	pw   pendingWrites

	dead deadIndex // delete.go

	mq struct { // small writes waiting to be merged (merge.go)
		mu sync.Mutex
		q  mergeQueue
	}

	drainMu sync.Mutex
	drained chan struct{} // closed (and replaced) after every commit

	subMu sync.Mutex
	subs  map[int]chan CommitEvent
	subID int

	// testAfterManifestLoad, set only by tests of this package, runs in
	// Snapshot between loading the manifest and taking the buffer locks.
	testAfterManifestLoad func()

	stats struct {
		commits      atomic.Int64
		restores     atomic.Int64
		conflicts    atomic.Int64
		converged    atomic.Int64
		flushErrors  atomic.Int64
		lastFlushErr atomic.Value // string
	}
	bulk bulkStats // bulk.go
}

// Create creates a new table (manifest v1 with the schema and no files) and
// opens it. It fails with manifest.ErrConflict if the table exists.
func Create(ctx context.Context, opts Options, sch *schema.Schema) (*Table, error) {
	opts.fill()
	s := sch.Clone()
	s.AssignIDs()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	mm := manifest.NewManager(opts.Store, opts.Prefix)
	m := &manifest.Manifest{
		FormatVersion: manifest.FormatVersion,
		TableUUID:     uuid.NewString(),
		Version:       1,
		TimestampMS:   time.Now().UnixMilli(),
		Schema:        *s,
	}
	if err := mm.Create(ctx, m); err != nil {
		return nil, fmt.Errorf("create table %s: %w", opts.Prefix, err)
	}
	pub := iceberg.NewPublisher(opts.Store, opts.Prefix)
	if _, err := pub.Publish(ctx, m); err != nil {
		// The manifest is the authority; metadata converges at the next commit.
		opts.Logger.Warn("create table: publishing Iceberg metadata failed", "table", opts.Prefix, "err", err)
	}
	return open(ctx, opts, mm, pub)
}

// Open opens an existing table and recovers its WAL: uncommitted transactions
// are replayed into the buffer (visible at once, committed by the next flush).
func Open(ctx context.Context, opts Options) (*Table, error) {
	opts.fill()
	return open(ctx, opts, manifest.NewManager(opts.Store, opts.Prefix), iceberg.NewPublisher(opts.Store, opts.Prefix))
}

func open(ctx context.Context, opts Options, mm *manifest.Manager, pub *iceberg.Publisher) (*Table, error) {
	head, err := mm.LoadLatest(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", opts.Prefix, err)
	}
	t := &Table{
		opts:      opts,
		schema:    head.Schema.Clone(),
		manifests: mm,
		publisher: pub,
		txids:     manifest.NewTxIDGen(),
		flushCh:   make(chan struct{}, 1),
		stopCh:    make(chan struct{}),
		doneCh:    make(chan struct{}),
		subs:      map[int]chan CommitEvent{},
		drained:   make(chan struct{}),
	}
	t.arrow = t.schema.Arrow()
	t.dead.reset()
	// Resume a tail cut short by a crash: a manifest committed whose Iceberg
	// metadata was never published. Without this the Iceberg head lags until
	// the next write commits, which may never come (ADR: recovery resumes the
	// tail). Publish is idempotent and only reads the head when it is current.
	if _, err := pub.Publish(ctx, head); err != nil {
		opts.Logger.Warn("open table: publishing Iceberg metadata failed; converges at the next commit", "table", opts.Prefix, "err", err)
	}
	committed := head.Committed()
	var undecided error
	skip := func(id uuid.UUID) bool {
		if committed.Has(id) {
			return true
		}
		if !manifest.IsMultiTx(id) {
			return false
		}
		if opts.TxLog == nil {
			if undecided == nil {
				undecided = fmt.Errorf("open table %s: its WAL holds multi-table transaction %s and no transaction log was given", opts.Prefix, id)
			}
			return false // kept on disk (a compaction keeps what is replayed)
		}
		if opts.TxLog.Committed(id) {
			return false
		}
		// Its commit record was never written: the transaction was never
		// acknowledged, and no other table of it is replayed either.
		t.markAborted(id)
		return true
	}
	w, recs, err := wal.Open(wal.Options{
		Dir:           opts.WALDir,
		FS:            opts.WALFS,
		Schema:        t.arrow,
		SyncBatchSize: opts.SyncBatchSize,
		SyncInterval:  opts.SyncInterval,
		CompactBytes:  opts.CompactBytes,
		Preallocate:   opts.Preallocate,
		UnsafeNoSync:  opts.UnsafeNoSync,
		Logger:        opts.Logger,
	}, skip)
	if err == nil && undecided != nil {
		w.Close()
		for i := range recs {
			recs[i].Release()
		}
		err = undecided
	}
	if err != nil {
		return nil, fmt.Errorf("open table %s: %w", opts.Prefix, err)
	}
	t.wal = w
	t.resolveLog(head)
	now := time.Now()
	if err := t.indexDeletes(ctx, head); err != nil {
		w.Close()
		for i := range recs {
			recs[i].Release()
		}
		return nil, fmt.Errorf("open table %s: %w", opts.Prefix, err)
	}
	rows := dataRows(head)
	// Batch ids first, over every recovered transaction: a delete record
	// names the buffered batches it deletes from by (WAL transaction,
	// index), and resolving that must not depend on the order the WAL
	// returns transactions in.
	ids := map[bufKey]uint64{}
	var recovered []Batch
	for _, r := range recs {
		t.repairRecovered(r.Batches)
		ord := int32(0)
		for i, b := range r.Batches {
			nb := Batch{ID: t.nextID.Add(1), TxID: r.TxID, Rec: b}
			if i >= len(r.Aux) || r.Aux[i] == nil {
				nb.Ord = ord
				ord++
				ids[bufKey{nb.TxID, nb.Ord}] = nb.ID
			}
			recovered = append(recovered, nb)
		}
	}
	k := 0
	for _, r := range recs {
		for i, b := range r.Batches {
			nb := recovered[k]
			k++
			if i < len(r.Aux) && r.Aux[i] != nil {
				d, err := decodeDeletes(r.Aux[i])
				if err != nil {
					w.Close()
					for i := range recs {
						recs[i].Release()
					}
					return nil, fmt.Errorf("open table %s: WAL transaction %s: %w", opts.Prefix, r.TxID, err)
				}
				// Rows of files removed since (a TRUNCATE) are gone anyway.
				keep := d.Files[:0]
				for _, f := range d.Files {
					if _, ok := rows[f.File]; ok {
						keep = append(keep, f)
					}
				}
				d.Files = keep
				// Its buffered batches are replayed with it (they commit
				// together); rows of a batch no longer in the log went with
				// it (a TRUNCATE).
				bk := d.Bufs[:0]
				for _, u := range d.Bufs {
					if id, ok := ids[bufKey{u.TxID, u.Ord}]; ok {
						u.BatchID = id
						bk = append(bk, u)
					}
				}
				d.Bufs = bk
				t.markDead(d, rows)
				nb.Del = d
			}
			t.pw.batches = append(t.pw.batches, nb)
			t.pw.bytes += recordBytes(b)
		}
	}
	if len(t.pw.batches) > 0 {
		t.pw.oldest = now
		opts.Logger.Info("recovered uncommitted WAL transactions", "table", opts.Prefix, "transactions", len(recs), "batches", len(t.pw.batches))
	}
	go t.flusher()
	return t, nil
}

// Schema returns the table's schema (do not modify).
func (t *Table) Schema() *schema.Schema { return t.schema }

// ArrowSchema returns the Arrow schema of the table's batches.
func (t *Table) ArrowSchema() *arrow.Schema { return t.arrow }

// Prefix returns the table's key prefix.
func (t *Table) Prefix() string { return t.opts.Prefix }

// Store returns the object store of the table.
func (t *Table) Store() objstore.Store { return t.opts.Store }

// WAL returns the table's WAL (for tests and diagnostics).
func (t *Table) WAL() *wal.WAL { return t.wal }

// Close stops the background flusher, commits what is buffered, and closes
// the WAL. Buffered data that cannot be committed stays durable in the WAL.
func (t *Table) Close(ctx context.Context) error {
	if t.closed.Swap(true) {
		return nil
	}
	close(t.stopCh)
	<-t.doneCh
	ferr := t.flush(ctx)
	t.maint.Lock()
	defer t.maint.Unlock()
	werr := t.wal.Close()
	t.releaseBuffers()
	return errors.Join(ferr, werr)
}

// Abandon closes the WAL without committing the buffer (the data stays in
// the WAL and is replayed by the next Open). For DROP TABLE and tests.
func (t *Table) Abandon() error {
	if t.closed.Swap(true) {
		return nil
	}
	close(t.stopCh)
	<-t.doneCh
	t.maint.Lock()
	defer t.maint.Unlock()
	err := t.wal.Close()
	t.releaseBuffers()
	return err
}

func (t *Table) releaseBuffers() {
	t.pcMu.Lock()
	t.pwMu.Lock()
	for _, b := range t.pw.batches {
		b.Rec.Release()
	}
	t.pw = pendingWrites{}
	if t.pc != nil {
		for _, b := range t.pc.Batches {
			b.Rec.Release()
		}
		t.pc.Batches = nil
	}
	t.pwMu.Unlock()
	t.pcMu.Unlock()
}

// flusher commits by age and by size in the background.
func (t *Table) flusher() {
	defer close(t.doneCh)
	interval := t.opts.FlushInterval
	tick := interval / 4
	if tick <= 0 || tick > time.Second {
		tick = time.Second
	}
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	timer := time.NewTicker(tick)
	defer timer.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-t.stopCh:
			return
		case <-t.flushCh:
		case <-timer.C:
			if interval < 0 {
				continue
			}
			t.pwMu.RLock()
			due := !t.pw.oldest.IsZero() && time.Since(t.pw.oldest) >= interval
			t.pwMu.RUnlock()
			t.pcMu.Lock()
			tail := t.pc != nil
			t.pcMu.Unlock()
			if !due && !tail {
				continue
			}
		}
		if backoff > 0 {
			select {
			case <-t.stopCh:
				return
			case <-time.After(backoff):
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		err := t.Flush(ctx)
		cancel()
		if err != nil && !errors.Is(err, ErrClosed) {
			t.stats.flushErrors.Add(1)
			t.stats.lastFlushErr.Store(err.Error())
			t.opts.Logger.Warn("background commit failed; will retry", "table", t.opts.Prefix, "err", err)
			if t.opts.OnFlushError != nil {
				t.opts.OnFlushError(err)
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), 10*time.Second)
		} else {
			backoff = 0
		}
	}
}

// requestFlush asks the flusher to commit soon (non-blocking).
func (t *Table) requestFlush() {
	select {
	case t.flushCh <- struct{}{}:
	default:
	}
}

func recordBytes(r arrow.RecordBatch) int64 { return RecordBytes(r) }

// RecordBytes is the size of a batch's buffers (what the buffer bound and
// the flush threshold count).
func RecordBytes(r arrow.RecordBatch) int64 {
	var n int64
	for _, c := range r.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}
