package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

type insertPlan struct {
	s       *session
	st      *bsql.Statement
	ins     *bsql.Insert
	t       *planner.Table
	info    *bsql.TableInfo
	args    []any // DuckDB forms of the parameters
	canon   []any // canonical forms of the parameters
	b       *binder
	ret     *selectPlan // RETURNING, or nil
	retCols []resultCol
	cache   *insertCache // the statement's cached translation, or nil
	// seqVals: the sequence values of the Direct rows' nextval defaults,
	// taken for all rows at once (seqValues); seqVals[c] per column.
	seqVals [][]any
	seqNext []int
	// arbiters: ON CONFLICT's arbiter keys (nil: every key).
	arbiters []string
	// retries: how many times this statement was planned again because
	// its table was altered while it ran (at most 3).
	retries int
}

func (s *session) planInsert(ctx context.Context, st *bsql.Statement, canon []any, formats []int16) (plan, error) {
	if err := s.lockForWrite(ctx, st.Tree.GetInsertStmt().GetRelation()); err != nil { // schemalock.go
		return nil, err
	}
	b := &binder{s: s, ctx: ctx}
	ins := s.cachedInsert(ctx, st)
	if ins == nil {
		var err error
		ins, err = bsql.TranslateInsert(st.Tree, b, nil)
		if err != nil {
			b.release()
			return nil, err
		}
	}
	// The target's privileges are checked at every execution, a cached
	// translation's too: INSERT, and SELECT for RETURNING.
	want := acl.Insert
	if ins.Returning != nil {
		want |= acl.Select
	}
	t, err := s.accessTable(ctx, ins.Table.Schema, ins.Table.Name, want)
	if err != nil {
		b.release()
		return nil, err
	}
	var params []any // DuckDB's forms, for a source query or RETURNING
	if ins.Direct == nil || ins.Returning != nil {
		params = toDuckArgs(canon)
	}
	p := &insertPlan{s: s, st: st, ins: ins, t: t, info: tableInfo(t), args: params, canon: canon, b: b, cache: s.cacheInsert(st, ins, t)}
	if ins.OnConflict {
		if p.arbiters, err = conflictArbiters(t, ins); err != nil {
			b.release()
			return nil, err
		}
	}
	if ins.Returning != nil {
		if err := s.returningView(ctx, t, nil); err != nil {
			b.release()
			return nil, err
		}
		p.ret = &selectPlan{s: s, q: ins.Returning, args: params, b: &binder{s: s, ctx: ctx}, tag: "INSERT 0"}
		if err := p.ret.describe(ctx, formats); err != nil {
			b.release()
			return nil, err
		}
	}
	return p, nil
}

// insertCache is a prepared INSERT's translation, reusable while the
// target is the same open table and the settings that translation depends
// on (name resolution, literal input) are unchanged. Only direct VALUES
// inserts are cached: their translation reads no snapshot.
type insertCache struct {
	ins *bsql.Insert
	t   *planner.Table
	key string
	// rb is the Arrow builder of the last execution, reused by the next
	// (nil while an execution uses it); its builders are empty between
	// executions.
	rb *array.RecordBuilder
}

// insertKeySettings are the settings an INSERT's translation depends on.
var insertKeySettings = [...]string{"search_path", "datestyle", "timezone", "intervalstyle"}

func (s *session) insertCacheKey() string {
	var b strings.Builder
	for i, name := range insertKeySettings {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(s.set.vals[name])
	}
	return b.String()
}

// insertCacheKeyIs reports whether key is insertCacheKey(), without
// building it (a prepared INSERT checks its cache at every Bind).
func (s *session) insertCacheKeyIs(key string) bool {
	for i, name := range insertKeySettings {
		if i > 0 {
			if key == "" || key[0] != 0 {
				return false
			}
			key = key[1:]
		}
		v := s.set.vals[name]
		if !strings.HasPrefix(key, v) {
			return false
		}
		key = key[len(v):]
	}
	return key == ""
}

// cachedInsert returns st's cached translation if it is still valid.
func (s *session) cachedInsert(ctx context.Context, st *bsql.Statement) *bsql.Insert {
	c, ok := st.PlanCache.(*insertCache)
	if !ok || !s.insertCacheKeyIs(c.key) {
		return nil
	}
	id, err := s.resolve(ctx, c.ins.Table.Schema, c.ins.Table.Name)
	if err != nil {
		return nil
	}
	if t, err := s.eng.Table(ctx, id); err != nil || t != c.t {
		return nil
	}
	return c.ins
}

// cacheInsert caches ins for st (if it can be) and returns the cache.
func (s *session) cacheInsert(st *bsql.Statement, ins *bsql.Insert, t *planner.Table) *insertCache {
	if ins.Direct == nil || ins.Returning != nil {
		st.PlanCache = nil
		return nil
	}
	if c, ok := st.PlanCache.(*insertCache); ok && c.ins == ins && c.t == t && s.insertCacheKeyIs(c.key) {
		return c
	}
	c := &insertCache{ins: ins, t: t, key: s.insertCacheKey()}
	st.PlanCache = c
	return c
}

// returningView (re)creates the session's __bsdb_returning view over the
// given batches of t in its mirror (none: empty, for describing).
func (s *session) returningView(ctx context.Context, t *planner.Table, ids []uint64) error {
	q := fmt.Sprintf("CREATE OR REPLACE TEMP VIEW __bsdb_returning AS SELECT * FROM %s", t.MirrorRelation(ids))
	return s.execDuck(ctx, q)
}

func (p *insertPlan) Columns() []pgwire.Column {
	if p.ret != nil {
		return p.ret.Columns()
	}
	return nil
}

func (p *insertPlan) Close() {
	p.b.release()
	if p.ret != nil {
		p.ret.Close()
	}
}

func (p *insertPlan) execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (bool, error) {
	if p.ret != nil && p.ret.rows != nil {
		return p.ret.execute(ctx, maxRows, w)
	}
	s := p.s
	recs, n, err := p.buildBatches(ctx)
	if err != nil {
		return false, err
	}
	defer func() { releaseAll(recs) }()
	p.b.release()                                           // the source snapshot is no longer needed
	if err := s.enforceChecks(ctx, p.t, recs); err != nil { // checks.go
		return false, err
	}
	if p.ins.OnConflictUpdate {
		return p.upsert(ctx, recs, maxRows, w) // upsert.go
	}
	// The table's unique keys (keys.go).
	skip, endKeys, err := s.checkKeys(ctx, p.t, recs, keyOptions{doNothing: p.ins.OnConflictNothing, arbiters: p.arbiters})
	if err != nil {
		return false, err
	}
	if skip != nil {
		if recs, n, err = dropRows(recs, skip); err != nil {
			endKeys()
			return false, err
		}
	}
	if p.ret != nil {
		p.t.HoldMirror()
		defer p.t.ReleaseMirror()
	}
	ids, err := s.writeIDs(ctx, p.t, recs, p.ret != nil)
	endKeys()
	if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.SerializationFailure && s.tx == nil && p.ret == nil && p.t.Retired() && p.retries < 3 {
		// Another session altered the table between this statement's
		// plan and its write (nothing was written): plan it again on the
		// new schema and run it once more, as PostgreSQL's INSERT would
		// have waited for the ALTER and then run.
		np, perr := s.planInsert(ctx, p.st, p.canon, nil)
		if perr != nil {
			return false, perr
		}
		defer np.Close()
		if ip, ok := np.(*insertPlan); ok {
			ip.retries = p.retries + 1
		}
		return np.execute(ctx, maxRows, w)
	}
	if err != nil {
		return false, err
	}
	if p.ret == nil {
		return false, w.Complete(insertTag(n))
	}
	if err := p.t.MirrorWritten(ctx, ids, recs); err != nil {
		return false, err
	}
	if err := s.returningView(ctx, p.t, ids); err != nil {
		return false, err
	}
	p.ret.tag = "INSERT 0"
	return p.ret.execute(ctx, maxRows, w)
}

// buildBatches runs the source query and converts its rows into batches of
// the table's schema.
func (p *insertPlan) buildBatches(ctx context.Context) ([]arrow.RecordBatch, int64, error) {
	if p.ins.Direct != nil {
		if err := p.seqValues(ctx); err != nil {
			return nil, 0, err
		}
		return p.directBatches()
	}
	p.s.detachStream(ctx)
	rows, err := p.s.conn.QueryContext(ctx, p.ins.Source.SQL, p.args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	cols := p.t.Schema.Columns
	bb := newBatchBuilder(p.t.Schema, p.t.T.ArrowSchema(), 0)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	conv := make([]any, len(cols))
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			bb.abort()
			return nil, 0, err
		}
		for i, v := range vals {
			if v == nil {
				conv[i] = nil
				continue
			}
			cv, err := fromDuck(p.info.Columns[i].TypeOID, v)
			if err != nil {
				bb.abort()
				return nil, 0, err
			}
			if str, ok := cv.(string); ok {
				// Text the query engine computed (a JSON string with
				// \u0000, a function's result): no table may hold a NUL
				// or invalid UTF-8, which no reader could read back.
				if e := pgerr.CheckTextString(str); e != nil {
					bb.abort()
					return nil, 0, e
				}
			}
			conv[i] = cv
		}
		if err := bb.appendRow(conv); err != nil {
			bb.abort()
			return nil, 0, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		bb.abort()
		return nil, 0, err
	}
	return bb.finish(), n, nil
}

// directBatches builds the rows of a VALUES source of constants and
// parameters without DuckDB (sql.Insert.Direct): the values are already
// what the column types' input functions made of them; appendValue applies
// the typmods (varchar(n), char(n), numeric(p,s)) and range checks as the
// cast in Source would.
func (p *insertPlan) directBatches() ([]arrow.RecordBatch, int64, error) {
	if len(p.ins.Direct) <= smallBatchRows {
		return p.smallDirectBatches()
	}
	bb := p.directBuilder()
	row := make([]any, len(p.t.Schema.Columns))
	var clock directClock
	for r := range p.ins.Direct {
		if err := p.directRow(r, row, &clock); err != nil {
			bb.abort()
			return nil, 0, err
		}
		if err := bb.appendRow(row); err != nil {
			bb.abort()
			return nil, 0, err
		}
	}
	return p.finishDirect(bb), int64(len(p.ins.Direct)), nil
}

// smallDirectBatches is directBatches for a few rows: their values are
// gathered first and, in the common case, made into a batch with exact
// buffers (buildSmallBatch); otherwise the builder path runs on them and
// reports what it always reported, in the same order: the rows before a
// NOT NULL violation are converted (a conversion error in them comes
// first), then the violation.
func (p *insertPlan) smallDirectBatches() ([]arrow.RecordBatch, int64, error) {
	ncol := len(p.t.Schema.Columns)
	vals := make([]any, len(p.ins.Direct)*ncol)
	var clock directClock
	rows := 0
	var nullErr error
	for r := range p.ins.Direct {
		if nullErr = p.directRow(r, vals[r*ncol:(r+1)*ncol], &clock); nullErr != nil {
			break
		}
		rows++
	}
	as := p.t.T.ArrowSchema()
	if nullErr == nil {
		if rec, ok := buildSmallBatch(p.t.Schema, as, vals, rows); ok {
			return []arrow.RecordBatch{rec}, int64(rows), nil
		}
	}
	bb := p.directBuilder()
	for r := 0; r < rows; r++ {
		if err := bb.appendRow(vals[r*ncol : (r+1)*ncol]); err != nil {
			bb.abort()
			return nil, 0, err
		}
	}
	if nullErr != nil {
		bb.abort()
		return nil, 0, nullErr
	}
	return p.finishDirect(bb), int64(rows), nil
}

// directClock holds a statement's clock times once one is needed.
type directClock struct{ txStart, stmtStart time.Time }

// directRow puts the values of row r of the VALUES source into row (one
// per column), or returns the NOT NULL violation it finds first.
func (p *insertPlan) directRow(r int, row []any, clock *directClock) error {
	cols := p.t.Schema.Columns
	for i, dv := range p.ins.Direct[r] {
		v := dv.Value
		if dv.Clock != bsql.ClockNone {
			if clock.txStart.IsZero() {
				clock.txStart, clock.stmtStart = p.b.ClockTimes()
			}
			v = bsql.ClockValue(dv.Clock, dv.Prec, clock.txStart, clock.stmtStart, &p.s.set.types)
		}
		if dv.Seq != "" {
			v = p.seqVals[i][p.seqNext[i]]
			p.seqNext[i]++
		}
		if dv.Param > 0 {
			v = nil
			if dv.Param <= len(p.canon) {
				v = p.canon[dv.Param-1]
			}
		}
		row[i] = v
	}
	for i, v := range row[:len(p.ins.Direct[r])] {
		if v == nil && p.info.Columns[i].NotNull {
			return pgerr.New(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", cols[i].Name, p.info.Name).
				WithDetail("Failing row contains %s.", p.failingRow(row))
		}
	}
	return nil
}

// failingRow is a row as PostgreSQL's constraint errors show it.
func (p *insertPlan) failingRow(row []any) string {
	return failingRowText(p.info.Columns, row, &p.s.set.types)
}

// failingRowText is a row (canonical values, one per column) as
// PostgreSQL's constraint errors show it (ExecBuildSlotValueDescription):
// each value's text, null for NULL, cut after 64 bytes with "...".
func failingRowText(cols []bsql.ColumnInfo, row []any, set *pgtypes.Settings) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "null"
		if i >= len(row) || row[i] == nil {
			continue
		}
		// Canonical values: their text directly (encodeValue's fromDuck
		// would take a date or timestamp for a driver value).
		var b []byte
		var err error
		if info, ok := pgtypes.TypeByOID(c.TypeOID); ok && info.IsArray() {
			b, err = encodeValue(nil, resultCol{oid: c.TypeOID, typmod: c.TypeMod}, row[i], set)
		} else {
			b, err = pgtypes.AppendText(nil, c.TypeOID, c.TypeMod, row[i], set)
		}
		if err != nil {
			parts[i] = "?"
			continue
		}
		parts[i] = cutValueText(string(b))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// cutValueText cuts a value's text at 64 bytes (on a character boundary)
// with "...", as PostgreSQL's "Failing row contains" does.
func cutValueText(text string) string {
	if len(text) <= 64 {
		return text
	}
	n := 64
	for n > 0 && text[n]&0xC0 == 0x80 {
		n--
	}
	return text[:n] + "..."
}

// directBuilder returns a builder for the rows, reusing the statement's
// cached Arrow builder if it has one.
func (p *insertPlan) directBuilder() *batchBuilder {
	as := p.t.T.ArrowSchema()
	if c := p.cache; c != nil && c.rb != nil && c.rb.Schema() == as {
		bb := &batchBuilder{sch: p.t.Schema, arrow: as, rb: c.rb, limit: defaultBatchRows}
		c.rb = nil
		return bb
	}
	return newBatchBuilder(p.t.Schema, as, 0)
}

// finishDirect returns the batches of bb, keeping its Arrow builder (empty
// again) in the statement's cache for the next execution.
func (p *insertPlan) finishDirect(bb *batchBuilder) []arrow.RecordBatch {
	if p.cache == nil {
		return bb.finish()
	}
	bb.cut()
	p.cache.rb = bb.rb
	return bb.out
}

// insertTag is INSERT's command tag; a single row's is a constant.
func insertTag(n int64) string {
	if n == 1 {
		return "INSERT 0 1"
	}
	return "INSERT 0 " + strconv.FormatInt(n, 10)
}

// seqValues takes the values of the nextval defaults of the Direct rows:
// one call per column for all its rows (sequence.go), never a round trip
// per row.
func (p *insertPlan) seqValues(ctx context.Context) error {
	p.seqVals, p.seqNext = nil, nil
	rows := p.ins.Direct
	if len(rows) == 0 {
		return nil
	}
	for c := range rows[0] {
		n, name := 0, ""
		for _, r := range rows {
			if r[c].Seq != "" {
				n, name = n+1, r[c].Seq
			}
		}
		if n == 0 {
			continue
		}
		if p.seqVals == nil {
			p.seqVals, p.seqNext = make([][]any, len(rows[0])), make([]int, len(rows[0]))
		}
		vals, err := p.s.seqNextN(ctx, name, n, p.info.Columns[c].TypeOID)
		if err != nil {
			return err
		}
		p.seqVals[c] = vals
	}
	return nil
}

// conflictArbiters resolves ON CONFLICT's conflict target to the names of
// the unique keys it names (nil: any key), as PostgreSQL infers it: the
// key whose columns are exactly the target's, or the named constraint.
func conflictArbiters(t *planner.Table, ins *bsql.Insert) ([]string, error) {
	keys := t.Keys()
	if ins.ConflictConstraint != "" {
		for _, k := range keys {
			if k.Name == ins.ConflictConstraint {
				return []string{k.Name}, nil
			}
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", ins.ConflictConstraint, t.ID.Name)
	}
	if len(ins.ConflictColumns) == 0 {
		return nil, nil
	}
	want := map[string]bool{}
	for _, c := range ins.ConflictColumns {
		want[c] = true
	}
	var out []string
	for _, k := range keys {
		if len(k.Columns) != len(want) {
			continue
		}
		all := true
		for _, c := range k.Columns {
			all = all && want[c]
		}
		if all {
			out = append(out, k.Name)
		}
	}
	if len(out) == 0 {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	return out, nil
}
