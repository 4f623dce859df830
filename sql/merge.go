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

// MERGE (PostgreSQL 15).
//
// The statement becomes one DuckDB query over its target bound with row
// identities (MergeCatalog), as UPDATE and DELETE do (modify.go):
//
//	WITH __bsdb_merge AS MATERIALIZED (
//	  SELECT <clause>, rid_f, rid_p, <values of each UPDATE/INSERT clause>
//	  FROM target [AS a] RIGHT JOIN source ON cond)   -- INNER without INSERT
//	SELECT j, rid_f, rid_p, <table columns cast and checked>
//	  FROM (... WHERE clause = j)   -- one branch per UPDATE/INSERT clause j
//	UNION ALL
//	SELECT j, rid_f, rid_p, NULL... WHERE clause IN (<DELETE clauses>)
//
// <clause> is the 1-based index of the WHEN clause that applies to a joined
// row (the first whose kind fits, MATCHED or NOT MATCHED, and whose
// condition holds), 0 for none. A clause's values are computed only for
// its own rows (an expression that could fail is guarded by the same CASE
// chain), and an INSERT's defaults only in its branch, so a sequence
// advances once per inserted row. The server applies the rows as UPDATE
// and DELETE do, and fails with 21000 when a target row would be changed
// twice.

// MergeAction is what a WHEN clause of MERGE does.
type MergeAction int

// MERGE actions.
const (
	MergeDoNothing MergeAction = iota
	MergeUpdate
	MergeDelete
	MergeInsert
)

// MergeCatalog is implemented by catalogs that can bind the target of a
// MERGE: like TargetCatalog's LookupTarget, with the privileges its
// clauses need (SELECT always: the join condition reads the target).
type MergeCatalog interface {
	LookupMergeTarget(schema, name string, insert, update, delete bool) (*TableInfo, error)
}

// Merge is a translated MERGE.
type Merge struct {
	Table *TableInfo
	// Actions holds each WHEN clause's action, in order; Source's first
	// column is 1 + an index into it.
	Actions []MergeAction
	// Source is a DuckDB SELECT with one row per target row to update or
	// delete and per row to insert: the clause (INTEGER), RowIDFile and
	// RowIDPos (NULL for an INSERT), then, when Values, every table column
	// in table order (NULL for a DELETE), cast and checked as an INSERT's
	// Source. Rows a DO NOTHING clause takes, or no clause, are not in it.
	Source *Query
	Values bool
}

const (
	mergeCTE    = "__bsdb_merge"
	mergeClause = "__bsdb_clause"
)

type mergeClauseInfo struct {
	action  MergeAction
	matched bool
	cond    *pg_query.Node
	// targets and values: the table columns an UPDATE or INSERT gives a
	// value (others keep theirs, or take their default) and the values.
	targets []int
	values  []*pg_query.Node
	// firstCol: the clause's first value column in the inner query.
	firstCol int
}

// TranslateMerge translates MERGE INTO t [AS a] USING src ON cond WHEN
// ... as PostgreSQL 15 accepts it. describe: only the parameter types are
// wanted (the target is looked up without binding it; Source is not to be
// run). st.Tree is not modified.
func TranslateMerge(st *Statement, cat Catalog, declaredParams []uint32, describe bool) (*Merge, error) {
	n := proto.Clone(st.Tree).(*pg_query.Node)
	m := n.GetMergeStmt()
	if m == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateMerge on %T", st.Tree.GetNode())
	}
	defer endBind(cat)
	if err := mergePG15Syntax(st.Text, m); err != nil {
		return nil, err
	}
	if err := mergeCatalogNames(n, m.Relation, cat); err != nil {
		return nil, err
	}
	rel := m.Relation
	if m.WithClause != nil && m.WithClause.Recursive {
		return nil, pgerr.New(pgerr.SyntaxError, "WITH RECURSIVE is not supported for MERGE statement")
	}
	var clauses []*mergeClauseInfo
	var wantInsert, wantUpdate, wantDelete bool
	terminal := [2]bool{}
	for _, cn := range m.MergeWhenClauses {
		mw := cn.GetMergeWhenClause()
		c := &mergeClauseInfo{matched: mw.MatchKind == pg_query.MergeMatchKind_MERGE_WHEN_MATCHED, cond: mw.Condition}
		switch mw.CommandType {
		case pg_query.CmdType_CMD_INSERT:
			c.action, wantInsert = MergeInsert, true
		case pg_query.CmdType_CMD_UPDATE:
			c.action, wantUpdate = MergeUpdate, true
		case pg_query.CmdType_CMD_DELETE:
			c.action, wantDelete = MergeDelete, true
		default:
			c.action = MergeDoNothing
		}
		if err := mergeConditionType(mw.Condition); err != nil {
			return nil, err
		}
		kind := 1
		if c.matched {
			kind = 0
		}
		if terminal[kind] {
			return nil, pgerr.New(pgerr.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		if mw.Condition == nil {
			terminal[kind] = true
		}
		clauses = append(clauses, c)
	}
	if cat == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rel.Schemaname, rel.Relname)).WithPosition(int(rel.Location) + 1)
	}
	var ti *TableInfo
	var err error
	if describe {
		if ti, err = describeTable(cat, rel.Schemaname, rel.Relname); err == nil {
			c := *ti
			c.Columns = append(append([]ColumnInfo(nil), ti.Columns...),
				ColumnInfo{Name: RowIDFile, TypeOID: pgtypes.OIDInt8, TypeMod: -1},
				ColumnInfo{Name: RowIDPos, TypeOID: pgtypes.OIDInt8, TypeMod: -1})
			ti = &c
		}
	} else if mc, ok := cat.(MergeCatalog); ok {
		ti, err = mc.LookupMergeTarget(rel.Schemaname, rel.Relname, wantInsert, wantUpdate, wantDelete)
	} else {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "MERGE is not supported here")
	}
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 && rel.Location >= 0 {
			return nil, e.WithPosition(int(rel.Location) + 1)
		}
		return nil, err
	}
	cols := ti.Columns
	if k := len(cols); k >= 2 && cols[k-2].Name == RowIDFile && cols[k-1].Name == RowIDPos {
		cols = cols[:k-2]
	}
	table := *ti
	table.Columns = cols
	out := &Merge{Table: &table}

	alias := rel.Relname
	if rel.Alias != nil {
		alias = rel.Alias.Aliasname
	}
	srcAlias := mergeSourceAlias(m.SourceRelation)
	if srcAlias == alias {
		return nil, pgerr.New("42712", "name \"%s\" specified more than once", alias).
			WithDetail("The name is used both as MERGE target table and data source.")
	}
	colRef := func(name string) *pg_query.Node {
		return pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(name)}, -1)
	}

	// Each clause's values.
	for ci, c := range clauses {
		mw := m.MergeWhenClauses[ci].GetMergeWhenClause()
		switch c.action {
		case MergeUpdate:
			if err := mergeUpdateValues(c, mw, &table, colRef); err != nil {
				return nil, err
			}
		case MergeInsert:
			if err := mergeInsertValues(c, mw, &table); err != nil {
				return nil, err
			}
		}
	}
	// NOT MATCHED clauses see the source only.
	if err := mergeSourceOnly(clauses, m, cat, declaredParams, alias, srcAlias, &table); err != nil {
		return nil, err
	}

	// The inner query.
	ridF, ridP := colRef(RowIDFile), colRef(RowIDPos)
	matchedTest := func(matched bool) *pg_query.Node {
		t := pg_query.NullTestType_IS_NULL
		if matched {
			t = pg_query.NullTestType_IS_NOT_NULL
		}
		return &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{Arg: proto.Clone(ridF).(*pg_query.Node), Nulltesttype: t, Location: -1}}}
	}
	// chain is the CASE over the clauses of one kind up to clause upTo
	// (all: -1): result(i) for the first whose condition holds.
	chain := func(matched bool, upTo int, result func(i int) *pg_query.Node) *pg_query.Node {
		ce := &pg_query.CaseExpr{Location: -1}
		for i, c := range clauses {
			if c.matched != matched || (upTo >= 0 && i > upTo) {
				continue
			}
			if c.cond == nil {
				ce.Defresult = result(i)
				break
			}
			ce.Args = append(ce.Args, pg_query.MakeCaseWhenNode(proto.Clone(c.cond).(*pg_query.Node), result(i), -1))
		}
		if len(ce.Args) == 0 {
			if ce.Defresult == nil {
				return result(-1)
			}
			return ce.Defresult
		}
		if ce.Defresult == nil {
			ce.Defresult = result(-1)
		}
		return &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: ce}}
	}
	clauseNo := func(i int) *pg_query.Node { return pg_query.MakeAConstIntNode(int64(i+1), -1) }
	action := &pg_query.CaseExpr{
		Args:      []*pg_query.Node{pg_query.MakeCaseWhenNode(matchedTest(true), chain(true, -1, clauseNo), -1)},
		Defresult: chain(false, -1, clauseNo),
		Location:  -1,
	}
	targets := []*pg_query.Node{
		pg_query.MakeResTargetNodeWithNameAndVal(mergeClause, &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: action}}, -1),
		pg_query.MakeResTargetNodeWithNameAndVal(RowIDFile, ridF, -1),
		pg_query.MakeResTargetNodeWithNameAndVal(RowIDPos, ridP, -1),
	}
	nullConst := func() *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}
	}
	var valueItems []int // target list positions of bare values (typed by their column)
	outerJoin := false
	for ci, c := range clauses {
		if c.action == MergeInsert {
			outerJoin = true
		}
		if c.action != MergeUpdate && c.action != MergeInsert {
			continue
		}
		c.firstCol = len(targets)
		for k, v := range c.values {
			if k < len(c.targets) {
				coerceUnknownLiteral(v, cols[c.targets[k]])
			}
			if !mergeSimpleValue(v) {
				// Computed only for the clause's rows, as PostgreSQL
				// projects an action's values only when it runs.
				val := v
				guarded := chain(c.matched, ci, func(i int) *pg_query.Node {
					if i == ci {
						return val
					}
					return nullConst()
				})
				v = &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: &pg_query.CaseExpr{
					Args:     []*pg_query.Node{pg_query.MakeCaseWhenNode(matchedTest(c.matched), guarded, -1)},
					Location: -1,
				}}}
			} else {
				valueItems = append(valueItems, len(targets))
			}
			targets = append(targets, pg_query.MakeResTargetNodeWithNameAndVal(fmt.Sprintf("__bsdb_v%d_%d", ci+1, k+1), v, -1))
		}
	}
	joinType := pg_query.JoinType_JOIN_INNER
	if outerJoin {
		joinType = pg_query.JoinType_JOIN_RIGHT
	}
	sel := &pg_query.SelectStmt{
		TargetList: targets,
		FromClause: []*pg_query.Node{pg_query.MakeJoinExprNode(joinType,
			&pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: rel}}, m.SourceRelation, m.JoinCondition)},
		WithClause:  m.WithClause,
		Op:          pg_query.SetOperation_SETOP_NONE,
		LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT,
	}
	colOf := map[int]ColumnInfo{} // target list position -> table column
	for _, c := range clauses {
		for k, tc := range c.targets {
			colOf[c.firstCol+k] = cols[tc]
		}
	}
	tr := newTranslator(cat, declaredParams)
	tr.target = rel
	tr.targetInfo = ti
	tr.keepUnknownIn(sel) // the target columns type them
	selCols, err := tr.selectStmt(sel, nil)
	if err != nil {
		return nil, err
	}
	for _, i := range valueItems {
		if v := sel.TargetList[i].GetResTarget().GetVal(); v != nil && tr.untypedParam(v) {
			tr.typeParam(v, typ{colOf[i].TypeOID, -1})
		}
	}
	if err := tr.checkParamGaps(st.Tree); err != nil {
		return nil, err
	}
	if tr.srfPending != nil {
		return nil, tr.srfPending
	}
	innerSQL, err := tr.deparseFinal(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return nil, err
	}
	raw := func(i int) bool { return !tr.rawUnsafe && i < len(selCols) && selCols[i].raw }

	// The outer query: a branch per clause with values, one for DELETEs.
	rid := quoteIdent(RowIDFile) + ", " + quoteIdent(RowIDPos)
	var branches []string
	var deletes []string
	for ci, c := range clauses {
		out.Actions = append(out.Actions, c.action)
		switch c.action {
		case MergeDelete:
			deletes = append(deletes, fmt.Sprint(ci+1))
			continue
		case MergeUpdate, MergeInsert:
		default:
			continue
		}
		out.Values = true
		var items []string
		var srcRaw []bool
		for k := range c.values {
			items = append(items, quoteIdent(fmt.Sprintf("__bsdb_v%d_%d", ci+1, k+1)))
			srcRaw = append(srcRaw, raw(c.firstCol+k))
		}
		items = append(items, rid)
		inner := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %d", strings.Join(items, ", "), mergeCTE, mergeClause, ci+1)
		body, err := buildInsertSource(&table, c.targets, inner, srcRaw, cat)
		if err != nil {
			return nil, err
		}
		alias := "AS __bsdb_src("
		for k := range c.values {
			if k > 0 {
				alias += ", "
			}
			alias += fmt.Sprintf("c%d", k+1)
		}
		full := alias
		if len(c.values) > 0 {
			full += ", "
		}
		full += rid
		got := replaceLast(body, alias+")", full+")")
		if got == body {
			return nil, fmt.Errorf("BUG: sql: MERGE source without its alias list")
		}
		branches = append(branches, fmt.Sprintf("SELECT %d AS %s, __bsdb_src.%s, __bsdb_src.%s, %s",
			ci+1, mergeClause, quoteIdent(RowIDFile), quoteIdent(RowIDPos), got[len("SELECT "):]))
	}
	if len(deletes) > 0 || len(branches) == 0 {
		cond := "false"
		if len(deletes) > 0 {
			cond = fmt.Sprintf("%s IN (%s)", mergeClause, strings.Join(deletes, ", "))
		}
		nulls := ""
		if out.Values {
			nulls = strings.Repeat(", NULL", len(cols))
		}
		branches = append(branches, fmt.Sprintf("SELECT %s, %s%s FROM %s WHERE %s", mergeClause, rid, nulls, mergeCTE, cond))
	}
	src := fmt.Sprintf("WITH %s AS MATERIALIZED (%s) %s", mergeCTE, innerSQL, strings.Join(branches, " UNION ALL "))
	if err := tr.checkUnknownParams(); err != nil {
		return nil, err
	}
	out.Source = &Query{SQL: src, ParamOIDs: tr.paramOIDs()}
	return out, nil
}

// mergePG15Syntax refuses what PostgreSQL 17's grammar (pg_query's) adds
// to PostgreSQL 15's: WHEN NOT MATCHED BY SOURCE / BY TARGET and
// RETURNING, with the syntax error PostgreSQL 15 gives.
func mergePG15Syntax(text string, m *pg_query.MergeStmt) error {
	by := false
	for _, cn := range m.MergeWhenClauses {
		if mw := cn.GetMergeWhenClause(); mw != nil && mw.MatchKind != pg_query.MergeMatchKind_MERGE_WHEN_MATCHED {
			by = true // NOT MATCHED [BY TARGET] and NOT MATCHED BY SOURCE look alike
		}
	}
	if !by && len(m.ReturningList) == 0 {
		return nil
	}
	res, err := pg_query.Scan(text)
	if err != nil {
		return nil
	}
	syntaxAt := func(t *pg_query.ScanToken) error {
		if int(t.End) > len(text) || t.Start < 0 || t.Start > t.End {
			return pgerr.New(pgerr.SyntaxError, "syntax error")
		}
		return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", text[t.Start:t.End]).WithPosition(int(t.Start) + 1)
	}
	toks := res.Tokens
	for i, t := range toks {
		if by && t.Token == pg_query.Token_MATCHED && i+1 < len(toks) && toks[i+1].Token == pg_query.Token_BY {
			return syntaxAt(toks[i+1])
		}
	}
	if len(m.ReturningList) > 0 {
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i].Token == pg_query.Token_RETURNING {
				return syntaxAt(toks[i])
			}
		}
		return pgerr.New(pgerr.SyntaxError, "syntax error at or near \"RETURNING\"")
	}
	return nil
}

// DatabaseNamer is optionally implemented by a Catalog: the session's
// database, which a relation name may spell as its catalog.
type DatabaseNamer interface {
	CurrentDatabase() string
}

// mergeCatalogNames drops the catalog of db.schema.table names that spell
// the current database (dbt names every relation so), as PostgreSQL
// accepts them; another database is PostgreSQL's 0A000.
func mergeCatalogNames(n *pg_query.Node, target *pg_query.RangeVar, cat Catalog) error {
	db := ""
	if dn, ok := cat.(DatabaseNamer); ok {
		db = dn.CurrentDatabase()
	}
	check := func(rv *pg_query.RangeVar) error {
		if rv == nil || rv.Catalogname == "" {
			return nil
		}
		if db != "" && rv.Catalogname == db {
			rv.Catalogname = ""
			return nil
		}
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname).WithPosition(int(rv.Location) + 1)
	}
	if err := check(target); err != nil {
		return err
	}
	var failure error
	walkNodes(n, func(x *pg_query.Node) bool {
		if failure == nil {
			failure = check(x.GetRangeVar())
		}
		return failure == nil
	})
	return failure
}

// mergeConditionType refuses a WHEN condition that is a number constant
// (PostgreSQL's coerce_to_boolean; the translation leaves a condition's
// type to the engine, which takes a number for a truth value).
func mergeConditionType(n *pg_query.Node) error {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return nil
	}
	t := ""
	switch {
	case c.GetIval() != nil:
		t = "integer"
	case c.GetFval() != nil:
		t = "numeric"
		if _, err := strconv.ParseInt(c.GetFval().Fval, 10, 64); err == nil {
			t = "bigint"
		}
	}
	if t == "" {
		return nil
	}
	return withLocation(pgerr.New(pgerr.DatatypeMismatch, "argument of WHEN must be type boolean, not type %s", t), c.Location)
}

// mergeSourceAlias is the name under which the source is visible ("" for
// a join).
func mergeSourceAlias(n *pg_query.Node) string {
	switch s := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		if s.RangeVar.Alias != nil {
			return s.RangeVar.Alias.Aliasname
		}
		return s.RangeVar.Relname
	case *pg_query.Node_RangeSubselect:
		if s.RangeSubselect.Alias != nil {
			return s.RangeSubselect.Alias.Aliasname
		}
	case *pg_query.Node_RangeFunction:
		if s.RangeFunction.Alias != nil {
			return s.RangeFunction.Alias.Aliasname
		}
	}
	return ""
}

// mergeUpdateValues reads an UPDATE clause's SET list: every column, its
// new value or its own (DEFAULT: left to the branch's default).
func mergeUpdateValues(c *mergeClauseInfo, mw *pg_query.MergeWhenClause, table *TableInfo, colRef func(string) *pg_query.Node) error {
	cols := table.Columns
	values := make([]*pg_query.Node, len(cols))
	assigned := make([]bool, len(cols))
	toDefault := make([]bool, len(cols))
	for _, t := range mw.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		i := table.ColumnIndex(rt.Name)
		if i < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, table.Name).WithPosition(int(rt.Location) + 1)
		}
		if len(rt.Indirection) > 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "UPDATE of subfields or array elements is not supported").WithPosition(int(rt.Location) + 1)
		}
		if assigned[i] {
			return pgerr.New(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name).WithPosition(int(rt.Location) + 1)
		}
		assigned[i] = true
		col := cols[i]
		val := rt.Val
		if mr := val.GetMultiAssignRef(); mr != nil {
			v, err := multiAssignValue(mr)
			if err != nil {
				return err
			}
			val = v
		}
		if val.GetSetToDefault() != nil {
			toDefault[i] = true
			continue
		} else if col.Identity == "a" {
			e := pgerr.New("428C9", "column \"%s\" can only be updated to DEFAULT", col.Name)
			e.Detail = fmt.Sprintf("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", col.Name)
			return e
		}
		values[i] = val
	}
	for i, col := range cols {
		if toDefault[i] {
			continue
		}
		v := values[i]
		if v == nil {
			v = colRef(col.Name)
		}
		c.targets = append(c.targets, i)
		c.values = append(c.values, v)
	}
	return nil
}

// mergeInsertValues reads an INSERT clause's columns and VALUES (DEFAULT
// items are left to the branch's defaults).
func mergeInsertValues(c *mergeClauseInfo, mw *pg_query.MergeWhenClause, table *TableInfo) error {
	var targets []int
	seen := map[int]bool{}
	for _, cn := range mw.TargetList {
		rt := cn.GetResTarget()
		if len(rt.Indirection) > 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "INSERT into subfields or array elements is not supported").WithPosition(int(rt.Location) + 1)
		}
		i := table.ColumnIndex(rt.Name)
		if i < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, table.Name).WithPosition(int(rt.Location) + 1)
		}
		if seen[i] {
			return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", rt.Name).WithPosition(int(rt.Location) + 1)
		}
		seen[i] = true
		targets = append(targets, i)
	}
	values := mw.Values
	if len(mw.TargetList) == 0 {
		if len(values) > len(table.Columns) {
			return withLocation(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), exprLocation(values[len(table.Columns)]))
		}
		for i := range values {
			targets = append(targets, i)
		}
	} else if values != nil && len(values) != len(targets) {
		if len(values) > len(targets) {
			return withLocation(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), exprLocation(values[len(targets)]))
		}
		return withLocation(pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions"), mw.TargetList[len(values)].GetResTarget().GetLocation())
	}
	if values == nil {
		targets = nil // DEFAULT VALUES
	}
	ins := &pg_query.InsertStmt{Override: mw.Override}
	if values != nil {
		ins.SelectStmt = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
			ValuesLists: []*pg_query.Node{pg_query.MakeListNode(values)},
		}}}
	}
	if err := identityTargets(ins, table, targets); err != nil {
		return err
	}
	for k, v := range values {
		if v.GetSetToDefault() != nil {
			continue // the column's default, in the branch
		}
		c.targets = append(c.targets, targets[k])
		c.values = append(c.values, v)
	}
	return nil
}

// mergeSimpleValue: a value that cannot fail whatever row it is computed
// for, and whose type its column gives when it has none (a bare $n or
// literal), is computed unguarded.
func mergeSimpleValue(n *pg_query.Node) bool {
	switch n.GetNode().(type) {
	case *pg_query.Node_ColumnRef, *pg_query.Node_ParamRef, *pg_query.Node_AConst:
		return true
	}
	return false
}

// mergeSourceOnly applies PostgreSQL's visibility rule to the NOT MATCHED
// clauses: they see the source only. A reference to the target is an
// error; an unqualified column of both is the source's (qualified here,
// as the clauses are translated over the join).
func mergeSourceOnly(clauses []*mergeClauseInfo, m *pg_query.MergeStmt, cat Catalog, declared []uint32, alias, srcAlias string, table *TableInfo) error {
	var exprs []*pg_query.Node
	for _, c := range clauses {
		if c.matched {
			continue
		}
		if c.cond != nil {
			exprs = append(exprs, c.cond)
		}
		exprs = append(exprs, c.values...)
	}
	if len(exprs) == 0 {
		return nil
	}
	// The source's columns.
	var srcCols map[string]bool
	tr := newTranslator(cat, declared)
	sc := &scope{}
	if m.WithClause != nil {
		if err := tr.withClause(proto.Clone(m.WithClause).(*pg_query.WithClause), sc); err != nil {
			return err
		}
	}
	if err := tr.fromItem(proto.Clone(m.SourceRelation).(*pg_query.Node), sc); err != nil {
		return err
	}
	srcCols = map[string]bool{}
	for _, r := range sc.rels {
		if r.cols == nil {
			srcCols = nil
			break
		}
		for _, c := range r.cols {
			srcCols[c.name] = true
		}
	}
	var failure error
	for _, e := range exprs {
		walkNodes(e, func(x *pg_query.Node) bool {
			if failure != nil {
				return false
			}
			if x.GetSubLink() != nil {
				// A subquery's own FROM may hide the names: only its
				// qualified references to the target are checked.
				walkNodes(x.GetSubLink().Subselect, func(y *pg_query.Node) bool {
					if cr := y.GetColumnRef(); cr != nil && failure == nil {
						failure = mergeTargetRef(cr, alias, srcAlias, nil, table, false)
					}
					return failure == nil
				})
				return false
			}
			cr := x.GetColumnRef()
			if cr == nil {
				return true
			}
			failure = mergeTargetRef(cr, alias, srcAlias, srcCols, table, true)
			return false
		})
		if failure != nil {
			return failure
		}
	}
	return nil
}

// mergeTargetRef checks one column reference of a NOT MATCHED clause.
func mergeTargetRef(cr *pg_query.ColumnRef, alias, srcAlias string, srcCols map[string]bool, table *TableInfo, top bool) error {
	var names []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			break // a star
		}
		names = append(names, s.Sval)
	}
	switch {
	case len(cr.Fields) >= 2 && len(names) >= 1 && names[0] == alias:
		return pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", alias).
			WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", alias).
			WithPosition(int(cr.Location) + 1)
	case top && len(cr.Fields) == 1 && len(names) == 1 && table.ColumnIndex(names[0]) >= 0 && srcCols != nil:
		if !srcCols[names[0]] {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", names[0]).
				WithHint("There is a column named \"%s\" in table \"%s\", but it cannot be referenced from this part of the query.", names[0], alias).
				WithPosition(int(cr.Location) + 1)
		}
		if srcAlias != "" {
			cr.Fields = append([]*pg_query.Node{pg_query.MakeStrNode(srcAlias)}, cr.Fields...)
		}
	}
	return nil
}
