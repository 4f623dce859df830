package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
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
