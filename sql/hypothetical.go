package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// Hypothetical-set aggregates: rank, dense_rank, percent_rank and
// cume_dist with WITHIN GROUP (ORDER BY ...) compute where a hypothetical
// row (the direct arguments) would fall among the group's rows sorted by
// the ordering keys. The engine has no such aggregates; each is rewritten
// into counts of the rows that sort before the hypothetical row (or are
// its peers), with PostgreSQL's NULL ordering (NULLS LAST ascending,
// NULLS FIRST descending, unless written), as orderedsetaggs.c computes
// them:
//
//	rank          1 + rows before
//	dense_rank    1 + distinct key tuples before
//	percent_rank  rows before / rows (0 for no rows)
//	cume_dist     (rows before or peer + 1) / (rows + 1)
var hypotheticalAggs = map[string]bool{"rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true}

// rewriteHypothetical replaces n (a call of one of hypotheticalAggs with
// WITHIN GROUP) by its computation; ok is false for any other call.
func (tr *translator) rewriteHypothetical(n *pg_query.Node, fc *pg_query.FuncCall, schema, name string, sc *scope) (ok bool, err error) {
	if !fc.AggWithinGroup || fc.Over != nil || !hypotheticalAggs[name] || schema != "" && schema != "pg_catalog" {
		return false, nil
	}
	if len(fc.Args) != len(fc.AggOrder) {
		// PostgreSQL looks for a function of the direct and the ordering
		// arguments' types together, and says why none fits.
		var types []string
		for _, a := range append(append([]*pg_query.Node(nil), fc.Args...), sortExprs(fc.AggOrder)...) {
			t, err := tr.expr(proto.Clone(a).(*pg_query.Node), sc, unknownTyp)
			if err != nil {
				return true, err
			}
			types = append(types, typeDisplayName(t))
		}
		e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(types, ", ")).
			WithHint("To use the hypothetical-set aggregate %s, the number of hypothetical direct arguments (here %d) must match the number of ordering columns (here %d).",
				name, len(fc.Args), len(fc.AggOrder))
		return true, withLocation(e, fc.Location)
	}
	text := func(x *pg_query.Node) (string, error) {
		s, err := deparseExpr(x)
		return "(" + s + ")", err
	}
	var before, peer []string // per key: sorts before h, is a peer of h
	var keys []string
	for i, o := range fc.AggOrder {
		sb := o.GetSortBy()
		if sb == nil {
			return true, pgerr.New(pgerr.FeatureNotSupported, "this WITHIN GROUP ordering is not supported")
		}
		if len(sb.UseOp) > 0 {
			return true, pgerr.New(pgerr.FeatureNotSupported, "WITHIN GROUP (ORDER BY ... USING) is not supported")
		}
		x, err := text(sb.Node)
		if err != nil {
			return true, err
		}
		h, err := text(fc.Args[i])
		if err != nil {
			return true, err
		}
		desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg_query.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		cmp := "<"
		if desc {
			cmp = ">"
		}
		var b string
		if nullsFirst {
			b = fmt.Sprintf("((%[1]s IS NULL AND %[2]s IS NOT NULL) OR coalesce(%[1]s %[3]s %[2]s, false))", x, h, cmp)
		} else {
			b = fmt.Sprintf("(%[1]s IS NOT NULL AND (%[2]s IS NULL OR coalesce(%[1]s %[3]s %[2]s, false)))", x, h, cmp)
		}
		before = append(before, b)
		peer = append(peer, fmt.Sprintf("(%s IS NOT DISTINCT FROM %s)", x, h))
		keys = append(keys, x)
	}
	// Lexicographic: before on the first key, or a peer on it and before
	// on the next, ...
	var terms []string
	for i := range before {
		terms = append(terms, "("+strings.Join(append(append([]string(nil), peer[:i]...), before[i]), " AND ")+")")
	}
	isBefore := "(" + strings.Join(terms, " OR ") + ")"
	isPeer := "(" + strings.Join(peer, " AND ") + ")"
	filter := ""
	if fc.AggFilter != nil {
		f, err := text(fc.AggFilter)
		if err != nil {
			return true, err
		}
		filter = " AND coalesce(" + f + ", false)"
	}
	rows := "count(*) FILTER (WHERE true" + filter + ")"
	nBefore := "count(*) FILTER (WHERE " + isBefore + filter + ")"
	var expr string
	switch name {
	case "rank":
		expr = "(1 + " + nBefore + ")"
	case "dense_rank":
		expr = "(1 + count(DISTINCT ROW(" + strings.Join(keys, ", ") + ", 0)) FILTER (WHERE " + isBefore + filter + "))"
	case "percent_rank":
		expr = "(CASE WHEN " + rows + " = 0 THEN 0::float8 ELSE " + nBefore + "::float8 / " + rows + "::float8 END)"
	case "cume_dist":
		expr = "((count(*) FILTER (WHERE (" + isBefore + " OR " + isPeer + ")" + filter + ") + 1)::float8 / (" + rows + " + 1)::float8)"
	}
	res, err := pg_query.Parse("SELECT " + expr)
	if err != nil || len(res.Stmts) != 1 {
		return true, pgerr.New(pgerr.InternalError, "hypothetical-set aggregate %s: %v", name, err)
	}
	n.Node = res.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.Node
	return true, nil
}

// sortExprs returns the expressions of a list of SortBy nodes.
func sortExprs(list []*pg_query.Node) []*pg_query.Node {
	var out []*pg_query.Node
	for _, o := range list {
		if sb := o.GetSortBy(); sb != nil {
			out = append(out, sb.Node)
		}
	}
	return out
}

// typeDisplayName is a type as PostgreSQL's function signatures print it.
func typeDisplayName(t typ) string {
	if !t.known() {
		return "unknown"
	}
	return pgtypes.FormatType(t.oid, -1)
}
