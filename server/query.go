package server

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/txn"
)

// binder resolves table names for the translator, binding each table to a
// snapshot that the statement holds until it is done.
// ClockTimes implements bsql.Clock: the start of the session's transaction
// (of the statement outside a block) and of the statement.
func (b *binder) ClockTimes() (txStart, stmtStart time.Time) {
	stmt := b.s.statementStart()
	if b.s.tx != nil && !b.s.tx.start.IsZero() && b.s.tx.start.Before(stmt) {
		return b.s.tx.start, stmt
	}
	return stmt, stmt
}

type binder struct {
	s      *session
	ctx    context.Context
	bounds []*planner.Bound
	tables []*planner.Table
	// sysFresh: the dynamic system catalogs were refreshed for this statement.
	sysFresh bool
	// readLocked: the engine's ReadLock is held, from the first table bound
	// until the translation ends (EndBind): the snapshots of the tables a
	// statement reads are one cut of the multi-table commits.
	readLocked bool
	// describeOnly: the translation only describes a statement (Parse,
	// PREPARE) that runs later, translated again: as PostgreSQL's parse
	// analysis, it checks schema USAGE but not table privileges, which
	// each execution checks.
	describeOnly bool
	// viewOwners: the owners of the views being expanded, innermost
	// last: their relations are checked with its privileges (views.go).
	viewOwners []uint32
	// target, targetBound: an UPDATE's or DELETE's target (modify.go).
	target      *planner.Table
	targetBound *planner.Bound
}

var (
	_ bsql.Catalog       = (*binder)(nil)
	_ bsql.RowsCatalog   = (*binder)(nil)
	_ bsql.SchemaChecker = (*binder)(nil)
)

// TypeSettings gives the translator the session's DateStyle/TimeZone for
// literal input (bsql.SettingsSource).
func (b *binder) TypeSettings() *pgtypes.Settings { return &b.s.set.types }

// SchemaExists implements bsql.SchemaChecker.
func (b *binder) SchemaExists(name string) bool {
	schemas, err := b.s.eng.Catalog().ListSchemas(b.ctx, b.s.db)
	return err == nil && slices.Contains(schemas, name)
}

// LookupTable binds a table the statement reads: SELECT privilege.
func (b *binder) LookupTable(schemaName, name string) (*bsql.TableInfo, error) {
	return b.lookup(schemaName, name, b.s.bindTable(true))
}

// LookupTableRows binds a table for a statement that reads none of its
// columns (bsql.RowsCatalog): buffered rows are counted, not mirrored.
// It still needs SELECT (count(*) reads the table).
func (b *binder) LookupTableRows(schemaName, name string) (*bsql.TableInfo, error) {
	return b.lookup(schemaName, name, b.s.bindTable(false))
}

// lookup resolves a name and binds a table of ours with bind, which the
// statement holds until release.
func (b *binder) lookup(schemaName, name string, bind func(*planner.Table, context.Context, []txn.Batch) (*planner.Bound, error)) (*bsql.TableInfo, error) {
	info, t, err := b.openTable(schemaName, name, acl.Select)
	if err != nil || t == nil {
		return info, err
	}
	if !b.readLocked {
		b.s.eng.ReadLock()
		b.readLocked = true
	}
	bd, err := bind(t, b.ctx, b.s.tx.pendingBatches(t))
	if err != nil {
		return nil, err
	}
	b.bounds = append(b.bounds, bd)
	b.tables = append(b.tables, t)
	info.FromSQL, info.NoColumnsFromSQL = bd.FromSQL, bd.NoColumnsSQL
	info.Rows, info.RowsKnown = bd.Rows, bd.RowsKnown
	info.OID = t.Entry.OID // the system column tableoid
	return info, nil
}

// DescribeTable resolves a table for its columns only: the translator
// calls it for an INSERT's target (no snapshot needed; INSERT privilege).
func (b *binder) DescribeTable(schemaName, name string) (*bsql.TableInfo, error) {
	info, _, err := b.openTable(schemaName, name, acl.Insert)
	return info, err
}

// openTable resolves a name: a system relation (t nil, info complete) or
// one of our tables (t open, info without FromSQL), checking that the
// session's role holds want on it (privileges.go).
func (b *binder) openTable(schemaName, name string, want acl.Mode) (info *bsql.TableInfo, t *planner.Table, err error) {
	if x := b.s.pseudo[name]; x != nil && schemaName == "" {
		c := *x // rows being written (upsert.go, checks.go)
		return &c, nil, nil
	}
	if info, handled, err := b.lookupSystem(schemaName, name); handled {
		return info, nil, err
	}
	if b.describeOnly {
		want = acl.None
	}
	if t, err = b.s.accessTableAs(b.ctx, b.role(), schemaName, name, want); err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable {
			if info, ok, _ := b.s.sequenceRelation(b.ctx, schemaName, name); ok {
				if want == acl.Insert {
					return nil, nil, pgerr.New("42809", "cannot change sequence \"%s\"", name)
				}
				return info, nil, nil // a sequence's one row (sequence.go)
			}
		}
		return nil, nil, err
	}
	return tableInfo(t), t, nil
}

// EndBind implements bsql.BindEnder: every table of the translation is
// bound.
func (b *binder) EndBind() {
	if b.readLocked {
		b.readLocked = false
		b.s.eng.ReadUnlock()
	}
}

func (b *binder) release() {
	b.EndBind()
	for _, bd := range b.bounds {
		bd.Release()
	}
	b.bounds = nil
}

// tableInfo describes a table's columns in PostgreSQL types: a copy of the
// description computed once per table handle (the type strings of its
// schema were parsed for every statement: 3.7% of the server's CPU under
// pgbench INSERTs). The copy may be modified; Columns may not.
func tableInfo(t *planner.Table) *bsql.TableInfo {
	info := *t.Derived(func() any { return describeTable(t) }).(*bsql.TableInfo)
	return &info
}

func describeTable(t *planner.Table) *bsql.TableInfo {
	info := &bsql.TableInfo{Schema: t.ID.Schema, Name: t.ID.Name}
	for _, c := range t.Schema.Columns {
		oid, mod, err := pgtypes.TypeOfColumn(c)
		if err != nil {
			oid, mod = pgtypes.OIDText, -1
		}
		info.Columns = append(info.Columns, bsql.ColumnInfo{Name: c.Name, TypeOID: oid, TypeMod: mod, NotNull: c.NotNull, Default: c.Default, Identity: c.Identity, Attnum: c.ID})
	}
	// Shared by every statement: an append must copy, never write into
	// spare capacity.
	info.Columns = slices.Clip(info.Columns)
	return info
}

// resultCol is a result column: PostgreSQL type and wire format.
type resultCol struct {
	name   string
	oid    uint32
	typmod int32
	format int16
}

func pgColumns(cols []resultCol) []pgwire.Column {
	out := make([]pgwire.Column, len(cols))
	for i, c := range cols {
		out[i] = pgwire.Column{Name: c.name, TypeOID: c.oid, TypeMod: c.typmod, TypeSize: pgtypes.TypeLen(c.oid), Format: c.format}
	}
	return out
}

// describe prepares query in DuckDB and returns its result columns' names
// and DuckDB type names, without executing it.
func (s *session) describe(ctx context.Context, query string) (names, types []string, err error) {
	s.detachStream(ctx)
	err = s.conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("BUG: duckdb connection cannot prepare")
		}
		st, err := pc.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		defer st.Close()
		ds, ok := st.(*duckdb.Stmt)
		if !ok {
			return fmt.Errorf("BUG: not a duckdb statement")
		}
		n, err := ds.ColumnCount()
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			name, _ := ds.ColumnName(i)
			ti, err := ds.ColumnTypeInfo(i)
			if err != nil {
				return err
			}
			names = append(names, name)
			types = append(types, typeInfoName(ti))
		}
		return nil
	})
	return names, types, err
}

func typeInfoName(ti duckdb.TypeInfo) string {
	switch ti.InternalType() {
	case duckdb.TYPE_DECIMAL:
		if d, ok := ti.Details().(*duckdb.DecimalDetails); ok {
			return fmt.Sprintf("DECIMAL(%d,%d)", d.Width, d.Scale)
		}
	case duckdb.TYPE_LIST:
		if d, ok := ti.Details().(*duckdb.ListDetails); ok {
			return typeInfoName(d.Child) + "[]"
		}
	case duckdb.TYPE_ARRAY:
		if d, ok := ti.Details().(*duckdb.ArrayDetails); ok {
			return typeInfoName(d.Child) + "[]"
		}
	}
	if a := ti.Alias(); a != "" {
		return strings.ToUpper(a)
	}
	return duckTypeNames[ti.InternalType()]
}

var duckTypeNames = map[duckdb.Type]string{
	duckdb.TYPE_BOOLEAN: "BOOLEAN", duckdb.TYPE_TINYINT: "TINYINT", duckdb.TYPE_SMALLINT: "SMALLINT",
	duckdb.TYPE_INTEGER: "INTEGER", duckdb.TYPE_BIGINT: "BIGINT", duckdb.TYPE_UTINYINT: "UTINYINT",
	duckdb.TYPE_USMALLINT: "USMALLINT", duckdb.TYPE_UINTEGER: "UINTEGER", duckdb.TYPE_UBIGINT: "UBIGINT",
	duckdb.TYPE_FLOAT: "FLOAT", duckdb.TYPE_DOUBLE: "DOUBLE", duckdb.TYPE_TIMESTAMP: "TIMESTAMP",
	duckdb.TYPE_DATE: "DATE", duckdb.TYPE_TIME: "TIME", duckdb.TYPE_INTERVAL: "INTERVAL",
	duckdb.TYPE_HUGEINT: "HUGEINT", duckdb.TYPE_UHUGEINT: "UHUGEINT", duckdb.TYPE_VARCHAR: "VARCHAR",
	duckdb.TYPE_BLOB: "BLOB", duckdb.TYPE_TIMESTAMP_S: "TIMESTAMP_S", duckdb.TYPE_TIMESTAMP_MS: "TIMESTAMP_MS",
	duckdb.TYPE_TIMESTAMP_NS: "TIMESTAMP_NS", duckdb.TYPE_ENUM: "VARCHAR", duckdb.TYPE_STRUCT: "STRUCT",
	duckdb.TYPE_MAP: "MAP", duckdb.TYPE_UUID: "UUID", duckdb.TYPE_UNION: "UNION", duckdb.TYPE_BIT: "BIT",
	duckdb.TYPE_TIME_TZ: "TIME WITH TIME ZONE", duckdb.TYPE_TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE",
	duckdb.TYPE_SQLNULL: "NULL", duckdb.TYPE_BIGNUM: "BIGNUM",
}

// selectPlan streams the rows of a DuckDB query.
type selectPlan struct {
	s       *session
	q       *bsql.Query
	args    []any
	cols    []resultCol
	b       *binder
	rows    *duckStream
	qctx    context.Context // the query's context: the portal's lifetime
	qcancel context.CancelFunc
	count   int64
	done    bool
	tag     string // "SELECT"; "INSERT 0 n" etc. for RETURNING
	vals    []any
	buf     [][]byte
	scratch []byte
}

func (s *session) planSelect(ctx context.Context, st *bsql.Statement, params []any, formats []int16) (plan, error) {
	return s.planSelectTyped(ctx, st, params, nil, nil, formats)
}

// planSelectTyped is planSelect with declared parameter types, and, when
// canon is not nil, the canonical values of params: the translation then
// spells them into the SQL where it can (bsql.TranslateQueryArgs).
func (s *session) planSelectTyped(ctx context.Context, st *bsql.Statement, params, canon []any, paramOIDs []uint32, formats []int16) (plan, error) {
	b := &binder{s: s, ctx: ctx}
	var values []any
	if len(canon) > 0 {
		values = canon
	}
	q, err := bsql.TranslateQueryArgs(st.Tree, b, paramOIDs, values)
	if err != nil {
		b.release()
		return nil, err
	}
	if q.Inlined {
		params = nil
	}
	p := &selectPlan{s: s, q: q, args: params, b: b, tag: "SELECT"}
	if err := p.describe(ctx, formats); err != nil {
		b.release()
		return nil, err
	}
	return p, nil
}

func (p *selectPlan) describe(ctx context.Context, formats []int16) error {
	if cols, ok := knownColumns(p.q.Columns, formats); ok {
		// The translator typed every column: no need to have DuckDB
		// prepare the query once more just to describe it.
		p.cols = cols
		return nil
	}
	names, types, err := p.s.describe(ctx, p.q.SQL)
	if err != nil {
		return err
	}
	p.cols = make([]resultCol, len(names))
	for i := range names {
		c := resultCol{name: names[i]}
		if i < len(p.q.Columns) {
			c.name = p.q.Columns[i].Name
			c.oid, c.typmod = p.q.Columns[i].TypeOID, p.q.Columns[i].TypeMod
		}
		if c.oid == 0 {
			c.oid, c.typmod = bsql.PGTypeOfDuckDB(types[i])
		}
		c.format = formatOf(formats, i)
		p.cols[i] = c
	}
	return nil
}

// knownColumns returns the result columns when the translator inferred the
// PostgreSQL type of every one.
func knownColumns(qc []bsql.ResultColumn, formats []int16) ([]resultCol, bool) {
	if qc == nil {
		return nil, false
	}
	cols := make([]resultCol, len(qc))
	for i, c := range qc {
		if c.TypeOID == 0 {
			return nil, false
		}
		cols[i] = resultCol{name: c.Name, oid: c.TypeOID, typmod: c.TypeMod, format: formatOf(formats, i)}
	}
	return cols, true
}

func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

func (p *selectPlan) Columns() []pgwire.Column { return pgColumns(p.cols) }

func (p *selectPlan) execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (bool, error) {
	suspended, err := p.run(ctx, maxRows, w)
	if err != nil || suspended {
		return suspended, err
	}
	return false, w.Complete(fmt.Sprintf("%s %d", p.tag, p.count))
}

// rowSink receives encoded rows.
type rowSink interface{ Row(values [][]byte) error }

// executeRows runs the query to the end into sink.
func (p *selectPlan) executeRows(ctx context.Context, sink rowSink) (bool, error) {
	return p.run(ctx, 0, sink)
}

func (p *selectPlan) run(ctx context.Context, maxRows int, sink rowSink) (bool, error) {
	if p.done {
		return false, nil
	}
	stop := p.watch(ctx)
	defer stop()
	n := 0
	for {
		if maxRows > 0 && n >= maxRows {
			return true, nil
		}
		ok, err := p.next(ctx)
		if err != nil || !ok {
			return false, err
		}
		if err := p.emit(sink); err != nil {
			return false, err
		}
		n++
		p.count++
	}
}

// watch ties the query to ctx for the duration of one call. The query
// outlives the call when the portal suspends (JDBC fetchSize) or is a
// cursor: it runs under the plan's own context (carrying ctx's values, for
// the session functions), cancelled when the plan closes or when a call's
// context ends.
func (p *selectPlan) watch(ctx context.Context) (stop func() bool) {
	if p.qcancel == nil {
		p.qctx, p.qcancel = context.WithCancel(context.WithoutCancel(ctx))
	}
	return context.AfterFunc(ctx, p.qcancel)
}

// next reads the next row into p.vals, starting the query on first use;
// false at the end, when the plan is finished. REQUIRES: watch(ctx) active.
func (p *selectPlan) next(ctx context.Context) (bool, error) {
	if p.done {
		return false, nil
	}
	if p.q.Row != nil {
		// A row known without DuckDB (a bare count(*) from row counts).
		if p.vals != nil {
			p.finish()
			return false, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		p.vals = append([]any(nil), p.q.Row...)
		p.buf = make([][]byte, len(p.cols))
		return true, nil
	}
	if p.rows == nil {
		rows, err := p.s.queryDuck(p.qctx, p.q.SQL, p.args)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, err
		}
		p.rows = rows
		p.vals = make([]any, len(p.cols))
		p.buf = make([][]byte, len(p.cols))
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	ok, err := p.rows.next(p.vals)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return false, err
	}
	if !ok {
		p.finish()
		return false, nil
	}
	return true, nil
}

// emit encodes the row in p.vals into sink.
func (p *selectPlan) emit(sink rowSink) error {
	if err := p.encodeRow(); err != nil {
		return err
	}
	return sink.Row(p.buf)
}

func (p *selectPlan) encodeRow() error {
	if p.scratch == nil {
		// Never nil: an empty value is a zero-length slice of it, and a
		// nil slice would go out as NULL.
		p.scratch = make([]byte, 0, 64)
	}
	p.scratch = p.scratch[:0]
	offs := make([]int, 0, len(p.cols)+1)
	nulls := make([]bool, len(p.cols))
	for i, c := range p.cols {
		offs = append(offs, len(p.scratch))
		if p.vals[i] == nil {
			nulls[i] = true
			continue
		}
		var err error
		p.scratch, err = encodeValue(p.scratch, c, p.vals[i], &p.s.set.types)
		if err != nil {
			return err
		}
	}
	offs = append(offs, len(p.scratch))
	for i := range p.cols {
		if nulls[i] {
			p.buf[i] = nil
		} else {
			p.buf[i] = p.scratch[offs[i]:offs[i+1]:offs[i+1]]
		}
	}
	return nil
}

func (p *selectPlan) finish() {
	if p.done {
		return
	}
	p.done = true
	if p.rows != nil {
		p.rows.close()
	}
	if p.qcancel != nil {
		p.qcancel()
	}
	p.b.release()
}

func (p *selectPlan) Close() { p.finish() }

// errUnsupported is the 0A000 for a statement kind.
func errUnsupported(what string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", what)
}
