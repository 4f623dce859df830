package planner

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
	"github.com/bsdb/bsdb-pg/wal"
)

// Config configures an Engine.
type Config struct {
	DataDir   string // local state: catalog and tables when Warehouse is empty, WAL, caches
	Warehouse string // "" (= DataDir), a local path, or s3://bucket/prefix
	S3        objstore.S3Config
	WALDir    string // "" = {table}/_wal under a local warehouse; a temp dir for S3

	Durability    wal.Durability
	SyncBatchSize int
	SyncInterval  time.Duration
	CompactBytes  int64
	// WALPreallocate is wal.Options.Preallocate (0 default, < 0 off).
	WALPreallocate int64
	FlushBytes     int64
	FlushInterval  time.Duration
	UnsafeNoSync   bool

	MaxConcurrency int // DuckDB threads; 0 = all cores
	MemoryLimit    string
	// NativeCacheBytes bounds the native cache of committed data files
	// (filecache.go); 0 = off.
	NativeCacheBytes int64
	// NativeCacheReserveBytes is the free space the native cache leaves on
	// its file system: it loads no file that would leave less
	// (filecache.go). 0 = the larger of 1 GB and 5% of the file system;
	// negative = none.
	NativeCacheReserveBytes int64
	Logger                  *slog.Logger
	// DefaultDatabase is created at start if missing.
	DefaultDatabase string
}

// Engine is the process-wide executor: tables, catalog, DuckDB.
type Engine struct {
	cfg     Config
	store   objstore.Store
	local   objstore.LocalPather // nil for remote stores
	cat     *catalog.Catalog
	db      *sql.DB
	conn    *duckdb.Connector
	walRoot string
	coord   *txn.Coordinator // multi-table transactions; its log lives with the WAL
	// nativeCache: the cache database is attached (filecache.go);
	// cacheUsed is its estimated size.
	nativeCache bool
	cacheUsed   atomic.Int64
	cache       string
	log         *slog.Logger

	mu      sync.Mutex
	tables  map[catalog.TableID]*Table
	opening map[catalog.TableID]chan struct{}
	// testOpenHook and testAfterCreate are set by this package's tests only.
	testOpenHook    func()
	testAfterCreate func()
	closed          bool

	// stopRecovery ends recoverAtStart; recovered is closed when it is done.
	stopRecovery context.CancelFunc
	recovered    chan struct{}
	// schemaLocks: each table's schema lock (schemalock.go), guarded by mu.
	schemaLocks map[catalog.TableID]*sync.RWMutex
}

// Open starts an engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.DataDir == "" {
		cfg.DataDir = "bsdb-data"
	}
	if cfg.DefaultDatabase == "" {
		cfg.DefaultDatabase = "postgres"
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	cfg.DataDir = dataDir
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, tables: map[catalog.TableID]*Table{}, opening: map[catalog.TableID]chan struct{}{}}
	wh := cfg.Warehouse
	switch {
	case strings.HasPrefix(wh, "s3://"):
		s3cfg := cfg.S3
		loc, err := objstore.ParseURI(wh)
		if err != nil {
			return nil, err
		}
		s3cfg.Bucket, s3cfg.Prefix = loc.Bucket, loc.Prefix
		st, err := objstore.NewS3(ctx, s3cfg)
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: %w", wh, err)
		}
		e.store = st
		e.walRoot = cfg.WALDir
		if e.walRoot == "" {
			e.walRoot = filepath.Join(os.TempDir(), "bsdb-wal", strings.NewReplacer("/", "_", ":", "_").Replace(wh))
			cfg.Logger.Warn("S3 warehouse without BSDB_WAL_DIR: the WAL is in a temporary directory; unflushed writes do not survive the loss of this machine", "wal_dir", e.walRoot)
		}
	default:
		root := wh
		if root == "" {
			root = filepath.Join(dataDir, "warehouse")
		}
		st, err := objstore.NewLocal(root)
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: %w", root, err)
		}
		e.store = st
		e.local = st
		e.walRoot = cfg.WALDir
	}
	e.cache = filepath.Join(dataDir, "cache")
	e.cat = catalog.New(e.store)
	// The log of multi-table commits lives where the WALs do: recovery of
	// a table's WAL needs it. The "." keeps it apart from every table
	// prefix (catalog.EscapeName escapes dots).
	logDir := filepath.Join(dataDir, "txlog.d")
	if e.walRoot != "" {
		logDir = filepath.Join(e.walRoot, "txlog.d")
	} else if e.local != nil {
		logDir = e.local.LocalPath("txlog.d")
	}
	txlog, err := txn.OpenTxLog(logDir, nil, cfg.Logger, cfg.UnsafeNoSync)
	if err != nil {
		return nil, err
	}
	e.coord = txn.NewCoordinator(txlog)

	tmp := filepath.Join(dataDir, "duckdb_tmp")
	_ = os.RemoveAll(tmp)
	e.conn, err = duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	e.db = sql.OpenDB(e.conn)
	init := []string{fmt.Sprintf("SET temp_directory = '%s'", strings.ReplaceAll(tmp, "'", "''"))}
	if cfg.MaxConcurrency > 0 {
		init = append(init, fmt.Sprintf("SET threads = %d", cfg.MaxConcurrency))
	}
	if cfg.MemoryLimit != "" {
		init = append(init, fmt.Sprintf("SET memory_limit = '%s'", cfg.MemoryLimit))
	}
	init = append(init, "SET preserve_insertion_order = true")
	// Data files are immutable (a new name per file): their Parquet
	// footers can be cached across queries instead of read and parsed by
	// every scan (a point lookup spent most of its time there).
	init = append(init, "SET parquet_metadata_cache = true")
	for _, q := range init {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			e.db.Close()
			return nil, fmt.Errorf("duckdb init %q: %w", q, err)
		}
	}
	if err := e.registerUDFs(ctx); err != nil {
		e.db.Close()
		return nil, fmt.Errorf("duckdb functions: %w", err)
	}
	if err := e.attachCache(ctx); err != nil {
		e.db.Close()
		return nil, err
	}
	dirs := []string{e.cache, tmp}
	if e.local != nil {
		dirs = append(dirs, e.local.LocalPath(""))
	}
	if err := e.lockDown(ctx, dirs); err != nil {
		e.db.Close()
		return nil, err
	}
	if err := e.cat.CreateDatabase(ctx, cfg.DefaultDatabase); err != nil && !errors.Is(err, catalog.ErrExists) {
		e.db.Close()
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if err := e.cat.CreateSchema(ctx, cfg.DefaultDatabase, "public"); err != nil && !errors.Is(err, catalog.ErrExists) {
		e.db.Close()
		return nil, fmt.Errorf("catalog: %w", err)
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e.stopRecovery, e.recovered = stop, make(chan struct{})
	go e.recoverAtStart(rctx)
	if e.nativeCache {
		// In the background: listing the catalog may take a while on S3.
		go func() {
			if err := e.sweepCache(context.Background()); err != nil {
				e.log.Warn("native cache: sweeping the caches of dropped tables failed", "err", err)
			}
		}()
	}
	return e, nil
}

// DB returns the DuckDB handle (sessions take connections from it).
func (e *Engine) DB() *sql.DB { return e.db }

// Catalog returns the catalog.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Store returns the warehouse object store.
func (e *Engine) Store() objstore.Store { return e.store }

// Config returns the engine configuration.
func (e *Engine) Config() Config { return e.cfg }

// Close commits and closes every open table, then DuckDB.
func (e *Engine) Close(ctx context.Context) error {
	// No table may be opening in the background once the tables to close
	// are listed.
	e.stopRecovery()
	<-e.recovered
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	tables := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		tables = append(tables, t)
	}
	e.mu.Unlock()
	var errs []error
	for _, t := range tables {
		if err := t.close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", t.ID, err))
		}
	}
	errs = append(errs, e.coord.Log().Close(), e.db.Close(), e.conn.Close())
	return errors.Join(errs...)
}

// recoverAtStart opens, in the background, every table whose WAL holds
// segments: writes acknowledged before the last stop (a crash: a clean
// stop commits every buffer and leaves no segment) that no Parquet file
// holds yet. Their recovery runs now rather than in the first statement
// that touches the table, and their rows reach the table's Parquet files
// and Iceberg snapshot, what other engines read, at the next flush even if
// no client ever uses the table again. A statement that needs a table
// being recovered waits for it (Engine.Table), as it would have recovered
// it itself.
func (e *Engine) recoverAtStart(ctx context.Context) {
	defer close(e.recovered)
	dbs, err := e.cat.ListDatabases(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("recovery at start: cannot list databases; tables recover when first used", "err", err)
		}
		return
	}
	for _, db := range dbs {
		ents, err := e.cat.ListTables(ctx, db)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("recovery at start: cannot list tables; they recover when first used", "database", db, "err", err)
			}
			continue
		}
		for _, ent := range ents {
			if ctx.Err() != nil {
				return
			}
			if dir := e.txnOptions(ent.Prefix).WALDir; dir == "" || !wal.HasSegments(dir) {
				continue
			}
			// Errors are logged by openTable and returned to every
			// statement that touches the table.
			_, _ = e.Table(ctx, ent.ID)
		}
	}
}

// FlushAll commits the buffers of every open table.
func (e *Engine) FlushAll(ctx context.Context) error {
	var errs []error
	for _, t := range e.openTables() {
		if err := t.T.Flush(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (e *Engine) openTables() []*Table {
	e.mu.Lock()
	defer e.mu.Unlock()
	ts := make([]*Table, 0, len(e.tables))
	for _, t := range e.tables {
		ts = append(ts, t)
	}
	return ts
}

func (e *Engine) txnOptions(prefix string) txn.Options {
	walDir := ""
	if e.walRoot != "" {
		walDir = filepath.Join(e.walRoot, filepath.FromSlash(prefix))
	} else if e.local != nil {
		walDir = filepath.Join(e.local.LocalPath(prefix), "_wal")
	}
	return txn.Options{
		Store:         e.store,
		Prefix:        prefix,
		WALDir:        walDir,
		SyncBatchSize: e.cfg.SyncBatchSize,
		SyncInterval:  e.cfg.SyncInterval,
		CompactBytes:  e.cfg.CompactBytes,
		Preallocate:   e.cfg.WALPreallocate,
		UnsafeNoSync:  e.cfg.UnsafeNoSync,
		FlushBytes:    e.cfg.FlushBytes,
		FlushInterval: e.cfg.FlushInterval,
		TxLog:         e.coord.Log(),
		Logger:        e.log,
	}
}

// WritePart is one table's batches in a transaction (Commit).
type WritePart struct {
	Table *Table
	Recs  []arrow.RecordBatch
	IDs   []uint64 // batch ids from Stage
	// Deletes are the committed rows the transaction deletes in the table
	// (claimed with txn.Table.Claim).
	Deletes *txn.Deletes
}

// Commit writes the parts as one transaction: durable per d and visible in
// every table when it returns nil; on error, in none (see txn.Coordinator).
func (e *Engine) Commit(ctx context.Context, parts []WritePart, d wal.Durability) error {
	tp := make([]txn.Part, len(parts))
	for i, p := range parts {
		// A transaction of one table may be merged with other small
		// writes (txn.WriteOptions.Merge): its batches are then published
		// under other ids, and rows mirrored under the staged ones are
		// left for the collector.
		tp[i] = txn.Part{Table: p.Table.T, Recs: p.Recs, BatchIDs: p.IDs, Merge: len(parts) == 1, Deletes: p.Deletes}
	}
	res, err := e.coord.Commit(ctx, tp, d)
	if errors.Is(err, txn.ErrClosed) {
		for _, p := range parts {
			if p.Table.retired.Load() {
				return RetiredError(p.Table.ID)
			}
		}
	}
	if err == nil && len(parts) == 1 && res[0].Batches == nil {
		parts[0].Table.dropMirrored(parts[0].IDs)
	}
	return err
}

// ReadLock is held while a statement binds the tables it reads, so that a
// multi-table transaction is in all of their snapshots or in none.
func (e *Engine) ReadLock() { e.coord.ReadLock() }

// ReadUnlock releases ReadLock.
func (e *Engine) ReadUnlock() { e.coord.ReadUnlock() }

// Table returns the open handle of a table, opening (and recovering) it on
// first use. Unknown tables: 42P01.
func (e *Engine) Table(ctx context.Context, id catalog.TableID) (*Table, error) {
	for {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return nil, pgerr.New(pgerr.AdminShutdown, "the server is shutting down")
		}
		t, ok := e.tables[id]
		e.mu.Unlock()
		if ok && t.T.KnownSchemaVersion() != t.Schema.Version {
			// A snapshot saw another process's ALTER: open it anew.
			e.retireStale(t)
			continue
		}
		if ok {
			return t, nil
		}
		ch, err := e.claimOpening(ctx, id)
		if err != nil {
			if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.DuplicateTable {
				continue // someone else opened (or created) it meanwhile
			}
			return nil, err
		}
		return e.finishOpen(ctx, id, ch)
	}
}

// IsOpen reports whether the table is open in this engine (it exists, as
// far as this process knows; a DROP through this engine closes it first).
func (e *Engine) IsOpen(id catalog.TableID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.tables[id]
	return ok
}

// finishOpen opens the table and always releases the waiters of ch, even
// if opening panics (a session recovers the panic; other sessions must not
// wait forever on a channel nobody closes).
func (e *Engine) finishOpen(ctx context.Context, id catalog.TableID, ch chan struct{}) (t *Table, err error) {
	defer func() { e.releaseOpening(id, ch, t) }()
	return e.openTable(ctx, id)
}

// releaseOpening ends a claimOpening: registers t (nil: the open or create
// failed) and wakes the waiters.
func (e *Engine) releaseOpening(id catalog.TableID, ch chan struct{}, t *Table) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.opening, id)
	if t != nil {
		e.tables[id] = t
	}
	close(ch)
}

func (e *Engine) openTable(ctx context.Context, id catalog.TableID) (*Table, error) {
	if e.testOpenHook != nil {
		e.testOpenHook()
	}
	ent, err := e.cat.Table(ctx, id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, undefinedTable(id)
		}
		return nil, err
	}
	if ent.IsView() {
		return nil, notATable(id)
	}
	if ent.Creating {
		// Left by a CREATE TABLE AS that did not finish (or being filled
		// by another process): no table yet.
		return nil, undefinedTable(id)
	}
	tt, err := txn.Open(ctx, e.txnOptions(ent.Prefix))
	if err != nil {
		// The operator must see this in the server log, not only the client
		// that happened to touch the table: recovery refused (e.g. a corrupt
		// WAL segment, named with its offset in err) and nothing was changed.
		e.log.Error("could not open table", "table", id.Name, "err", err)
		return nil, pgerr.Wrap(err, pgerr.DataCorrupted, "could not open table %s: %v", id.Name, err)
	}
	return e.attach(ctx, id, ent, tt)
}

func undefinedTable(id catalog.TableID) *pgerr.Error {
	if id.Schema != "" && id.Schema != "public" {
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", id.Schema, id.Name)
	}
	return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", id.Name)
}

// FinishCreate makes a table created with catalog.Creating a table like
// any other (its CREATE TABLE AS filled it).
func (e *Engine) FinishCreate(ctx context.Context, id catalog.TableID) error {
	_, err := e.cat.UpdateTable(ctx, id, func(ent *catalog.Entry) error {
		ent.Creating = false
		return nil
	})
	return err
}

// notATable is PostgreSQL's 42809 for a view where a table is needed.
func notATable(id catalog.TableID) *pgerr.Error {
	return pgerr.New("42809", "\"%s\" is not a table", id.Name)
}

// CreateTable creates a table. ifNotExists: an existing table is not an
// error (created=false). create goes to the catalog (catalog.OwnedBy).
func (e *Engine) CreateTable(ctx context.Context, id catalog.TableID, sch *schema.Schema, ifNotExists bool, create ...catalog.CreateOption) (created bool, err error) {
	if ent, err := e.cat.Table(ctx, id); err == nil && ent.Creating && !e.IsOpen(id) {
		// What a CREATE TABLE AS interrupted by a crash left: garbage.
		if err := e.DropTable(ctx, id); err != nil {
			return false, err
		}
	}
	if _, err := e.cat.Table(ctx, id); err == nil {
		if ifNotExists {
			return false, nil
		}
		return false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", id.Name)
	}
	if err := e.checkSchema(ctx, id.Database, id.Schema); err != nil {
		return false, err
	}
	// Register the table as opening before its catalog entry exists: a
	// concurrent Engine.Table (a statement, the pg_catalog refresh) then
	// waits for this handle instead of opening a second one on the same
	// table and mirror.
	ch, err := e.claimOpening(ctx, id)
	if err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.DuplicateTable && ifNotExists {
			return false, nil
		}
		return false, err
	}
	var t *Table
	defer func() { e.releaseOpening(id, ch, t) }()
	ent, err := e.cat.CreateTable(ctx, id, create...)
	if errors.Is(err, catalog.ErrPrefixInUse) {
		// Leftovers of an earlier table of that name whose DROP was
		// interrupted after its catalog entry went: no entry references
		// them, so they are garbage. Clean up and try once more.
		e.deletePrefix(ctx, catalog.TablePrefix(id))
		ent, err = e.cat.CreateTable(ctx, id, create...)
	}
	if err != nil {
		if errors.Is(err, catalog.ErrExists) {
			if ifNotExists {
				return false, nil
			}
			return false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", id.Name)
		}
		return false, err
	}
	opts := e.txnOptions(ent.Prefix)
	if opts.WALDir != "" {
		_ = os.RemoveAll(opts.WALDir)
	}
	tt, err := txn.Create(ctx, opts, sch)
	if err != nil {
		_ = e.cat.DropTable(ctx, id)
		return false, err
	}
	if e.testAfterCreate != nil {
		e.testAfterCreate()
	}
	t, err = e.attach(ctx, id, ent, tt)
	if err != nil {
		t = nil
		return false, err
	}
	return true, nil
}

// claimOpening marks id as being opened by the caller, waiting while
// another goroutine opens or creates it. The caller must delete the mark
// and close the channel.
func (e *Engine) claimOpening(ctx context.Context, id catalog.TableID) (chan struct{}, error) {
	for {
		e.mu.Lock()
		if ch, ok := e.opening[id]; ok {
			e.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if _, ok := e.tables[id]; ok {
			e.mu.Unlock()
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", id.Name)
		}
		ch := make(chan struct{})
		e.opening[id] = ch
		e.mu.Unlock()
		return ch, nil
	}
}

func (e *Engine) checkSchema(ctx context.Context, db, sc string) error {
	schemas, err := e.cat.ListSchemas(ctx, db)
	if err != nil {
		return err
	}
	for _, s := range schemas {
		if s == sc {
			return nil
		}
	}
	return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", sc)
}

// DropTable drops a table and deletes its files.
func (e *Engine) DropTable(ctx context.Context, id catalog.TableID) error {
	ent, err := e.cat.Table(ctx, id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return undefinedTable(id)
		}
		return err
	}
	if ent.IsView() {
		return notATable(id)
	}
	e.mu.Lock()
	t := e.tables[id]
	delete(e.tables, id)
	e.mu.Unlock()
	if t != nil {
		t.drop(ctx)
	}
	// The catalog entry goes first: once it is gone no one opens the
	// table; the files are then garbage that CreateTable also cleans.
	if err := e.cat.DropTable(ctx, id); err != nil {
		return err
	}
	e.deletePrefix(ctx, ent.Prefix)
	opts := e.txnOptions(ent.Prefix)
	if opts.WALDir != "" {
		_ = os.RemoveAll(opts.WALDir)
	}
	e.coord.Log().ResolveTable(ent.Prefix, nil)
	return nil
}

// AlterTable changes a table's schema (txn.Table.Alter: everything
// buffered is committed first, then the new schema) and retires its
// handle; the next use opens the table anew, in the new schema. No one
// opens the table in between. A statement still running on the old handle
// finishes on it (the mirror goes when it is done); a transaction that
// wrote to the table before and commits after gets 40001.
func (e *Engine) AlterTable(ctx context.Context, id catalog.TableID, fn func(*Table, *manifest.Manifest) (*schema.Schema, error)) (*schema.Schema, error) {
	unlock, err := e.lockForAlter(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for {
		t, err := e.Table(ctx, id)
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		if e.tables[id] != t {
			e.mu.Unlock()
			continue // dropped or altered meanwhile: look again
		}
		delete(e.tables, id)
		ch := make(chan struct{})
		e.opening[id] = ch
		e.mu.Unlock()
		t.retired.Store(true) // before: a write failing on it says why
		m, err := t.T.Alter(ctx, func(head *manifest.Manifest) (*schema.Schema, error) { return fn(t, head) })
		t.retire(ctx)
		e.releaseOpening(id, ch, nil)
		if err != nil {
			return nil, err
		}
		return &m.Schema, nil
	}
}

// retireStale closes a handle whose table another process altered (its
// schema is older than the committed one): everything it buffered is
// committed (in its schema, which the field ids keep readable), and the
// next use opens the table in the new schema.
func (e *Engine) retireStale(t *Table) {
	e.mu.Lock()
	if e.tables[t.ID] != t {
		e.mu.Unlock()
		return // retired already
	}
	delete(e.tables, t.ID)
	ch := make(chan struct{})
	e.opening[t.ID] = ch
	e.mu.Unlock()
	defer e.releaseOpening(t.ID, ch, nil)
	t.retired.Store(true)
	ctx := context.Background()
	if err := t.T.Close(ctx); err != nil {
		e.log.Warn("closing a table handle of an older schema", "table", t.ID.Name, "err", err)
	}
	t.retire(ctx)
}

// RenameTable gives a relation a new name, possibly in another schema
// (ALTER TABLE ... RENAME TO / SET SCHEMA). A table's open handle is
// closed first (everything buffered is committed; a statement still on it
// finishes on it, a transaction that wrote to it gets 40001 at COMMIT);
// the table opens under its new name at its next use, with its files
// where they were. No one opens either name in between.
func (e *Engine) RenameTable(ctx context.Context, from, to catalog.TableID) error {
	unlock, err := e.lockForAlter(ctx, from)
	if err != nil {
		return err
	}
	defer unlock()
	var t *Table
	var chFrom, chTo chan struct{}
	for {
		e.mu.Lock()
		if ch, ok := e.opening[from]; ok {
			e.mu.Unlock()
			<-ch
			continue
		}
		if ch, ok := e.opening[to]; ok {
			e.mu.Unlock()
			<-ch
			continue
		}
		if _, ok := e.tables[to]; ok {
			e.mu.Unlock()
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", to.Name)
		}
		t = e.tables[from]
		delete(e.tables, from)
		chFrom, chTo = make(chan struct{}), make(chan struct{})
		e.opening[from], e.opening[to] = chFrom, chTo
		e.mu.Unlock()
		break
	}
	defer e.releaseOpening(to, chTo, nil)
	defer e.releaseOpening(from, chFrom, nil)
	if t != nil {
		t.retired.Store(true)
		err := t.T.Close(ctx)
		t.retire(ctx)
		if err != nil {
			return err
		}
	}
	if _, err := e.cat.RenameTable(ctx, from, to); err != nil {
		switch {
		case errors.Is(err, catalog.ErrExists):
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", to.Name)
		case errors.Is(err, catalog.ErrNotFound):
			if serr := e.checkSchema(ctx, to.Database, to.Schema); serr != nil {
				return serr
			}
			return undefinedTable(from)
		}
		return err
	}
	return nil
}

func (e *Engine) deletePrefix(ctx context.Context, prefix string) {
	infos, err := e.store.List(ctx, prefix+"/")
	if err != nil {
		return
	}
	for _, in := range infos {
		_ = e.store.Delete(ctx, in.Key)
	}
}

// ListTables lists the tables of a database.
func (e *Engine) ListTables(ctx context.Context, db string) ([]catalog.Entry, error) {
	return e.cat.ListTables(ctx, db)
}

// ListRelations lists the tables and views of a database.
func (e *Engine) ListRelations(ctx context.Context, db string) ([]catalog.Entry, error) {
	return e.cat.ListRelations(ctx, db)
}

// TableSchema returns the schema of a table without opening it for writes
// (it opens the handle: the schema lives in its manifest).
func (e *Engine) TableSchema(ctx context.Context, id catalog.TableID) (*schema.Schema, error) {
	t, err := e.Table(ctx, id)
	if err != nil {
		return nil, err
	}
	return t.Schema, nil
}
