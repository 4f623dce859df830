package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsdb/bsdb-pg/storage/vfs"
	"github.com/bsdb/bsdb-pg/txn"
)

// The native cache: committed data files copied into DuckDB's own storage.
//
// DuckDB reads Parquet well, but a point or range lookup must decompress
// a whole 122,880-row group of every projected column from zstd (7-10 ms on
// the 10M-row benchmark table), where its native storage answers in 0.7 ms
// from one 2,048-row vector; GROUP BYs run 2-3x faster too. So every
// committed data file of an open table is also loaded, in the background,
// into a table of an attached DuckDB database file (DATA_DIR/cache/native-v2.duckdb,
// compressed on disk, paged through DuckDB's buffer manager). A statement
// reads each file of its snapshot from that table once the file is loaded
// (the rows of one file carry its number), from the Parquet file before.
// The Parquet files stay the truth. The cache survives restarts: a table
// __bsdb_cache_files lists the loaded files, written in the same DuckDB
// transaction as their rows; a cache that cannot be opened is deleted and
// refilled. It is bounded (Config.NativeCacheBytes, estimated as 3x the
// Parquet bytes; files beyond it are read from Parquet).
//
// Disk space: the cache must never be what fills the disk. Before loading a
// file the loader checks the free space of the cache's file system: the
// file is loaded only if what it needs (its uncompressed bytes, which
// DuckDB's write-ahead log holds until a checkpoint, plus its charge)
// leaves at least the reserve free (Config.NativeCacheReserveBytes;
// default the larger of 1 GB and 5% of the file system). Below it the
// loader stops (logged once) and looks again later; space an operator
// frees on a full disk is not taken back by the cache.
//
// Consistency: a file is marked loaded only after its INSERT committed in
// DuckDB, and a statement decides at bind time, so it reads a file from
// the cache only if the rows are there. Rows of files that left the table
// (truncate) are deleted under the table's gc lock, which every statement
// holds from its snapshot to its end, as the mirror's collector does.

const cacheFileColumn = "__bsdb_file"

const (
	cacheDBName    = "bsdb_cache"
	cacheFilesName = cacheDBName + ".main.__bsdb_cache_files"
)

// attachCache attaches the cache database, creating it (or, if it cannot
// be opened, recreating it).
func (e *Engine) attachCache(ctx context.Context) error {
	if e.cfg.NativeCacheBytes <= 0 {
		return nil
	}
	dir := filepath.Join(e.cfg.DataDir, "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// v2: numeric without a precision is kept as its text (v1 held
	// DECIMAL(38,10)); a v1 file is deleted.
	for _, old := range []string{"native.duckdb", "native.duckdb.wal"} {
		if err := os.Remove(filepath.Join(dir, old)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	path := filepath.Join(dir, "native-v2.duckdb")
	attach := func() error {
		if _, err := e.db.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s", quoteLiteral(path), cacheDBName)); err != nil {
			return err
		}
		_, err := e.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+cacheFilesName+" (oid UINTEGER, path VARCHAR, no INTEGER, bytes BIGINT)")
		if err != nil {
			_, _ = e.db.ExecContext(ctx, "DETACH "+cacheDBName)
		}
		return err
	}
	noSpace := func(err error) bool {
		return strings.Contains(strings.ToLower(err.Error()), "no space left on device")
	}
	if err := attach(); err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "lock") {
			// Another server on this data directory has it open: this
			// one reads Parquet only.
			e.log.Info("native cache: in use by another process on this data directory; this one runs without it", "path", path)
			return nil
		}
		if noSpace(err) {
			// A full disk must not keep the server from starting, nor
			// cost the cache: it is opened again at the next start.
			e.log.Warn("native cache: no disk space to open it; running without it", "path", path, "err", err)
			return nil
		}
		e.log.Warn("native cache: cannot open it; starting an empty one", "path", path, "err", err)
		for _, p := range []string{path, path + ".wal"} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		if err := attach(); err != nil {
			if noSpace(err) {
				e.log.Warn("native cache: no disk space to create it; running without it", "path", path, "err", err)
				return nil
			}
			return fmt.Errorf("native cache: %w", err)
		}
	}
	e.nativeCache = true
	return nil
}

// sweepCache drops the cache of tables that no longer exist (dropped by
// another process, or with their database, while this one was not
// looking): their OIDs are in the cache's file list but not in the
// catalog. OIDs are never reused, so a table created meanwhile is safe.
func (e *Engine) sweepCache(ctx context.Context) error {
	if !e.nativeCache {
		return nil
	}
	rows, err := e.db.QueryContext(ctx, "SELECT DISTINCT oid FROM "+cacheFilesName)
	if err != nil {
		return err
	}
	var cached []uint32
	for rows.Next() {
		var oid uint32
		if err := rows.Scan(&oid); err != nil {
			rows.Close()
			return err
		}
		cached = append(cached, oid)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(cached) == 0 {
		return err
	}
	dbs, err := e.cat.ListDatabases(ctx)
	if err != nil {
		return err
	}
	live := map[uint32]bool{}
	for _, db := range dbs {
		ents, err := e.cat.ListTables(ctx, db)
		if err != nil {
			return err
		}
		for _, ent := range ents {
			live[ent.OID] = true
		}
	}
	for _, oid := range cached {
		if live[oid] {
			continue
		}
		if err := e.dropCacheOf(ctx, oid); err != nil {
			return err
		}
		e.log.Info("native cache: dropped the cache of a table that no longer exists", "oid", oid)
	}
	return nil
}

// fileCache is one table's share of the native cache.
type fileCache struct {
	name string // qualified, quoted DuckDB table name

	oid     uint32
	mu      sync.Mutex
	files   map[string]cachedFile // data file (manifest path) -> loaded file
	next    int32
	created bool

	running  atomic.Bool
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	warned   atomic.Bool
	lowSpace atomic.Bool // loading stopped at the disk space reserve
}

// defaultCacheReserve is the least free space the cache leaves by default
// (or 5% of the file system, if more).
const defaultCacheReserve = 1 << 30

// cacheSpaceRetry is how long a loader stopped by the reserve waits before
// it looks at the free space again (tests shorten it).
var cacheSpaceRetry = 30 * time.Second

// diskSpace reports a file system's free and total bytes (tests replace it).
var diskSpace = vfs.DiskSpace

// errCacheNoSpace: a load would leave less than the reserve free.
var errCacheNoSpace = errors.New("native cache: free disk space at the reserve")

// cacheReserve is the free space the cache leaves on a file system of
// total bytes.
func (e *Engine) cacheReserve(total int64) int64 {
	switch r := e.cfg.NativeCacheReserveBytes; {
	case r > 0:
		return r
	case r < 0:
		return 0
	}
	return max(defaultCacheReserve, total/20)
}

// cacheRoom reports whether the cache may take need more bytes of disk.
func (t *Table) cacheRoom(need int64) bool {
	avail, total, err := diskSpace(t.eng.cache)
	if err != nil {
		return true // unknown here: the budget alone bounds the cache
	}
	reserve := t.eng.cacheReserve(total)
	c := t.cache
	if avail-need >= reserve {
		if c.lowSpace.CompareAndSwap(true, false) {
			t.eng.log.Info("native cache: loading again, the disk has room", "table", t.ID.Name, "free_bytes", avail, "reserve_bytes", reserve)
		}
		return true
	}
	if !c.lowSpace.Swap(true) {
		t.eng.log.Warn("native cache: not loading, the disk is at the space the cache leaves free; files are read from Parquet meanwhile",
			"table", t.ID.Name, "free_bytes", avail, "needed_bytes", need, "reserve_bytes", reserve)
	}
	return false
}

// loadNeed estimates the disk a file's load takes: its rows uncompressed
// (in DuckDB's write-ahead log until a checkpoint) and their compressed
// copy (charge).
func (t *Table) loadNeed(ctx context.Context, local string, charge int64) int64 {
	var raw int64
	err := t.eng.db.QueryRowContext(ctx, "SELECT coalesce(sum(total_uncompressed_size), 0)::BIGINT FROM parquet_metadata(?)", local).Scan(&raw)
	if err != nil {
		return charge
	}
	return raw + charge
}

type cachedFile struct {
	no    int32
	bytes int64 // charged to the engine's budget
}

// cacheTableName is the (unqualified) name of the cache table of table
// oid in schema version v. The version is in the name because the rows
// are stored in the columns of one schema: a cache loaded before an ALTER
// TABLE that never dropped it (a crash between the new manifest and the
// retirement of the handle) must not be read in the new schema, where a
// renamed, re-added or retyped column would read the old values.
func cacheTableName(oid uint32, v int) string {
	if v == 0 {
		return fmt.Sprintf("__bsdb_files_%d", oid)
	}
	return fmt.Sprintf("__bsdb_files_%d_v%d", oid, v)
}

// cacheTables lists the cache tables of table oid, of any schema version.
func (e *Engine) cacheTables(ctx context.Context, oid uint32) ([]string, error) {
	base := fmt.Sprintf("__bsdb_files_%d", oid)
	rows, err := e.db.QueryContext(ctx, "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND starts_with(table_name, ?)", cacheDBName, base)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if n == base || strings.HasPrefix(n, base+"_v") {
			out = append(out, n)
		}
	}
	return out, rows.Err()
}

// dropCacheOf drops every cache table of table oid and its file list.
func (e *Engine) dropCacheOf(ctx context.Context, oid uint32) error {
	names, err := e.cacheTables(ctx, oid)
	if err != nil {
		return err
	}
	q := "BEGIN; "
	for _, n := range names {
		q += fmt.Sprintf("DROP TABLE IF EXISTS %s.main.%s; ", cacheDBName, quoteIdent(n))
	}
	q += fmt.Sprintf("DELETE FROM %s WHERE oid = %d; COMMIT", cacheFilesName, oid)
	return e.execTx(ctx, q)
}

// newFileCache returns the cache of table oid in schema version v with
// what an earlier run loaded. What was loaded in another schema version
// is dropped.
func (e *Engine) newFileCache(ctx context.Context, oid uint32, v int) (*fileCache, error) {
	table := cacheTableName(oid, v)
	c := &fileCache{
		oid:   oid,
		name:  fmt.Sprintf("%s.main.%s", cacheDBName, quoteIdent(table)),
		files: map[string]cachedFile{},
		kick:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	names, err := e.cacheTables(ctx, oid)
	if err != nil {
		return nil, err
	}
	if len(names) > 1 || (len(names) == 1 && names[0] != table) {
		if err := e.dropCacheOf(ctx, oid); err != nil {
			return nil, err
		}
		e.log.Info("native cache: dropped a table's cache of an older schema", "oid", oid, "tables", names)
		return c, nil
	}
	rows, err := e.db.QueryContext(ctx, "SELECT path, no, bytes FROM "+cacheFilesName+" WHERE oid = ?", oid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var path string
		var f cachedFile
		if err := rows.Scan(&path, &f.no, &f.bytes); err != nil {
			return nil, err
		}
		c.files[path] = f
		c.next = max(c.next, f.no+1)
		c.created = true
		e.cacheUsed.Add(f.bytes)
	}
	return c, rows.Err()
}

// split returns the file numbers of the loaded files among the snapshot's
// files (rel: manifest paths; local: their local paths), the local paths
// not loaded, and, when the loaded ones are every file in the cache, the
// next file number: numbers below it are exactly those files (a later
// load gets a higher number; a file leaves only under the gc lock, which
// the statement holds), so a cheap "number < next" filter replaces the
// list.
func (c *fileCache) split(rel, local []string) (nos []int32, rest []string, below int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, p := range rel {
		if f, ok := c.files[p]; ok {
			nos = append(nos, f.no)
		} else {
			rest = append(rest, local[i])
		}
	}
	if len(nos) == len(c.files) {
		below = c.next
	}
	return nos, rest, below
}

// wake asks the loader to look at the table's files.
func (c *fileCache) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// cacheRelation is the SELECT of the table's columns (or, without columns,
// of one constant) from the loaded files nos ("" when there are none;
// below > 0: they are the files numbered below it, see split). The rows
// are always filtered: the loader may add a file's rows between the bind
// and the statement's run, and that file's rows are still buffered rows
// in the statement's snapshot.
func (t *Table) cacheRelation(nos []int32, below int32, columns bool) string {
	if len(nos) == 0 {
		return ""
	}
	list := "1"
	if columns {
		cols := make([]string, len(t.Schema.Columns))
		for i := range t.Schema.Columns {
			cols[i] = quoteIdent(t.Schema.Columns[i].Name)
		}
		list = strings.Join(cols, ", ")
	}
	q := fmt.Sprintf("SELECT %s FROM %s", list, t.cache.name)
	if below > 0 {
		return q + fmt.Sprintf(" WHERE %s < %d", cacheFileColumn, below)
	}
	s := make([]string, len(nos))
	for i, n := range nos {
		s[i] = fmt.Sprint(n)
	}
	return q + fmt.Sprintf(" WHERE %s IN (%s)", cacheFileColumn, strings.Join(s, ","))
}

// cacheLoader keeps the table's cache in step with its committed files
// until stopped.
func (t *Table) cacheLoader() {
	c := t.cache
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		if err := t.syncCache(); err != nil {
			if errors.Is(err, txn.ErrClosed) {
				// The table closed under the load (its last flush kicked
				// it): closeCache follows; nothing failed.
				return
			}
			if errors.Is(err, errCacheNoSpace) {
				// Logged by cacheRoom; look again later, or at the next
				// commit.
				select {
				case <-c.stop:
					return
				case <-c.kick:
				case <-time.After(cacheSpaceRetry):
				}
				c.wake()
				continue
			}
			t.eng.log.Warn("native cache: loading failed; the table is read from its Parquet files", "table", t.ID.Name, "err", err)
			select {
			case <-c.stop:
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// syncCache loads the committed files not yet cached and drops the rows of
// files no longer in the table.
func (t *Table) syncCache() error {
	c := t.cache
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	snap, err := t.T.Snapshot(ctx)
	if err != nil {
		return err
	}
	m := snap.Manifest
	snap.Release()
	paths, err := t.eng.localFiles(ctx, t, m)
	if err != nil {
		return err
	}
	live := map[string]int64{}
	for _, f := range m.Files {
		live[f.Path] = f.Bytes
	}
	c.mu.Lock()
	var gone []string
	for p := range c.files {
		if _, ok := live[p]; !ok {
			gone = append(gone, p)
		}
	}
	created := c.created
	c.mu.Unlock()
	if len(gone) > 0 {
		if err := t.dropCached(ctx, gone); err != nil {
			return err
		}
	}
	if !created {
		cols := []string{cacheFileColumn + " INTEGER"}
		for i := range t.Schema.Columns {
			col := &t.Schema.Columns[i]
			cols = append(cols, quoteIdent(col.Name)+" "+DuckType(col))
		}
		if _, err := t.eng.db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", c.name, strings.Join(cols, ", "))); err != nil {
			return err
		}
		c.mu.Lock()
		c.created = true
		c.mu.Unlock()
	}
	exprs := make([]string, len(t.Schema.Columns))
	for i := range t.Schema.Columns {
		col := &t.Schema.Columns[i]
		exprs[i] = fmt.Sprintf("CAST(%s AS %s)", parquetReadExpr(col), DuckType(col))
	}
	for i, local := range paths {
		p := m.Files[i].Path
		c.mu.Lock()
		_, loaded := c.files[p]
		no := c.next
		c.mu.Unlock()
		if loaded {
			continue
		}
		charge := 3 * live[p]
		if t.eng.cacheUsed.Add(charge) > t.eng.cfg.NativeCacheBytes {
			t.eng.cacheUsed.Add(-charge)
			if !c.warned.Swap(true) {
				t.eng.log.Info("native cache full: further files of this table are read from Parquet", "table", t.ID.Name, "budget_bytes", t.eng.cfg.NativeCacheBytes)
			}
			continue
		}
		if !t.cacheRoom(t.loadNeed(ctx, local, charge)) {
			t.eng.cacheUsed.Add(-charge)
			return errCacheNoSpace
		}
		// The rows and their entry in one DuckDB transaction, appended
		// while no statement reads the table (the gc lock): a scan of the
		// cache table concurrent with an append to it was seen to return
		// rows twice (crashtest, cache on).
		q := fmt.Sprintf("BEGIN; INSERT INTO %s SELECT %d, %s FROM read_parquet(%s%s); INSERT INTO %s VALUES (%d, %s, %d, %d); COMMIT",
			c.name, no, strings.Join(exprs, ", "), quoteLiteral(local), t.readOptions(false), cacheFilesName, c.oid, quoteLiteral(p), no, charge)
		if err := t.lockGC(ctx); err != nil {
			t.eng.cacheUsed.Add(-charge)
			return err
		}
		err := t.eng.execTx(ctx, q)
		t.gc.Unlock()
		if err != nil {
			t.eng.cacheUsed.Add(-charge)
			return fmt.Errorf("load %s: %w", p, err)
		}
		c.mu.Lock()
		c.files[p] = cachedFile{no: no, bytes: charge}
		c.next++
		c.mu.Unlock()
	}
	return nil
}

// dropCached deletes the rows of files that left the table, once no
// statement that could still read them runs (the gc lock).
func (t *Table) dropCached(ctx context.Context, paths []string) error {
	c := t.cache
	if err := t.lockGC(ctx); err != nil {
		return err
	}
	defer t.gc.Unlock()
	c.mu.Lock()
	var nos []string
	var freed int64
	for _, p := range paths {
		if f, ok := c.files[p]; ok {
			nos = append(nos, fmt.Sprint(f.no))
			freed += f.bytes
			delete(c.files, p)
		}
	}
	c.mu.Unlock()
	if len(nos) == 0 {
		return nil
	}
	t.eng.cacheUsed.Add(-freed)
	list := strings.Join(nos, ",")
	q := fmt.Sprintf("BEGIN; DELETE FROM %s WHERE %s IN (%s); DELETE FROM %s WHERE oid = %d AND no IN (%s); COMMIT",
		c.name, cacheFileColumn, list, cacheFilesName, c.oid, list)
	return t.eng.execTx(ctx, q)
}

// execTx runs a BEGIN; ...; COMMIT script on one connection, rolling back
// if it fails.
func (e *Engine) execTx(ctx context.Context, script string) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, script); err != nil {
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	return nil
}

// closeCache stops the loader; drop also removes the table's cache.
func (t *Table) closeCache(drop bool) {
	c := t.cache
	if c == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.mu.Lock()
	var freed int64
	for _, f := range c.files {
		freed += f.bytes
	}
	c.files = map[string]cachedFile{}
	created := c.created
	c.mu.Unlock()
	t.eng.cacheUsed.Add(-freed)
	if drop && created {
		_ = t.eng.execTx(context.Background(), fmt.Sprintf("BEGIN; DROP TABLE IF EXISTS %s; DELETE FROM %s WHERE oid = %d; COMMIT", c.name, cacheFilesName, c.oid))
	}
}

// CacheTableName is the name of the table's native cache table (EXPLAIN
// shows the table's name in its place).
func CacheTableName(t *Table) string { return cacheTableName(t.Entry.OID, t.Schema.Version) }

// CachedFiles returns how many of the table's data files are in the
// native cache (diagnostics and tests).
func (t *Table) CachedFiles() int {
	if t.cache == nil {
		return 0
	}
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	return len(t.cache.files)
}

// lockGC takes the gc lock exclusively without queueing behind (and so
// blocking) statements: it retries until no statement holds it.
func (t *Table) lockGC(ctx context.Context) error {
	for !t.gc.TryLock() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}
