package server

import (
	"context"
	"fmt"
	"math"
	"sort"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// SQL cursors: DECLARE, FETCH, MOVE, CLOSE, as PostgreSQL runs them
// (src/backend/tcop/pquery.c DoPortalRunFetch / PortalRunSelect).
//
// A cursor is a selectPlan (the query's snapshot bound at DECLARE, its
// DuckDB query started at the first FETCH) plus PostgreSQL's portal
// position: atStart, atEnd, portalPos, and cur, the row the executor is on
// (0 = before the first, total+1 = after the last).
//
// Lifetime: a cursor belongs to the transaction that declared it (tx) and
// is closed when that transaction ends. WITH HOLD cursors survive a commit:
// their remaining rows are then read into memory (held), as PostgreSQL
// materializes them, which releases the snapshot; a rollback closes them
// too. Transaction ends are noticed lazily (settleCursors, at the next
// statement), except ROLLBACK and COMMIT statements, which settle eagerly.
//
// Scrolling: SCROLL cursors keep every row read (rows) so that they can go
// back; other cursors read forward only and raise PostgreSQL's error 55000
// when asked to go back. (For a
// cursor declared with neither SCROLL nor NO SCROLL PostgreSQL allows going
// back when the plan supports it; we treat it as NO SCROLL.)

// Cursor options of DeclareCursorStmt (PostgreSQL's CURSOR_OPT_*).
const (
	cursorBinary   = 0x01
	cursorScroll   = 0x02
	cursorNoScroll = 0x04
	cursorHold     = 0x20
)

// errScanForward is PostgreSQL's 55000 (object_not_in_prerequisite_state)
// for moving a forward-only cursor back.
func errScanForward() *pgerr.Error {
	return pgerr.New("55000", "cursor can only scan forward").WithHint("Declare it with SCROLL option to enable backward scan.")
}

type cursor struct {
	name    string
	plan    *selectPlan
	options int32
	tx      *txState // the declaring transaction; nil once held past it
	aborted bool     // its transaction rolled back (explicit ROLLBACK)

	// PostgreSQL's portal position (see PortalRunSelect).
	atStart, atEnd bool
	portalPos      int64
	cur            int64 // row the executor is on: 0 before first, total+1 after last

	// rows read from the plan that are kept (SCROLL: all of them; held:
	// the unread rest): rows[i] is row base+i+1.
	rows     [][]any
	base     int64
	pulled   int64 // rows read from the plan so far
	srcDone  bool  // the plan is exhausted: total = pulled
	scroll   bool
	noScroll bool
}

func (c *cursor) hold() bool   { return c.options&cursorHold != 0 }
func (c *cursor) binary() bool { return c.options&cursorBinary != 0 }

// close releases the cursor's query and snapshot.
func (c *cursor) close() {
	c.plan.Close()
	c.rows = nil
}

// row loads row k (1-based) into c.plan.vals; false when there is no such
// row (k past the end). REQUIRES: c.plan.watch active.
func (c *cursor) row(ctx context.Context, k int64) (bool, error) {
	if k <= 0 {
		return false, nil
	}
	if k > c.base && k <= c.base+int64(len(c.rows)) {
		r := c.rows[k-c.base-1]
		if c.plan.vals == nil {
			c.plan.vals = make([]any, len(c.plan.cols))
			c.plan.buf = make([][]byte, len(c.plan.cols))
		}
		copy(c.plan.vals, r)
		if !c.scroll && k == c.base+1 {
			// A forward-only cursor never returns to a row it passed.
			c.rows[0] = nil
			c.rows = c.rows[1:]
			c.base++
		}
		return true, nil
	}
	if k <= c.base {
		return false, fmt.Errorf("BUG: cursor %q: row %d was dropped", c.name, k)
	}
	for c.pulled < k {
		if c.srcDone {
			return false, nil
		}
		ok, err := c.plan.next(ctx)
		if err != nil {
			return false, err
		}
		if !ok {
			c.srcDone = true
			return false, nil
		}
		c.pulled++
		if c.scroll {
			c.rows = append(c.rows, append([]any(nil), c.plan.vals...))
		} else {
			c.base = c.pulled
		}
	}
	return true, nil
}

// materialize reads the rest of the query into memory and releases the
// plan's snapshot (a WITH HOLD cursor outliving its transaction).
func (c *cursor) materialize(ctx context.Context) error {
	if c.srcDone || c.plan.done {
		c.srcDone = true
		return nil
	}
	stop := c.plan.watch(ctx)
	defer stop()
	if !c.scroll {
		c.rows, c.base = c.rows[:0], c.pulled
	}
	for {
		ok, err := c.plan.next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			c.srcDone = true
			return nil
		}
		c.pulled++
		c.rows = append(c.rows, append([]any(nil), c.plan.vals...))
	}
}

// runSelect is PostgreSQL's PortalRunSelect: it moves count rows (math.MaxInt64
// = all) forward or backward, sending them to sink (nil = MOVE), and returns
// how many it processed.
func (c *cursor) runSelect(ctx context.Context, forward bool, count int64, sink rowSink) (int64, error) {
	var n int64
	if forward {
		if c.atEnd || count <= 0 {
			return 0, nil
		}
		for n < count {
			ok, err := c.row(ctx, c.cur+1)
			if err != nil {
				return n, err
			}
			if !ok {
				c.cur = c.pulled + 1
				break
			}
			c.cur++
			if sink != nil {
				if err := c.plan.emit(sink); err != nil {
					return n, err
				}
			}
			n++
		}
		if n > 0 {
			c.atStart = false
		}
		if n < count {
			c.atEnd = true
		}
		c.portalPos += n
		return n, nil
	}
	if c.noScroll || !c.scroll {
		return 0, errScanForward()
	}
	if c.atStart || count <= 0 {
		return 0, nil
	}
	for n < count && c.cur > 1 {
		ok, err := c.row(ctx, c.cur-1)
		if err != nil {
			return n, err
		}
		if !ok {
			return n, fmt.Errorf("BUG: cursor %q: row %d missing going back", c.name, c.cur-1)
		}
		c.cur--
		if sink != nil {
			if err := c.plan.emit(sink); err != nil {
				return n, err
			}
		}
		n++
	}
	if n < count {
		c.cur = 0
	}
	if n > 0 && c.atEnd {
		c.atEnd = false
		c.portalPos++
	}
	if n < count {
		c.atStart = true
		c.portalPos = 0
	} else {
		c.portalPos -= n
	}
	return n, nil
}

// rewind is PostgreSQL's DoPortalRewind.
func (c *cursor) rewind() error {
	if c.atStart && !c.atEnd {
		return nil
	}
	if c.noScroll || !c.scroll {
		return errScanForward()
	}
	c.cur, c.portalPos, c.atStart, c.atEnd = 0, 0, true, false
	return nil
}

// fetch is PostgreSQL's DoPortalRunFetch.
func (c *cursor) fetch(ctx context.Context, dir pg_query.FetchDirection, count int64, sink rowSink) (int64, error) {
	stop := c.plan.watch(ctx)
	defer stop()
	const all = math.MaxInt64
	switch dir {
	case pg_query.FetchDirection_FETCH_FORWARD:
		if count < 0 {
			dir, count = pg_query.FetchDirection_FETCH_BACKWARD, -count
		}
	case pg_query.FetchDirection_FETCH_BACKWARD:
		if count < 0 {
			dir, count = pg_query.FetchDirection_FETCH_FORWARD, -count
		}
	case pg_query.FetchDirection_FETCH_ABSOLUTE:
		switch {
		case count > 0:
			if c.portalPos == all || count-1 < c.portalPos/2 {
				if err := c.rewind(); err != nil {
					return 0, err
				}
				if count > 1 {
					if _, err := c.runSelect(ctx, true, count-1, nil); err != nil {
						return 0, err
					}
				}
			} else {
				pos := c.portalPos
				if c.atEnd {
					pos++
				}
				if count <= pos {
					if _, err := c.runSelect(ctx, false, pos-count+1, nil); err != nil {
						return 0, err
					}
				} else if count > pos+1 {
					if _, err := c.runSelect(ctx, true, count-pos-1, nil); err != nil {
						return 0, err
					}
				}
			}
			return c.runSelect(ctx, true, 1, sink)
		case count < 0:
			if _, err := c.runSelect(ctx, true, all, nil); err != nil {
				return 0, err
			}
			if count < -1 {
				if _, err := c.runSelect(ctx, false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(ctx, false, 1, sink)
		default:
			if err := c.rewind(); err != nil {
				return 0, err
			}
			return 0, nil
		}
	case pg_query.FetchDirection_FETCH_RELATIVE:
		switch {
		case count > 0:
			if count > 1 {
				if _, err := c.runSelect(ctx, true, count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(ctx, true, 1, sink)
		case count < 0:
			if count < -1 {
				if _, err := c.runSelect(ctx, false, -count-1, nil); err != nil {
					return 0, err
				}
			}
			return c.runSelect(ctx, false, 1, sink)
		}
		dir = pg_query.FetchDirection_FETCH_FORWARD
	}
	forward := dir == pg_query.FetchDirection_FETCH_FORWARD
	if count == 0 {
		onRow := !c.atStart && !c.atEnd
		if sink == nil {
			if onRow {
				return 1, nil
			}
			return 0, nil
		}
		if !onRow {
			return 0, nil
		}
		if _, err := c.runSelect(ctx, false, 1, nil); err != nil {
			return 0, err
		}
		count, forward = 1, true
	}
	if !forward && count == all && sink == nil {
		// MOVE BACKWARD ALL is a rewind.
		res := c.portalPos
		if res > 0 && !c.atEnd {
			res--
		}
		if err := c.rewind(); err != nil {
			return 0, err
		}
		return res, nil
	}
	return c.runSelect(ctx, forward, count, sink)
}

// inBlock reports whether the session is inside a transaction block for
// DECLARE CURSOR: BEGIN ... COMMIT, or a multi-statement Query message
// (PostgreSQL's implicit block), not the implicit transaction of the
// extended protocol.
func (s *session) inBlock() bool {
	return s.tx != nil && (!s.tx.implicit || s.multi)
}

// settleCursors closes the cursors whose transaction ended and keeps the
// WITH HOLD ones of a committed transaction, in memory.
func (s *session) settleCursors(ctx context.Context) {
	for _, name := range s.cursorNames() {
		c := s.cursors[name]
		if c.tx == nil || c.tx == s.tx {
			continue
		}
		if c.hold() && !c.tx.failed && !c.aborted {
			if err := c.materialize(ctx); err == nil {
				c.plan.finish() // the rows are ours now: release the snapshot
				c.tx = nil
				continue
			} else {
				s.b.Log.Warn("closing WITH HOLD cursor: its query failed at commit", "cursor", name, "err", err)
			}
		}
		c.close()
		delete(s.cursors, name)
	}
}

// endCursors settles the cursors of the current transaction as it ends by
// COMMIT (committed) or ROLLBACK: WITH HOLD cursors are materialized before
// the commit, so that an error reading them fails the COMMIT.
func (s *session) endCursors(ctx context.Context, committed bool) error {
	for _, name := range s.cursorNames() {
		c := s.cursors[name]
		if c.tx == nil || c.tx != s.tx {
			continue
		}
		if !committed || s.tx.failed || !c.hold() {
			c.aborted = true
			continue
		}
		if err := c.materialize(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) cursorNames() []string {
	names := make([]string, 0, len(s.cursors))
	for n := range s.cursors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// closeCursors closes every cursor (session end, DISCARD ALL, CLOSE ALL).
func (s *session) closeCursors() {
	for name, c := range s.cursors {
		c.close()
		delete(s.cursors, name)
	}
}

func (s *session) lookupCursor(ctx context.Context, name string) (*cursor, error) {
	s.settleCursors(ctx)
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	return c, nil
}

// planCursor plans DECLARE, FETCH, MOVE and CLOSE (handled = false for
// other statements).
func (s *session) planCursor(ctx context.Context, st *bsql.Statement, params []any, formats []int16) (p plan, handled bool, err error) {
	switch n := st.Tree.GetNode().(type) {
	case *pg_query.Node_DeclareCursorStmt:
		return tagOnly("DECLARE CURSOR", func(ctx context.Context) error {
			return s.declare(ctx, st, n.DeclareCursorStmt, params)
		}), true, nil
	case *pg_query.Node_FetchStmt:
		p, err := s.planFetch(ctx, n.FetchStmt, formats)
		return p, true, err
	case *pg_query.Node_ClosePortalStmt:
		name := n.ClosePortalStmt.Portalname
		if name == "" {
			return tagOnly("CLOSE CURSOR ALL", func(ctx context.Context) error {
				s.closeCursors()
				return nil
			}), true, nil
		}
		return tagOnly("CLOSE CURSOR", func(ctx context.Context) error {
			c, err := s.lookupCursor(ctx, name)
			if err != nil {
				return err
			}
			c.close()
			delete(s.cursors, name)
			return nil
		}), true, nil
	}
	return nil, false, nil
}

func (s *session) declare(ctx context.Context, st *bsql.Statement, d *pg_query.DeclareCursorStmt, params []any) error {
	hold := d.Options&cursorHold != 0
	if !hold && !s.inBlock() {
		return pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	s.settleCursors(ctx)
	if _, ok := s.cursors[d.Portalname]; ok {
		return pgerr.New(pgwire.DuplicateCursor, "cursor \"%s\" already exists", d.Portalname)
	}
	if d.Options&cursorScroll != 0 && d.Options&cursorNoScroll != 0 {
		return pgerr.New("42P11", "cannot specify both SCROLL and NO SCROLL")
	}
	sel := d.Query.GetSelectStmt()
	if sel == nil {
		return pgerr.New(pgerr.SyntaxError, "DECLARE CURSOR must be a SELECT")
	}
	if len(sel.LockingClause) > 0 {
		return errUnsupported("DECLARE CURSOR ... FOR UPDATE/SHARE")
	}
	if sel.IntoClause != nil {
		return pgerr.New("42P11", "cannot create a cursor for SELECT INTO")
	}
	inner := &bsql.Statement{Text: st.Text, Query: st.Query, Offset: st.Offset, Kind: bsql.KindSelect, Tree: d.Query, Tag: "SELECT"}
	var formats []int16
	if d.Options&cursorBinary != 0 {
		formats = []int16{1}
	}
	pl, err := s.planSelect(ctx, inner, params, formats)
	if err != nil {
		return err
	}
	c := &cursor{name: d.Portalname, plan: pl.(*selectPlan), options: d.Options, atStart: true,
		scroll: d.Options&cursorScroll != 0, noScroll: d.Options&cursorNoScroll != 0}
	if s.tx != nil {
		c.tx = s.tx
	} else if err := c.materialize(ctx); err != nil {
		// WITH HOLD outside a transaction: the statement's own
		// transaction commits at once.
		c.close()
		return err
	} else {
		c.plan.finish()
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursors[d.Portalname] = c
	return nil
}

// fetchPlan runs FETCH or MOVE.
type fetchPlan struct {
	s    *session
	f    *pg_query.FetchStmt
	c    *cursor
	cols []resultCol // FETCH: the cursor's columns in this statement's formats
	done bool
}

func (s *session) planFetch(ctx context.Context, f *pg_query.FetchStmt, formats []int16) (plan, error) {
	c, err := s.lookupCursor(ctx, f.Portalname)
	if err != nil {
		return nil, err
	}
	p := &fetchPlan{s: s, f: f, c: c}
	if !f.Ismove {
		if formats == nil && c.binary() {
			formats = []int16{1}
		}
		p.cols = append([]resultCol(nil), c.plan.cols...)
		for i := range p.cols {
			p.cols[i].format = formatOf(formats, i)
		}
	}
	return p, nil
}

func (p *fetchPlan) Columns() []pgwire.Column {
	if p.f.Ismove {
		return nil
	}
	return pgColumns(p.cols)
}

// execute runs the FETCH whole: maxRows (portal suspension of a FETCH) is
// not honoured; a FETCH's count bounds its rows already.
func (p *fetchPlan) execute(ctx context.Context, _ int, w pgwire.ResultWriter) (bool, error) {
	if p.done {
		return false, pgerr.New(pgerr.InvalidCursorState, "portal has been closed")
	}
	p.done = true
	c := p.c
	if cur, ok := p.s.cursors[p.f.Portalname]; !ok || cur != c {
		return false, pgerr.New(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", p.f.Portalname)
	}
	var sink rowSink
	tag := "MOVE"
	if !p.f.Ismove {
		sink, tag = w, "FETCH"
		for i := range c.plan.cols {
			c.plan.cols[i].format = p.cols[i].format
		}
	}
	n, err := c.fetch(ctx, p.f.Direction, p.f.HowMany, sink)
	if err != nil {
		return false, err
	}
	return false, w.Complete(fmt.Sprintf("%s %d", tag, n))
}

func (p *fetchPlan) Close() {}

// fetchColumns describes a FETCH statement (extended protocol Describe):
// the cursor's columns, nil for MOVE or an unknown cursor.
func (s *session) fetchColumns(ctx context.Context, st *bsql.Statement) []pgwire.Column {
	f := st.Tree.GetFetchStmt()
	if f == nil || f.Ismove {
		return nil
	}
	c, err := s.lookupCursor(ctx, f.Portalname)
	if err != nil {
		return nil
	}
	cols := append([]resultCol(nil), c.plan.cols...)
	for i := range cols {
		cols[i].format = 0
	}
	return pgColumns(cols)
}
