package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Builders of the expression nodes the rewrites construct.

// strConst is the string literal s.
func strConst(s string) *pg_query.Node { return pg_query.MakeAConstStrNode(s, -1) }

// opNode is l op r.
func opNode(op string, l, r *pg_query.Node) *pg_query.Node {
	return pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode(op)}, l, r, -1)
}

// nullTest is x IS NULL (isNull) or x IS NOT NULL.
func nullTest(x *pg_query.Node, isNull bool) *pg_query.Node {
	t := pg_query.NullTestType_IS_NOT_NULL
	if isNull {
		t = pg_query.NullTestType_IS_NULL
	}
	return &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{Arg: x, Nulltesttype: t, Location: -1}}}
}

// caseWhen is WHEN cond THEN result, an item of caseNode.
func caseWhen(cond, result *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_CaseWhen{CaseWhen: &pg_query.CaseWhen{Expr: cond, Result: result, Location: -1}}}
}

// caseNode is CASE whens... ELSE def END (def nil: no ELSE).
func caseNode(def *pg_query.Node, whens ...*pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_CaseExpr{CaseExpr: &pg_query.CaseExpr{Args: whens, Defresult: def, Location: -1}}}
}

// boolText is CASE WHEN b THEN t WHEN NOT b THEN f END (NULL stays NULL).
func boolText(b *pg_query.Node, t, f string) *pg_query.Node {
	not := pg_query.MakeBoolExprNode(pg_query.BoolExprType_NOT_EXPR, []*pg_query.Node{b}, -1)
	return caseNode(nil, caseWhen(b, strConst(t)), caseWhen(not, strConst(f)))
}

// bareName is the name of a single-field column reference (x, not r.x).
func bareName(n *pg_query.Node) (string, bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return "", false
	}
	return cr.Fields[0].GetString_().Sval, true
}
