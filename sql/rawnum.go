package sql

import (
	"strings"

	"github.com/bsdb/bsdb-pg/pgtypes"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// numeric without a precision: the value's own scale.
//
// PostgreSQL's numeric carries a display scale per value: 1.5 and 1.50 are
// equal but print differently, and arithmetic derives the result's scale
// from its operands' (+ and -: the larger, *: the sum, sum(): the largest,
// min()/max(): the chosen value's). DuckDB's DECIMAL has one scale per
// column, so the translator computes with DECIMAL(38,10) and gives the
// client the text PostgreSQL would print:
//
//   - Tables expose such a column as its stored text (the planner keeps
//     PostgreSQL's output of each value). A reference to it is rewritten to
//     __bsdb_dec(ref), its DECIMAL(38,10), wherever it is computed with, and left
//     as the text where it is a select-list item of the outermost query by
//     itself (or through *). ORDER BY on such an output (by name or
//     position) sorts by the DECIMAL; under GROUP BY the item becomes
//     any_value(ref) when the query groups by that column.
//   - Other select-list items of the outermost query whose type is numeric
//     without a precision are printed with the scale PostgreSQL's rules
//     give, computed next to the value: __bsdb_numfmt(value, scale), where
//     the scale of a column is __bsdb_ns(its text), of a literal its
//     digits, of a + b greatest(sa, sb), of a * b sa + sb, of sum(a)
//     max(sa), of min(a) arg_min(sa, a). An item outside these rules keeps
//     DECIMAL(38,10)'s scale (README: limits).
//   - The text is kept at the levels whose outputs are read through column
//     references or go to the client: the outermost query, FROM subqueries,
//     CTEs (not recursive ones), UNION branches (UNION without ALL becomes
//     UNION ALL + GROUP BY), plain DISTINCT (as GROUP BY) and DISTINCT ON
//     (keyed by the DECIMAL), a scalar subquery that is a whole select-list
//     item. Elsewhere (subqueries in expressions, INTERSECT/EXCEPT
//     branches) the relation is read through SELECT * REPLACE
//     (__bsdb_dec(c) AS c). If any column reference cannot be resolved (a
//     join alias, an unknown relation), USING/NATURAL joins or whole-row
//     references meet the text, or * brings it into DISTINCT or a set
//     operation, every relation is read that way (rawUnsafe) and formatted
//     items go back to their DECIMAL, so the text never reaches an operator
//     unconverted.

// rawRef is a column reference to a numeric column read as text.
type rawRef struct {
	ref *pg_query.Node // a copy of the ColumnRef (the text)
	rel *relInfo
	idx int
}

// isRawType reports whether a column of type t is exposed as its text
// (numeric without a precision).
func isRawType(t typ) bool { return t.oid == OIDNumeric && t.mod < 0 }

// resolveColumn finds the relation column cr names, as columnRef does.
func resolveColumn(cr *pg_query.ColumnRef, sc *scope) (*relInfo, int) {
	var names []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return nil, -1
		}
		names = append(names, s.Sval)
	}
	if len(names) == 0 {
		return nil, -1
	}
	col := names[len(names)-1]
	rel := ""
	if len(names) >= 2 {
		rel = names[len(names)-2]
	}
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if rel != "" && r.alias != rel {
				continue
			}
			for i, c := range r.cols {
				if c.name == col {
					return r, i
				}
			}
		}
	}
	return nil, -1
}

// rawColumn is called for every translated column reference n: a
// reference to a column read as text becomes __bsdb_dec(n) (DECIMAL(38,10)),
// except the select-list item tr.keepRaw.
func (tr *translator) rawColumn(n *pg_query.Node, cr *pg_query.ColumnRef, sc *scope) {
	if !tr.haveRaw {
		return
	}
	rel, i := resolveColumn(cr, sc)
	if rel == nil {
		if !isStarRef(cr) {
			tr.rawUnsafe = true
		}
		return
	}
	if !rel.cols[i].raw {
		return
	}
	ref := proto.Clone(n).(*pg_query.Node)
	if n == tr.keepRaw {
		tr.keptRaw = &rawRef{ref: ref, rel: rel, idx: i}
		return
	}
	rewriteCall(n, "__bsdb_dec", &pg_query.Node{Node: n.Node})
	if tr.rawCasts == nil {
		tr.rawCasts = map[*pg_query.Node]*rawRef{}
	}
	tr.rawCasts[n] = &rawRef{ref: ref, rel: rel, idx: i}
}

func isStarRef(cr *pg_query.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}

// numericText rewrites the translated numeric expression n into its text
// as PostgreSQL's numeric_out prints it, where it can: a column's stored
// text, or __bsdb_numfmt with its display scale. Not in a grouped query
// (a grouped column's text is not the group's key).
func (tr *translator) numericText(n *pg_query.Node, sc *scope) bool {
	if sc.grouped && sc.aggDepth == 0 {
		return false
	}
	if r, ok := tr.rawCasts[n]; ok {
		n.Node = proto.Clone(r.ref).(*pg_query.Node).Node
		delete(tr.rawCasts, n)
		return true
	}
	scale := tr.numScale(n, sc, false, sc.aggDepth > 0)
	if scale == nil {
		return false
	}
	rewriteCall(n, "__bsdb_numfmt", &pg_query.Node{Node: n.Node}, scale)
	return true
}

// decimalOf is __bsdb_dec(ref), the DECIMAL(38,10) of a raw output's
// reference.
func decimalOf(ref *pg_query.Node) *pg_query.Node {
	return makeCall("__bsdb_dec", -1, proto.Clone(ref).(*pg_query.Node))
}

// rawGroupBy finishes the raw select-list items of a grouped query: an
// item whose column the query groups by becomes any_value(ref) (the text
// of one row of the group: PostgreSQL prints the group's first value);
// any other one is computed as DECIMAL (DuckDB then reports the ungrouped
// column as before). Positional GROUP BY items naming one are replaced by
// its DECIMAL.
func (tr *translator) rawGroupBy(s *pg_query.SelectStmt, sc *scope) {
	if len(sc.rawOut) == 0 {
		return
	}
	grouped := map[[2]any]bool{}
	for _, g := range s.GroupClause {
		if isPositional(g) {
			k := int(g.GetAConst().GetIval().GetIval())
			if k >= 1 && k <= len(sc.outDec) && sc.rawOut[k-1] != nil {
				r := sc.rawOut[k-1]
				g.Node = decimalOf(r.ref).Node
				grouped[[2]any{r.rel, r.idx}] = true
			}
			continue
		}
		if r, ok := tr.rawCasts[g]; ok {
			grouped[[2]any{r.rel, r.idx}] = true
		}
	}
	for i, r := range sc.rawOut {
		if r == nil || sc.rawItem[i] == nil {
			if r != nil {
				tr.rawUnsafe = true // * under GROUP BY
			}
			continue
		}
		rt := sc.rawItem[i]
		if rt.Name == "" && i < len(sc.outputs) {
			rt.Name = sc.outputs[i].name // the column's name, not DuckDB's for the new expression
		}
		item := rt.Val
		if grouped[[2]any{r.rel, r.idx}] {
			rewriteCall(item, "any_value", proto.Clone(r.ref).(*pg_query.Node))
		} else {
			item.Node = decimalOf(r.ref).Node
			sc.rawOut[i], sc.outDec[i] = nil, nil
			if i < len(sc.outputs) {
				sc.outputs[i].raw = false
			}
		}
	}
}

// rawOrderBy replaces an ORDER BY (or DISTINCT ON) item naming a raw or
// formatted output
// (by name or position) with the output's DECIMAL expression. It reports
// whether the item named an output (then it needs no translation: an
// output name binds to the output in DuckDB as in PostgreSQL).
func (tr *translator) rawOrderBy(item *pg_query.Node, sc *scope) bool {
	k := -1
	if isPositional(item) {
		k = int(item.GetAConst().GetIval().GetIval()) - 1
	} else if name, ok := bareName(item); ok {
		for i, o := range sc.outputs {
			if o.name == name {
				k = i
				break
			}
		}
		if k < 0 {
			return false
		}
	} else {
		return false
	}
	if k >= 0 && k < len(sc.outDec) && sc.outDec[k] != nil {
		item.Node = proto.Clone(sc.outDec[k]).(*pg_query.Node).Node
		sc.sortedRaw = true
	}
	if sc.subLinkOut[k] {
		tr.rawUnsafe = true // sorted by a scalar subquery's text: read DECIMAL
	}
	return true
}

// wrapSetOp moves a set operation into FROM (SELECT * FROM (a UNION ALL
// b) ORDER BY ...): DuckDB sorts a set operation's result by its output
// columns only, not by an expression of them.
func wrapSetOp(s *pg_query.SelectStmt) {
	inner := &pg_query.SelectStmt{Op: s.Op, All: s.All, Larg: s.Larg, Rarg: s.Rarg}
	s.Op, s.All, s.Larg, s.Rarg = pg_query.SetOperation_SETOP_NONE, false, nil, nil
	s.TargetList = []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(
		pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeAStarNode()}, -1), -1)}
	s.FromClause = []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: inner}},
		Alias:    &pg_query.Alias{Aliasname: "__bsdb_setop"},
	}}}}
}

// duckAggregates are DuckDB's aggregate functions beyond PostgreSQL's
// (srf.go's aggregateNames), which also make a query grouped.
var duckAggregates = map[string]bool{
	"any_value": true, "arg_min": true, "arg_max": true, "first": true, "last": true, "list": true,
	"median": true, "quantile": true, "quantile_cont": true, "quantile_disc": true, "approx_count_distinct": true,
	"product": true, "fsum": true, "kurtosis": true, "skewness": true, "entropy": true, "histogram": true,
	"bitstring_agg": true, "favg": true, "min_by": true, "max_by": true, "grouping": true, "approx_quantile": true,
	"sumkahan": true, "kahan_sum": true, "mad": true, "arbitrary": true, "argmin": true, "argmax": true,
}

// hasAggregate reports whether n calls an aggregate outside a window.
func hasAggregate(n *pg_query.Node) bool {
	found := false
	walkNodes(n, func(c *pg_query.Node) bool {
		if found {
			return false
		}
		if fc := c.GetFuncCall(); fc != nil && fc.Over == nil {
			_, name := funcName(fc)
			if name = strings.ToLower(name); isAggregateCall(name, fc) || duckAggregates[name] {
				found = true
				return false
			}
		}
		if c.GetSubLink() != nil {
			return false // its own query level
		}
		return true
	})
	return found
}

// formatNumeric rewrites the outermost select-list items of type numeric
// without a precision into __bsdb_numfmt(value, scale) where the scale
// follows PostgreSQL's rules (see the top of this file).
func (tr *translator) formatNumeric(s *pg_query.SelectStmt, sc *scope, cols []colInfo) {
	if cols == nil || len(sc.itemOut) != len(s.TargetList) {
		return
	}
	grouped := isGrouped(s)
	for k, it := range s.TargetList {
		rt := it.GetResTarget()
		i := sc.itemOut[k]
		if rt == nil || rt.Val == nil || i >= len(cols) {
			continue
		}
		if fc := rt.Val.GetFuncCall(); fc != nil && cols[i].t.oid == ArrayOID(OIDNumeric) && len(fc.Args) == 1 && fc.Over == nil {
			if _, name := funcName(fc); strings.EqualFold(name, "array_agg") {
				// numeric[] of array_agg: elements with their own scale.
				dec := proto.Clone(rt.Val).(*pg_query.Node)
				sc.aggDepth++
				if tr.numericText(fc.Args[0], sc) {
					sc.outDec[i] = dec
				}
				sc.aggDepth--
			}
			continue
		}
		if !isRawType(cols[i].t) || sc.rawOut[i] != nil {
			continue
		}
		if star, _ := starOf(rt.Val); star {
			continue
		}
		if _, div := tr.numDivs[rt.Val]; div {
			continue // exactDivisions' business
		}
		dec := proto.Clone(rt.Val).(*pg_query.Node)
		if r, ok := tr.rawCasts[rt.Val]; ok && r.rel == nil {
			// A Go function's numeric text (pgfuncs.go): printed as is
			// (NaN and Infinity too, which no DECIMAL holds).
			rt.Val.Node = proto.Clone(r.ref).(*pg_query.Node).Node
		} else {
			scale := tr.numScale(rt.Val, sc, grouped, false)
			if scale == nil {
				continue
			}
			rewriteCall(rt.Val, "__bsdb_numfmt", proto.Clone(dec).(*pg_query.Node), scale)
		}
		sc.outDec[i] = dec
		cols[i].raw = true
		tr.haveRaw = true // text now flows: an unresolved reference must fall back
		if tr.formatted == nil {
			tr.formatted = map[*pg_query.Node]*pg_query.Node{}
		}
		tr.formatted[rt.Val] = proto.Clone(dec).(*pg_query.Node)
	}
}

func intConst(v int) *pg_query.Node { return pg_query.MakeAConstIntNode(int64(v), -1) }

// numScale is the DuckDB expression of the display scale PostgreSQL gives
// the translated numeric expression n, or nil if it does not know it.
// grouped: the query is grouped, so a column's text is usable only inside
// an aggregate (inAgg).
func (tr *translator) numScale(n *pg_query.Node, sc *scope, grouped, inAgg bool) *pg_query.Node {
	if r, ok := tr.rawCasts[n]; ok {
		if grouped && !inAgg {
			return nil
		}
		return makeCall("__bsdb_ns", -1, proto.Clone(r.ref).(*pg_query.Node)) // numdiv.go: the scale of a numeric's text
	}
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ParamRef:
		// An execution's value (TranslateQueryArgs translates each
		// execution with its values).
		i := int(v.ParamRef.Number) - 1
		if i < 0 || i >= len(tr.values) {
			return nil
		}
		switch pv := tr.values[i].(type) {
		case nil, int16, int32, int64:
			return intConst(0)
		case pgtypes.Numeric:
			return literalScale(pv.String())
		}
		return nil
	case *pg_query.Node_AConst:
		switch c := v.AConst.Val.(type) {
		case *pg_query.A_Const_Ival:
			return intConst(0)
		case *pg_query.A_Const_Fval:
			return literalScale(c.Fval.Fval)
		}
	case *pg_query.Node_TypeCast:
		oid, mod, err := ResolveTypeName(v.TypeCast.TypeName)
		if err != nil {
			if tn := typeNameString(v.TypeCast.TypeName); tn == "decimal" || tn == "numeric" {
				if len(v.TypeCast.TypeName.Typmods) == 2 {
					if c := v.TypeCast.TypeName.Typmods[1].GetAConst(); c != nil && c.GetIval() != nil {
						return intConst(int(c.GetIval().Ival))
					}
				}
			}
			return nil
		}
		switch oid {
		case OIDInt2, OIDInt4, OIDInt8:
			return intConst(0)
		case OIDNumeric:
			if _, s, ok := NumericPrecisionScale(mod); ok {
				return intConst(s)
			}
			// DECIMAL(38,10) of a raw column or of a literal.
			if c := v.TypeCast.Arg.GetAConst(); c != nil {
				return tr.numScale(v.TypeCast.Arg, sc, grouped, inAgg)
			}
		}
	case *pg_query.Node_ColumnRef:
		rel, i := resolveColumn(v.ColumnRef, sc)
		if rel == nil {
			return nil
		}
		switch t := rel.cols[i].t; t.oid {
		case OIDInt2, OIDInt4, OIDInt8:
			return intConst(0)
		case OIDNumeric:
			if _, s, ok := NumericPrecisionScale(t.mod); ok {
				return intConst(s)
			}
		}
	case *pg_query.Node_AExpr:
		e := v.AExpr
		if e.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return tr.numScale(e.Lexpr, sc, grouped, inAgg)
		}
		if e.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 {
			return nil
		}
		op := e.Name[0].GetString_().GetSval()
		if e.Lexpr == nil {
			if op == "-" || op == "+" || op == "@" {
				return tr.numScale(e.Rexpr, sc, grouped, inAgg)
			}
			return nil
		}
		l := tr.numScale(e.Lexpr, sc, grouped, inAgg)
		r := tr.numScale(e.Rexpr, sc, grouped, inAgg)
		if l == nil || r == nil {
			return nil
		}
		switch op {
		case "+", "-":
			return makeCall("greatest", -1, l, r)
		case "*":
			return opNode("+", l, r)
		}
	case *pg_query.Node_MinMaxExpr:
		// greatest/least: the chosen argument's scale (the first of equal
		// ones, as PostgreSQL keeps).
		var whens []*pg_query.Node
		for _, a := range v.MinMaxExpr.Args {
			sa := tr.numScale(a, sc, grouped, inAgg)
			if sa == nil {
				return nil
			}
			eq := opNode("=", proto.Clone(a).(*pg_query.Node), proto.Clone(n).(*pg_query.Node))
			whens = append(whens, caseWhen(eq, sa))
		}
		return caseNode(nil, whens...)
	case *pg_query.Node_CoalesceExpr:
		// The first non-null argument's scale.
		var whens []*pg_query.Node
		for _, a := range v.CoalesceExpr.Args {
			sa := tr.numScale(a, sc, grouped, inAgg)
			if sa == nil {
				return nil
			}
			whens = append(whens, caseWhen(nullTest(proto.Clone(a).(*pg_query.Node), false), sa))
		}
		return caseNode(nil, whens...)
	case *pg_query.Node_CaseExpr:
		// The chosen branch's scale (the same conditions).
		c := v.CaseExpr
		var whens []*pg_query.Node
		for _, w := range c.Args {
			cw := w.GetCaseWhen()
			if cw == nil {
				return nil
			}
			sr := tr.numScale(cw.Result, sc, grouped, inAgg)
			if sr == nil {
				return nil
			}
			whens = append(whens, caseWhen(proto.Clone(cw.Expr).(*pg_query.Node), sr))
		}
		var def *pg_query.Node
		if c.Defresult != nil {
			if def = tr.numScale(c.Defresult, sc, grouped, inAgg); def == nil {
				return nil
			}
		}
		out := caseNode(def, whens...)
		if c.Arg != nil {
			out.GetCaseExpr().Arg = proto.Clone(c.Arg).(*pg_query.Node)
		}
		return out
	case *pg_query.Node_FuncCall:
		fc := v.FuncCall
		_, name := funcName(fc)
		name = strings.ToLower(name)
		if len(fc.Args) == 0 {
			return nil
		}
		if fc.Over != nil && (name == "lag" || name == "lead" || name == "first_value" || name == "last_value" || name == "nth_value") {
			// The chosen row's value: the same window function over the
			// scales (lag/lead's default: its own scale).
			arg := tr.numScale(fc.Args[0], sc, grouped, true)
			if arg == nil {
				return nil
			}
			out := proto.Clone(fc).(*pg_query.FuncCall)
			out.Args[0] = arg
			if (name == "lag" || name == "lead") && len(fc.Args) == 3 {
				d := tr.numScale(fc.Args[2], sc, grouped, inAgg)
				if d == nil {
					return nil
				}
				out.Args[2] = d
			}
			return &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: out}}
		}
		agg := fc.Over == nil && (name == "sum" || name == "min" || name == "max")
		arg := tr.numScale(fc.Args[0], sc, grouped, inAgg || agg)
		if arg == nil {
			return nil
		}
		switch name {
		case "abs":
			if len(fc.Args) == 1 {
				return arg
			}
		case "__bsdb_mod":
			// numeric % numeric: the larger scale.
			if len(fc.Args) == 2 {
				if r := tr.numScale(fc.Args[1], sc, grouped, inAgg); r != nil {
					return makeCall("greatest", -1, arg, r)
				}
			}
		case "sum", "min", "max":
			if len(fc.Args) != 1 || len(fc.AggOrder) > 0 || fc.AggWithinGroup {
				return nil
			}
			out := &pg_query.FuncCall{Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL, Location: -1,
				AggFilter: fc.AggFilter, Over: fc.Over}
			switch name {
			case "sum":
				out.Funcname = []*pg_query.Node{pg_query.MakeStrNode("max")}
				out.Args = []*pg_query.Node{arg}
			case "min":
				out.Funcname = []*pg_query.Node{pg_query.MakeStrNode("arg_min")}
				out.Args = []*pg_query.Node{arg, proto.Clone(fc.Args[0]).(*pg_query.Node)}
			case "max":
				out.Funcname = []*pg_query.Node{pg_query.MakeStrNode("arg_max")}
				out.Args = []*pg_query.Node{arg, proto.Clone(fc.Args[0]).(*pg_query.Node)}
			}
			return proto.Clone(&pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: out}}).(*pg_query.Node)
		}
	}
	return nil
}

// literalScale is the display scale of a numeric literal (1.50: 2).
func literalScale(s string) *pg_query.Node {
	if strings.ContainsAny(s, "eE") {
		return nil
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return intConst(len(s) - i - 1)
	}
	return intConst(0)
}

// rawMacros are the Setup statements of __bsdb_numfmt(value, scale) (a
// DECIMAL printed with the given scale: the digits beyond it are zeros by
// construction; the scale of a numeric's text is numdiv.go's __bsdb_ns).
//
// __bsdb_dec(t) is the DECIMAL(38,10) of a numeric's text: DuckDB 1.5
// casts text to DECIMAL(18,s) about 150 times faster than to
// DECIMAL(38,s) (2M values: 33 ms against 4.9 s), so values of at most 8
// integer digits take that way (the same rounding to 10 decimals) and the
// others the wide cast.
var rawMacros = []string{
	"CREATE OR REPLACE TEMP MACRO __bsdb_dec(t) AS CAST(coalesce(TRY_CAST(t AS DECIMAL(18,10)), CAST(t AS DECIMAL(38,10))) AS DECIMAL(38,10))",
	"CREATE OR REPLACE TEMP MACRO __bsdb_numfmt_t(t, s) AS CASE WHEN strpos(t, '.') = 0 THEN " +
		"(CASE WHEN s > 0 THEN t || '.' || repeat('0', s) ELSE t END) " +
		"WHEN s <= 0 THEN left(t, strpos(t, '.') - 1) " +
		"ELSE rpad(left(t, CAST(strpos(t, '.') + s AS INTEGER)), CAST(strpos(t, '.') + s AS INTEGER), '0') END",
	"CREATE OR REPLACE TEMP MACRO __bsdb_numfmt(v, s) AS CASE WHEN s IS NULL THEN CAST(v AS VARCHAR) " +
		"ELSE __bsdb_numfmt_t(CAST(v AS VARCHAR), CAST(s AS INTEGER)) END",
}

// wrapDecimal is a relation's FromSQL read with its raw columns as DECIMAL.
func wrapDecimal(from string, ti *TableInfo) string {
	var repl []string
	for _, c := range ti.Columns {
		if isRawType(typ{c.TypeOID, c.TypeMod}) {
			repl = append(repl, "__bsdb_dec("+quoteIdent(c.Name)+") AS "+quoteIdent(c.Name))
		}
	}
	if len(repl) == 0 {
		return from
	}
	return "(SELECT * REPLACE (" + strings.Join(repl, ", ") + ") FROM " + from + ")"
}

// noteRawStar records the outputs of rel.* (or *) of a raw scope.
func (tr *translator) noteRawStar(sc *scope, rel string) {
	for _, r := range sc.rels {
		if rel != "" && r.alias != rel {
			continue
		}
		for i, c := range r.cols {
			var rr *rawRef
			var dec *pg_query.Node
			if c.raw {
				ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(r.alias), pg_query.MakeStrNode(c.name)}, -1)
				rr, dec = &rawRef{ref: ref, rel: r, idx: i}, decimalOf(ref)
			}
			sc.rawOut = append(sc.rawOut, rr)
			sc.rawItem = append(sc.rawItem, nil)
			sc.outDec = append(sc.outDec, dec)
		}
	}
}

// isGrouped reports whether s groups its rows (GROUP BY, HAVING or an
// aggregate in its select list).
func isGrouped(s *pg_query.SelectStmt) bool {
	if len(s.GroupClause) > 0 || s.HavingClause != nil {
		return true
	}
	for _, it := range s.TargetList {
		if hasAggregate(it) {
			return true
		}
	}
	return false
}

// distinctAsGroupBy reports whether SELECT DISTINCT s can be run as GROUP
// BY every select-list item (so that a numeric's text is kept as
// any_value of the equal values): plain DISTINCT, no grouping, aggregate,
// window function or * in the list.
func distinctAsGroupBy(s *pg_query.SelectStmt) bool {
	if len(s.DistinctClause) != 1 || s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil {
		return false
	}
	if isGrouped(s) || len(s.WindowClause) > 0 || len(s.TargetList) == 0 {
		return false
	}
	for _, it := range s.TargetList {
		rt := it.GetResTarget()
		if rt == nil || rt.Val == nil {
			return false
		}
		if star, _ := starOf(rt.Val); star {
			return false
		}
		window := false
		walkNodes(rt.Val, func(c *pg_query.Node) bool {
			if fc := c.GetFuncCall(); fc != nil && fc.Over != nil {
				window = true
			}
			return !window
		})
		if window || containsSRF(it) {
			return false
		}
	}
	return true
}

// positionalList is GROUP BY 1, ..., n.
func positionalList(n int) []*pg_query.Node {
	out := make([]*pg_query.Node, n)
	for i := range out {
		out[i] = pg_query.MakeAConstIntNode(int64(i+1), -1)
	}
	return out
}

// settleRaw decides, once the statement is translated, which relations
// keep their numeric text: none if rawUnsafe (then the formatted items
// are restored to their DECIMAL form too).
func (tr *translator) settleRaw() {
	if tr.rawSettled {
		return
	}
	tr.rawSettled = true
	if tr.rawJoin && tr.haveRaw {
		tr.rawUnsafe = true
	}
	if tr.rawUnsafe {
		for n, dec := range tr.formatted {
			n.Node = dec.Node
		}
	}
	for i, from := range tr.subst {
		if i < len(tr.substRaw) && (!tr.substRaw[i] || tr.rawUnsafe) {
			tr.subst[i] = wrapDecimal(from, tr.tables[i])
		}
	}
}

// usesRawColumn reports whether a USING list names a column some relation
// of sc reads as text.
func usesRawColumn(using []*pg_query.Node, sc *scope) bool {
	for _, u := range using {
		name := u.GetString_().GetSval()
		for _, r := range sc.rels {
			for _, c := range r.cols {
				if c.raw && c.name == name {
					return true
				}
			}
		}
	}
	return false
}

// rawSetOp prepares a UNION ALL's ORDER BY: its outputs that may be text
// sort by their DECIMAL.
func (tr *translator) rawSetOp(sc *scope, cols []colInfo) {
	sc.raw = true
	sc.outputs = cols
	for _, c := range cols {
		var dec *pg_query.Node
		if c.raw {
			dec = decimalOf(pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(c.name)}, -1))
		}
		sc.outDec = append(sc.outDec, dec)
	}
}

// unionAsGroupBy rewrites a UNION (without ALL) that has text outputs as
//
//	SELECT any_value(c1) AS c1, c2, ... FROM (a UNION ALL b) AS __bsdb_setop
//	GROUP BY __bsdb_dec(c1), c2, ...
//
// so that equal values of different scales are one row, printed with the
// scale of one of them (PostgreSQL keeps the first it sees). It reports
// false, with every relation read as DECIMAL (rawUnsafe), if the output
// names are not distinct.
func (tr *translator) unionAsGroupBy(s *pg_query.SelectStmt, cols []colInfo) bool {
	anyRaw := false
	seen := map[string]bool{}
	for _, c := range cols {
		anyRaw = anyRaw || c.raw
		if seen[c.name] {
			if tr.haveRaw {
				tr.rawUnsafe = true
			}
			return false
		}
		seen[c.name] = true
	}
	if !anyRaw {
		return true
	}
	s.All = true
	wrapSetOp(s)
	s.TargetList, s.GroupClause = nil, nil
	for _, c := range cols {
		ref := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(c.name)}, -1)
		item, key := proto.Clone(ref).(*pg_query.Node), ref
		if c.raw {
			rewriteCall(item, "any_value", proto.Clone(ref).(*pg_query.Node))
			key = decimalOf(ref)
		}
		rt := pg_query.MakeResTargetNodeWithVal(item, -1)
		rt.GetResTarget().Name = c.name
		s.TargetList = append(s.TargetList, rt)
		s.GroupClause = append(s.GroupClause, key)
	}
	return true
}

// groupByOutputName turns a GROUP BY item naming an output column (not an
// input column: PostgreSQL looks at the input first) into that column's
// position, so that rawGroupBy sees it.
func groupByOutputName(g *pg_query.Node, sc *scope) {
	name, ok := bareName(g)
	if !ok {
		return
	}
	if rel, _ := resolveColumn(g.GetColumnRef(), sc); rel != nil {
		return
	}
	for i, o := range sc.outputs {
		if o.name == name {
			g.Node = pg_query.MakeAConstIntNode(int64(i+1), g.GetColumnRef().Location).Node
			return
		}
	}
}

// fastDecimalCast rewrites n, a cast of the text arg to numeric without
// a precision, into __bsdb_dec(arg): values of at most 18 digits take
// DuckDB's fast DECIMAL(18,10) cast. numeric(p,s) is left alone (DuckDB's
// DECIMAL(p,s), fast for p <= 18).
func fastDecimalCast(n, arg *pg_query.Node, mod int32) {
	if _, _, ok := NumericPrecisionScale(mod); ok {
		return
	}
	rewriteCall(n, "__bsdb_dec", arg)
}

// isDistinctOn reports whether s is SELECT DISTINCT ON (...).
func isDistinctOn(s *pg_query.SelectStmt) bool {
	return len(s.DistinctClause) > 0 && s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil
}
