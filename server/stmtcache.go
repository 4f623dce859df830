package server

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	bsql "github.com/bsdb/bsdb-pg/sql"
)

// The statement cache keeps a session's DuckDB prepared statements by the
// text of the query DuckDB runs. A SELECT that the session ran before with
// the same translation (same tables, same snapshot shape: the relation of
// a table names its files and buffered batches, so a new commit is a new
// text) skips DuckDB's parse, bind and optimize: about a quarter of the
// server's CPU for a point lookup or a count(*) (pgbench -M simple, 10M
// rows), and more for statements over many files.
//
// A text is prepared and kept the second time it is seen (seen holds the
// hashes of recent texts), so one-off queries, and texts that inline
// parameter values, never hold a prepared plan.
//
// What may go stale, and why it does not:
//   - The rows: DuckDB (1.5) keeps in a prepared plan what the table
//     statistics proved at prepare time (a filter no row matched then is an
//     empty result for good: duckdb/duckdb#23704), so a kept plan is only
//     right while the rows under its text cannot change. They cannot: the
//     text names immutable batches (by id), files (by path) and native-cache
//     files (by number), all in place before the statement is prepared
//     (Bind mirrors first); a commit, a new file or a newly cached file
//     makes a new text (TestStatementCacheAfterEmptyResult).
//   - The catalog: DuckDB rebinds a prepared statement whose catalog changed
//     since it was prepared (a table dropped and re-created, the native
//     cache's tables replaced, a session's temporary view recreated).
//   - Settings that DuckDB folds into a plan (TimeZone: a timestamptz
//     literal cast at prepare time): every statement the session runs on
//     its DuckDB connection other than a query (execDuck) empties the cache.
//   - Functions with an effect or a session answer (set_config,
//     current_setting, ...) are volatile, never folded at prepare time.
//
// A cached statement runs one query at a time. Its streaming result is
// read into memory (duckstream.go) before the connection runs anything
// else, which gives the statement back; while busy, the same text runs
// unprepared.
type stmtCache struct {
	m    map[string]*cachedStmt
	seen [stmtCacheSeen]uint64
	next int // next slot of seen to overwrite
	tick uint64
}

type cachedStmt struct {
	st      *duckdb.Stmt
	busy    bool // its result is open
	evicted bool // left the cache while busy: close when its rows close
	used    uint64
}

const (
	stmtCacheSize = 16       // prepared statements kept per session
	stmtCacheSeen = 64       // texts remembered as seen once
	stmtCacheMax  = 64 << 10 // longer texts are never kept
)

var stmtSeed = maphash.MakeSeed()

// queryDuck runs a query on the session's DuckDB connection, through the
// statement cache, as a streaming result (duckstream.go). A stream still
// open on the connection is drained first; a query calling session
// functions is read to its end at once.
func (s *session) queryDuck(ctx context.Context, q string, args []any) (*duckStream, error) {
	d, err := s.startQuery(ctx, q, args)
	if err == nil && strings.Contains(q, bsql.SessionFuncPrefix) {
		s.stream = nil
		d.drain(ctx)
	}
	return d, err
}

// startQuery starts q as a streaming result.
func (s *session) startQuery(ctx context.Context, q string, args []any) (*duckStream, error) {
	s.detachStream(ctx)
	var dc *duckdb.Conn
	if err := s.conn.Raw(func(c any) error {
		var ok bool
		if dc, ok = c.(*duckdb.Conn); !ok {
			return fmt.Errorf("BUG: not a duckdb connection: %T", c)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	c := &s.stmts
	if e := c.m[q]; e != nil && !e.busy {
		d, err := s.startStream(ctx, dc, e.st, c.take(e), args)
		if err == nil {
			s.b.stmtHits.Add(1)
			return d, nil
		}
		// The next run prepares afresh; this one runs unprepared (the
		// same error, unless the kept plan was the cause).
		c.evict(q)
		if ctx.Err() != nil {
			return nil, err
		}
	} else if e == nil && len(q) <= stmtCacheMax && c.sawBefore(q) {
		st, err := prepareDuck(ctx, dc, q)
		if err != nil {
			return nil, err
		}
		e := c.add(q, st)
		d, err := s.startStream(ctx, dc, st, c.take(e), args)
		if err != nil {
			c.evict(q)
		}
		return d, err
	}
	st, err := prepareDuck(ctx, dc, q)
	if err != nil {
		return nil, err
	}
	return s.startStream(ctx, dc, st, func() { _ = st.Close() }, args)
}

// prepareDuck prepares q on the session's connection (the caller detached
// any open stream).
func prepareDuck(ctx context.Context, dc *duckdb.Conn, q string) (*duckdb.Stmt, error) {
	st, err := dc.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	ds, ok := st.(*duckdb.Stmt)
	if !ok {
		_ = st.Close()
		return nil, fmt.Errorf("BUG: not a duckdb statement: %T", st)
	}
	return ds, nil
}

// execDuck runs a statement that is not a query (settings, temporary
// objects) on the session's DuckDB connection; the prepared statements
// are dropped, as their plans may depend on what it changes.
func (s *session) execDuck(ctx context.Context, q string) error {
	s.detachStream(ctx)
	s.stmts.clear()
	_, err := s.conn.ExecContext(ctx, q)
	return err
}

// sawBefore reports whether q is among the recently seen texts, and
// remembers it otherwise.
func (c *stmtCache) sawBefore(q string) bool {
	h := maphash.String(stmtSeed, q)
	for _, x := range c.seen {
		if x == h {
			return true
		}
	}
	c.seen[c.next] = h
	c.next = (c.next + 1) % len(c.seen)
	return false
}

// take marks the kept statement e (not busy) in use; the function it
// returns gives it back.
func (c *stmtCache) take(e *cachedStmt) func() {
	e.busy = true
	c.tick++
	e.used = c.tick
	return func() { c.release(e) }
}

func (c *stmtCache) add(q string, st *duckdb.Stmt) *cachedStmt {
	if c.m == nil {
		c.m = map[string]*cachedStmt{}
	}
	if len(c.m) >= stmtCacheSize {
		// Evict the least recently used statement.
		var oldest string
		var min uint64
		first := true
		for k, e := range c.m {
			if first || e.used < min {
				oldest, min, first = k, e.used, false
			}
		}
		c.evict(oldest)
	}
	e := &cachedStmt{st: st}
	c.m[q] = e
	return e
}

func (c *stmtCache) evict(q string) {
	e := c.m[q]
	if e == nil {
		return
	}
	delete(c.m, q)
	if e.busy {
		e.evicted = true
		return
	}
	_ = e.st.Close()
}

func (c *stmtCache) release(e *cachedStmt) {
	e.busy = false
	if e.evicted {
		_ = e.st.Close()
	}
}

// clear drops every statement (closed now, or when its rows close).
func (c *stmtCache) clear() {
	for q := range c.m {
		c.evict(q)
	}
}
