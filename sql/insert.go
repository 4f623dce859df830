package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// Insert is a translated INSERT.
type Insert struct {
	Table *TableInfo
	// Columns are the target column positions (table order) for each
	// column of the user's source, in the user's order.
	Columns []int
	// Source is a DuckDB SELECT producing one row per inserted row with ALL
	// table columns in table order, each cast to the column's DuckDB type,
	// defaults filled in (column DEFAULT or NULL), varchar(n) length and NOT
	// NULL checked (errors 22001 / 23502 via MapError). Its SQL is empty
	// when Direct is set (ParamOIDs and Columns are always set).
	Source *Query
	// Returning is nil or a DuckDB SELECT over a relation named
	// __bsdb_returning that has the table's columns.
	Returning *Query
	// OnConflict is set when ON CONFLICT is present: DO NOTHING
	// (OnConflictNothing) or DO UPDATE (OnConflictUpdate: ConflictUpdate
	// makes its UPDATE).
	OnConflict        bool
	OnConflictNothing bool
	OnConflictUpdate  bool
	conflict          *pg_query.OnConflictClause
	relation          *pg_query.RangeVar
	// ConflictColumns are the conflict target's columns (ON CONFLICT
	// (a, b)); ConflictConstraint its constraint (ON CONFLICT ON
	// CONSTRAINT name); neither: any unique key.
	ConflictColumns    []string
	ConflictConstraint string
	// Direct, when not nil, holds the rows of a VALUES source whose items
	// are all constants, NULLs, DEFAULTs without a default expression, or
	// parameters of exactly the column's type: Direct[r][c] for every table
	// column c in table order. The planner may build the rows from it
	// without running Source (the values are what Source would produce).
	Direct [][]DirectValue
}

// alwaysSource makes TranslateInsert build Source even when Direct is set:
// the package's tests run Source on DuckDB against PostgreSQL for every
// INSERT (the direct path is checked end to end by regress).
var alwaysSource = false

// DirectValue is one value of Insert.Direct: a parameter (Param > 0, 1-based)
// or a constant (Value: the canonical pgtypes value of the column's type as
// its input function made it, nil for NULL).
type DirectValue struct {
	Param int
	Value any
	// Clock, when set, is a clock function (now(), current_date...) whose
	// value at execution (ClockValue) is the value, at precision Prec.
	Clock ClockFunc
	Prec  int32
	// Seq, when set, is the text naming a sequence (nextval('t_id_seq')
	// as a column default, into an integer column): the value is the
	// sequence's next one, which the planner takes for all rows at once.
	Seq string
}

// nextvalOf reports whether n is nextval('name') or
// nextval('name'::regclass), and the name's text.
func nextvalOf(n *pg_query.Node) (string, bool) {
	fc := n.GetFuncCall()
	if fc == nil || len(fc.Args) != 1 || fc.AggStar || fc.Over != nil || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.FuncVariadic {
		return "", false
	}
	schema, name := funcName(fc)
	if name != "nextval" || (schema != "" && schema != "pg_catalog") {
		return "", false
	}
	a := fc.Args[0]
	if tc := a.GetTypeCast(); tc != nil {
		if regTypeName(tc.TypeName) != "regclass" {
			return "", false
		}
		a = tc.Arg
	}
	if sv := a.GetAConst().GetSval(); sv != nil {
		return sv.Sval, true
	}
	return "", false
}

// ReturningRelation is the relation name Insert.Returning reads.
const ReturningRelation = "__bsdb_returning"

// TranslateInsert translates INSERT INTO t [(cols)] VALUES ... | SELECT ...
// | DEFAULT VALUES [RETURNING ...]. stmt is not modified.
func TranslateInsert(stmt *pg_query.Node, cat Catalog, declaredParams []uint32) (*Insert, error) {
	if stmt.GetInsertStmt() == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateInsert on %T", stmt.GetNode())
	}
	defer endBind(cat)
	clone := proto.Clone(stmt).(*pg_query.Node)
	if err := stripCurrentDatabase(clone, cat); err != nil {
		return nil, err
	}
	ins := clone.GetInsertStmt()
	rv := ins.Relation
	if cat == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname))
	}
	ti, err := describeTable(cat, rv.Schemaname, rv.Relname)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 {
			return nil, e.WithPosition(int(rv.Location) + 1)
		}
		return nil, err
	}
	out := &Insert{Table: ti, OnConflict: ins.OnConflictClause != nil}
	if oc := ins.OnConflictClause; oc != nil {
		out.OnConflictNothing = oc.Action == pg_query.OnConflictAction_ONCONFLICT_NOTHING
		out.OnConflictUpdate = oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE
		out.conflict, out.relation = oc, ins.Relation
		if out.OnConflictUpdate && oc.Infer == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
				WithHint("For example, ON CONFLICT (column_name).").WithPosition(int(oc.Location) + 1)
		}
		if out.OnConflictUpdate {
			var param *pg_query.ParamRef
			for _, n := range append(append([]*pg_query.Node(nil), oc.TargetList...), oc.WhereClause) {
				walkNodes(n, func(n *pg_query.Node) bool {
					if p := n.GetParamRef(); p != nil && param == nil {
						param = p
					}
					return param == nil
				})
			}
			if param != nil {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "parameters in ON CONFLICT DO UPDATE are not supported").
					WithHint("Refer to the proposed row as EXCLUDED.column.").WithPosition(int(param.Location) + 1)
			}
		}
		if inf := oc.Infer; inf != nil {
			out.ConflictConstraint = inf.Conname
			if inf.WhereClause != nil {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT with a WHERE clause on its conflict target is not supported").WithPosition(int(inf.Location) + 1)
			}
			for _, e := range inf.IndexElems {
				ie := e.GetIndexElem()
				if ie == nil || ie.Name == "" {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT on an expression is not supported").WithPosition(int(inf.Location) + 1)
				}
				if ti.ColumnIndex(ie.Name) < 0 {
					return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", ie.Name).WithPosition(int(inf.Location) + 1)
				}
				out.ConflictColumns = append(out.ConflictColumns, ie.Name)
			}
		}
	}
	// Target columns.
	seen := map[int]bool{}
	for _, c := range ins.Cols {
		rt := c.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "INSERT into subfields or array elements is not supported").WithPosition(int(rt.Location) + 1)
		}
		i := ti.ColumnIndex(rt.Name)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, ti.Name).WithPosition(int(rt.Location) + 1)
		}
		if seen[i] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", rt.Name).WithPosition(int(rt.Location) + 1)
		}
		seen[i] = true
		out.Columns = append(out.Columns, i)
	}
	if err := identityTargets(ins, ti, out.Columns); err != nil {
		return nil, err
	}
	tr := newTranslator(cat, declaredParams)
	var srcSQL string
	width := 0
	if ins.SelectStmt != nil {
		sel := ins.SelectStmt.GetSelectStmt()
		if ins.WithClause != nil {
			sel.WithClause = ins.WithClause
		}
		// SELECT FROM u (no select list) inserts rows of defaults, one per
		// row of u; the engine needs a column: a constant, not inserted.
		empty := len(sel.TargetList) == 0 && len(sel.ValuesLists) == 0 && sel.Larg == nil && sel.Rarg == nil
		if empty {
			fillEmptyTargets(ins.SelectStmt)
		}
		width, err = tr.insertSource(sel, ti, out)
		if err != nil {
			return nil, err
		}
		if empty {
			width = 0
		}
	}
	if ins.SelectStmt != nil && len(ins.Cols) == 0 {
		if width > len(ti.Columns) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		for i := 0; i < width; i++ {
			out.Columns = append(out.Columns, i)
		}
	} else if ins.SelectStmt != nil && width != len(out.Columns) {
		if width > len(out.Columns) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		e := pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
		if width < len(ins.Cols) {
			e = withLocation(e, ins.Cols[width].GetResTarget().GetLocation())
		}
		return nil, e
	}
	if err := tr.checkParamGaps(stmt); err != nil {
		return nil, err
	}
	if tr.srfPending != nil {
		return nil, tr.srfPending
	}
	out.Direct = tr.directRows(ti, out.Columns)
	var src string
	if out.Direct == nil || alwaysSource {
		// Only a source the planner cannot evaluate itself runs in DuckDB.
		if ins.SelectStmt != nil {
			if srcSQL, err = tr.deparseFinal(ins.SelectStmt); err != nil {
				return nil, err
			}
		}
		srcRaw := tr.srcRaw
		if tr.rawUnsafe {
			srcRaw = nil
		}
		if src, err = buildInsertSource(ti, out.Columns, srcSQL, srcRaw, cat); err != nil {
			return nil, err
		}
		if len(out.Columns) == 0 && srcSQL != "" {
			// SELECT FROM u: the source's one (constant) column is not read.
			src = strings.Replace(src, ") AS __bsdb_src()", ") AS __bsdb_src", 1)
		}
	}
	if err := tr.checkUnknownParams(); err != nil {
		return nil, err
	}
	out.Source = &Query{SQL: src, ParamOIDs: tr.paramOIDs()}
	for _, c := range ti.Columns {
		out.Source.Columns = append(out.Source.Columns, ResultColumn{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod})
	}
	if len(ins.ReturningList) > 0 {
		alias := ti.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		out.Returning, err = translateReturning(ins.ReturningList, ti, alias, cat, declaredParams)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertSource translates the source query, typing VALUES items and
// parameters from the target columns and replacing DEFAULT items.
func (tr *translator) insertSource(sel *pg_query.SelectStmt, ti *TableInfo, out *Insert) (int, error) {
	target := func(pos int) (ColumnInfo, bool) {
		if len(out.Columns) > 0 {
			if pos < len(out.Columns) {
				return ti.Columns[out.Columns[pos]], true
			}
			return ColumnInfo{}, false
		}
		if pos < len(ti.Columns) {
			return ti.Columns[pos], true
		}
		return ColumnInfo{}, false
	}
	if len(sel.ValuesLists) == 1 && containsSRF(sel.ValuesLists[0]) {
		// PostgreSQL evaluates a single VALUES row like a select list
		// (its set-returning functions insert a row per value); several
		// rows may not have any (srf.go).
		var targets []*pg_query.Node
		for i, it := range sel.ValuesLists[0].GetList().GetItems() {
			if col, ok := target(i); ok && it.GetSetToDefault() != nil {
				d, err := defaultExpr(col)
				if err != nil {
					return 0, err
				}
				it.Node = d.Node
			}
			targets = append(targets, pg_query.MakeResTargetNodeWithVal(it, -1))
		}
		sel.TargetList, sel.ValuesLists = targets, nil
	}
	if len(sel.ValuesLists) == 0 {
		if sel.Op == pg_query.SetOperation_SETOP_NONE {
			for i, rt := range sel.TargetList {
				if col, ok := target(i); ok && rt.GetResTarget().GetVal() != nil {
					coerceUnknownLiteral(rt.GetResTarget().Val, col)
				}
			}
		}
		tr.keepUnknownIn(sel) // the target columns type them
		cols, err := tr.selectStmt(sel, nil)
		if err != nil {
			return 0, err
		}
		// A bare $n of the select list, still untyped, takes its target
		// column's type (transformInsertRow coerces the unknown Param).
		for i, rt := range sel.TargetList {
			if v := rt.GetResTarget().GetVal(); v != nil && tr.untypedParam(v) {
				if col, ok := target(i); ok {
					tr.typeParam(v, typ{col.TypeOID, -1})
				}
			}
		}
		for _, c := range cols {
			tr.srcRaw = append(tr.srcRaw, c.raw)
		}
		if cols == nil {
			return countTargets(sel), nil
		}
		return len(cols), nil
	}
	sc := &scope{}
	if sel.WithClause != nil {
		if err := tr.withClause(sel.WithClause, sc); err != nil {
			return 0, err
		}
	}
	sc.clause = clauseValues
	tr.direct = &directState{ok: sel.WithClause == nil && len(sel.ValuesLists) > 0}
	width := -1
	for _, row := range sel.ValuesLists {
		items := row.GetList().GetItems()
		if width >= 0 && len(items) != width {
			return 0, withLocation(pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length"), exprLocation(items[0]))
		}
		width = len(items)
		for i, it := range items {
			col, ok := target(i)
			if !ok {
				return 0, withLocation(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), exprLocation(it))
			}
			tr.noteDirect(it, col, i)
			if it.GetSetToDefault() != nil {
				d, err := defaultExpr(col)
				if err != nil {
					return 0, err
				}
				it.Node = d.Node
			}
			if ok, err := tr.foldAssigned(it, typ{col.TypeOID, col.TypeMod}); err != nil {
				return 0, err
			} else if ok {
				continue
			}
			if _, err := tr.expr(it, sc, typ{col.TypeOID, col.TypeMod}); err != nil {
				return 0, err
			}
		}
	}
	return width, nil
}

func countTargets(sel *pg_query.SelectStmt) int {
	for sel.Larg != nil {
		sel = sel.Larg
	}
	return len(sel.TargetList)
}

// defaultExpr parses a column default (or NULL) into an expression node.
func defaultExpr(col ColumnInfo) (*pg_query.Node, error) {
	text := col.Default
	if text == "" {
		text = "NULL"
	}
	res, err := parseGuarded("SELECT " + text)
	if err != nil || len(res.Stmts) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "invalid default expression for column \"%s\": %s", col.Name, text)
	}
	tl := res.Stmts[0].Stmt.GetSelectStmt().GetTargetList()
	if len(tl) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "invalid default expression for column \"%s\": %s", col.Name, text)
	}
	return tl[0].GetResTarget().Val, nil
}

// deparseFinal casts parameters and deparses with table substitution.
func (tr *translator) deparseFinal(n *pg_query.Node) (string, error) {
	tr.castParams()
	tr.settleRaw()
	tr.rewriteClock(n)
	return tr.deparse(n)
}

// buildInsertSource wraps the user's source so that it yields every table
// column in table order, cast and checked.
//
// srcRaw[i]: source column i is a numeric's text (rawnum.go): it is kept
// as is for a numeric column without a precision, and computed as DECIMAL
// for any other.
func buildInsertSource(ti *TableInfo, targets []int, srcSQL string, srcRaw []bool, cat Catalog) (string, error) {
	pos := map[int]int{} // table column -> source column
	for si, tc := range targets {
		pos[tc] = si
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	var exprs []string
	var checked []bool
	for i, c := range ti.Columns {
		var val string
		if si, ok := pos[i]; ok {
			val = fmt.Sprintf("__bsdb_src.c%d", si+1)
		} else {
			d, err := defaultSQL(c, cat)
			if err != nil {
				return "", err
			}
			val = d
		}
		dt, err := DuckDBType(c.TypeOID, c.TypeMod)
		if err != nil {
			return "", err
		}
		if c.TypeOID == OIDJSONB {
			// Text in, like PostgreSQL's jsonb_in: DuckDB's JSON values
			// reach the planner decoded (a scalar 3.10 as float64); the
			// storage layer normalizes the text.
			dt = "VARCHAR"
		}
		if si, ok := pos[i]; ok && si < len(srcRaw) && srcRaw[si] {
			if isRawType(typ{c.TypeOID, c.TypeMod}) {
				dt = "VARCHAR"
			} else {
				val = "CAST(" + val + " AS DECIMAL(38,10))"
			}
		}
		expr := fmt.Sprintf("CAST(%s AS %s)", val, dt)
		if (c.TypeOID == OIDVarchar || c.TypeOID == OIDBpchar) && c.TypeMod > 4 {
			n := c.TypeMod - 4
			tname := "character varying"
			if c.TypeOID == OIDBpchar {
				tname = "character"
			}
			expr = fmt.Sprintf("__bsdb_check_len(%s, %d, %s)", expr, n, quoteLiteral(fmt.Sprintf("value too long for type %s(%d)", tname, n)))
		}
		if c.TypeOID == OIDName {
			expr = fmt.Sprintf("__bsdb_name(%s)", expr) // PostgreSQL's text -> name cuts it
		}
		_, seqDefault := SequenceOfDefault(c.Default)
		_, listed := pos[i]
		exprs = append(exprs, expr)
		// (nextval is never NULL, and the check's macro would call it
		// twice.)
		checked = append(checked, c.NotNull && (listed || !seqDefault))
	}
	rowText := failingRowSQL(ti, exprs)
	for i, c := range ti.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		expr := exprs[i]
		if checked[i] {
			msg := quoteLiteral(fmt.Sprintf("null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.Name, ti.Name))
			if rowText != "" {
				expr = fmt.Sprintf("__bsdb_check_not_null_row(%s, %s, %s)", expr, msg, rowText)
			} else {
				expr = fmt.Sprintf("__bsdb_check_not_null(%s, %s)", expr, msg)
			}
		}
		b.WriteString(expr)
		b.WriteString(" AS ")
		b.WriteString(quoteIdent(c.Name))
	}
	if srcSQL != "" {
		b.WriteString(" FROM (")
		b.WriteString(srcSQL)
		b.WriteString(") AS __bsdb_src(")
		for i := range targets {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "c%d", i+1)
		}
		b.WriteString(")")
	}
	return b.String(), nil
}

// failingRowSQL is the DuckDB text of PostgreSQL's "Failing row contains"
// description of the row whose columns are exprs (evaluated only when a
// check fails): each value's text (PostgreSQL's spelling for booleans,
// floats, intervals and bytea), null for NULL, cut after 64 characters.
// "" for a table too wide for it (the error then has no DETAIL).
func failingRowSQL(ti *TableInfo, exprs []string) string {
	if len(exprs) > 32 {
		return ""
	}
	parts := make([]string, len(exprs))
	for i, e := range exprs {
		var text string
		switch ti.Columns[i].TypeOID {
		case OIDBool:
			text = fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN NULL WHEN %[1]s THEN 't' ELSE 'f' END", e)
		case OIDFloat8:
			text = fmt.Sprintf("__bsdb_float8_text(%s)", e)
		case OIDFloat4:
			text = fmt.Sprintf("__bsdb_float4_text(%s)", e)
		case OIDInterval:
			text = fmt.Sprintf("__bsdb_interval_text(%s)", e)
		case OIDBytea:
			text = fmt.Sprintf("__bsdb_bytea_text(%s)", e)
		default:
			text = fmt.Sprintf("CAST(%s AS VARCHAR)", e)
		}
		parts[i] = fmt.Sprintf("coalesce(CASE WHEN length(%[1]s) > 64 THEN left(%[1]s, 64) || '...' ELSE %[1]s END, 'null')", text)
	}
	return "('(' || " + strings.Join(parts, " || ', ' || ") + " || ')')"
}

// defaultSQL returns the DuckDB text of a column default (NULL if none).
func defaultSQL(c ColumnInfo, cat Catalog) (string, error) {
	if c.Default == "" {
		return "NULL", nil
	}
	if name, ok := SequenceOfDefault(c.Default); ok {
		// A call per row: a scalar subquery would run once.
		return SessionFuncPrefix + "nextval(" + quoteLiteral(name) + ")", nil
	}
	res, err := parseGuarded("SELECT " + c.Default)
	if err != nil || len(res.Stmts) != 1 {
		return "", pgerr.New(pgerr.InternalError, "invalid default expression for column \"%s\": %s", c.Name, c.Default)
	}
	// The catalog gives the session's clock and settings (a default names
	// no table).
	q, err := TranslateQuery(res.Stmts[0].Stmt, cat, nil)
	if err != nil {
		return "", err
	}
	return "(" + q.SQL + ")", nil
}

// translateReturning builds SELECT <list> FROM __bsdb_returning AS alias.
func translateReturning(list []*pg_query.Node, ti *TableInfo, alias string, cat Catalog, declared []uint32) (*Query, error) {
	sel := &pg_query.SelectStmt{
		TargetList: list,
		FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: &pg_query.RangeVar{
			Relname: ReturningRelation, Inh: true, Relpersistence: "p", Alias: &pg_query.Alias{Aliasname: alias}, Location: -1,
		}}}},
		Op: pg_query.SetOperation_SETOP_NONE,
	}
	tr := newTranslator(cat, declared)
	// The relation is the planner's, with numeric columns as their text
	// (rawnum.go).
	sc := &scope{clause: clauseReturning, raw: true}
	rel := &relInfo{alias: alias}
	for _, c := range ti.Columns {
		t := typ{c.TypeOID, c.TypeMod}
		rel.cols = append(rel.cols, colInfo{name: c.Name, t: t, raw: isRawType(t)})
		tr.haveRaw = tr.haveRaw || isRawType(t)
	}
	sc.rels = append(sc.rels, rel)
	cols, err := tr.targetList(sel.TargetList, sc)
	if err != nil {
		return nil, err
	}
	tr.formatNumeric(sel, sc, cols)
	tr.rawUnsafe = false // no relation to rewrite: the text is all there is
	n := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}
	return tr.finish(n, cols)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// directState collects Insert.Direct while a VALUES source is translated
// (before its items are rewritten for DuckDB).
type directState struct {
	ok   bool
	rows [][]DirectValue // source order
	// params to check once every parameter's type is known: $n -> the
	// type OIDs of the columns it is assigned to.
	params map[int][]uint32
}

// noteDirect records VALUES item it (source position i) assigned to col,
// or marks the source as not direct.
func (tr *translator) noteDirect(it *pg_query.Node, col ColumnInfo, i int) {
	d := tr.direct
	if d == nil || !d.ok {
		return
	}
	if i == 0 {
		d.rows = append(d.rows, nil)
	}
	v, ok := tr.directItem(it, col)
	if !ok {
		d.ok = false
		return
	}
	if v.Param > 0 {
		if d.params == nil {
			d.params = map[int][]uint32{}
		}
		d.params[v.Param] = append(d.params[v.Param], col.TypeOID)
	}
	r := len(d.rows) - 1
	d.rows[r] = append(d.rows[r], v)
}

// directItem evaluates a VALUES item the way PostgreSQL assigns it to col,
// when that needs no expression evaluation: an unknown-typed string literal
// through the column type's input function (with its typmod), numeric
// literals into numeric/float/integer columns where the assignment is the
// input function of their text, booleans into boolean, NULL, DEFAULT
// without a default expression, and $n. Anything else (including input
// errors, which the regular path reports with their position) is not
// direct.
func (tr *translator) directItem(it *pg_query.Node, col ColumnInfo) (DirectValue, bool) {
	if it.GetSetToDefault() != nil {
		return tr.directDefault(col)
	}
	if f, prec := clockFunc(it); f != ClockNone {
		return DirectValue{Clock: f, Prec: prec}, clockType(f) == col.TypeOID && col.TypeMod < 0
	}
	if p := it.GetParamRef(); p != nil {
		return DirectValue{Param: int(p.Number)}, p.Number >= 1
	}
	c := it.GetAConst()
	if c == nil {
		return DirectValue{}, false
	}
	if c.Isnull {
		return DirectValue{}, true
	}
	var text string
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Sval:
		text = v.Sval.Sval
	case *pg_query.A_Const_Ival:
		switch col.TypeOID {
		case OIDInt4, OIDInt8, OIDNumeric, OIDFloat4, OIDFloat8:
		default:
			return DirectValue{}, false
		}
		text = strconv.FormatInt(int64(v.Ival.Ival), 10)
	case *pg_query.A_Const_Fval:
		text = v.Fval.Fval
		switch col.TypeOID {
		case OIDNumeric, OIDFloat4, OIDFloat8:
		case OIDInt8:
			// An integer too large for int4: PostgreSQL types it int8
			// (or numeric beyond int8, which then fails the same way).
			if strings.ContainsAny(text, ".eE") {
				return DirectValue{}, false
			}
		default:
			return DirectValue{}, false
		}
	case *pg_query.A_Const_Boolval:
		if col.TypeOID != OIDBool {
			return DirectValue{}, false
		}
		return DirectValue{Value: v.Boolval.Boolval}, true
	default:
		return DirectValue{}, false
	}
	val, err := pgtypes.ParseText(col.TypeOID, col.TypeMod, []byte(text), tr.typeSettings())
	if err != nil {
		return DirectValue{}, false
	}
	return DirectValue{Value: val}, true
}

// directRows returns Insert.Direct in table column order, or nil.
func (tr *translator) directRows(ti *TableInfo, targets []int) [][]DirectValue {
	d := tr.direct
	if d == nil || !d.ok || len(d.rows) == 0 {
		return nil
	}
	for n, oids := range d.params {
		pt := tr.paramType(n)
		for _, oid := range oids {
			if pt.oid != oid {
				return nil
			}
		}
	}
	pos := make([]int, len(ti.Columns))
	for i := range pos {
		pos[i] = -1
	}
	for si, tc := range targets {
		pos[tc] = si
	}
	defaults := map[int]DirectValue{}
	for i, c := range ti.Columns {
		if pos[i] < 0 && c.Default != "" {
			dv, ok := tr.directDefault(c)
			if !ok {
				return nil
			}
			defaults[i] = dv
		}
	}
	out := make([][]DirectValue, len(d.rows))
	for r, src := range d.rows {
		if len(src) != len(targets) {
			return nil
		}
		row := make([]DirectValue, len(ti.Columns))
		for i := range row {
			if pos[i] >= 0 {
				row[i] = src[pos[i]]
			} else if dv, ok := defaults[i]; ok {
				row[i] = dv
			}
		}
		out[r] = row
	}
	return out
}

// directDefault is the DirectValue of col's default when it needs no
// expression evaluation: none (NULL), a constant, or a clock function of
// exactly the column's type (created_at timestamptz DEFAULT now()).
func (tr *translator) directDefault(col ColumnInfo) (DirectValue, bool) {
	if col.Default == "" {
		return DirectValue{}, true
	}
	d, err := defaultExpr(col)
	if err != nil {
		return DirectValue{}, false
	}
	if d.GetSetToDefault() != nil || d.GetParamRef() != nil {
		return DirectValue{}, false
	}
	if name, ok := nextvalOf(d); ok {
		switch col.TypeOID {
		case OIDInt2, OIDInt4, OIDInt8:
			return DirectValue{Seq: name}, true
		}
		return DirectValue{}, false
	}
	return tr.directItem(d, col)
}

// identityTargets applies the rules of identity columns to the target
// columns of an INSERT, as PostgreSQL's rewriteTargetListIU: a value for a
// GENERATED ALWAYS column is an error (428C9) unless OVERRIDING SYSTEM
// VALUE or every row gives DEFAULT; OVERRIDING USER VALUE turns the values
// of every identity column into DEFAULT. targets are the explicit target
// columns (none: the table's columns in order).
func identityTargets(ins *pg_query.InsertStmt, ti *TableInfo, targets []int) error {
	override := ins.Override
	hasIdentity := false
	for _, c := range ti.Columns {
		hasIdentity = hasIdentity || c.Identity != ""
	}
	if !hasIdentity {
		if override == pg_query.OverridingKind_OVERRIDING_USER_VALUE || override == pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE {
			return nil // PostgreSQL ignores it
		}
		return nil
	}
	var rows [][]*pg_query.Node
	sel := ins.SelectStmt.GetSelectStmt()
	if sel != nil && len(sel.ValuesLists) > 0 {
		for _, r := range sel.ValuesLists {
			rows = append(rows, r.GetList().GetItems())
		}
	}
	col := func(pos int) (ColumnInfo, bool) {
		if len(targets) > 0 {
			if pos < len(targets) {
				return ti.Columns[targets[pos]], true
			}
			return ColumnInfo{}, false
		}
		if pos < len(ti.Columns) {
			return ti.Columns[pos], true
		}
		return ColumnInfo{}, false
	}
	width := len(targets)
	if width == 0 {
		switch {
		case rows != nil:
			width = len(rows[0])
		case sel != nil:
			width = countTargets(sel)
		}
	}
	for pos := 0; pos < width; pos++ {
		c, ok := col(pos)
		if !ok || c.Identity == "" {
			continue
		}
		allDefault := rows != nil
		for _, r := range rows {
			if pos < len(r) && r[pos].GetSetToDefault() == nil {
				allDefault = false
			}
		}
		switch {
		case allDefault:
		case override == pg_query.OverridingKind_OVERRIDING_USER_VALUE:
			if rows == nil {
				return pgerr.New(pgerr.FeatureNotSupported, "OVERRIDING USER VALUE with a query source is not supported")
			}
			for _, r := range rows {
				if pos < len(r) {
					r[pos] = &pg_query.Node{Node: &pg_query.Node_SetToDefault{SetToDefault: &pg_query.SetToDefault{Location: -1}}}
				}
			}
		case c.Identity == "a" && override != pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE:
			return pgerr.New("428C9", "cannot insert a non-DEFAULT value into column \"%s\"", c.Name).
				WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", c.Name).
				WithHint("Use OVERRIDING SYSTEM VALUE to override.")
		}
	}
	return nil
}

// SequenceOfDefault reports whether a column default is nextval of a
// sequence named by a literal (a serial or identity column's), and the
// name's text: COPY takes such values per batch instead of once.
func SequenceOfDefault(def string) (string, bool) {
	if def == "" || !strings.Contains(def, "nextval") {
		return "", false
	}
	n, err := defaultExpr(ColumnInfo{Default: def})
	if err != nil {
		return "", false
	}
	return nextvalOf(n)
}

// ExcludedColumn is the name of column c in ConflictUpdate's relation of
// proposed rows: not the column's own, so that an unqualified name in
// DO UPDATE refers to the target's column, as in PostgreSQL.
func ExcludedColumn(c string) string { return "__bsdb_x_" + c }

// ConflictUpdate is the UPDATE that ON CONFLICT DO UPDATE makes of the
// rows that conflict: UPDATE t [AS alias] SET ... FROM excluded-rows AS
// excluded WHERE t.key = excluded.key [AND the DO UPDATE's WHERE], where
// excluded names the relation that holds the proposed rows in conflict
// (one per target row: the planner refuses a key proposed twice), with
// the table's columns cols named by ExcludedColumn, and key the arbiter
// key's columns.
func (ins *Insert) ConflictUpdate(excluded string, cols, key []string) (*pg_query.Node, error) {
	has := map[string]bool{}
	for _, c := range cols {
		has[c] = true
	}
	var ambiguous error
	mangle := func(n *pg_query.Node) *pg_query.Node {
		n = proto.Clone(n).(*pg_query.Node)
		walkNodes(n, func(n *pg_query.Node) bool {
			cr := n.GetColumnRef()
			if cr != nil && len(cr.Fields) == 1 && ambiguous == nil {
				// Both the target and EXCLUDED have the column.
				if f := cr.Fields[0].GetString_(); f != nil && has[f.Sval] {
					ambiguous = pgerr.New(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", f.Sval).WithPosition(int(cr.Location) + 1)
				}
			}
			if cr == nil || len(cr.Fields) != 2 || cr.Fields[0].GetString_().GetSval() != "excluded" {
				return true
			}
			if f := cr.Fields[1].GetString_(); f != nil && has[f.Sval] {
				cr.Fields[1] = pg_query.MakeStrNode(ExcludedColumn(f.Sval))
			}
			return false
		})
		return n
	}
	rel := proto.Clone(ins.relation).(*pg_query.RangeVar)
	alias := rel.Relname
	if rel.Alias != nil {
		alias = rel.Alias.Aliasname
	}
	var conds []*pg_query.Node
	for _, k := range key {
		conds = append(conds, pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("=")},
			pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(k)}, -1),
			pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode("excluded"), pg_query.MakeStrNode(ExcludedColumn(k))}, -1), -1))
	}
	if w := ins.conflict.WhereClause; w != nil {
		conds = append(conds, mangle(w))
	}
	where := conds[0]
	if len(conds) > 1 {
		where = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, conds, -1)
	}
	var targets []*pg_query.Node
	for _, t := range ins.conflict.TargetList {
		targets = append(targets, mangle(t))
	}
	from := &pg_query.RangeVar{Relname: excluded, Inh: true, Relpersistence: "p", Alias: &pg_query.Alias{Aliasname: "excluded"}, Location: -1}
	if ambiguous != nil {
		return nil, ambiguous
	}
	return &pg_query.Node{Node: &pg_query.Node_UpdateStmt{UpdateStmt: &pg_query.UpdateStmt{
		Relation:    rel,
		TargetList:  targets,
		FromClause:  []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: from}}},
		WhereClause: where,
	}}}, nil
}

// coerceUnknownLiteral makes a string literal assigned to a column of a
// date/time, interval, boolean, bytea or uuid type a cast to the column's
// type: PostgreSQL reads such an unknown literal with the type's input
// function (its own syntax: '2024-01-01 12:00+02', 'on', '\x01'), which the
// translator applies to a typed literal; left untyped, it reached the query
// engine as text and its cast, which reads another syntax
// ("invalid input syntax for type timestamp" for a PostgreSQL timestamp).
func coerceUnknownLiteral(n *pg_query.Node, c ColumnInfo) {
	ac := n.GetAConst()
	if ac == nil || ac.GetSval() == nil {
		return
	}
	switch c.TypeOID {
	case OIDDate, OIDTime, OIDTimestamp, OIDTimestamptz, OIDTimetz, OIDInterval, OIDBool, OIDBytea, OIDUUID:
	default:
		return
	}
	tn, err := columnTypeName(c.TypeOID, -1)
	if err != nil {
		return
	}
	inner := proto.Clone(n).(*pg_query.Node)
	n.Node = &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: inner, TypeName: tn, Location: ac.Location}}
}
