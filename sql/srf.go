package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// Functions in FROM (RangeFunction).
//
// PostgreSQL gives a function returning a scalar type one column. The alias
// names both the relation and that column: in
//
//	SELECT g * 2 FROM generate_series(1, 3) g
//
// g is the integer column (and g.g too). Without an alias both are named
// after the function (generate_series, unnest). WITH ORDINALITY adds a
// bigint column "ordinality". DuckDB instead names the column after the
// function and makes a bare alias a STRUCT of the whole row, so g * 2 fails
// with "No function matches '*(STRUCT(generate_series BIGINT), INTEGER)'".
// The translation spells PostgreSQL's names out as a column alias list:
//
//	generate_series(1, 3) g              -> generate_series(1, 3) AS g(g)
//	generate_series(1, 3)                -> ... AS generate_series(generate_series)
//	unnest(a) WITH ORDINALITY u          -> unnest(a) WITH ORDINALITY AS u(u, ordinality)
//
// A whole-row reference to the relation where its column has another name
// (SELECT x FROM generate_series(1, 2) AS x(g)) is the scalar in PostgreSQL:
// it becomes x.g (wholeRowRef).
//
// Result types are PostgreSQL's (generateSeriesType): generate_series over
// int4 is integer (DuckDB's is BIGINT, so the call is wrapped in a subselect
// that casts its column), over int8 bigint, over numeric numeric (DuckDB has
// no such variant: the table macro __bsdb_generate_series_numeric), over
// timestamp timestamp and over timestamptz or date timestamptz.

// scalarSRF reports whether fc is a set-returning function whose result is
// one scalar column: generate_series, and unnest of one array (unnest of
// several arrays has a column per array).
func scalarSRF(name string, fc *pg_query.FuncCall) bool {
	switch name {
	case "generate_series":
		return len(fc.Args) == 2 || len(fc.Args) == 3
	case "unnest":
		return len(fc.Args) == 1
	}
	return false
}

// rangeFunction translates a function in FROM and returns its scope entry.
func (tr *translator) rangeFunction(n *pg_query.Node, rf *pg_query.RangeFunction, sc *scope) (*relInfo, error) {
	rel := &relInfo{}
	if rf.Alias != nil {
		rel.alias = rf.Alias.Aliasname
	}
	var call *pg_query.Node
	if !rf.IsRowsfrom && len(rf.Functions) == 1 && len(rf.Coldeflist) == 0 {
		if items := rf.Functions[0].GetList().GetItems(); len(items) > 0 && items[0].GetFuncCall() != nil {
			call = items[0]
		}
	}
	if call == nil {
		for _, fn := range rf.Functions {
			if err := tr.generic(fn, sc); err != nil {
				return nil, err
			}
		}
		return rel, nil
	}
	_, origName := funcName(call.GetFuncCall())
	t, err := tr.expr(call, sc, unknownTyp)
	if err != nil {
		return nil, err
	}
	fc := call.GetFuncCall()
	if fc == nil {
		// The call was rewritten into something else (a cast): leave it.
		return rel, nil
	}
	_, fname := funcName(fc)
	if !scalarSRF(fname, fc) {
		// Another function: its columns are DuckDB's business. A scalar
		// result is named like PostgreSQL would.
		if rf.Alias == nil {
			rel.alias = fname
		}
		if t.known() && !rf.Ordinality {
			name := rel.alias
			if rf.Alias != nil && len(rf.Alias.Colnames) > 0 {
				name = rf.Alias.Colnames[0].GetString_().GetSval()
			}
			rel.cols = []colInfo{{name: name, t: t}}
		}
		return rel, nil
	}
	if fname == "unnest" && (origName == "regexp_matches" || origName == "regexp_split_to_table") {
		fname = origName // (pgfuncs.go made it an unnest): PostgreSQL's column name
	}
	return tr.scalarRangeFunction(n, rf, fc, fname, t)
}

// scalarRangeFunction names the columns of a scalar set-returning function
// in FROM like PostgreSQL and gives them PostgreSQL's types (see the top of
// this file).
func (tr *translator) scalarRangeFunction(n *pg_query.Node, rf *pg_query.RangeFunction, fc *pg_query.FuncCall, fname string, t typ) (*relInfo, error) {
	rel := &relInfo{alias: fname}
	names := []string{fname}
	if rf.Alias != nil {
		rel.alias = rf.Alias.Aliasname
		names[0] = rf.Alias.Aliasname
	}
	cols := []colInfo{{t: t}}
	if rf.Ordinality {
		names = append(names, "ordinality")
		cols = append(cols, colInfo{t: typ{OIDInt8, -1}})
	}
	if rf.Alias != nil {
		if len(rf.Alias.Colnames) > len(names) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified",
				rel.alias, len(names), len(rf.Alias.Colnames))
		}
		for i, c := range rf.Alias.Colnames {
			names[i] = c.GetString_().GetSval()
		}
	}
	for i := range cols {
		cols[i].name = names[i]
	}
	rel.cols = cols
	if !rf.Ordinality {
		rel.scalarCol = names[0]
	}
	alias := &pg_query.Alias{Aliasname: rel.alias}
	for _, name := range names {
		alias.Colnames = append(alias.Colnames, pg_query.MakeStrNode(name))
	}
	var inner *pg_query.Node
	switch {
	case fname == "generate_series" && t.oid == OIDInt4:
		// DuckDB's generate_series is BIGINT.
		inner = &pg_query.Node{Node: &pg_query.Node_RangeFunction{RangeFunction: &pg_query.RangeFunction{
			Functions: rf.Functions, Ordinality: rf.Ordinality}}}
	case fname == "generate_series" && t.oid == OIDNumeric:
		// DuckDB has no numeric generate_series: a table macro (Setup),
		// whose second column is the ordinality.
		args := append([]*pg_query.Node(nil), fc.Args...)
		if len(args) == 2 {
			args = append(args, pg_query.MakeAConstIntNode(1, -1))
			_ = castTo(args[2], typ{OIDNumeric, TypeModNumeric(38, 0)})
		}
		fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_generate_series_numeric")}
		fc.Args = args
		inner = &pg_query.Node{Node: &pg_query.Node_RangeFunction{RangeFunction: &pg_query.RangeFunction{
			Functions: rf.Functions}}}
	default:
		rf.Alias = alias
		return rel, nil
	}
	ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode("generate_series")}, -1)
	if t.oid == OIDInt4 {
		_ = castTo(ref, t)
	}
	targets := []*pg_query.Node{pg_query.MakeResTargetNodeWithNameAndVal("generate_series", ref, -1)}
	if rf.Ordinality {
		ord := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode("ordinality")}, -1)
		targets = append(targets, pg_query.MakeResTargetNodeWithNameAndVal("ordinality", ord, -1))
	}
	sub := &pg_query.SelectStmt{TargetList: targets, FromClause: []*pg_query.Node{inner}, Op: pg_query.SetOperation_SETOP_NONE}
	n.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Lateral:  rf.Lateral,
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sub}},
		Alias:    alias,
	}}
	return rel, nil
}

// generateSeriesType resolves generate_series like PostgreSQL's variants
// (int4, int8, numeric; timestamp or timestamptz with an interval step)
// and casts the arguments DuckDB would otherwise bind differently: a date
// (PostgreSQL converts it to timestamptz, DuckDB to TIMESTAMP), an untyped
// literal (to the variant's type; the step of a datetime series to
// interval), and integer arguments of a numeric series (to numeric(38,0),
// so that the values keep the scale PostgreSQL prints).
func (tr *translator) generateSeriesType(fc *pg_query.FuncCall, argTypes []typ) (typ, error) {
	datetime := false
	for _, a := range argTypes {
		switch a.oid {
		case OIDDate, OIDTimestamp, OIDTimestamptz, OIDInterval:
			datetime = true
		}
	}
	if datetime {
		res := typ{OIDTimestamptz, -1}
		if len(argTypes) == 3 && (argTypes[0].oid == OIDTimestamp || argTypes[1].oid == OIDTimestamp) &&
			argTypes[0].oid != OIDTimestamptz && argTypes[1].oid != OIDTimestamptz {
			res = typ{OIDTimestamp, -1}
		}
		for i, a := range argTypes {
			want := res
			if i == 2 {
				want = typ{OIDInterval, -1}
			}
			if err := tr.coerceArg(fc.Args[i], a, want); err != nil {
				return unknownTyp, err
			}
		}
		return res, nil
	}
	res := typ{OIDInt4, -1}
	for _, a := range argTypes {
		switch a.oid {
		case OIDInt8:
			if res.oid == OIDInt4 {
				res = typ{OIDInt8, -1}
			}
		case OIDNumeric:
			res = typ{OIDNumeric, -1}
		case OIDInt2, OIDInt4, OIDUnknown, 0:
		default:
			return unknownTyp, nil // no such variant: DuckDB reports it
		}
	}
	for i, a := range argTypes {
		want := res
		if res.oid == OIDNumeric && a.oid != OIDNumeric {
			want = typ{OIDNumeric, TypeModNumeric(38, 0)}
		}
		if err := tr.coerceArg(fc.Args[i], a, want); err != nil {
			return unknownTyp, err
		}
	}
	return res, nil
}

// coerceArg casts a function argument of type have to want where
// PostgreSQL's implicit conversion differs from DuckDB's: untyped string
// literals (folded by PostgreSQL's input function where possible), dates
// to timestamptz and integers to numeric.
func (tr *translator) coerceArg(arg *pg_query.Node, have, want typ) error {
	switch {
	case have.oid == OIDUnknown:
		if arg.GetAConst() != nil && arg.GetAConst().Isnull {
			return castTo(arg, want)
		}
		if ok, err := tr.foldLiteral(arg, want); err != nil || ok {
			return err
		}
		return castTo(arg, want)
	case have.oid == OIDDate && want.oid == OIDTimestamptz,
		want.oid == OIDNumeric && numericRank[have.oid] > 0 && have.oid != OIDNumeric:
		return castTo(arg, want)
	}
	return nil
}

// wholeRowRef rewrites a bare reference to the alias of a scalar function
// in FROM whose column is named otherwise (SELECT x FROM
// generate_series(1, 2) AS x(g)) into x.g: PostgreSQL's whole-row value of
// such a relation is the scalar, DuckDB's a STRUCT. A column of that name
// anywhere in scope wins, as in PostgreSQL; so does any relation whose
// columns are unknown (DuckDB binds those).
func wholeRowRef(cr *pg_query.ColumnRef, sc *scope) {
	if len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return
	}
	name := cr.Fields[0].GetString_().Sval
	var target *relInfo
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.cols == nil {
				return
			}
			for _, c := range r.cols {
				if c.name == name {
					return
				}
			}
			if target == nil && r.alias == name && r.scalarCol != "" {
				target = r
			}
		}
	}
	if target == nil || target.scalarCol == name {
		return
	}
	cr.Fields = []*pg_query.Node{pg_query.MakeStrNode(target.alias), pg_query.MakeStrNode(target.scalarCol)}
}

// Set-returning functions in expressions.
//
// PostgreSQL 10+ evaluates a set-returning function of the select list
// (generate_series, unnest) once per input row and emits one output row per
// value; several of them run in lockstep, the shorter ones padded with
// NULLs, and a row none of them returns anything for is dropped. An
// expression around the call is evaluated per value (generate_series(1, 3)
// * 2 is three rows). DuckDB's unnest(list) in a select list behaves exactly
// so (lockstep, NULL padding, evaluated after aggregation and windows, like
// PostgreSQL's ProjectSet), but its generate_series there is a scalar
// function returning one list. So a select-list generate_series becomes
// the unnest of a list-producing series of PostgreSQL's element type
// (expandSeries):
//
//	generate_series(1, 3)           -> CAST(unnest(__bsdb_generate_series(1, 3, 1, 0)) AS INTEGER)
//	generate_series(1::bigint, 3)   -> unnest(__bsdb_generate_series(1, 3, 1, 0))
//	generate_series(ts, ts, '1 h')  -> unnest(__bsdb_generate_series(ts, ts, '1 h', INTERVAL '0 seconds'))
//	generate_series(0.5, 2, 0.5)    -> unnest(__bsdb_generate_series_numeric_list(0.5, 2, 0.5))
//
// __bsdb_generate_series (Setup) checks the step against zero z (DuckDB's
// list function returns an empty list for a zero step; PostgreSQL raises
// 22023 "step size cannot equal zero") and keeps DuckDB from folding a
// constant series into one LIST value at planning, which is slow and large
// (__bsdb_unfolded). A NULL argument gives a NULL list, which unnest turns
// into no row, as PostgreSQL's strict function returns none. unnest(array)
// is DuckDB's own.
//
// Where PostgreSQL allows them is decided per clause (srfClause, set on
// the scope while a clause is translated):
//
//   - the select list, ORDER BY and DISTINCT ON are expanded, and so is a
//     single VALUES row of an INSERT (PostgreSQL evaluates it like a select
//     list; insertSource makes it one);
//   - WHERE, HAVING, LIMIT, OFFSET, JOIN conditions, VALUES, FILTER, window
//     frames and RETURNING: PostgreSQL's 0A000 "set-returning functions are
//     not allowed in WHERE" (check_srf_call_placement), at the call;
//   - inside CASE or COALESCE, or in the arguments of an aggregate or a
//     window function: 0A000 with PostgreSQL's message and hint; as an
//     argument of AND, OR, NOT, BETWEEN or IS [NOT] TRUE/FALSE/UNKNOWN:
//     42804 "argument of AND must not return a set";
//   - what PostgreSQL allows and DuckDB cannot do (an SRF in GROUP BY or in
//     a window's PARTITION BY / ORDER BY, an SRF in the arguments of
//     another): 0A000 "... are not supported", reported only when the
//     statement has no error PostgreSQL would report (tr.srfPending).

// srfClause is the clause an expression belongs to, for the placement of
// set-returning functions. The zero value is the select list.
type srfClause int

const (
	clauseSelect  srfClause = iota // select list: expanded
	clauseOrderBy                  // ORDER BY, DISTINCT ON: expanded (DuckDB's unnest there is PostgreSQL's)
	clauseGroupBy                  // PostgreSQL allows it; not supported here
	clauseWindow                   // a window's PARTITION BY / ORDER BY: likewise
	clauseFrom                     // a function in FROM: at its top level only
	clauseWhere                    // the rest: not allowed
	clauseHaving
	clauseLimit
	clauseOffset
	clauseJoin
	clauseValues
	clauseFilter
	clauseWindowFrame
	clauseReturning
)

// srfForbidden is PostgreSQL's message for a set-returning function in
// clause c, or "" where it may appear.
func srfForbidden(c srfClause) string {
	what := map[srfClause]string{
		clauseWhere: "WHERE", clauseHaving: "HAVING", clauseLimit: "LIMIT", clauseOffset: "OFFSET",
		clauseJoin: "JOIN conditions", clauseValues: "VALUES", clauseFilter: "FILTER",
		clauseWindowFrame: "window definitions", clauseReturning: "RETURNING",
	}[c]
	if what == "" {
		return ""
	}
	return "set-returning functions are not allowed in " + what
}

// aggregateNames are PostgreSQL's aggregate functions (for the check that
// their arguments return no set).
var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "array_agg": true,
	"string_agg": true, "bool_and": true, "bool_or": true, "every": true, "bit_and": true,
	"bit_or": true, "bit_xor": true, "stddev": true, "stddev_pop": true, "stddev_samp": true,
	"variance": true, "var_pop": true, "var_samp": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true, "corr": true, "covar_pop": true,
	"covar_samp": true, "regr_avgx": true, "regr_avgy": true, "regr_count": true,
	"regr_intercept": true, "regr_r2": true, "regr_slope": true, "regr_sxx": true,
	"regr_sxy": true, "regr_syy": true, "percentile_cont": true, "percentile_disc": true,
	"mode": true, "xmlagg": true, "range_agg": true, "range_intersect_agg": true,
}

func isAggregateCall(name string, fc *pg_query.FuncCall) bool {
	return aggregateNames[name] || fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.AggWithinGroup
}

// srfError is PostgreSQL's 0A000 for a set-returning function at loc where
// it may not be, with the hint PostgreSQL adds when the construct (CASE,
// an aggregate...) rather than the clause is the obstacle.
func srfError(msg string, hint bool, loc int32) error {
	e := pgerr.New(pgerr.FeatureNotSupported, "%s", msg)
	if hint {
		e = e.WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
	}
	return withLocation(e, loc)
}

// srfUnsupported records an error for a set-returning function PostgreSQL
// accepts where this translator cannot reproduce it. It is reported after
// the statement is translated, so that an error PostgreSQL reports wins.
func (tr *translator) srfUnsupported(msg string, loc int32) {
	if tr.srfPending == nil {
		tr.srfPending = withLocation(pgerr.New(pgerr.FeatureNotSupported, "%s", msg), loc)
	}
}

// srfSince returns the location of the last set-returning function
// translated in sc after the first n (PostgreSQL's p_last_srf), or -1 if
// none was.
func srfSince(sc *scope, n int) (int32, bool) {
	if len(sc.srfs) <= n {
		return -1, false
	}
	return sc.srfs[len(sc.srfs)-1], true
}

// srfCall types a set-returning function call fc (node n) at its place in
// sc's clause and rewrites it for DuckDB (see above). nested: its
// arguments contain a set-returning function.
func (tr *translator) srfCall(n *pg_query.Node, fc *pg_query.FuncCall, name string, argTypes []typ, nested bool, sc *scope) (typ, error) {
	t := unknownTyp
	if name == "generate_series" {
		var err error
		if t, err = tr.generateSeriesType(fc, argTypes); err != nil {
			return unknownTyp, err
		}
	} else if len(argTypes) == 1 && ElemOID(argTypes[0].oid) != 0 {
		t = typ{ElemOID(argTypes[0].oid), -1}
	}
	loc := fc.Location
	sc.srfs = append(sc.srfs, loc)
	switch c := sc.clause; c {
	case clauseFrom:
		return t, nil // nesting is checked by funcCall
	case clauseGroupBy:
		tr.srfUnsupported("set-returning functions in GROUP BY are not supported", loc)
		return t, nil
	case clauseWindow:
		tr.srfUnsupported("set-returning functions in window definitions are not supported", loc)
		return t, nil
	case clauseSelect, clauseOrderBy:
	default:
		return unknownTyp, srfError(srfForbidden(c), false, loc)
	}
	if nested {
		tr.srfUnsupported("set-returning functions in the arguments of a set-returning function are not supported", loc)
	}
	if name == "generate_series" {
		tr.expandSeries(n, fc, t)
	}
	return t, nil
}

// expandSeries replaces the select-list call generate_series(...) (n, fc)
// of PostgreSQL result type t by the unnest of a DuckDB list of t.
func (tr *translator) expandSeries(n *pg_query.Node, fc *pg_query.FuncCall, t typ) {
	args := append([]*pg_query.Node(nil), fc.Args...)
	var list *pg_query.Node
	switch t.oid {
	case OIDNumeric:
		if len(args) == 2 {
			one := pg_query.MakeAConstIntNode(1, -1)
			_ = castTo(one, typ{OIDNumeric, TypeModNumeric(38, 0)})
			args = append(args, one)
		}
		list = makeCall("__bsdb_generate_series_numeric_list", -1, args...)
	case OIDInt4, OIDInt8:
		if len(args) == 2 {
			one := pg_query.MakeAConstIntNode(1, -1)
			_ = castTo(one, t)
			args = append(args, one)
		}
		zero := pg_query.MakeAConstIntNode(0, -1)
		_ = castTo(zero, t)
		list = makeCall("__bsdb_generate_series", -1, append(args, zero)...)
	case OIDTimestamp, OIDTimestamptz:
		if len(args) == 3 {
			zero := pg_query.MakeAConstStrNode("0 seconds", -1)
			_ = castTo(zero, typ{OIDInterval, -1})
			list = makeCall("__bsdb_generate_series", -1, append(args, zero)...)
			break
		}
		fallthrough
	default:
		// No PostgreSQL variant (generateSeriesType): DuckDB's own,
		// which reports the error.
		list = makeCall("generate_series", -1, args...)
	}
	n.Node = makeCall("unnest", fc.Location, list).Node
	if t.oid == OIDInt4 {
		// DuckDB's series is BIGINT. The cast of each value rather than
		// of the list spares a copy of the list.
		_ = castTo(n, t)
	}
}

// checkNoSetArg is PostgreSQL's coerce_to_boolean check: the argument of
// AND, OR, NOT and IS [NOT] TRUE/FALSE/UNKNOWN must not return a set
// (42804, at the argument).
func checkNoSetArg(sc *scope, before int, construct string, loc int32) error {
	if len(sc.srfs) <= before {
		return nil
	}
	return withLocation(pgerr.New(pgerr.DatatypeMismatch, "argument of %s must not return a set", construct), loc)
}

// windowDef translates a window definition (OVER (...) or WINDOW w AS
// (...)): PARTITION BY and ORDER BY may hold set-returning functions in
// PostgreSQL (not supported here), the frame offsets may not. With lenient
// (OVER of a call), errors other than those of a set-returning function are
// left for DuckDB to report.
func (tr *translator) windowDef(wd *pg_query.WindowDef, sc *scope, lenient bool) error {
	if wd == nil {
		return nil
	}
	saved := sc.clause
	defer func() { sc.clause = saved }()
	before := len(sc.srfs)
	var err error
	translate := func(c srfClause, nodes ...*pg_query.Node) {
		sc.clause = c
		for _, x := range nodes {
			if x == nil {
				continue
			}
			if _, e := tr.expr(x, sc, unknownTyp); e != nil && err == nil {
				err = e
			}
		}
	}
	translate(clauseWindow, wd.PartitionClause...)
	for _, o := range wd.OrderClause {
		if sb := o.GetSortBy(); sb != nil {
			translate(clauseWindow, sb.Node)
		}
	}
	translate(clauseWindowFrame, wd.StartOffset, wd.EndOffset)
	if lenient && len(sc.srfs) == before {
		return nil
	}
	return err
}

// checkNoSRF is PostgreSQL's check after transforming a CASE or COALESCE:
// no set-returning function inside (0A000 at the last one).
func checkNoSRF(sc *scope, before int, construct string) error {
	if loc, ok := srfSince(sc, before); ok {
		return srfError("set-returning functions are not allowed in "+construct, true, loc)
	}
	return nil
}

func booleanTestName(t pg_query.BoolTestType) string {
	switch t {
	case pg_query.BoolTestType_IS_TRUE:
		return "IS TRUE"
	case pg_query.BoolTestType_IS_NOT_TRUE:
		return "IS NOT TRUE"
	case pg_query.BoolTestType_IS_FALSE:
		return "IS FALSE"
	case pg_query.BoolTestType_IS_NOT_FALSE:
		return "IS NOT FALSE"
	case pg_query.BoolTestType_IS_UNKNOWN:
		return "IS UNKNOWN"
	case pg_query.BoolTestType_IS_NOT_UNKNOWN:
		return "IS NOT UNKNOWN"
	}
	return "IS TRUE"
}

// containsSRF reports whether a set-returning function is called in n at
// its own query level (not inside a subquery).
func containsSRF(n *pg_query.Node) bool {
	found := false
	walkNodes(n, func(x *pg_query.Node) bool {
		switch v := x.GetNode().(type) {
		case *pg_query.Node_SubLink:
			return false
		case *pg_query.Node_FuncCall:
			_, name := funcName(v.FuncCall)
			if scalarSRF(strings.ToLower(name), v.FuncCall) {
				found = true
			}
		}
		return !found
	})
	return found
}

// noSuchFunction is PostgreSQL's 42883 for a call of name with arguments
// of types args, or nil when a type is unknown (the message would lie).
func noSuchFunction(name string, args []typ, loc int32) error {
	names := make([]string, len(args))
	for i, a := range args {
		if !a.known() {
			return nil
		}
		names[i] = pgtypes.FormatType(a.oid, -1)
	}
	e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	return withLocation(e, loc)
}
