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
	// scalarCol is the column of a function in FROM returning a scalar,
	// which a whole-row reference to alias means (srf.go), or "".
	scalarCol string
	// tableOID is the relation's pg_class OID, the value of its system
	// column tableoid (0: unknown, no such column).
	tableOID uint32
}

type colInfo struct {
	name string
	t    typ
	// raw: the column is numeric read as its text (rawnum.go).
	raw bool
}

// scope is a query level: its FROM items, its CTEs, and its parent (for
// correlated subqueries and outer CTEs).
type scope struct {
	// mergedJoin: a FROM item of this level joins with USING or NATURAL.
	mergedJoin bool
	parent     *scope
	// viewBody: the scope holding a view's query (view.go); CTE names of
	// the scopes above it are not visible in it.
	viewBody bool
	ctes     map[string]*relInfo
	rels     []*relInfo
	// outputs are the select list's column names, which ORDER BY, GROUP
	// BY and DISTINCT ON may reference (checkColumnCase accepts them).
	outputs []colInfo
	// pendingParams are the bare $n of the select list that had no type
	// when seen (params.go).
	pendingParams []*pg_query.ParamRef
	// clause is the clause being translated, srfs the locations of the
	// set-returning function calls translated at this level so far, in
	// the order PostgreSQL transforms them (srf.go).
	clause srfClause
	srfs   []int32
	// raw: this is the outermost query level, whose tables expose numeric
	// columns as their text (rawnum.go). Per output column: rawOut the
	// raw column it is (nil if none), rawItem its select-list item (nil
	// for *), outDec its DECIMAL expression for ORDER BY (raw or
	// formatted outputs).
	raw     bool
	grouped bool // the level groups its rows (isGrouped)
	// aggDepth: translating an aggregate's arguments; itemOut: the first
	// output column of each select-list item.
	aggDepth int
	itemOut  []int
	// sortedRaw: ORDER BY was rewritten to a raw output's DECIMAL.
	sortedRaw bool
	// subLinkOut: outputs that are a scalar subquery's numeric text.
	subLinkOut map[int]bool
	rawOut     []*rawRef
	rawItem    []*pg_query.ResTarget
	outDec     []*pg_query.Node
}

func (s *scope) lookupCTE(name string) *relInfo {
	for ; s != nil; s = s.parent {
		if r, ok := s.ctes[name]; ok {
			return r
		}
		if s.viewBody {
			return nil // a view's query does not see the CTEs around its reference
		}
	}
	return nil
}

// translator holds the state of one translation.
type translator struct {
	// target, targetInfo: the table an UPDATE or DELETE changes, already
	// bound (modify.go).
	target     *pg_query.RangeVar
	targetInfo *TableInfo
	// nodeTypes: the types of argument nodes a construct resolves after
	// translating them (commonTypeArgs), keyed by the node (its content
	// may be rewritten; the pointer stays).
	nodeTypes map[*pg_query.Node]typ
	cat       Catalog
	declared  []uint32
	params    map[int]typ
	maxParam  int
	subst     []string // placeholder i -> FromSQL
	// substNoCols[i] is table i's NoColumnsFromSQL ("" if none may be
	// used): see useNoColumns. noColumns: the statement as written reads no
	// column, so tables are looked up with RowsCatalog when available.
	substNoCols []string
	noColumns   bool
	// views: how many views the translation expanded, viewDepth how many
	// enclose the scope being translated (view.go). resolved and deps:
	// where TranslateView records the relations of the query as written.
	views, viewDepth int
	resolved         map[int32]string
	deps             [][2]string
	tables           []*TableInfo
	// paramNodes are the $n references not already under an explicit
	// cast; castParams wraps them (no second walk of the tree).
	paramNodes []*pg_query.Node
	// unknownParams: parameters referenced where no context types them
	// ($1 IS NULL) while they had no type yet (checkUnknownParams).
	unknownParams []*pg_query.ParamRef
	// numDivs are numeric divisions (node -> dividend, divisor) that
	// exactDivisions may give PostgreSQL's value-dependent scale.
	numDivs map[*pg_query.Node][2]*pg_query.Node
	// direct collects an INSERT's VALUES rows for Insert.Direct.
	direct *directState
	// values are the parameter values of TranslateQueryArgs, or nil.
	values []any
	// keepUnknown are the SELECTs whose untyped select-list parameters
	// are not resolved to text (set operation branches, INSERT's source:
	// params.go).
	keepUnknown map[*pg_query.SelectStmt]bool
	// srfPending is the error for a set-returning function PostgreSQL
	// accepts where this translator cannot reproduce it, reported when
	// the statement has no other error (srf.go).
	srfPending error
	// Numeric read as text (rawnum.go): substRaw[i] whether relation i
	// keeps its text; haveRaw some text flows in the statement; rawUnsafe
	// every relation must be read as DECIMAL; keepRaw the select-list item
	// being translated, keptRaw its column if it is one; rawCasts the
	// __bsdb_dec(ref) nodes made of references; rawJoin a USING/NATURAL
	// join may meet text; rawNext the next selectStmt is a level whose
	// outputs may be text (a FROM subquery, a CTE, a UNION branch).
	substRaw  []bool
	haveRaw   bool
	rawUnsafe bool
	keepRaw   *pg_query.Node
	keptRaw   *rawRef
	rawCasts  map[*pg_query.Node]*rawRef
	rawJoin   bool
	rawNext   bool
	// rawSubLink: the scalar subquery that is a whole select-list item
	// being translated; subLinkText: its value is numeric text.
	rawSubLink  *pg_query.SubLink
	subLinkText bool
	// rawSettled: settleRaw ran; srcRaw: the INSERT source's columns
	// that are numeric text.
	rawSettled bool
	srcRaw     []bool
	// jsonRecords: the __bsdb_json_record calls made of whole-row
	// references, with their field names (json.go).
	jsonRecords map[*pg_query.FuncCall][]string
	// formatted are the __bsdb_numfmt items and their DECIMAL originals.
	formatted map[*pg_query.Node]*pg_query.Node
}

func newTranslator(cat Catalog, declared []uint32) *translator {
	return &translator{cat: cat, declared: undeclareUnknown(declared), params: map[int]typ{}}
}

// undeclareUnknown treats a parameter declared as unknown (705, as
// psycopg 3 declares a str or a list of str) as not declared: PostgreSQL
// types it from its context (variable_coerce_param_hook).
func undeclareUnknown(declared []uint32) []uint32 {
	for i, o := range declared {
		if o == OIDUnknown {
			out := append([]uint32(nil), declared...)
			for j := i; j < len(out); j++ {
				if out[j] == OIDUnknown {
					out[j] = 0
				}
			}
			return out
		}
	}
	return declared
}

func (tr *translator) noteType(n *pg_query.Node, t typ) {
	if tr.nodeTypes == nil {
		tr.nodeTypes = map[*pg_query.Node]typ{}
	}
	tr.nodeTypes[n] = t
}

// noColumnName names the column that stands in for an empty select list.
const noColumnName = "__bsdb_nocol"

// fillEmptyTargets gives every SELECT with an empty select list (SELECT
// FROM t, EXISTS (SELECT FROM t WHERE ...), which PostgreSQL allows and
// DuckDB refuses) one constant column named noColumnName; at the top of
// the statement the translation then reports no result column, and the
// rows go out with none (the value is never read).
func fillEmptyTargets(root *pg_query.Node) {
	var fill func(s *pg_query.SelectStmt)
	fill = func(s *pg_query.SelectStmt) {
		if s == nil {
			return
		}
		fill(s.Larg) // set operations' branches are not Nodes
		fill(s.Rarg)
		if len(s.TargetList) == 0 && len(s.ValuesLists) == 0 && s.Larg == nil && s.Rarg == nil {
			s.TargetList = []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
				Name: noColumnName, Val: pg_query.MakeAConstIntNode(1, -1), Location: -1}}}}
		}
	}
	walkNodes(root, func(x *pg_query.Node) bool {
		fill(x.GetSelectStmt())
		return true
	})
}

// placeholder returns the relation name standing in for subst[i] until the
// deparsed text is patched.
func placeholder(i int) string { return fmt.Sprintf("__bsdb_rel_%d__", i) }

// TranslateQuery translates a SELECT/VALUES/set operation into DuckDB SQL
// (see doc.go for the rewrites). stmt is not modified.
func TranslateQuery(stmt *pg_query.Node, cat Catalog, declaredParams []uint32) (*Query, error) {
	return TranslateQueryArgs(stmt, cat, declaredParams, nil)
}

// TranslateQueryArgs is TranslateQuery for an execution with known
// parameter values (canonical pgtypes values, nil for NULL): when every
// value has an exact DuckDB literal of its parameter's type, the values are
// spelled into the SQL (Query.Inlined), so that DuckDB plans with them:
// constant folding, and filters pushed into the Parquet scans (row-group
// pruning) — a bound parameter would leave the filter above a full scan.
func TranslateQueryArgs(stmt *pg_query.Node, cat Catalog, declaredParams []uint32, values []any) (*Query, error) {
	if stmt == nil || stmt.GetSelectStmt() == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateQuery on %T", stmt.GetNode())
	}
	defer endBind(cat)
	tr := newTranslator(cat, declaredParams)
	tr.values = values
	n := proto.Clone(stmt).(*pg_query.Node)
	if err := stripCurrentDatabase(n, cat); err != nil {
		return nil, err
	}
	tr.noColumns = !readsColumns(n.ProtoReflect())
	fillEmptyTargets(n)
	if rewriteSystem(n) {
		if p, ok := cat.(SystemPreparer); ok {
			if err := p.PrepareSystem(); err != nil {
				return nil, err
			}
		}
	}
	cols, err := tr.selectStmt(n.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	if len(cols) == 1 && cols[0].name == noColumnName {
		cols = cols[:0] // SELECT FROM t: rows of no column
	}
	if err := tr.checkParamGaps(stmt); err != nil {
		return nil, err
	}
	if bareCountStar(stmt.GetSelectStmt()) {
		if q, ok := tr.countStarQuery(cols); ok {
			return q, nil
		}
	}
	return tr.finish(n, cols)
}

// finish deparses the rewritten tree, substitutes table placeholders and
// fixes parameter types.
func (tr *translator) finish(n *pg_query.Node, cols []colInfo) (*Query, error) {
	if tr.srfPending != nil {
		return nil, tr.srfPending
	}
	inlined := tr.inlineParams(n)
	if !inlined {
		tr.castParams()
	}
	if err := tr.checkUnknownParams(); err != nil {
		return nil, err
	}
	usesClock := tr.rewriteClock(n)
	tr.settleRaw()
	if err := tr.useNoColumns(n); err != nil {
		return nil, err
	}
	text, err := tr.deparse(n)
	if err != nil {
		return nil, err
	}
	q := &Query{SQL: text, ParamOIDs: tr.paramOIDs(), Inlined: inlined, UsesClock: usesClock}
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
		if _, ok := pgerr.As(err); ok {
			return "", err // too deep (54001) or malformed (checkDeparsable)
		}
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
	// rawLevel: the outermost query, a subquery in FROM or a CTE, whose
	// outputs are read through column references (rawnum.go); not a set
	// operation's branch or a subquery in an expression.
	rawLevel := parent == nil || tr.rawNext
	tr.rawNext = false
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
		tr.keepUnknownIn(s.Larg)
		tr.keepUnknownIn(s.Rarg)
		// UNION's branches may give numeric text (rawnum.go); INTERSECT
		// and EXCEPT compare rows, so theirs may not.
		rawBranches := rawLevel && s.Op == pg_query.SetOperation_SETOP_UNION
		tr.rawNext = rawBranches
		l, err := tr.selectStmt(s.Larg, sc)
		if err != nil {
			return nil, err
		}
		tr.rawNext = rawBranches
		r, err := tr.selectStmt(s.Rarg, sc)
		if err != nil {
			return nil, err
		}
		cols = l
		if l != nil && r != nil && len(l) == len(r) {
			for i := range cols {
				cols[i].t = unifyTypes(l[i].t, r[i].t)
				cols[i].raw = l[i].raw || r[i].raw
				if cols[i].raw && !isRawType(cols[i].t) {
					tr.rawUnsafe = true // text in a column of another type
				}
			}
		} else if rawBranches && tr.haveRaw {
			tr.rawUnsafe = true
		}
		if rawBranches && cols != nil {
			if !s.All && !tr.unionAsGroupBy(s, cols) {
				break
			}
			tr.rawSetOp(sc, cols)
		}
	case len(s.ValuesLists) > 0:
		sc.clause = clauseValues
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
		sc.raw = rawLevel && (len(s.DistinctClause) == 0 || distinctAsGroupBy(s) || isDistinctOn(s))
		sc.grouped = isGrouped(s) || len(s.DistinctClause) > 0
		for _, f := range s.FromClause {
			if err := tr.fromItem(f, sc); err != nil {
				return nil, err
			}
		}
		if sc.raw && len(s.DistinctClause) > 0 && !isDistinctOn(s) {
			s.DistinctClause, s.GroupClause = nil, positionalList(len(s.TargetList))
		}
		sc.clause = clauseSelect
		var err error
		cols, err = tr.targetList(s.TargetList, sc)
		if err != nil {
			return nil, err
		}
		sc.outputs = cols
		if s.WhereClause != nil {
			sc.clause = clauseWhere
			if err := checkNoAggWindow(s.WhereClause, "WHERE", sc); err != nil {
				return nil, err
			}
			if _, err := tr.expr(s.WhereClause, sc, typ{OIDBool, -1}); err != nil {
				return nil, err
			}
		}
		sc.clause = clauseGroupBy
		for _, g := range s.GroupClause {
			if sc.raw {
				groupByOutputName(g, sc) // GROUP BY alias: by position (rawnum.go)
			}
			if isPositional(g) {
				if k := int(g.GetAConst().GetIval().GetIval()); k >= 1 && k <= len(s.TargetList) &&
					containsSRF(s.TargetList[k-1]) {
					tr.srfUnsupported("set-returning functions in GROUP BY are not supported", exprLocation(g))
				}
				continue
			}
			if _, err := tr.expr(g, sc, unknownTyp); err != nil {
				return nil, err
			}
		}
		if s.HavingClause != nil {
			sc.clause = clauseHaving
			if _, err := tr.expr(s.HavingClause, sc, typ{OIDBool, -1}); err != nil {
				return nil, err
			}
		}
		for _, w := range s.WindowClause {
			if err := tr.windowDef(w.GetWindowDef(), sc, false); err != nil {
				return nil, err
			}
		}
		if sc.raw {
			if len(s.GroupClause) > 0 {
				tr.rawGroupBy(s, sc)
			}
			tr.formatNumeric(s, sc, cols)
		}
		sc.clause = clauseOrderBy
		for _, d := range s.DistinctClause {
			if d != nil && sc.raw {
				// DISTINCT ON an output (name or position) that is numeric
				// text: by its DECIMAL (rawnum.go).
				if tr.rawOrderBy(d, sc) {
					continue
				}
			}
			if d != nil && !isPositional(d) {
				if _, err := tr.expr(d, sc, unknownTyp); err != nil {
					return nil, err
				}
			}
		}
	}
	sc.clause = clauseOrderBy
	for _, o := range s.SortClause {
		sb := o.GetSortBy()
		if sb == nil {
			continue
		}
		if sc.raw && tr.rawOrderBy(sb.Node, sc) {
			continue
		}
		if isPositional(sb.Node) {
			continue
		}
		if _, err := tr.expr(sb.Node, sc, unknownTyp); err != nil {
			return nil, err
		}
	}
	if sc.sortedRaw && s.Op != pg_query.SetOperation_SETOP_NONE {
		wrapSetOp(s)
	}
	if parent == nil && s.Op == pg_query.SetOperation_SETOP_NONE && len(s.ValuesLists) == 0 {
		tr.exactDivisions(s, sc, cols)
	}
	for i, l := range []*pg_query.Node{s.LimitCount, s.LimitOffset} {
		if l != nil {
			sc.clause = []srfClause{clauseLimit, clauseOffset}[i]
			if _, err := tr.expr(l, sc, typ{OIDInt8, -1}); err != nil {
				return nil, err
			}
		}
	}
	if s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH FIRST ... WITH TIES is not supported")
	}
	if !tr.keepUnknown[s] {
		if err := tr.resolveTargetParams(sc); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// keepUnknownIn marks s: its untyped select-list parameters stay untyped
// when it is done (params.go).
func (tr *translator) keepUnknownIn(s *pg_query.SelectStmt) {
	if tr.keepUnknown == nil {
		tr.keepUnknown = map[*pg_query.SelectStmt]bool{}
	}
	tr.keepUnknown[s] = true
}

func isPositional(n *pg_query.Node) bool {
	c := n.GetAConst()
	if c == nil {
		return false
	}
	_, ok := c.Val.(*pg_query.A_Const_Ival)
	return ok
}

// inlineParams replaces every $n in n by a literal of the parameter's type
// holding tr.values[n-1], if all of them have one; else it changes nothing.
func (tr *translator) inlineParams(n *pg_query.Node) bool {
	if tr.values == nil {
		return false
	}
	oids := tr.paramOIDs()
	type repl struct {
		n   *pg_query.Node
		lit *pg_query.Node
	}
	var todo []repl
	ok := true
	walkNodes(n, func(x *pg_query.Node) bool {
		if !ok {
			return false
		}
		p := x.GetParamRef()
		if p == nil {
			return true
		}
		i := int(p.Number) - 1
		if i < 0 || i >= len(oids) || i >= len(tr.values) {
			ok = false
			return false
		}
		t := typ{oids[i], -1}
		var lit *pg_query.Node
		if tr.values[i] == nil {
			lit = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}
			if err := castTo(lit, t); err != nil {
				ok = false
				return false
			}
		} else {
			l, good, err := duckLiteral(t, tr.values[i])
			if err != nil || !good {
				ok = false
				return false
			}
			lit = l
		}
		todo = append(todo, repl{x, lit})
		return false
	})
	if !ok || len(todo) == 0 {
		return false
	}
	for _, r := range todo {
		r.n.Node = r.lit.Node
	}
	tr.paramNodes = nil
	return true
}
