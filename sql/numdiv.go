package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Numeric division with PostgreSQL's result scale (select_div_scale).
//
// PostgreSQL's numeric / numeric (and avg(numeric|integer), which is
// sum / count) has a display scale that depends on the values:
//
//	rscale = max(16 - 4*qweight, dscale1, dscale2, 0)
//
// where qweight is the base-10000 weight of the quotient's leading digit
// group (weight1 - weight2, minus one when the dividend's leading group is
// <= the divisor's). 1/3 gives 0.33333333333333333333 (20 digits),
// 1234.5678/3 gives 411.5226000000000000 (16). DuckDB's DECIMAL has one
// scale per column, so the exact quotient is computed in the __bsdb_numdiv
// macro (Setup: HUGEINT arithmetic on the operands' unscaled digits, rounded
// half away from zero like div_var) and returned as its numeric text, which
// the server encodes as numeric (pgtypes accepts numeric text).
//
// Because the value is text, this form is used only where nothing computes
// on it: a top-level select-list item of the outermost query without set
// operations, positional or by-name ORDER BY / GROUP BY / DISTINCT on it.
// Everywhere else the division keeps its DECIMAL(38,16) form (doc.go gap).
// If the scaled dividend would exceed HUGEINT (38 digits) the macro falls
// back to the DECIMAL(38,16) result's text.

// noteNumericDivision records that n (already rewritten to its DECIMAL
// form) is num / den in numeric, for exactDivisions.
func (tr *translator) noteNumericDivision(n, num, den *pg_query.Node) {
	if tr.numDivs == nil {
		tr.numDivs = map[*pg_query.Node][2]*pg_query.Node{}
	}
	tr.numDivs[n] = [2]*pg_query.Node{num, den}
}

// exactDivisions rewrites the top-level numeric divisions of the outermost
// SELECT s to __bsdb_numdiv when nothing refers to their output column.
func (tr *translator) exactDivisions(s *pg_query.SelectStmt, sc *scope, cols []colInfo) {
	if len(tr.numDivs) == 0 || len(s.DistinctClause) > 0 {
		return
	}
	referenced := map[string]bool{}
	positional := false
	for _, list := range [][]*pg_query.Node{s.GroupClause, sortNodes(s.SortClause)} {
		for _, g := range list {
			if isPositional(g) {
				positional = true
			}
			if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
				referenced[cr.Fields[0].GetString_().GetSval()] = true
			}
		}
	}
	if positional {
		return
	}
	for i, item := range s.TargetList {
		rt := item.GetResTarget()
		if rt == nil || rt.Val == nil {
			continue
		}
		ops, ok := tr.numDivs[rt.Val]
		if !ok || i >= len(cols) || referenced[cols[i].name] {
			continue
		}
		fallback := &pg_query.Node{Node: rt.Val.Node}
		// An operand whose display scale is known is passed as its text
		// (rawnum.go): its digits give select_div_scale its dscale.
		grouped := isGrouped(s)
		for k, op := range ops {
			if scale := tr.numScale(op, sc, grouped, false); scale != nil && sc.raw {
				ops[k] = makeCall("__bsdb_numfmt", -1, proto.Clone(op).(*pg_query.Node), scale)
			}
		}
		rewriteCall(rt.Val, "__bsdb_numdiv", ops[0], ops[1], fallback)
		cols[i].raw = true // numeric text (an INSERT keeps it: rawnum.go)
	}
}

func sortNodes(list []*pg_query.Node) []*pg_query.Node {
	var out []*pg_query.Node
	for _, o := range list {
		if sb := o.GetSortBy(); sb != nil {
			out = append(out, sb.Node)
		}
	}
	return out
}

// aggCall builds fn(arg) for avg's sum/count decomposition.
func aggCall(fn string, arg *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname:   []*pg_query.Node{pg_query.MakeStrNode(fn)},
		Args:       []*pg_query.Node{arg},
		Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
		Location:   -1,
	}}}
}

// numdivMacros are the Setup statements of __bsdb_numdiv(x, y, fallback).
// Helpers: __bsdb_nu(x) the unscaled digits of x as HUGEINT, __bsdb_ns(x)
// its scale (digits after the point of its text), __bsdb_p10(k) 10^k as
// HUGEINT, __bsdb_nw(u, s) the base-10000 weight and __bsdb_nf(u, s, w)
// the leading base-10000 digit group.
var numdivMacros = []string{
	"CREATE OR REPLACE TEMP MACRO __bsdb_ns(x) AS CASE WHEN strpos(CAST(x AS VARCHAR), '.') > 0 THEN length(CAST(x AS VARCHAR)) - strpos(CAST(x AS VARCHAR), '.') ELSE 0 END",
	"CREATE OR REPLACE TEMP MACRO __bsdb_nu(x) AS CAST(replace(CAST(x AS VARCHAR), '.', '') AS HUGEINT)",
	"CREATE OR REPLACE TEMP MACRO __bsdb_p10(k) AS CAST('1' || repeat('0', CAST(k AS INTEGER)) AS HUGEINT)",
	"CREATE OR REPLACE TEMP MACRO __bsdb_nw(u, s) AS CASE WHEN u = 0 THEN 0 ELSE CAST(floor((length(CAST(abs(u) AS VARCHAR)) - 1 - s) / 4.0) AS INTEGER) END",
	"CREATE OR REPLACE TEMP MACRO __bsdb_nf(u, s, w) AS CASE WHEN u = 0 THEN 0 WHEN s + 4 * w >= 0 THEN abs(u) // __bsdb_p10(s + 4 * w) ELSE abs(u) * __bsdb_p10(-(s + 4 * w)) END",
	"CREATE OR REPLACE TEMP MACRO __bsdb_nrs(u1, s1, u2, s2) AS greatest(16 - 4 * (__bsdb_nw(u1, s1) - __bsdb_nw(u2, s2) - CASE WHEN __bsdb_nf(u1, s1, __bsdb_nw(u1, s1)) <= __bsdb_nf(u2, s2, __bsdb_nw(u2, s2)) THEN 1 ELSE 0 END), s1, s2, 0)",
	// q = round(|u1| * 10^(rs + s2 - s1) / |u2|), formatted with rs
	// decimals (lpad never shortens: DuckDB's lpad truncates).
	"CREATE OR REPLACE TEMP MACRO __bsdb_nfmt(q, neg, rs) AS (CASE WHEN neg AND q <> 0 THEN '-' ELSE '' END) || " +
		"(CASE WHEN rs = 0 THEN CAST(q AS VARCHAR) ELSE " +
		"substr(lpad(CAST(q AS VARCHAR), CAST(greatest(rs + 1, length(CAST(q AS VARCHAR))) AS INTEGER), '0'), 1, length(lpad(CAST(q AS VARCHAR), CAST(greatest(rs + 1, length(CAST(q AS VARCHAR))) AS INTEGER), '0')) - rs) || '.' || " +
		"substr(lpad(CAST(q AS VARCHAR), CAST(greatest(rs + 1, length(CAST(q AS VARCHAR))) AS INTEGER), '0'), length(lpad(CAST(q AS VARCHAR), CAST(greatest(rs + 1, length(CAST(q AS VARCHAR))) AS INTEGER), '0')) - rs + 1) END)",
	"CREATE OR REPLACE TEMP MACRO __bsdb_ndiv3(u1, s1, u2, s2, rs, fallback) AS CASE " +
		"WHEN u1 IS NULL OR u2 IS NULL THEN NULL " +
		"WHEN u2 = 0 THEN error('division by zero') " +
		"WHEN length(CAST(abs(u1) AS VARCHAR)) + (rs + s2 - s1) > 37 THEN CAST(fallback AS VARCHAR) " +
		"ELSE __bsdb_nfmt((abs(u1) * __bsdb_p10(rs + s2 - s1) + abs(u2) // 2) // abs(u2), (u1 < 0) <> (u2 < 0), rs) END",
	// The operands' digits and scales are bound once through a one-element
	// list and a lambda: macros expand inline, and the naive nesting made
	// the expression (and DuckDB's bind/optimize time) blow up.
	"CREATE OR REPLACE TEMP MACRO __bsdb_numdiv(x, y, fallback) AS list_transform([{'u1': __bsdb_nu(x), 's1': __bsdb_ns(x), 'u2': __bsdb_nu(y), 's2': __bsdb_ns(y), 'fb': CAST(fallback AS VARCHAR)}], " +
		"r -> list_transform([{'rs': __bsdb_nrs(r.u1, r.s1, r.u2, r.s2), 'r': r}], t -> __bsdb_ndiv3(t.r.u1, t.r.s1, t.r.u2, t.r.s2, t.rs, t.r.fb))[1])[1]",
}
