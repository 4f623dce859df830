package planner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
	"github.com/bsdb/bsdb-pg/wal"
)

// batchColumn is the mirror's extra column holding the batch id.
const batchColumn = "__bsdb_batch"

// Table is an open table: its txn handle and its DuckDB mirror.
type Table struct {
	ID     catalog.TableID
	Entry  catalog.Entry
	T      *txn.Table
	Schema *schema.Schema
	mirror string // quoted DuckDB identifier of the mirror table
	eng    *Engine

	// gc: shared by statements from snapshot to end of query; exclusive to
	// delete committed batches from the mirror.
	gc        sync.RWMutex
	gcMu      sync.Mutex
	gcPending []uint64
	gcDel     []uint64 // delete sets to remove from the delete mirror
	gcClear   bool     // a TRUNCATE: empty the delete mirror

	// The delete mirror (deletes.go), guarded by delMu: the sets in it,
	// and the set id of each committed delete file loaded.
	delMu       sync.Mutex
	delMirrored map[uint64]struct{}
	delFileIDs  map[string]uint64
	delFilePos  map[string]*txn.Deletes // committed delete files, read
	setRuns     map[uint64]map[string][]posRun
	stopGC      func()
	gcDone      chan struct{}

	// Mirroring is lazy: a write only reaches the WAL and the buffer; the
	// first statement whose snapshot holds a batch copies it (with every
	// other unmirrored batch of that snapshot, in one INSERT) into the
	// mirror. mirMu serializes mirroring; mirrored holds the ids in the
	// mirror (guarded by mirMu; the collector removes ids under gc.Lock,
	// which no statement between snapshot and end of query can overlap).
	mirMu    sync.Mutex
	mirrored map[uint64]struct{}

	// retired: the table was altered (Engine.AlterTable) and this handle
	// closed for good.
	retired atomic.Bool

	// cache is the table's share of the native cache (nil when off).
	cache *fileCache

	// keyMu guards keys, the table's unique keys and their indexes
	// (keys.go), and checks, its CHECK constraints, with checkSQL, the
	// query that checks rows against them (cached by the caller).
	keyMu    sync.Mutex
	keys     []*keyIndex
	checks   []catalog.CheckDef
	checkSQL string

	// derived caches a caller's value computed from the (immutable)
	// schema of this handle: see Derived.
	derived atomic.Value
}

// Derived returns the value compute gives for this table handle, computed
// once (concurrent first calls may compute it more than once; one result
// wins). The schema of a handle never changes, so neither may the value.
func (t *Table) Derived(compute func() any) any {
	if v := t.derived.Load(); v != nil {
		return v
	}
	v := compute()
	if !t.derived.CompareAndSwap(nil, v) {
		return t.derived.Load()
	}
	return v
}

func (e *Engine) attach(ctx context.Context, id catalog.TableID, ent *catalog.Entry, tt *txn.Table) (*Table, error) {
	t := &Table{ID: id, Entry: *ent, T: tt, Schema: tt.Schema(), eng: e, gcDone: make(chan struct{}), mirrored: map[uint64]struct{}{},
		delMirrored: map[uint64]struct{}{}, delFileIDs: map[string]uint64{}, delFilePos: map[string]*txn.Deletes{}, setRuns: map[uint64]map[string][]posRun{}}
	t.mirror = quoteIdent(fmt.Sprintf("__bsdb_buf_%d", ent.OID))
	var cols []string
	for _, c := range t.Schema.Columns {
		cols = append(cols, quoteIdent(c.Name)+" "+DuckType(&c))
	}
	cols = append(cols, batchColumn+" UBIGINT", indexColumn+" UINTEGER")
	ddl := fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", t.mirror, strings.Join(cols, ", "))
	if _, err := e.db.ExecContext(ctx, ddl); err != nil {
		tt.Abandon()
		return nil, fmt.Errorf("create mirror of %s: %w", id.Name, err)
	}
	if err := t.createDelMirror(ctx); err != nil {
		tt.Abandon()
		return nil, fmt.Errorf("create delete mirror of %s: %w", id.Name, err)
	}
	t.SetChecks(ent.Checks)
	if err := t.SetKeys(EntryKeys(id, ent, t.Schema)); err != nil {
		tt.Abandon()
		return nil, err
	}
	// What recovery put in the buffer is mirrored by the first reader.
	events, cancel := tt.Subscribe()
	t.stopGC = cancel
	go t.collector(events)
	if e.nativeCache && ent.Prefix != "" { // a temporary table has no files
		c, err := e.newFileCache(ctx, ent.OID, t.Schema.Version)
		if err != nil {
			e.log.Warn("native cache: cannot read its entries; the table is read from Parquet", "table", id.Name, "err", err)
		} else {
			t.cache = c
			go t.cacheLoader()
			t.cache.wake()
		}
	}
	return t, nil
}

// collector deletes the rows of committed batches from the mirror.
func (t *Table) collector(events <-chan txn.CommitEvent) {
	defer close(t.gcDone)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			t.gcMu.Lock()
			t.gcPending = append(t.gcPending, ev.BatchIDs...)
			t.gcDel = append(t.gcDel, ev.BatchIDs...)
			t.gcClear = t.gcClear || ev.Truncate
			t.gcMu.Unlock()
			t.collect()
			if t.cache != nil {
				t.cache.wake()
			}
		case <-tick.C:
			t.collect()
		}
	}
}

func (t *Table) collect() {
	t.gcMu.Lock()
	ids := t.gcPending
	dels, clear := t.gcDel, t.gcClear
	t.gcMu.Unlock()
	if len(ids) == 0 && len(dels) == 0 && !clear {
		return
	}
	// Never wait behind long statements: try again at the next tick.
	if !t.gc.TryLock() {
		return
	}
	defer t.gc.Unlock()
	if clear || len(dels) > 0 {
		var err error
		if clear {
			err = t.clearDeletes(context.Background())
		} else {
			err = t.collectDeletes(context.Background(), dels)
		}
		if err != nil {
			t.eng.log.Warn("delete mirror collection failed; will retry", "table", t.ID.Name, "err", err)
			return
		}
		t.gcMu.Lock()
		t.gcDel = t.gcDel[len(dels):]
		if clear {
			t.gcClear = false
		}
		t.gcMu.Unlock()
	}
	if len(ids) == 0 {
		return
	}
	// Only ids that reached the mirror need a DELETE.
	t.mirMu.Lock()
	var del []uint64
	for _, id := range ids {
		if _, ok := t.mirrored[id]; ok {
			del = append(del, id)
		}
	}
	t.mirMu.Unlock()
	if len(del) > 0 {
		q := fmt.Sprintf("DELETE FROM %s WHERE %s", t.mirror, batchPredicate(del))
		if _, err := t.eng.db.ExecContext(context.Background(), q); err != nil {
			t.eng.log.Warn("mirror collection failed; will retry", "table", t.ID.Name, "err", err)
			return
		}
		t.mirMu.Lock()
		for _, id := range del {
			delete(t.mirrored, id)
		}
		t.mirMu.Unlock()
	}
	t.gcMu.Lock()
	t.gcPending = t.gcPending[len(ids):]
	t.gcMu.Unlock()
}

func (t *Table) close(ctx context.Context) error {
	err := t.T.Close(ctx)
	t.stopGC()
	<-t.gcDone
	t.closeCache(false)
	return err
}

// retire ends a handle whose table was altered, renamed or dropped: the
// txn handle is already closed; the mirror, the delete mirror and the
// native cache go once no statement reads them.
func (t *Table) retire(ctx context.Context) {
	t.stopGC()
	<-t.gcDone
	t.closeCache(true)
	t.gc.Lock()
	_, _ = t.eng.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t.mirror)
	_, _ = t.eng.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t.delMirror())
	t.gc.Unlock()
}

// CountWhere counts the rows for which pred (DuckDB SQL over the table's
// columns) holds (ALTER TABLE's checks of existing rows).
func (t *Table) CountWhere(ctx context.Context, pred string) (int64, error) {
	b, err := t.Bind(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer b.Release()
	var n int64
	err = t.eng.db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s AS __t WHERE %s", b.FromSQL, pred)).Scan(&n)
	return n, err
}

// Retired reports whether the table was altered since this handle was
// opened: writes through it fail (RetiredError); open the table again.
func (t *Table) Retired() bool { return t.retired.Load() }

// RetiredError is the error of a write through a handle retired by an
// ALTER TABLE of another session: PostgreSQL's ALTER TABLE would have
// waited for the writing transaction; here the writer loses.
func RetiredError(id catalog.TableID) error {
	return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent ALTER TABLE of relation \"%s\"", id.Name)
}

func (t *Table) drop(ctx context.Context) {
	_ = t.T.Abandon()
	t.retire(ctx)
}

// mirrorBatches copies batches into the mirror (all columns + batch id).
func (t *Table) mirrorBatches(ctx context.Context, batches []txn.Batch) error {
	if len(batches) == 0 {
		return nil
	}
	conn, err := t.eng.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	recs := make([]arrow.RecordBatch, 0, len(batches))
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, b := range batches {
		recs = append(recs, duckFriendly(b.Rec, b.ID))
	}
	err = conn.Raw(func(dc any) error {
		return execWithArrow(ctx, dc, recs, "__bsdb_in", func(view string) string {
			return fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", t.mirror, view)
		})
	})
	if err != nil {
		return fmt.Errorf("mirror %s: %w", t.ID.Name, err)
	}
	return nil
}

// unmirror deletes batches from the mirror (failed or rolled back writes).
func (t *Table) unmirror(ctx context.Context, ids []uint64) {
	if len(ids) == 0 {
		return
	}
	t.gcMu.Lock()
	t.gcPending = append(t.gcPending, ids...)
	t.gcMu.Unlock()
	t.collect()
}

// dropMirrored has the collector delete the mirror's rows of the given
// batch ids, if any reached it (staged batches that were committed under
// other ids).
func (t *Table) dropMirrored(ids []uint64) {
	t.mirMu.Lock()
	found := false
	for _, id := range ids {
		if _, ok := t.mirrored[id]; ok {
			found = true
			break
		}
	}
	t.mirMu.Unlock()
	if found {
		t.unmirror(context.Background(), ids)
	}
}

// Write writes batches as one transaction (WAL, then visible). ids may be
// preallocated (a transaction's staged batches, already mirrored) or nil.
// The mirror is filled lazily by the first statement that reads them.
// merge: the caller needs no batch ids back (txn.WriteOptions.Merge).
func (t *Table) Write(ctx context.Context, recs []arrow.RecordBatch, d wal.Durability, ids []uint64, merge bool) (txn.WriteResult, error) {
	return t.retiredErr(t.T.Write(ctx, recs, txn.WriteOptions{Durability: d, BatchIDs: ids, Merge: merge}))
}

// retiredErr turns the error of a write through a retired handle into
// RetiredError.
func (t *Table) retiredErr(res txn.WriteResult, err error) (txn.WriteResult, error) {
	if err != nil && errors.Is(err, txn.ErrClosed) && t.retired.Load() {
		return res, RetiredError(t.ID)
	}
	return res, err
}

// WriteDeletes is Write for a transaction that also deletes committed rows
// (claimed with txn.Table.Claim): one WAL transaction.
func (t *Table) WriteDeletes(ctx context.Context, recs []arrow.RecordBatch, del *txn.Deletes, d wal.Durability) (txn.WriteResult, error) {
	return t.retiredErr(t.T.Write(ctx, recs, txn.WriteOptions{Durability: d, Deletes: del}))
}

// Stage returns ids for the batches of an open transaction. They are
// visible only to its session (Bind's extra batches), which mirrors them
// when it first reads the table.
func (t *Table) Stage(ctx context.Context, recs []arrow.RecordBatch) ([]uint64, error) {
	return t.T.AllocBatchIDs(len(recs)), nil
}

// MirrorWritten makes sure batches a statement just wrote are in the
// mirror (RETURNING reads them there). The caller holds HoldMirror from
// before the write, so the collector cannot have passed them yet.
func (t *Table) MirrorWritten(ctx context.Context, ids []uint64, recs []arrow.RecordBatch) error {
	bs := make([]txn.Batch, len(recs))
	for i, r := range recs {
		bs[i] = txn.Batch{ID: ids[i], Rec: r}
	}
	return t.ensureMirrored(ctx, bs)
}

// ensureMirrored copies the batches not yet in the mirror into it, in one
// INSERT. Callers hold gc (shared) or otherwise keep the collector from
// deleting the batches before their statement ends.
func (t *Table) ensureMirrored(ctx context.Context, batches []txn.Batch) error {
	if len(batches) == 0 {
		return nil
	}
	t.mirMu.Lock()
	defer t.mirMu.Unlock()
	var missing []txn.Batch
	for _, b := range batches {
		if _, ok := t.mirrored[b.ID]; !ok {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// A large set (the buffer recovered at restart, a big transaction) is
	// copied by one INSERT per core, concurrently: one Arrow stream is
	// scanned by one thread.
	groups := splitBatches(missing, runtime.GOMAXPROCS(0), parallelMirrorRows)
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t.mirrorBatches(ctx, g)
		}()
	}
	wg.Wait()
	for i, g := range groups {
		if errs[i] != nil {
			continue // DuckDB's INSERT is atomic: nothing of g is in the mirror
		}
		for _, b := range g {
			t.mirrored[b.ID] = struct{}{}
		}
	}
	return errors.Join(errs...)
}

// parallelMirrorRows is the size of a group of batches worth its own
// concurrent INSERT into the mirror.
const parallelMirrorRows = 256 << 10

// BatchRows is the row count that writers should give large batches: one
// DuckDB row group. An INSERT ... SELECT into the mirror keeps insertion
// order by collecting each Arrow batch in its own row groups; a batch
// shorter than a row group is copied once more when DuckDB merges it with
// its neighbours, a batch of whole row groups is appended as it is
// (mirroring 4M events rows in two concurrent INSERTs: 1.64 s in 64K-row
// batches, 1.14 s in batches of BatchRows).
const BatchRows = 122880

// splitBatches cuts bs into at most n groups of consecutive batches, each
// of at least minRows rows (one group if bs is smaller), balanced by rows.
func splitBatches(bs []txn.Batch, n int, minRows int64) [][]txn.Batch {
	var total int64
	for _, b := range bs {
		total += b.Rec.NumRows()
	}
	if k := total / minRows; k < int64(n) {
		n = int(k)
	}
	if n <= 1 || len(bs) < 2 {
		return [][]txn.Batch{bs}
	}
	per := (total + int64(n) - 1) / int64(n)
	var out [][]txn.Batch
	start, rows := 0, int64(0)
	for i, b := range bs {
		rows += b.Rec.NumRows()
		if rows >= per && len(out) < n-1 {
			out = append(out, bs[start:i+1])
			start, rows = i+1, 0
		}
	}
	if start < len(bs) {
		out = append(out, bs[start:])
	}
	return out
}

// Unstage removes a rolled back transaction's batches from the mirror.
func (t *Table) Unstage(ids []uint64) { t.unmirror(context.Background(), ids) }

// Bound is a table bound to a snapshot for one statement.
type Bound struct {
	FromSQL string
	// FromSQL is empty for BindRows.
	// NoColumnsSQL yields the same rows with none of the table's columns
	// (one constant column), for statements that read no column: DuckDB
	// does not prune the columns of a UNION ALL's branches when a query
	// references none of them, so count(*) over Parquet files plus buffered
	// rows read every column of every file (10M rows: 114 ms) instead of
	// the files' row counts (2 ms).
	NoColumnsSQL string
	// Rows is the exact row count of the snapshot (files, buffered and
	// extra batches), set by BindRows (RowsKnown).
	Rows      int64
	RowsKnown bool
	Snap      *txn.Snapshot
	// RIDFiles (BindTarget): the relative paths of the data files, by the
	// index in the identity column __bsdb_rid_f.
	RIDFiles []string
	release  func()
}

// Release ends the statement's hold on the snapshot.
func (b *Bound) Release() {
	if b.release != nil {
		b.release()
		b.release = nil
	}
}

// Bind takes a snapshot and returns the DuckDB relation of the table as of
// it, plus extra batches (the session's own uncommitted writes).
func (t *Table) Bind(ctx context.Context, extra []txn.Batch) (*Bound, error) {
	return t.bind(ctx, extra, true)
}

// BindRows is Bind for a statement that reads none of the table's columns:
// only NoColumnsSQL is set, and buffered batches are counted, not copied
// into the mirror (an INSERT's ack to its row in count(*) on another
// session: no mirror INSERT of the new batch on the way).
func (t *Table) BindRows(ctx context.Context, extra []txn.Batch) (*Bound, error) {
	return t.bind(ctx, extra, false)
}

func (t *Table) bind(ctx context.Context, extra []txn.Batch, columns bool) (*Bound, error) {
	return t.bindMode(ctx, extra, columns, false)
}

// BindTarget binds the table as the target of an UPDATE or DELETE: its
// FromSQL has, after the table's columns, the row identity columns
// __bsdb_rid_f and __bsdb_rid_p (sql.RowIDFile, sql.RowIDPos): a
// committed row's index in Bound.RIDFiles and position in that file, or
// -(batch id) and the index in the batch of a buffered row.
func (t *Table) BindTarget(ctx context.Context, extra []txn.Batch) (*Bound, error) {
	return t.bindMode(ctx, extra, true, true)
}

// splitExtra separates a transaction's own batches from its own deletes
// (batches with Del set: ID is the set's id).
func splitExtra(extra []txn.Batch) (batches []txn.Batch, dels []DeleteSet) {
	for _, b := range extra {
		if b.Del != nil {
			dels = append(dels, DeleteSet{ID: b.ID, Del: b.Del})
		} else {
			batches = append(batches, b)
		}
	}
	return batches, dels
}

func (t *Table) bindMode(ctx context.Context, extraAll []txn.Batch, columns, target bool) (*Bound, error) {
	extra, ownDels := splitExtra(extraAll)
	t.gc.RLock()
	snap, err := t.T.Snapshot(ctx)
	if err != nil {
		t.gc.RUnlock()
		return nil, err
	}
	if snap.Manifest.Schema.Version != t.Schema.Version {
		// Another process altered the table: this handle's schema is not
		// the files' (a renamed column would read as NULL). The statement
		// fails; the handle is reopened for the next one.
		snap.Release()
		t.gc.RUnlock()
		go t.eng.retireStale(t)
		return nil, RetiredError(t.ID)
	}
	files, err := t.eng.localFiles(ctx, t, snap.Manifest)
	var dv *deleteView
	if err == nil {
		dv, err = t.ensureDeletes(ctx, snap, ownDels, presentBatches(snap.Batches, extra))
	}
	if err == nil && columns {
		err = t.ensureMirrored(ctx, snap.Batches)
	}
	if err == nil && columns {
		err = t.ensureMirrored(ctx, extra)
	}
	if err != nil {
		snap.Release()
		t.gc.RUnlock()
		return nil, err
	}
	rel := make([]string, len(snap.Manifest.Files))
	for i, f := range snap.Manifest.Files {
		rel[i] = f.Path
	}
	// Files with deletes are read with them applied (never from the
	// native cache); the others as they are.
	var cleanRel, cleanLocal, dirtyRel, dirtyLocal []string
	for i := range files {
		if dv.files[rel[i]] {
			dirtyRel, dirtyLocal = append(dirtyRel, rel[i]), append(dirtyLocal, files[i])
		} else {
			cleanRel, cleanLocal = append(cleanRel, rel[i]), append(cleanLocal, files[i])
		}
	}
	// The files loaded into the native cache are read from it, the others
	// from their Parquet files.
	parquet := cleanLocal
	var nos []int32
	var below int32
	if t.cache != nil && len(cleanLocal) > 0 && !target {
		nos, parquet, below = t.cache.split(cleanRel, cleanLocal)
		if len(parquet) > 0 {
			t.cache.wake()
		}
		if len(dirtyRel) > 0 {
			below = 0 // the cache holds files this snapshot reads otherwise
		}
	}
	quoted := make([]string, len(parquet))
	for i, f := range parquet {
		quoted[i] = quoteLiteral(f)
	}
	list := strings.Join(quoted, ", ")
	// The column-less relation: the cached rows, the files' rows (DuckDB
	// counts them from the footers) and as many constant rows as the
	// buffered batches hold.
	var rows int64
	for _, b := range snap.Batches {
		rows += b.Rec.NumRows()
	}
	for _, b := range extra {
		rows += b.Rec.NumRows()
	}
	rows -= dv.bufRows
	const noCols = "SELECT 1 AS __bsdb_row"
	none := fmt.Sprintf("%s FROM range(%d)", noCols, rows)
	if len(parquet) > 0 {
		none = fmt.Sprintf("%s FROM read_parquet([%s]) UNION ALL %s", noCols, list, none)
	}
	if len(dirtyLocal) > 0 {
		none = fmt.Sprintf("%s UNION ALL %s", t.deletedScan("1 AS __bsdb_row", dirtyLocal, dirtyRel, dv), none)
	}
	if len(nos) > 0 {
		none = fmt.Sprintf("%s FROM (%s) UNION ALL %s", noCols, t.cacheRelation(nos, below, false), none)
	}
	b := &Bound{NoColumnsSQL: "(" + none + ")", Snap: snap}
	switch {
	case target:
		b.FromSQL, b.RIDFiles = t.targetRelation(files, rel, dv, snap.Batches, extra)
	case columns:
		b.FromSQL = t.relation(list, t.cacheRelation(nos, below, true), dirtyLocal, dirtyRel, dv, snap.Batches, extra)
	default:
		b.Rows, b.RowsKnown = rows, true
		for _, f := range snap.Manifest.Files {
			b.Rows += f.Rows
		}
		b.Rows -= dv.rows - dv.bufRows
	}
	var once sync.Once
	b.release = func() {
		once.Do(func() {
			snap.Release()
			t.gc.RUnlock()
		})
	}
	return b, nil
}

// columnList is the select list that reads the table's columns from its
// Parquet files, cast to their DuckDB types.
func (t *Table) columnList() string {
	var cols []string
	for i := range t.Schema.Columns {
		c := &t.Schema.Columns[i]
		cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", parquetReadExpr(c), DuckType(c), quoteIdent(c.Name)))
	}
	return strings.Join(cols, ", ")
}

// mirrorColumns is the mirror's select list of the table's columns.
func (t *Table) mirrorColumns() string {
	var mcols []string
	for i := range t.Schema.Columns {
		mcols = append(mcols, quoteIdent(t.Schema.Columns[i].Name))
	}
	return strings.Join(mcols, ", ")
}

func batchIDs(batches, extra []txn.Batch) []uint64 {
	ids := make([]uint64, 0, len(batches)+len(extra))
	for _, b := range batches {
		ids = append(ids, b.ID)
	}
	for _, b := range extra {
		ids = append(ids, b.ID)
	}
	return ids
}

// relation is the table's rows with its columns: the files without
// deletes (quoted, comma separated), the rows of the native cache (a
// SELECT, or ""), the files with deletes (local paths and relative ones)
// and the mirror's rows of the batches.
func (t *Table) relation(files, cached string, dirtyLocal, dirtyRel []string, dv *deleteView, batches, extra []txn.Batch) string {
	ids := batchIDs(batches, extra)
	mcols := t.mirrorColumns()
	var parts []string
	if cached != "" {
		parts = append(parts, cached)
	}
	if files != "" {
		opts := t.readOptions(strings.Contains(files, ", "))
		parts = append(parts, fmt.Sprintf("SELECT %s FROM read_parquet([%s]%s)", t.columnList(), files, opts))
	}
	if len(dirtyLocal) > 0 {
		parts = append(parts, t.deletedScan(t.columnList(), dirtyLocal, dirtyRel, dv))
	}
	if len(ids) > 0 {
		parts = append(parts, t.mirrorScan(mcols, ids, dv))
	}
	if len(parts) == 0 {
		// Empty table: typed, zero rows.
		parts = append(parts, fmt.Sprintf("SELECT %s FROM %s WHERE false", mcols, t.mirror))
	}
	return "(" + strings.Join(parts, " UNION ALL ") + ")"
}

// targetRelation is the relation of an UPDATE's or DELETE's target: every
// file read from Parquet with its deletes applied, and the mirror's rows,
// each with its identity (BindTarget).
func (t *Table) targetRelation(local, rel []string, dv *deleteView, batches, extra []txn.Batch) (string, []string) {
	ids := batchIDs(batches, extra)
	var parts []string
	if len(local) > 0 {
		cols := t.columnList() + ", CAST(__bsdb_p.file_index AS BIGINT) AS __bsdb_rid_f, CAST(__bsdb_p.file_row_number AS BIGINT) AS __bsdb_rid_p"
		parts = append(parts, t.deletedScan(cols, local, rel, dv))
	}
	mcols := t.mirrorColumns() + fmt.Sprintf(", -CAST(%s AS BIGINT) AS __bsdb_rid_f, CAST(%s AS BIGINT) AS __bsdb_rid_p", batchColumn, indexColumn)
	if len(ids) > 0 {
		parts = append(parts, t.mirrorScan(mcols, ids, dv))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("SELECT %s FROM %s WHERE false", mcols, t.mirror))
	}
	return "(" + strings.Join(parts, " UNION ALL ") + ")", rel
}

// localFiles returns local paths of the snapshot's data files, fetching
// remote ones into the local cache (files are immutable).
func (e *Engine) localFiles(ctx context.Context, t *Table, m *manifest.Manifest) ([]string, error) {
	out := make([]string, 0, len(m.Files))
	for _, f := range m.Files {
		key := t.Entry.Prefix + "/" + f.Path
		if e.local != nil {
			out = append(out, e.local.LocalPath(key))
			continue
		}
		p := filepath.Join(e.cache, filepath.FromSlash(key))
		if err := e.fetch(ctx, key, p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// batchPredicate renders "id IN set" as ranges of consecutive ids.
func batchPredicate(ids []uint64) string {
	s := append([]uint64(nil), ids...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var terms []string
	var singles []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] <= s[j]+1 {
			j++
		}
		if s[j]-s[i] >= 2 {
			terms = append(terms, fmt.Sprintf("(%s BETWEEN %d AND %d)", batchColumn, s[i], s[j]))
		} else {
			for k := i; k <= j; k++ {
				if k == i || s[k] != s[k-1] {
					singles = append(singles, fmt.Sprint(s[k]))
				}
			}
		}
		i = j + 1
	}
	if len(singles) > 0 {
		terms = append(terms, fmt.Sprintf("%s IN (%s)", batchColumn, strings.Join(singles, ",")))
	}
	if len(terms) == 0 {
		return "false"
	}
	return strings.Join(terms, " OR ")
}

// duckFriendly returns rec with the batch id column appended and types
// DuckDB imports losslessly (uuid as text).
// DuckFriendly is rec as the query engine reads it from Arrow (uuid as
// text), with the mirror's batch id (0) and row index columns after its
// own.
func DuckFriendly(rec arrow.RecordBatch) arrow.RecordBatch { return duckFriendly(rec, 0) }

func duckFriendly(rec arrow.RecordBatch, id uint64) arrow.RecordBatch {
	n := int(rec.NumRows())
	mem := memory.DefaultAllocator
	fields := make([]arrow.Field, 0, rec.NumCols()+1)
	cols := make([]arrow.Array, 0, rec.NumCols()+1)
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		if f.Type.ID() == arrow.EXTENSION {
			// uuid: 16 bytes -> canonical text.
			ext := col.(array.ExtensionArray).Storage().(*array.FixedSizeBinary)
			b := array.NewStringBuilder(mem)
			for r := 0; r < n; r++ {
				if ext.IsNull(r) {
					b.AppendNull()
					continue
				}
				b.Append(formatUUID(ext.Value(r)))
			}
			col = b.NewArray()
			f = arrow.Field{Name: f.Name, Type: arrow.BinaryTypes.String, Nullable: true}
		} else {
			col.Retain()
			f = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true}
		}
		fields = append(fields, f)
		cols = append(cols, col)
	}
	ids := batchIDColumn(mem, id, n)
	cols = append(cols, ids)
	fields = append(fields, arrow.Field{Name: batchColumn, Type: ids.DataType()})
	idx := rowIndexColumn(mem, n)
	cols = append(cols, idx)
	fields = append(fields, arrow.Field{Name: indexColumn, Type: idx.DataType()})
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// batchIDColumn is the batch id column of a mirrored batch of n rows: one
// run of id, run-end encoded (16 bytes instead of 8 per row; DuckDB expands
// it as it scans).
func batchIDColumn(mem memory.Allocator, id uint64, n int) arrow.Array {
	ends := array.NewInt32Builder(mem)
	defer ends.Release()
	vals := array.NewUint64Builder(mem)
	defer vals.Release()
	if n > 0 {
		ends.Append(int32(n))
		vals.Append(id)
	}
	e, v := ends.NewArray(), vals.NewArray()
	defer e.Release()
	defer v.Release()
	return array.NewRunEndEncodedArray(e, v, n, 0)
}

// rowIndexColumn is 0..n-1: each mirrored row's index in its batch (a
// transaction's own rows are deleted by it).
func rowIndexColumn(mem memory.Allocator, n int) arrow.Array {
	b := array.NewUint32Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(uint32(i))
	}
	return b.NewArray()
}

func formatUUID(b []byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[x>>4], hex[x&15])
	}
	return string(out)
}

// DuckType is the DuckDB type of a column in the mirror, in the native
// cache and in the relations a statement reads. numeric without a
// precision is its stored text (PostgreSQL's output of the value, with its
// own scale): the translator computes with it as DECIMAL(38,10) and gives
// the client the text where a select-list item is the column itself
// (sql/rawnum.go).
func DuckType(c *schema.Column) string {
	switch c.Kind {
	case schema.KindBool:
		return "BOOLEAN"
	case schema.KindInt16:
		return "SMALLINT"
	case schema.KindInt32:
		return "INTEGER"
	case schema.KindInt64:
		return "BIGINT"
	case schema.KindFloat32:
		return "REAL"
	case schema.KindFloat64:
		return "DOUBLE"
	case schema.KindDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", c.Precision, c.Scale)
	case schema.KindString, schema.KindJSON:
		// JSON as text: DuckDB's json functions take VARCHAR, and the
		// driver would otherwise decode JSON values instead of returning
		// the text PostgreSQL prints.
		return "VARCHAR"
	case schema.KindBinary:
		return "BLOB"
	case schema.KindDate:
		return "DATE"
	case schema.KindTime:
		return "TIME"
	case schema.KindTimestamp:
		return "TIMESTAMP"
	case schema.KindTimestampTZ:
		return "TIMESTAMPTZ"
	case schema.KindInterval:
		return "INTERVAL"
	case schema.KindUUID:
		return "UUID"
	}
	return "VARCHAR"
}

// readOptions are read_parquet's options for a list of the table's files
// (several: more than one file). A table never altered reads its files by
// column name (several bound by name, each with its own footer: the
// default multi-file binding, the first file's schema for all, loses the
// columns' statistics, and a join on one of them ran 3.5x the CPU of the
// same rows in one file; DuckDB 1.5: events JOIN users over 2 files
// 240 ms, union_by_name 65 ms). After an ALTER TABLE its files may be of
// several schema versions, and are read by Iceberg field id: a renamed
// column under its new name, a dropped one not at all, an added one as
// its initial default where a file lacks it.
func (t *Table) readOptions(several bool) string {
	if t.Schema.Version == 0 {
		if several {
			return ", union_by_name = true"
		}
		return ""
	}
	parts := make([]string, len(t.Schema.Columns))
	for i := range t.Schema.Columns {
		c := &t.Schema.Columns[i]
		typ := DuckType(c)
		if c.Kind == schema.KindInterval {
			typ = "BLOB" // parquetReadExpr decodes it
		}
		// Every entry has the same struct type: the default is text, which
		// read_parquet casts to the column's type.
		def := "NULL::VARCHAR"
		if c.HasInitialDefault && c.Kind != schema.KindInterval { // (refused by ALTER TABLE)
			def = quoteLiteral(c.InitialDefault)
		}
		parts[i] = fmt.Sprintf("%d: {name: %s, type: %s, default_value: %s}", c.ID, quoteLiteral(c.Name), quoteLiteral(typ), def)
	}
	return ", schema = map {" + strings.Join(parts, ", ") + "}"
}

// parquetReadExpr reads a column from our Parquet files.
func parquetReadExpr(c *schema.Column) string {
	if c.Kind == schema.KindInterval {
		return "bsdb_interval(" + quoteIdent(c.Name) + ")"
	}
	return quoteIdent(c.Name)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// MirrorRelation is a DuckDB relation over the given batches of the mirror
// (none: an empty relation with the table's columns).
func (t *Table) MirrorRelation(ids []uint64) string {
	var cols []string
	for i := range t.Schema.Columns {
		c := &t.Schema.Columns[i]
		cols = append(cols, quoteIdent(c.Name))
	}
	pred := "false"
	if len(ids) > 0 {
		pred = batchPredicate(ids)
	}
	return fmt.Sprintf("(SELECT %s FROM %s WHERE %s)", strings.Join(cols, ", "), t.mirror, pred)
}

// HoldMirror keeps the mirror's rows from being collected until
// ReleaseMirror (a statement reading rows it just wrote).
func (t *Table) HoldMirror() { t.gc.RLock() }

// ReleaseMirror ends HoldMirror.
func (t *Table) ReleaseMirror() { t.gc.RUnlock() }
