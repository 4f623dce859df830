package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// typ is an inferred PostgreSQL type; oid 0 = unknown.
type typ struct {
	oid uint32
	mod int32
}

var unknownTyp = typ{0, -1}

func (t typ) known() bool { return t.oid != 0 && t.oid != OIDUnknown }

// relInfo is one FROM item visible to column references.
type relInfo struct {
	alias string
	cols  []colInfo // nil = unknown columns
}

type colInfo struct {
	name string
	t    typ
}

// scope is a query level: its FROM items, its CTEs, and its parent (for
// correlated subqueries and outer CTEs).
type scope struct {
	parent *scope
	ctes   map[string]*relInfo
	rels   []*relInfo
}

func (s *scope) lookupCTE(name string) *relInfo {
	for ; s != nil; s = s.parent {
		if r, ok := s.ctes[name]; ok {
			return r
		}
	}
	return nil
}

// translator holds the state of one translation.
type translator struct {
	cat      Catalog
	declared []uint32
	params   map[int]typ
	maxParam int
	subst    []string // placeholder i -> FromSQL
	tables   []*TableInfo
	// paramNodes are the $n references not already under an explicit
	// cast; castParams wraps them (no second walk of the tree).
	paramNodes []*pg_query.Node
}

func newTranslator(cat Catalog, declared []uint32) *translator {
	return &translator{cat: cat, declared: declared, params: map[int]typ{}}
}

// placeholder returns the relation name standing in for subst[i] until the
// deparsed text is patched.
func placeholder(i int) string { return fmt.Sprintf("__bsdb_rel_%d__", i) }

// TranslateQuery translates a SELECT/VALUES/set operation into DuckDB SQL
// (see doc.go for the rewrites). stmt is not modified.
func TranslateQuery(stmt *pg_query.Node, cat Catalog, declaredParams []uint32) (*Query, error) {
	if stmt == nil || stmt.GetSelectStmt() == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateQuery on %T", stmt.GetNode())
	}
	tr := newTranslator(cat, declaredParams)
	n := proto.Clone(stmt).(*pg_query.Node)
	cols, err := tr.selectStmt(n.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	return tr.finish(n, cols)
}

// finish deparses the rewritten tree, substitutes table placeholders and
// fixes parameter types.
func (tr *translator) finish(n *pg_query.Node, cols []colInfo) (*Query, error) {
	tr.castParams()
	text, err := tr.deparse(n)
	if err != nil {
		return nil, err
	}
	q := &Query{SQL: text, ParamOIDs: tr.paramOIDs()}
	if cols != nil {
		q.Columns = make([]ResultColumn, len(cols))
		for i, c := range cols {
			oid := c.t.oid
			if oid == OIDUnknown {
				oid = OIDText
			}
			q.Columns[i] = ResultColumn{Name: c.name, TypeOID: oid, TypeMod: c.t.mod}
		}
	}
	return q, nil
}

func (tr *translator) deparse(n *pg_query.Node) (string, error) {
	text, err := deparseNode(n)
	if err != nil {
		return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse rewritten query: %v", err)
	}
	// Each placeholder must occur exactly once (as the renamed relation);
	// anything else means the user's own text contains one.
	pairs := make([]string, 0, 2*len(tr.subst))
	for i, from := range tr.subst {
		ph := placeholder(i)
		if strings.Count(text, ph) != 1 {
			return "", pgerr.New(pgerr.FeatureNotSupported, "query text contains the reserved name prefix __bsdb_rel_")
		}
		pairs = append(pairs, ph, from)
	}
	if len(pairs) > 0 {
		// One pass: a FromSQL is never rescanned for placeholders.
		text = strings.NewReplacer(pairs...).Replace(text)
	}
	return text, nil
}

func (tr *translator) paramOIDs() []uint32 {
	n := tr.maxParam
	if len(tr.declared) > n {
		n = len(tr.declared)
	}
	out := make([]uint32, n)
	for i := range out {
		if i < len(tr.declared) && tr.declared[i] != 0 {
			out[i] = tr.declared[i]
			continue
		}
		t := tr.params[i+1]
		if t.known() {
			out[i] = t.oid
		} else {
			out[i] = OIDText
		}
	}
	return out
}

// paramType returns the declared or inferred type of $n.
func (tr *translator) paramType(n int) typ {
	if n-1 < len(tr.declared) && tr.declared[n-1] != 0 {
		return typ{tr.declared[n-1], -1}
	}
	return tr.params[n]
}

// noteParam records a use of $n, with a type from context if known.
func (tr *translator) noteParam(n int, t typ) {
	if n > tr.maxParam {
		tr.maxParam = n
	}
	if t.known() && !tr.params[n].known() {
		tr.params[n] = t
	}
}

// castParams wraps every parameter reference (except those the user cast
// explicitly) in a cast to its final type, so DuckDB binds $n with
// PostgreSQL's type (declared types win; inferred ones are what the client
// was told in ParameterDescription).
func (tr *translator) castParams() {
	oids := tr.paramOIDs()
	for _, n := range tr.paramNodes {
		p := n.GetParamRef()
		if p == nil || int(p.Number) < 1 || int(p.Number) > len(oids) {
			continue
		}
		_ = castTo(n, typ{oids[p.Number-1], -1}) // unsupported type: leave $n untyped
	}
	tr.paramNodes = nil
}

// selectStmt translates one SELECT (or set operation / VALUES) in place
// and returns its result columns (nil if unknown).
func (tr *translator) selectStmt(s *pg_query.SelectStmt, parent *scope) ([]colInfo, error) {
	sc := &scope{parent: parent}
	if s.WithClause != nil {
		if err := tr.withClause(s.WithClause, sc); err != nil {
			return nil, err
		}
	}
	if s.IntoClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT INTO is not supported")
	}
	if len(s.LockingClause) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT FOR UPDATE/SHARE is not supported")
	}
	var cols []colInfo
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		l, err := tr.selectStmt(s.Larg, sc)
		if err != nil {
			return nil, err
		}
		r, err := tr.selectStmt(s.Rarg, sc)
		if err != nil {
			return nil, err
		}
		cols = l
		if l != nil && r != nil && len(l) == len(r) {
			for i := range cols {
				cols[i].t = unifyTypes(l[i].t, r[i].t)
			}
		}
	case len(s.ValuesLists) > 0:
		for ri, row := range s.ValuesLists {
			items := row.GetList().GetItems()
			for ci, it := range items {
				t, err := tr.expr(it, sc, unknownTyp)
				if err != nil {
					return nil, err
				}
				if ri == 0 {
					cols = append(cols, colInfo{name: "column" + strconv.Itoa(ci+1), t: t})
				} else if ci < len(cols) {
					cols[ci].t = unifyTypes(cols[ci].t, t)
				}
			}
		}
		for i := range cols {
			if cols[i].t.oid == 0 || cols[i].t.oid == OIDUnknown {
				cols[i].t = typ{OIDText, -1}
			}
		}
		nameValues(s, len(cols))
	default:
		for _, f := range s.FromClause {
			if err := tr.fromItem(f, sc); err != nil {
				return nil, err
			}
		}
		var err error
		cols, err = tr.targetList(s.TargetList, sc)
		if err != nil {
			return nil, err
		}
		if s.WhereClause != nil {
			if _, err := tr.expr(s.WhereClause, sc, typ{OIDBool, -1}); err != nil {
				return nil, err
			}
		}
		for _, g := range s.GroupClause {
			if isPositional(g) {
				continue
			}
			if _, err := tr.expr(g, sc, unknownTyp); err != nil {
				return nil, err
			}
		}
		if s.HavingClause != nil {
			if _, err := tr.expr(s.HavingClause, sc, typ{OIDBool, -1}); err != nil {
				return nil, err
			}
		}
		for _, w := range s.WindowClause {
			if err := tr.generic(w, sc); err != nil {
				return nil, err
			}
		}
		for _, d := range s.DistinctClause {
			if d != nil && !isPositional(d) {
				if _, err := tr.expr(d, sc, unknownTyp); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, o := range s.SortClause {
		sb := o.GetSortBy()
		if sb == nil || isPositional(sb.Node) {
			continue
		}
		if _, err := tr.expr(sb.Node, sc, unknownTyp); err != nil {
			return nil, err
		}
	}
	for _, l := range []*pg_query.Node{s.LimitCount, s.LimitOffset} {
		if l != nil {
			if _, err := tr.expr(l, sc, typ{OIDInt8, -1}); err != nil {
				return nil, err
			}
		}
	}
	if s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH FIRST ... WITH TIES is not supported")
	}
	return cols, nil
}

func isPositional(n *pg_query.Node) bool {
	c := n.GetAConst()
	if c == nil {
		return false
	}
	_, ok := c.Val.(*pg_query.A_Const_Ival)
	return ok
}

func (tr *translator) withClause(w *pg_query.WithClause, sc *scope) error {
	sc.ctes = map[string]*relInfo{}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		rel := &relInfo{alias: cte.Ctename}
		if w.Recursive {
			// Visible inside its own definition; columns unknown until the
			// non-recursive term is seen.
			sc.ctes[cte.Ctename] = rel
		}
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported")
		}
		cols, err := tr.selectStmt(sel, sc)
		if err != nil {
			return err
		}
		if cols != nil && len(cte.Aliascolnames) > 0 {
			for i, a := range cte.Aliascolnames {
				if i < len(cols) {
					cols[i].name = a.GetString_().GetSval()
				}
			}
		}
		rel.cols = cols
		sc.ctes[cte.Ctename] = rel
	}
	return nil
}

// fromItem translates one FROM item and adds what it exposes to sc.
func (tr *translator) fromItem(n *pg_query.Node, sc *scope) error {
	switch f := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		rel, err := tr.rangeVar(f.RangeVar, sc)
		if err != nil {
			return err
		}
		sc.rels = append(sc.rels, rel)
	case *pg_query.Node_RangeSubselect:
		sel := f.RangeSubselect.Subquery.GetSelectStmt()
		if sel == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "unsupported subquery in FROM")
		}
		cols, err := tr.selectStmt(sel, sc)
		if err != nil {
			return err
		}
		rel := &relInfo{cols: cols}
		if a := f.RangeSubselect.Alias; a != nil {
			rel.alias = a.Aliasname
			renameCols(rel, a)
		}
		sc.rels = append(sc.rels, rel)
	case *pg_query.Node_JoinExpr:
		j := f.JoinExpr
		if err := tr.fromItem(j.Larg, sc); err != nil {
			return err
		}
		if err := tr.fromItem(j.Rarg, sc); err != nil {
			return err
		}
		if j.Quals != nil {
			if _, err := tr.expr(j.Quals, sc, typ{OIDBool, -1}); err != nil {
				return err
			}
		}
		if j.Alias != nil {
			// A join alias hides the inner names; columns unknown.
			sc.rels = append(sc.rels, &relInfo{alias: j.Alias.Aliasname})
		}
	case *pg_query.Node_RangeFunction:
		rel, err := tr.rangeFunction(n, f.RangeFunction, sc)
		if err != nil {
			return err
		}
		sc.rels = append(sc.rels, rel)
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "unsupported FROM item %s", nodeName(n))
	}
	return nil
}

func renameCols(rel *relInfo, a *pg_query.Alias) {
	if rel.cols == nil {
		return
	}
	for i, cn := range a.Colnames {
		if i < len(rel.cols) {
			rel.cols[i].name = cn.GetString_().GetSval()
		}
	}
}

// systemSchemas are left to DuckDB's own catalog views for now.
var systemSchemas = map[string]bool{"pg_catalog": true, "information_schema": true}

// rangeVar resolves a table reference: a CTE, a system view (left to
// DuckDB), or a catalog table (substituted by its FromSQL under a
// placeholder name, keeping the alias).
func (tr *translator) rangeVar(rv *pg_query.RangeVar, sc *scope) (*relInfo, error) {
	if rv.Schemaname == "" {
		if cte := sc.lookupCTE(rv.Relname); cte != nil {
			rel := &relInfo{alias: rv.Relname, cols: append([]colInfo(nil), cte.cols...)}
			if cte.cols == nil {
				rel.cols = nil
			}
			if rv.Alias != nil {
				rel.alias = rv.Alias.Aliasname
				renameCols(rel, rv.Alias)
			}
			return rel, nil
		}
	}
	if systemSchemas[rv.Schemaname] || (rv.Schemaname == "" && strings.HasPrefix(rv.Relname, "pg_")) {
		alias := rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		return &relInfo{alias: alias}, nil
	}
	if rv.Catalogname != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname).WithPosition(int(rv.Location) + 1)
	}
	if tr.cat == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(rv.Schemaname, rv.Relname)).WithPosition(int(rv.Location) + 1)
	}
	ti, err := tr.cat.LookupTable(rv.Schemaname, rv.Relname)
	if err != nil {
		if e, ok := pgerr.As(err); ok && e.Position == 0 && rv.Location >= 0 {
			return nil, e.WithPosition(int(rv.Location) + 1)
		}
		return nil, err
	}
	tr.tables = append(tr.tables, ti)
	i := len(tr.subst)
	tr.subst = append(tr.subst, ti.FromSQL)
	rel := &relInfo{alias: rv.Relname}
	for _, c := range ti.Columns {
		rel.cols = append(rel.cols, colInfo{name: c.Name, t: typ{c.TypeOID, c.TypeMod}})
	}
	if rv.Alias == nil {
		rv.Alias = &pg_query.Alias{Aliasname: rv.Relname}
	} else {
		rel.alias = rv.Alias.Aliasname
		renameCols(rel, rv.Alias)
	}
	rv.Schemaname = ""
	rv.Relname = placeholder(i)
	rv.Inh = true
	return rel, nil
}

func qualName(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// targetList translates the select list, names every output column the
// way PostgreSQL does (DuckDB's derived names differ: "count_star()" vs
// "count", "1" vs "?column?") and returns the result columns.
func (tr *translator) targetList(list []*pg_query.Node, sc *scope) ([]colInfo, error) {
	var cols []colInfo
	known := true
	for _, item := range list {
		rt := item.GetResTarget()
		if rt == nil {
			continue
		}
		if star, rel := starOf(rt.Val); star {
			expanded, ok := expandStar(sc, rel)
			if !ok {
				known = false
			}
			cols = append(cols, expanded...)
			continue
		}
		// Name first: the rewrites below change the expression's shape.
		// A bare column reference keeps DuckDB's own (identical) name: an
		// alias equal to a column name would change DuckDB's error for an
		// unknown column into one about the alias.
		name := rt.Name
		if name == "" {
			name = pgColumnName(rt.Val)
			if rt.Val.GetColumnRef() == nil {
				rt.Name = name
			}
		}
		t, err := tr.expr(rt.Val, sc, unknownTyp)
		if err != nil {
			return nil, err
		}
		if t.oid == OIDUnknown {
			t = typ{OIDText, -1}
		}
		cols = append(cols, colInfo{name: name, t: t})
	}
	if !known {
		return nil, nil
	}
	return cols, nil
}

// starOf reports whether n is "*" or "rel.*".
func starOf(n *pg_query.Node) (bool, string) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) == 0 {
		return false, ""
	}
	if cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
		return false, ""
	}
	if len(cr.Fields) >= 2 {
		return true, cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	}
	return true, ""
}

func expandStar(sc *scope, rel string) ([]colInfo, bool) {
	var out []colInfo
	for _, r := range sc.rels {
		if rel != "" && r.alias != rel {
			continue
		}
		if r.cols == nil {
			return nil, false
		}
		out = append(out, r.cols...)
	}
	if rel != "" && len(out) == 0 {
		return nil, false
	}
	return out, true
}

// pgColumnName is PostgreSQL's FigureColname: the name of an unnamed
// select-list item.
func pgColumnName(n *pg_query.Node) string {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		f := v.ColumnRef.Fields
		if len(f) > 0 {
			if s := f[len(f)-1].GetString_(); s != nil {
				return s.Sval
			}
		}
	case *pg_query.Node_FuncCall:
		f := v.FuncCall.Funcname
		if len(f) > 0 {
			return f[len(f)-1].GetString_().GetSval()
		}
	case *pg_query.Node_TypeCast:
		if name := pgColumnName(v.TypeCast.Arg); name != "?column?" {
			return name
		}
		if tn := v.TypeCast.TypeName; tn != nil && len(tn.Names) > 0 {
			return tn.Names[len(tn.Names)-1].GetString_().GetSval()
		}
	case *pg_query.Node_CaseExpr:
		if v.CaseExpr.Defresult != nil {
			if name := pgColumnName(v.CaseExpr.Defresult); name != "?column?" {
				return name
			}
		}
		return "case"
	case *pg_query.Node_AIndirection:
		return pgColumnName(v.AIndirection.Arg)
	case *pg_query.Node_CoalesceExpr:
		return "coalesce"
	case *pg_query.Node_MinMaxExpr:
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_GREATEST {
			return "greatest"
		}
		return "least"
	case *pg_query.Node_AExpr:
		if v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif"
		}
	case *pg_query.Node_SubLink:
		switch v.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg_query.SubLinkType_EXPR_SUBLINK:
			if sel := v.SubLink.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				if rt := sel.TargetList[0].GetResTarget(); rt != nil {
					if rt.Name != "" {
						return rt.Name
					}
					return pgColumnName(rt.Val)
				}
			}
		}
	case *pg_query.Node_AArrayExpr:
		return "array"
	case *pg_query.Node_RowExpr:
		return "row"
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueFunctionName(v.SqlvalueFunction.Op)
	}
	return "?column?"
}

func sqlValueFunctionName(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "current_date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "current_time"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "current_timestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "localtime"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "localtimestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "current_role"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		return "user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "current_catalog"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "current_schema"
	}
	return "?column?"
}

func nodeName(n *pg_query.Node) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", n.GetNode()), "*pg_query.Node_")
}

// treeVersion is the parse-tree version pg_query.Deparse requires.
var treeVersion = func() int32 {
	res, err := pg_query.Parse("SELECT 1")
	if err != nil {
		panic("BUG: sql: pg_query cannot parse SELECT 1: " + err.Error())
	}
	return res.Version
}()

func deparseNode(n *pg_query.Node) (string, error) {
	return pg_query.Deparse(&pg_query.ParseResult{Version: treeVersion, Stmts: []*pg_query.RawStmt{{Stmt: n}}})
}

// rangeFunction translates a function in FROM. generate_series over
// integers is wrapped so that its column is integer as in PostgreSQL
// (DuckDB's is BIGINT):
//
//	generate_series(a, b) AS g  ->  (SELECT CAST(generate_series AS integer)
//	    FROM generate_series(a, b)) AS g(g)
//
// A scalar function's column is named after the alias when there is one,
// else after the function, like PostgreSQL.
func (tr *translator) rangeFunction(n *pg_query.Node, rf *pg_query.RangeFunction, sc *scope) (*relInfo, error) {
	rel := &relInfo{}
	if rf.Alias != nil {
		rel.alias = rf.Alias.Aliasname
	}
	if rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		for _, fn := range rf.Functions {
			if err := tr.generic(fn, sc); err != nil {
				return nil, err
			}
		}
		return rel, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return rel, tr.generic(rf.Functions[0], sc)
	}
	call := items[0]
	t, err := tr.expr(call, sc, unknownTyp)
	if err != nil {
		return nil, err
	}
	_, fname := funcName(call.GetFuncCall())
	colName := fname
	if rf.Alias != nil {
		colName = rf.Alias.Aliasname
		if len(rf.Alias.Colnames) > 0 {
			colName = rf.Alias.Colnames[0].GetString_().GetSval()
		}
	} else {
		rel.alias = fname
	}
	if fname == "generate_series" && (t.oid == OIDInt4 || t.oid == OIDInt2) {
		ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode("generate_series")}, Location: -1}}}
		_ = castTo(ref, typ{OIDInt4, -1})
		inner := &pg_query.RangeFunction{Functions: rf.Functions}
		sub := &pg_query.SelectStmt{
			TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithNameAndVal("generate_series", ref, -1)},
			FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeFunction{RangeFunction: inner}}},
			Op:         pg_query.SetOperation_SETOP_NONE,
		}
		n.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
			Lateral:  rf.Lateral,
			Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sub}},
			Alias:    &pg_query.Alias{Aliasname: rel.alias, Colnames: []*pg_query.Node{pg_query.MakeStrNode(colName)}},
		}}
		t = typ{OIDInt4, -1}
	}
	if t.known() {
		rel.cols = []colInfo{{name: colName, t: t}}
	}
	return rel, nil
}

// nameValues turns VALUES ... into
//
//	SELECT * FROM (VALUES ...) AS "*VALUES*"(column1, column2, ...)
//
// so that the columns carry PostgreSQL's names (DuckDB says col0, col1).
// ORDER BY / LIMIT / WITH stay on the outer SELECT.
func nameValues(s *pg_query.SelectStmt, width int) {
	inner := &pg_query.SelectStmt{ValuesLists: s.ValuesLists, Op: pg_query.SetOperation_SETOP_NONE}
	alias := &pg_query.Alias{Aliasname: "*VALUES*"}
	for i := 1; i <= width; i++ {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode("column"+strconv.Itoa(i)))
	}
	s.ValuesLists = nil
	s.TargetList = []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeAStarNode()}, -1), -1)}
	s.FromClause = []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: inner}},
		Alias:    alias,
	}}}}
}
