package sql

import (
	"errors"
	"math"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/sql/resolve"
)

// expr translates an expression in place and infers its PostgreSQL type.
// want is the type the context expects (used to type $n parameters).
func (tr *translator) expr(n *pg_query.Node, sc *scope, want typ) (typ, error) {
	if n == nil {
		return unknownTyp, nil
	}
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		if t, ok := systemColumn(n, v.ColumnRef, sc); ok {
			return t, nil
		}
		if err := checkColumnCase(v.ColumnRef, sc); err != nil {
			return unknownTyp, err
		}
		wholeRowRef(v.ColumnRef, sc)
		t := tr.columnRef(v.ColumnRef, sc)
		tr.rawColumn(n, v.ColumnRef, sc)
		return t, nil
	case *pg_query.Node_ParamRef:
		num := int(v.ParamRef.Number)
		if num < 1 {
			return unknownTyp, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", num).WithPosition(int(v.ParamRef.Location) + 1)
		}
		tr.noteParam(num, want)
		tr.paramNodes = append(tr.paramNodes, n)
		return tr.paramType(num), nil
	case *pg_query.Node_AConst:
		return tr.constant(n, v.AConst), nil
	case *pg_query.Node_TypeCast:
		return tr.typeCast(n, v.TypeCast, sc)
	case *pg_query.Node_AExpr:
		return tr.aExpr(n, v.AExpr, sc, want)
	case *pg_query.Node_BoolExpr:
		construct := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND",
			pg_query.BoolExprType_OR_EXPR: "OR", pg_query.BoolExprType_NOT_EXPR: "NOT"}[v.BoolExpr.Boolop]
		for _, a := range v.BoolExpr.Args {
			before, loc := len(sc.srfs), exprLocation(a)
			if _, err := tr.expr(a, sc, typ{OIDBool, -1}); err != nil {
				return unknownTyp, err
			}
			if err := checkNoSetArg(sc, before, construct, loc); err != nil {
				return unknownTyp, err
			}
		}
		return typ{OIDBool, -1}, nil
	case *pg_query.Node_NullTest:
		if p := v.NullTest.Arg.GetParamRef(); p != nil && tr.untypedParam(v.NullTest.Arg) {
			tr.unknownParams = append(tr.unknownParams, p)
		}
		_, err := tr.expr(v.NullTest.Arg, sc, unknownTyp)
		return typ{OIDBool, -1}, err
	case *pg_query.Node_BooleanTest:
		before, loc := len(sc.srfs), exprLocation(v.BooleanTest.Arg)
		if _, err := tr.expr(v.BooleanTest.Arg, sc, typ{OIDBool, -1}); err != nil {
			return unknownTyp, err
		}
		return typ{OIDBool, -1}, checkNoSetArg(sc, before, booleanTestName(v.BooleanTest.Booltesttype), loc)
	case *pg_query.Node_FuncCall:
		return tr.funcCall(n, v.FuncCall, sc)
	case *pg_query.Node_CaseExpr:
		before := len(sc.srfs)
		t, err := tr.caseExpr(v.CaseExpr, sc, want)
		if err == nil {
			err = checkNoSRF(sc, before, "CASE")
		}
		return t, err
	case *pg_query.Node_CoalesceExpr:
		before := len(sc.srfs)
		t, err := tr.commonTypeArgs(v.CoalesceExpr.Args, sc, want, "COALESCE")
		if err == nil {
			err = checkNoSRF(sc, before, "COALESCE")
		}
		return t, err
	case *pg_query.Node_MinMaxExpr:
		construct := "GREATEST"
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			construct = "LEAST"
		}
		return tr.commonTypeArgs(v.MinMaxExpr.Args, sc, want, construct)
	case *pg_query.Node_SubLink:
		return tr.subLink(v.SubLink, sc)
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueFunctionType(v.SqlvalueFunction.Op), nil
	case *pg_query.Node_AArrayExpr:
		// ARRAY[[...]] nested beyond MAXDIM: PostgreSQL's 54000 (no
		// position, an executor error), before the nest reaches the
		// deparser, whose recursion a few thousand levels overflow.
		if d := arrayNesting(v.AArrayExpr, pgtypes.MaxArrayDims+1); d > pgtypes.MaxArrayDims {
			return unknownTyp, pgtypes.TooManyArrayDims(d)
		}
		return tr.arrayExpr(n, v.AArrayExpr, sc, want)
	case *pg_query.Node_List:
		var t typ
		for _, it := range v.List.Items {
			var err error
			if t, err = tr.expr(it, sc, want); err != nil {
				return unknownTyp, err
			}
		}
		return t, nil
	}
	return unknownTyp, tr.generic(n, sc)
}

// exprInto is expr that also stores the type in *dst.
func (tr *translator) exprInto(dst *typ, n *pg_query.Node, sc *scope, want typ) (typ, error) {
	t, err := tr.expr(n, sc, want)
	*dst = t
	return t, err
}

// generic translates every expression below m without inferring a type.
func (tr *translator) generic(n *pg_query.Node, sc *scope) error {
	var err error
	walkChildren(n, func(c *pg_query.Node) bool {
		if err == nil {
			_, err = tr.expr(c, sc, unknownTyp)
		}
		return false
	})
	return err
}

func (tr *translator) columnRef(cr *pg_query.ColumnRef, sc *scope) typ {
	if rel, i := resolveColumn(cr, sc); rel != nil {
		return rel.cols[i].t
	}
	return unknownTyp
}

// constant types a literal like PostgreSQL does. Integer literals are
// pinned with an explicit cast (see doc.go, "integer literals") so that
// DuckDB's literal widening does not hide PostgreSQL's overflow errors.
func (tr *translator) constant(n *pg_query.Node, c *pg_query.A_Const) typ {
	if c.Isnull {
		return typ{OIDUnknown, -1}
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		// Ival holds int4 values only; larger integers arrive as Fval.
		pinType(n, "integer")
		return typ{OIDInt4, -1}
	case *pg_query.A_Const_Fval:
		s := v.Fval.Fval
		if !strings.ContainsAny(s, ".eE") {
			if _, ok := parseInt64(s); ok {
				pinType(n, "bigint")
				return typ{OIDInt8, -1}
			}
		}
		return typ{OIDNumeric, -1}
	case *pg_query.A_Const_Sval:
		return typ{OIDUnknown, -1}
	case *pg_query.A_Const_Boolval:
		return typ{OIDBool, -1}
	case *pg_query.A_Const_Bsval:
		return typ{OIDText, -1}
	}
	return unknownTyp
}

func parseInt64(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if s == "" || strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0o") || strings.HasPrefix(s, "0b") {
		return 0, false
	}
	var v uint64
	for _, r := range strings.ReplaceAll(s, "_", "") {
		if r < '0' || r > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(r-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v-1) - 1, true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// pinType wraps the node's current content in CAST(... AS name).
func pinType(n *pg_query.Node, name string) {
	inner := &pg_query.Node{Node: n.Node}
	n.Node = &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{
		Arg:      inner,
		TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode(name)}, Typemod: -1, Location: -1},
		Location: -1,
	}}
}

// castTo wraps the node in a cast to the DuckDB spelling of t.
func castTo(n *pg_query.Node, t typ) error {
	tn, err := duckTypeName(t.oid, t.mod)
	if err != nil {
		return err
	}
	inner := &pg_query.Node{Node: n.Node}
	n.Node = &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: inner, TypeName: tn, Location: -1}}
	return nil
}

func (tr *translator) typeCast(n *pg_query.Node, tc *pg_query.TypeCast, sc *scope) (typ, error) {
	oid, mod, err := ResolveTypeName(tc.TypeName)
	if err != nil {
		if !isPostgresTypeName(tc.TypeName) {
			// DuckDB's own types (hugeint, varint, struct, ...) are not
			// PostgreSQL's: 42704 as PostgreSQL says it.
			return unknownTyp, err
		}
		// PostgreSQL types we do not translate (oid aliases...) are left
		// to DuckDB, which may know them.
		if _, err := tr.expr(tc.Arg, sc, unknownTyp); err != nil {
			return unknownTyp, err
		}
		return unknownTyp, nil
	}
	t := typ{oid, mod}
	if c := tc.Arg.GetAConst(); c != nil && (c.GetSval() != nil || oid == OIDNumeric ||
		c.GetFval() != nil && (oid == OIDFloat8 || oid == OIDFloat4)) {
		// (1e400::float8: numeric -> float, 22003 out of range as in PostgreSQL)
		// 'text'::type: PostgreSQL's input function decides.
		if ok, err := tr.foldLiteral(tc.Arg, t); err != nil {
			return unknownTyp, err
		} else if ok {
			n.Node = tc.Arg.Node
			return t, nil
		}
	}
	var argTyp typ
	dims := 1
	if a := tc.Arg.GetAArrayExpr(); a != nil && ElemOID(oid) != 0 {
		// ARRAY[[1,2],[3,4]]::int[]: PostgreSQL's array types have no
		// dimension count; the engine's nested list needs its depth.
		dims = arrayNesting(a, pgtypes.MaxArrayDims+1)
	}
	if p := tc.Arg.GetParamRef(); p != nil && p.Number >= 1 {
		// $n::type: typed by the user, no extra cast needed.
		tr.noteParam(int(p.Number), t)
	} else if at, err := tr.exprInto(&argTyp, tc.Arg, sc, t); err != nil {
		return unknownTyp, err
	} else if (oid == OIDText || oid == OIDVarchar) && isRawType(at) && tr.numericText(tc.Arg, sc) {
		// numeric read as text -> text: the text itself (rawnum.go).
	} else if oid == OIDBool && isStringType(at.oid) {
		// text -> boolean: PostgreSQL's boolin (DuckDB refuses ' true ', 'on').
		rewriteCall(n, "__bsdb_text_bool", tc.Arg)
		return t, nil
	} else if at.oid == OIDBpchar && (oid == OIDText || oid == OIDVarchar) {
		// bpchar -> text drops the padding (rtrim1 in PostgreSQL).
		rtrimBlanks(tc.Arg)
	} else if (oid == OIDText || oid == OIDVarchar) && (at.oid == OIDInterval || at.oid == OIDBytea) {
		// DuckDB's own text of these types is not PostgreSQL's
		// ("2 months", "\xDE\xAD"): use PostgreSQL's output function.
		fn := "__bsdb_bytea_text"
		if at.oid == OIDInterval {
			fn = "__bsdb_interval_text" // a Go function registered by the planner
		}
		rewriteCall(n, fn, tc.Arg)
		return t, nil
	} else if (oid == OIDText || oid == OIDVarchar) && (at.oid == pgtypes.OIDInt2Vector || at.oid == pgtypes.OIDOIDVector) {
		// int2vector / oidvector -> text: their output is the elements
		// separated by spaces ("1 2"); the engine's list prints "[1, 2]".
		rewriteCall(n, "array_to_string", tc.Arg, pg_query.MakeAConstStrNode(" ", -1))
		return t, nil
	} else if oid == OIDInt8 && at.oid == OIDRegproc {
		// regproc::oid (::int8 after rewriteRegCast): the catalogs hold
		// regproc values as names (pgcatalog's known gap), so the OID is
		// looked up by name. A regproc column comes from a system
		// relation, whose reading set up the macros.
		tc.Arg = makeCall(pgcatalog.MacroPrefix+"regproc_oid_in", -1, tc.Arg)
	} else if (oid == OIDText || oid == OIDVarchar) && (at.oid == OIDFloat8 || at.oid == OIDFloat4) {
		// DuckDB prints 2.0, nan, inf; PostgreSQL's float8out prints
		// 2, NaN, Infinity (Go functions registered by the planner).
		fn := "__bsdb_float8_text"
		if at.oid == OIDFloat4 {
			fn = "__bsdb_float4_text"
		}
		rewriteCall(n, fn, tc.Arg)
		return t, nil
	}
	if tn, err := duckTypeName(oid, mod); err == nil {
		tn.Location = tc.TypeName.Location
		for len(tn.ArrayBounds) > 0 && len(tn.ArrayBounds) < dims {
			tn.ArrayBounds = append(tn.ArrayBounds, pg_query.MakeIntNode(-1))
		}
		tc.TypeName = tn
	}
	if oid == OIDNumeric && isStringType(argTyp.oid) {
		fastDecimalCast(n, tc.Arg, mod)
	}
	return t, nil
}

// arithmetic operators whose result type follows numeric promotion.
var arithOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "^": true}

func (tr *translator) aExpr(n *pg_query.Node, e *pg_query.A_Expr, sc *scope, want typ) (typ, error) {
	op := ""
	if len(e.Name) > 0 {
		op = e.Name[len(e.Name)-1].GetString_().GetSval()
	}
	if e.Kind == pg_query.A_Expr_Kind_AEXPR_OP && e.Lexpr != nil && (op == "?" || op == "?|" || op == "?&") {
		return tr.jsonbExists(n, e, op, sc)
	}
	switch e.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		// x op ANY (array) with another operator than = (and <> for ALL),
		// which syscat.go turns into list_contains.
		return tr.listContains(e.Rexpr, e.Lexpr, sc)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		if list := e.Rexpr.GetList(); list != nil && tr.untypedParam(e.Lexpr) {
			// $1 IN (1, 2): PostgreSQL types $1 from the list.
			_, err := tr.sameTypeArgs(append([]*pg_query.Node{e.Lexpr}, list.Items...), sc, unknownTyp)
			return typ{OIDBool, -1}, err
		}
		lt, err := tr.expr(e.Lexpr, sc, unknownTyp)
		if err != nil {
			return unknownTyp, err
		}
		if _, err := tr.expr(e.Rexpr, sc, lt); err != nil {
			return unknownTyp, err
		}
		return typ{OIDBool, -1}, nil
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		lt, rt, err := tr.binaryOperands(e, sc, want)
		if err != nil {
			return unknownTyp, err
		}
		if resolvableType(lt) && resolvableType(rt) {
			// PostgreSQL resolves NULLIF(a, b) as a = b; the result has
			// the type of the operator's left argument.
			oc, err := Builtins.ResolveOperator("=", lt.oid, rt.oid)
			if err != nil {
				if pe, ok := pgerr.As(err); ok {
					return unknownTyp, withLocation(pe, e.Location)
				}
				return unknownTyp, err
			}
			if err := tr.typeUnknownOperand(e.Lexpr, &lt, oc.Left); err != nil {
				return unknownTyp, err
			}
			if err := tr.typeUnknownOperand(e.Rexpr, &rt, oc.Right); err != nil {
				return unknownTyp, err
			}
			if oc.Left != lt.oid {
				return typ{oc.Left, -1}, nil
			}
			return lt, nil
		}
		if lt.oid == OIDVarchar || lt.oid == OIDBpchar {
			// The = operator resolves to text = text, so NULLIF is text.
			return typ{OIDText, -1}, nil
		}
		return lt, nil
	}
	untypedL, untypedR := tr.untypedParam(e.Lexpr), tr.untypedParam(e.Rexpr)
	var lt, rt typ
	var err error
	switch e.Kind {
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM,
		pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		// PostgreSQL expands BETWEEN into AND (NOT BETWEEN into OR) of
		// comparisons, whose arguments must not return a set.
		construct := "AND"
		if e.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN || e.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			construct = "OR"
		}
		before, loc := len(sc.srfs), exprLocation(e.Lexpr)
		if loc < 0 {
			loc = e.Location
		}
		if _, _, err := tr.binaryOperands(e, sc, want); err != nil {
			return unknownTyp, err
		}
		return typ{OIDBool, -1}, checkNoSetArg(sc, before, construct, loc)
	}
	if op == "||" && e.Kind == pg_query.A_Expr_Kind_AEXPR_OP && (untypedL || untypedR) {
		lt, rt, err = tr.concatOperands(e, sc, untypedL, untypedR)
	} else {
		lt, rt, err = tr.binaryOperands(e, sc, want)
	}
	if err != nil {
		return unknownTyp, err
	}
	if compareOps[op] || e.Kind == pg_query.A_Expr_Kind_AEXPR_LIKE || e.Kind == pg_query.A_Expr_Kind_AEXPR_ILIKE {
		// $1 = 'a', $1 LIKE 'a%': with both operands untyped PostgreSQL
		// picks the text operator, so $1 is text.
		if untypedL && rt.oid == OIDUnknown {
			lt = tr.typeParam(e.Lexpr, typ{OIDText, -1})
		}
		if untypedR && lt.oid == OIDUnknown {
			rt = tr.typeParam(e.Rexpr, typ{OIDText, -1})
		}
	}
	if fn, ok := likeFuncs[op]; ok && e.Lexpr != nil && (e.Kind == pg_query.A_Expr_Kind_AEXPR_OP ||
		e.Kind == pg_query.A_Expr_Kind_AEXPR_LIKE || e.Kind == pg_query.A_Expr_Kind_AEXPR_ILIKE) {
		// LIKE is its operator (~~ and friends): resolved as one.
		pattern := e.Rexpr
		pt := rt
		if fc := e.Rexpr.GetFuncCall(); fc != nil && len(fc.Args) == 2 {
			if _, name := funcName(fc); name == "like_escape" {
				// ESCAPE: the pattern is like_escape's first argument, an
				// untyped literal or of a type not inferred here.
				pattern, pt = fc.Args[0], unknownTyp
				if c := pattern.GetAConst(); c != nil && (c.Isnull || c.GetSval() != nil) {
					pt = typ{OIDUnknown, -1}
				}
			}
		}
		asOp := &pg_query.A_Expr{Kind: pg_query.A_Expr_Kind_AEXPR_OP, Name: e.Name, Lexpr: e.Lexpr, Rexpr: pattern, Location: e.Location}
		if _, err := tr.resolveOperator(asOp, op, &lt, &pt); err != nil {
			return unknownTyp, err
		}
		rewriteLike(n, e, fn)
		return typ{OIDBool, -1}, nil
	}
	if e.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
		return typ{OIDBool, -1}, nil // SIMILAR, BETWEEN, DISTINCT, ANY/ALL
	}
	// PostgreSQL's operator resolution, when both operand types are known
	// (or untyped literals): its result type, its errors, and the untyped
	// literals typed as the operator's arguments.
	resolved, err := tr.resolveOperator(e, op, &lt, &rt)
	if err != nil {
		return unknownTyp, err
	}
	if e.Lexpr == nil { // prefix operator: -x, +x, ~x
		if resolved.known() {
			return resolved, nil
		}
		return rt, nil
	}
	if !resolved.known() {
		if err := checkOperands(e, op, lt, rt); err != nil {
			return unknownTyp, err
		}
	}

	if compareOps[op] && (lt.oid == OIDBpchar || rt.oid == OIDBpchar) && !isNullConst(e.Lexpr) && !isNullConst(e.Rexpr) {
		// character(n) compares without its trailing blanks (bpchareq);
		// DuckDB compares the padded text.
		rtrimBlanks(e.Lexpr)
		rtrimBlanks(e.Rexpr)
		return typ{OIDBool, -1}, nil
	}
	switch {
	case arithOps[op]:
		res := promote(lt, rt, op)
		if resolved.known() {
			res = resolved
		}
		if res.oid == OIDFloat8 {
			// DuckDB computes INTEGER op FLOAT in FLOAT; PostgreSQL
			// widens the operands to float8 first.
			if lt.oid == OIDFloat4 {
				_ = castTo(e.Lexpr, res)
			}
			if rt.oid == OIDFloat4 {
				_ = castTo(e.Rexpr, res)
			}
		}
		if op == "-" && lt.oid == OIDDate && rt.oid == OIDDate {
			_ = castTo(n, res) // DuckDB: BIGINT; PostgreSQL: integer days
			return res, nil
		}
		switch op {
		case "/":
			if m, msg, ok := intMin(res.oid); ok {
				// PostgreSQL's int division: min / -1 overflows with the
				// type's message (DuckDB's says "Overflow in division").
				rewriteCall(n, "__bsdb_idiv", e.Lexpr, e.Rexpr, m, pg_query.MakeAConstStrNode(msg, -1))
				break
			}
			rewriteCall(n, "__bsdb_div", e.Lexpr, e.Rexpr)
			if (res.oid == OIDFloat8 || res.oid == OIDFloat4) && duplicable(e.Lexpr) && duplicable(e.Rexpr) {
				inner := &pg_query.Node{Node: n.Node}
				rewriteCall(n, "__bsdb_fchk", inner, e.Lexpr, e.Rexpr)
			}
			if res.oid == OIDNumeric {
				// DuckDB divides DECIMALs in DOUBLE; PostgreSQL keeps
				// numeric. Cast back (scale: doc.go "numeric division").
				_ = castTo(n, typ{OIDNumeric, TypeModNumeric(38, 16)})
				tr.noteNumericDivision(n, e.Lexpr, e.Rexpr)
				res = typ{OIDNumeric, -1}
			}
		case "%":
			if _, _, ok := intMin(res.oid); ok {
				// min % -1 is 0 in PostgreSQL, an overflow in DuckDB.
				rewriteCall(n, "__bsdb_imod", e.Lexpr, e.Rexpr)
				break
			}
			rewriteCall(n, "__bsdb_mod", e.Lexpr, e.Rexpr)
		case "^", "+", "-", "*":
			if (res.oid == OIDFloat8 || res.oid == OIDFloat4) && duplicable(e.Lexpr) && duplicable(e.Rexpr) {
				// Overflow to ±Infinity is an error in PostgreSQL.
				inner := &pg_query.Node{Node: n.Node}
				rewriteCall(n, "__bsdb_fchk", inner, e.Lexpr, e.Rexpr)
			}
		}
		return res, nil
	case (op == "<<" || op == ">>") && (resolved.oid == OIDInt2 || resolved.oid == OIDInt4 || resolved.oid == OIDInt8):
		// C's shifts, as PostgreSQL's int*shl/int*shr compute them: an
		// int2 is shifted as an int4, then truncated.
		bits, cm := map[uint32]int{OIDInt2: 16, OIDInt4: 32, OIDInt8: 64}[resolved.oid], 31
		if resolved.oid == OIDInt8 {
			cm = 63
		}
		if op == "<<" {
			rewriteCall(n, "__bsdb_shl", e.Lexpr, e.Rexpr, pg_query.MakeAConstIntNode(int64(bits), -1), pg_query.MakeAConstIntNode(int64(cm), -1))
		} else {
			rewriteCall(n, "__bsdb_shr", e.Lexpr, e.Rexpr, pg_query.MakeAConstIntNode(int64(cm), -1))
		}
		_ = castTo(n, resolved)
		return resolved, nil
	case op == "||":
		if resolved.known() && (ElemOID(resolved.oid) != 0 || resolved.oid == OIDBytea || resolved.oid == OIDJSONB) {
			return resolved, nil // array || element, array || array, bytea, jsonb
		}
		if lt.oid != 0 && ElemOID(lt.oid) != 0 {
			return lt, nil
		}
		if rt.oid != 0 && ElemOID(rt.oid) != 0 {
			return rt, nil
		}
		// PostgreSQL's anynonarray || text coerces the other side to
		// text; DuckDB needs it spelled out for non-string operands.
		for _, side := range []struct {
			n *pg_query.Node
			t typ
		}{{e.Lexpr, lt}, {e.Rexpr, rt}} {
			if side.t.known() && !isStringType(side.t.oid) && !(isRawType(side.t) && tr.numericText(side.n, sc)) {
				_ = castTo(side.n, typ{OIDText, -1})
			}
			if side.t.oid == OIDBpchar {
				rtrimBlanks(side.n) // bpchar || text concatenates the trimmed value
			}
		}
		if !lt.known() || !rt.known() {
			// 'a' || NULL: DuckDB types the result after the NULL.
			_ = castTo(n, typ{OIDText, -1})
		}
		return typ{OIDText, -1}, nil
	case op == "->" || op == "#>":
		if lt.oid == OIDJSON || lt.oid == OIDJSONB {
			if op == "->" {
				// DuckDB parses -> as its lambda arrow, binding looser
				// than PostgreSQL's operator ((j->'b') IS NULL would
				// become j -> ('b' IS NULL)): the function it stands for.
				rewriteCall(n, "json_extract", e.Lexpr, e.Rexpr)
			}
			return lt, nil
		}
		return resolved, nil
	case op == "->>" || op == "#>>":
		if op == "->>" && (lt.oid == OIDJSON || lt.oid == OIDJSONB) {
			rewriteCall(n, "json_extract_string", e.Lexpr, e.Rexpr)
		}
		return typ{OIDText, -1}, nil
	case op == "=" || op == "<>" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" ||
		op == "~" || op == "~*" || op == "!~" || op == "!~*" || op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*":
		return typ{OIDBool, -1}, nil
	}
	return resolved, nil
}

// resolvableType reports whether the translator knows t as PostgreSQL
// would type it (an untyped literal counts: it is PostgreSQL's unknown).
func resolvableType(t typ) bool { return t.oid != 0 }

// resolveOperator resolves the operator of e as PostgreSQL's oper() and
// left_oper() do (package resolve), when every operand's type is known,
// and returns its result type (unknownTyp when it cannot tell: an operand
// of a type the translator did not infer). An operand that is an untyped
// literal is typed as the operator's argument: a string folded by that
// type's input function (PostgreSQL's errors), a NULL cast. Errors are
// PostgreSQL's, at the operator: 42883 "operator does not exist: ..."
// (DuckDB's own operators, such as //, are not PostgreSQL's), 42725.
func (tr *translator) resolveOperator(e *pg_query.A_Expr, op string, lt, rt *typ) (typ, error) {
	if e.Kind != pg_query.A_Expr_Kind_AEXPR_OP || e.Rexpr == nil || !resolvableType(*rt) ||
		e.Lexpr != nil && !resolvableType(*lt) || len(e.Name) > 2 {
		return unknownTyp, nil
	}
	if len(e.Name) == 2 && e.Name[0].GetString_().GetSval() != "pg_catalog" {
		return unknownTyp, nil
	}
	var left uint32
	if e.Lexpr != nil {
		left = lt.oid
	}
	oc, err := Builtins.ResolveOperator(op, left, rt.oid)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return unknownTyp, withLocation(pe, e.Location)
		}
		return unknownTyp, err
	}
	if e.Lexpr != nil {
		if err := tr.typeUnknownOperand(e.Lexpr, lt, oc.Left); err != nil {
			return unknownTyp, err
		}
	}
	if err := tr.typeUnknownOperand(e.Rexpr, rt, oc.Right); err != nil {
		return unknownTyp, err
	}
	return typ{oc.Ret, -1}, nil
}

// typeUnknownOperand gives an untyped literal operand the type its
// operator takes (PostgreSQL coerces the literal while it is a literal).
func (tr *translator) typeUnknownOperand(n *pg_query.Node, t *typ, declared uint32) error {
	if t.oid != OIDUnknown || declared == 0 || resolve.IsPolymorphic(declared) || declared == OIDUnknown {
		return nil
	}
	want := typ{declared, -1}
	c := n.GetAConst()
	if c == nil {
		return nil
	}
	if c.Isnull {
		if _, err := duckTypeName(declared, -1); err == nil {
			_ = castTo(n, want)
			*t = want
		}
		return nil
	}
	if c.GetSval() == nil {
		return nil
	}
	if ok, err := tr.foldLiteral(n, want); err != nil {
		return err
	} else if ok {
		*t = want
	}
	return nil
}

// duplicable reports whether an operand may be written twice into the
// engine's query (the float overflow check reads the operands again): no
// subquery, whose relations are placeholders that occur once and which
// would run twice, and no volatile function, whose second call differs.
func duplicable(n *pg_query.Node) bool {
	ok := true
	walkNodes(n, func(x *pg_query.Node) bool {
		switch v := x.Node.(type) {
		case *pg_query.Node_SubLink:
			ok = false
		case *pg_query.Node_FuncCall:
			if len(v.FuncCall.Funcname) > 0 {
				switch v.FuncCall.Funcname[len(v.FuncCall.Funcname)-1].GetString_().GetSval() {
				case "random", "nextval", "setval", SessionFuncPrefix + "nextval", SessionFuncPrefix + "setval", "gen_random_uuid", "clock_timestamp", "timeofday", "random_normal":
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// intMin is the smallest value of an integer type, as a typed literal,
// and the type's out-of-range message.
func intMin(oid uint32) (*pg_query.Node, string, bool) {
	var n *pg_query.Node
	var msg string
	switch oid {
	case OIDInt2:
		n, msg = pg_query.MakeAConstIntNode(-32768, -1), "smallint out of range"
	case OIDInt4:
		n, msg = pg_query.MakeAConstIntNode(-2147483648, -1), "integer out of range"
	case OIDInt8:
		n, msg = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Fval{Fval: &pg_query.Float{Fval: "-9223372036854775808"}}, Location: -1}}}, "bigint out of range"
	default:
		return nil, "", false
	}
	_ = castTo(n, typ{oid, -1})
	return n, msg, true
}

// likeFuncs are DuckDB's LIKE functions that take an escape character, by
// PostgreSQL's operator name.
var likeFuncs = map[string]string{"~~": "like_escape", "!~~": "not_like_escape", "~~*": "ilike_escape", "!~~*": "not_ilike_escape"}

// rewriteLike turns a LIKE (ILIKE, NOT LIKE, ~~ ...) into DuckDB's
// like_escape(x, pattern, escape): PostgreSQL's LIKE takes a backslash as
// its escape character unless ESCAPE says otherwise (the grammar turns
// "p ESCAPE e" into like_escape(p, e)); DuckDB's LIKE has none, so
// 'a_b' LIKE 'a\_b' was false.
func rewriteLike(n *pg_query.Node, e *pg_query.A_Expr, fn string) {
	pattern, escape := e.Rexpr, pg_query.MakeAConstStrNode(`\`, -1)
	if fc := e.Rexpr.GetFuncCall(); fc != nil && len(fc.Args) == 2 {
		if _, name := funcName(fc); name == "like_escape" {
			pattern, escape = fc.Args[0], fc.Args[1]
		}
	}
	rewriteCall(n, fn, e.Lexpr, pattern, escape)
}

// binaryOperands translates both operands, typing a parameter on one side
// from the other side.
func (tr *translator) binaryOperands(e *pg_query.A_Expr, sc *scope, want typ) (typ, typ, error) {
	var lt, rt typ
	var err error
	if e.Lexpr != nil && e.Lexpr.GetParamRef() != nil && (tr.untypedParam(e.Lexpr) || e.Rexpr.GetParamRef() == nil) {
		if rt, err = tr.expr(e.Rexpr, sc, want); err != nil {
			return lt, rt, err
		}
		lt, err = tr.expr(e.Lexpr, sc, firstKnown(operandParamType(rt), want))
		return lt, rt, err
	}
	if lt, err = tr.expr(e.Lexpr, sc, want); err != nil {
		return lt, rt, err
	}
	rt, err = tr.expr(e.Rexpr, sc, firstKnown(operandParamType(lt), want))
	return lt, rt, err
}

// operandParamType is the type an untyped $n takes opposite an operand of
// type t: t, but text for varchar, which has no operators of its own
// (v = $1 resolves as text = text).
func operandParamType(t typ) typ {
	if t.oid == OIDVarchar {
		return typ{OIDText, -1}
	}
	return t
}

// concatOperands translates the operands of || where one is an untyped
// $n: that one is text (PostgreSQL's text || anynonarray), unless the
// other side is an array.
func (tr *translator) concatOperands(e *pg_query.A_Expr, sc *scope, untypedL, untypedR bool) (typ, typ, error) {
	paramType := func(other typ) typ {
		if ElemOID(other.oid) != 0 {
			return other
		}
		return typ{OIDText, -1}
	}
	var lt, rt typ
	var err error
	if !untypedL {
		if lt, err = tr.expr(e.Lexpr, sc, unknownTyp); err != nil {
			return lt, rt, err
		}
	}
	if !untypedR {
		if rt, err = tr.expr(e.Rexpr, sc, unknownTyp); err != nil {
			return lt, rt, err
		}
	}
	if untypedL {
		if lt, err = tr.expr(e.Lexpr, sc, paramType(rt)); err != nil {
			return lt, rt, err
		}
	}
	if untypedR {
		rt, err = tr.expr(e.Rexpr, sc, paramType(lt))
	}
	return lt, rt, err
}

func firstKnown(ts ...typ) typ {
	for _, t := range ts {
		if t.known() {
			return t
		}
	}
	return unknownTyp
}

func isStringType(oid uint32) bool {
	switch oid {
	case OIDText, OIDVarchar, OIDBpchar, OIDChar, OIDName, OIDUnknown:
		return true
	}
	return false
}

// rewriteCall replaces n with fn(args...).
func rewriteCall(n *pg_query.Node, fn string, args ...*pg_query.Node) {
	n.Node = &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
		Funcname:   []*pg_query.Node{pg_query.MakeStrNode(fn)},
		Args:       args,
		Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
		Location:   -1,
	}}
}

// numericRank orders the numeric types for promotion.
var numericRank = map[uint32]int{OIDInt2: 1, OIDInt4: 2, OIDInt8: 3, OIDNumeric: 4, OIDFloat4: 5, OIDFloat8: 6}

// promote is PostgreSQL's result type for arithmetic on two numeric types.
func promote(l, r typ, op string) typ {
	if !l.known() {
		l, r = r, l
	}
	if !l.known() {
		return unknownTyp
	}
	if !r.known() {
		r = l
	}
	lr, lok := numericRank[l.oid]
	rr, rok := numericRank[r.oid]
	if !lok || !rok {
		// date/timestamp/interval arithmetic and friends.
		switch {
		case l.oid == OIDDate && r.oid == OIDDate && op == "-":
			return typ{OIDInt4, -1}
		case l.oid == OIDDate && r.oid == OIDInterval, l.oid == OIDInterval && r.oid == OIDDate:
			return typ{OIDTimestamp, -1}
		case l.oid == OIDDate && rok:
			return typ{OIDDate, -1}
		case (l.oid == OIDTimestamp || l.oid == OIDTimestamptz) && r.oid == l.oid && op == "-":
			return typ{OIDInterval, -1}
		case l.oid == OIDTimestamp || l.oid == OIDTimestamptz:
			return typ{l.oid, -1}
		case l.oid == OIDInterval && (r.oid == OIDTimestamp || r.oid == OIDTimestamptz):
			return typ{r.oid, -1}
		case l.oid == OIDInterval:
			return typ{OIDInterval, -1}
		}
		return unknownTyp
	}
	if op == "^" {
		if lr == 4 || rr == 4 {
			return typ{OIDNumeric, -1}
		}
		return typ{OIDFloat8, -1}
	}
	res := l
	if rr > lr {
		res = r
	}
	if res.oid == OIDInt2 {
		// int2 op int2 is int2 in PostgreSQL, and int2 op int4 is int4.
		return typ{OIDInt2, -1}
	}
	if res.oid == OIDFloat4 && lr != rr {
		// float4 op numeric/integer resolves to float8 op float8 (float8
		// is the preferred type of the numeric category).
		return typ{OIDFloat8, -1}
	}
	return typ{res.oid, -1}
}

// unifyTypes picks the result type of two branches (UNION, VALUES, CASE).
func unifyTypes(a, b typ) typ {
	if !a.known() {
		return b
	}
	if !b.known() || a == b {
		return a
	}
	if a.oid == b.oid {
		return typ{a.oid, -1}
	}
	ar, aok := numericRank[a.oid]
	br, bok := numericRank[b.oid]
	if aok && bok {
		if br > ar {
			return typ{b.oid, -1}
		}
		return typ{a.oid, -1}
	}
	if isStringType(a.oid) && isStringType(b.oid) {
		return typ{OIDText, -1}
	}
	return a
}

func (tr *translator) caseExpr(c *pg_query.CaseExpr, sc *scope, want typ) (typ, error) {
	at, err := tr.expr(c.Arg, sc, unknownTyp)
	if err != nil {
		return unknownTyp, err
	}
	if c.Arg != nil && tr.untypedParam(c.Arg) {
		// An untyped test expression is coerced to text (transformCaseExpr).
		at = tr.typeParam(c.Arg, typ{OIDText, -1})
	}
	res := unknownTyp
	// Results that are bare parameters take the type of the others
	// (PostgreSQL's common type of the CASE), so they come last.
	var params []*pg_query.Node
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		if cw == nil {
			continue
		}
		condWant := typ{OIDBool, -1}
		if c.Arg != nil {
			condWant = at
		}
		wt, err := tr.expr(cw.Expr, sc, condWant)
		if err != nil {
			return unknownTyp, err
		}
		if c.Arg != nil && at.known() && wt.known() {
			// CASE x WHEN y is x = y, resolved as an operator (make_op at
			// the WHEN): its errors ("operator does not exist: text =
			// integer").
			eq := &pg_query.A_Expr{Kind: pg_query.A_Expr_Kind_AEXPR_OP, Name: []*pg_query.Node{pg_query.MakeStrNode("=")},
				Lexpr: c.Arg, Rexpr: cw.Expr, Location: cw.Location}
			lt, rt := at, wt
			if _, err := tr.resolveOperator(eq, "=", &lt, &rt); err != nil {
				return unknownTyp, err
			}
		}
		if tr.untypedParam(cw.Result) {
			params = append(params, cw.Result)
			continue
		}
		t, err := tr.expr(cw.Result, sc, want)
		if err != nil {
			return unknownTyp, err
		}
		tr.noteType(cw.Result, t)
		res = unifyTypes(res, t)
	}
	if tr.untypedParam(c.Defresult) {
		params = append(params, c.Defresult)
	} else if c.Defresult != nil {
		t, err := tr.expr(c.Defresult, sc, firstKnown(res, want))
		if err != nil {
			return unknownTyp, err
		}
		tr.noteType(c.Defresult, t)
		res = unifyTypes(res, t)
	}
	for _, p := range params {
		t, err := tr.expr(p, sc, firstKnown(res, want))
		if err != nil {
			return unknownTyp, err
		}
		res = unifyTypes(res, t)
	}
	if len(params) == 0 {
		if common, err := tr.caseCommonType(c, res); err != nil || common.known() {
			return common, err
		}
	}
	if res.oid == OIDUnknown {
		res = typ{OIDText, -1}
	}
	return res, nil
}

// caseCommonType is transformCaseExpr's select_common_type over the
// results (the ELSE one first; a missing ELSE is a NULL) when the
// translator knows every result's type: PostgreSQL's type and errors
// (42804 "CASE types text and integer cannot be matched", 42846
// "CASE/WHEN could not convert type ...", at the result), untyped literal
// results typed as it. unknownTyp when some type is not known.
func (tr *translator) caseCommonType(c *pg_query.CaseExpr, res typ) (typ, error) {
	var nodes []*pg_query.Node
	var types []typ
	add := func(n *pg_query.Node) bool {
		if n == nil {
			nodes, types = append(nodes, nil), append(types, typ{OIDUnknown, -1})
			return true
		}
		t, ok := tr.nodeTypes[n]
		if !ok || !resolvableType(t) {
			return false
		}
		nodes, types = append(nodes, n), append(types, t)
		return true
	}
	if !add(c.Defresult) {
		return unknownTyp, nil
	}
	for _, w := range c.Args {
		if cw := w.GetCaseWhen(); cw != nil && !add(cw.Result) {
			return unknownTyp, nil
		}
	}
	oids := make([]uint32, len(types))
	for i, t := range types {
		oids[i] = t.oid
	}
	common, err := Builtins.SelectCommonType(oids, "CASE")
	if err != nil {
		var ce *resolve.CommonTypeError
		if errors.As(err, &ce) {
			return unknownTyp, withLocation(ce.Err, exprLocation(nodes[ce.Index]))
		}
		return unknownTyp, err
	}
	for i, n := range nodes {
		if oids[i] == OIDUnknown || oids[i] == common {
			if n != nil {
				if err := tr.typeUnknownOperand(n, &types[i], common); err != nil {
					return unknownTyp, err
				}
			}
			continue
		}
		if !Builtins.CanCoerce([]uint32{oids[i]}, []uint32{common}, resolve.CoerceImplicit) {
			context := "CASE/WHEN"
			if i == 0 {
				context = "CASE/ELSE"
			}
			return unknownTyp, withLocation(Builtins.CoerceToCommonError(context, oids[i], common), exprLocation(n))
		}
	}
	if common == res.oid {
		return res, nil
	}
	return typ{common, -1}, nil
}

// commonTypeArgs is sameTypeArgs for a construct whose result is
// select_common_type of its arguments (COALESCE, GREATEST, LEAST): when
// every argument's type is known, PostgreSQL's common type, its errors
// (42804 "COALESCE types text and integer cannot be matched", 42846 at the
// argument that cannot be converted), and untyped literals typed as it.
func (tr *translator) commonTypeArgs(args []*pg_query.Node, sc *scope, want typ, construct string) (typ, error) {
	res, err := tr.sameTypeArgs(args, sc, want)
	if err != nil {
		return res, err
	}
	types := make([]typ, len(args))
	oids := make([]uint32, len(args))
	for i, a := range args {
		if a.GetParamRef() != nil {
			return res, nil
		}
		t, ok := tr.nodeTypes[a]
		if !ok || !resolvableType(t) {
			return res, nil
		}
		types[i], oids[i] = t, t.oid
	}
	common, err := Builtins.SelectCommonType(oids, construct)
	if err != nil {
		var ce *resolve.CommonTypeError
		if errors.As(err, &ce) {
			return unknownTyp, withLocation(ce.Err, exprLocation(args[ce.Index]))
		}
		return unknownTyp, err
	}
	for i, a := range args {
		if oids[i] != OIDUnknown && oids[i] != common && !Builtins.CanCoerce([]uint32{oids[i]}, []uint32{common}, resolve.CoerceImplicit) {
			return unknownTyp, withLocation(Builtins.CoerceToCommonError(construct, oids[i], common), exprLocation(a))
		}
		if err := tr.typeUnknownOperand(a, &types[i], common); err != nil {
			return unknownTyp, err
		}
	}
	if common == res.oid {
		return res, nil // keep the typmod the translator knows
	}
	return typ{common, -1}, nil
}

func (tr *translator) sameTypeArgs(args []*pg_query.Node, sc *scope, want typ) (typ, error) {
	res := unknownTyp
	for _, a := range args {
		if a.GetParamRef() != nil {
			continue
		}
		t, err := tr.expr(a, sc, want)
		if err != nil {
			return unknownTyp, err
		}
		tr.noteType(a, t)
		res = unifyTypes(res, t)
	}
	for _, a := range args {
		if a.GetParamRef() != nil {
			if _, err := tr.expr(a, sc, firstKnown(res, want)); err != nil {
				return unknownTyp, err
			}
		}
	}
	if res.oid == OIDUnknown {
		res = typ{OIDText, -1}
	}
	return res, nil
}

func (tr *translator) subLink(sl *pg_query.SubLink, sc *scope) (typ, error) {
	var tt typ
	var err error
	if sl.Testexpr != nil {
		if tt, err = tr.expr(sl.Testexpr, sc, unknownTyp); err != nil {
			return unknownTyp, err
		}
	}
	_ = tt
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return unknownTyp, pgerr.New(pgerr.FeatureNotSupported, "unsupported subquery")
	}
	whole := sl == tr.rawSubLink
	tr.rawSubLink = nil
	tr.rawNext = whole // a whole select-list item: its value may be text (rawnum.go)
	cols, err := tr.selectStmt(sel, sc)
	if err != nil {
		return unknownTyp, err
	}
	if whole && len(cols) == 1 && cols[0].raw {
		tr.subLinkText = true
		tr.haveRaw = true
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXPR_SUBLINK, pg_query.SubLinkType_ARRAY_SUBLINK:
		if len(cols) > 1 {
			// transformSubLink: a scalar or ARRAY() subquery has one column.
			return unknownTyp, pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(int(sl.Location) + 1)
		}
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		left := 1
		if r := sl.Testexpr.GetRowExpr(); r != nil {
			left = len(r.Args)
		}
		switch {
		case cols == nil:
		case len(cols) > left:
			return unknownTyp, pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(int(sl.Location) + 1)
		case len(cols) < left:
			return unknownTyp, pgerr.New(pgerr.SyntaxError, "subquery has too few columns").WithPosition(int(sl.Location) + 1)
		}
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(cols) == 1 {
			return cols[0].t, nil
		}
		return unknownTyp, nil
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		if len(cols) == 1 {
			if a := ArrayOID(cols[0].t.oid); a != 0 {
				return typ{a, -1}, nil
			}
		}
		return unknownTyp, nil
	}
	return typ{OIDBool, -1}, nil
}

func sqlValueFunctionType(op pg_query.SQLValueFunctionOp) typ {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return typ{OIDDate, -1}
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return typ{OIDTimetz, -1}
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return typ{OIDTimestamptz, -1}
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return typ{OIDTime, -1}
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return typ{OIDTimestamp, -1}
	}
	return typ{OIDName, -1}
}

// checkOperands rejects the operator/operand combinations PostgreSQL has no
// operator for and DuckDB would accept by an implicit cast: a string
// (text, varchar, char) with a number, in arithmetic or comparison.
// PostgreSQL: 42883 "operator does not exist: text = integer".
func checkOperands(e *pg_query.A_Expr, op string, lt, rt typ) error {
	if !arithOps[op] && !comparisonOps[op] {
		return nil
	}
	isStr := func(t typ) bool {
		return t.oid == OIDText || t.oid == OIDVarchar || t.oid == OIDBpchar
	}
	_, lnum := numericRank[lt.oid]
	_, rnum := numericRank[rt.oid]
	if !(isStr(lt) && rnum || lnum && isStr(rt)) {
		return nil
	}
	err := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s",
		pgtypes.FormatType(lt.oid, -1), op, pgtypes.FormatType(rt.oid, -1)).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	return withLocation(err, e.Location)
}

var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// rtrimBlanks replaces n by rtrim(n, ' '): the value of a char(n) without
// its padding, as PostgreSQL's bpchar-to-text conversion gives it.
// compareOps are the comparison operators.
var compareOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

func isNullConst(n *pg_query.Node) bool {
	c := n.GetAConst()
	return c != nil && c.Isnull
}

func rtrimBlanks(n *pg_query.Node) {
	inner := &pg_query.Node{Node: n.Node}
	rewriteCall(n, "rtrim", inner, pg_query.MakeAConstStrNode(" ", -1))
}

// checkColumnCase rejects a column reference that matches a column only
// when case is ignored. PostgreSQL identifiers are case-sensitive once
// folded ("Id" is not id) but DuckDB binds names case-insensitively, so
// without this check `SELECT id FROM "MixedCase"` would find "Id". It only
// decides when every relation in scope has known columns; otherwise DuckDB
// binds (and reports) as before.
func checkColumnCase(cr *pg_query.ColumnRef, sc *scope) error {
	var names []string
	for _, f := range cr.Fields {
		str := f.GetString_()
		if str == nil {
			return nil // rel.* or a[1]
		}
		names = append(names, str.Sval)
	}
	if len(names) == 0 || len(names) > 2 || sc == nil {
		return nil
	}
	col, rel := names[len(names)-1], ""
	if len(names) == 2 {
		rel = names[0]
	} else if sc.clause == clauseGroupBy || sc.clause == clauseOrderBy {
		for _, o := range sc.outputs {
			if o.name == col {
				return nil // an output column (ORDER BY "Total"), not in WHERE
			}
		}
	}
	var fuzzy string
	seen := false
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.cols == nil {
				return nil
			}
			if rel != "" && r.alias != rel {
				continue
			}
			seen = true
			for _, c := range r.cols {
				if c.name == col {
					return nil
				}
				if fuzzy == "" && strings.EqualFold(c.name, col) {
					fuzzy = r.alias + "." + c.name
				}
			}
		}
	}
	if !seen {
		return nil
	}
	what := col
	if rel != "" {
		what = rel + "." + col
	}
	if fuzzy == "" {
		// No column of any relation in scope has the name, and every one
		// of them has known columns: PostgreSQL's 42703, at Parse (the
		// engine would only say so when the statement runs). A bare name
		// may still be a relation (a whole-row reference).
		if rel == "" {
			for s := sc; s != nil; s = s.parent {
				for _, r := range s.rels {
					if r.alias == col {
						return nil
					}
				}
			}
		}
		return withLocation(pgerr.New(pgerr.UndefinedColumn, "column %s does not exist", quoteColumnName(what)), cr.Location)
	}
	err := pgerr.New(pgerr.UndefinedColumn, "column %s does not exist", quoteColumnName(what)).
		WithHint("Perhaps you meant to reference the column \"%s\".", fuzzy)
	return withLocation(err, cr.Location)
}

// quoteColumnName spells a column reference in an error message as
// PostgreSQL does: "c" or r.c.
func quoteColumnName(s string) string {
	if strings.Contains(s, ".") {
		return s
	}
	return `"` + s + `"`
}

// jsonbExists translates jsonb ? text, ?| text[] and ?& text[] (DuckDB's
// parser takes ? for a parameter) into the macros of setup.go; the right
// operand is text or text[] ('{a,b}' folded as one).
func (tr *translator) jsonbExists(n *pg_query.Node, e *pg_query.A_Expr, op string, sc *scope) (typ, error) {
	if _, err := tr.expr(e.Lexpr, sc, typ{OIDJSONB, -1}); err != nil {
		return unknownTyp, err
	}
	want := typ{OIDText, -1}
	if op != "?" {
		want = typ{ArrayOID(OIDText), -1}
		if c := e.Rexpr.GetAConst(); c != nil && c.GetSval() != nil {
			if _, err := tr.foldLiteral(e.Rexpr, want); err != nil {
				return unknownTyp, err
			}
		} else if _, err := tr.expr(e.Rexpr, sc, want); err != nil {
			return unknownTyp, err
		}
	} else if _, err := tr.expr(e.Rexpr, sc, want); err != nil {
		return unknownTyp, err
	}
	fn := map[string]string{"?": "list_contains", "?|": "list_has_any", "?&": "list_has_all"}[op]
	n.Node = makeCall(fn, e.Location, makeCall("__bsdb_jsonb_strings", -1, e.Lexpr), e.Rexpr).Node
	return typ{OIDBool, -1}, nil
}

// arrayExpr types ARRAY[...] as PostgreSQL's transformArrayExpr does: the
// common type of the elements (select_common_type, "ARRAY"), whose array
// type the constructor has; a constructor of sub-arrays (ARRAY[[1],[2]])
// has their type. An empty ARRAY[] takes its type from a cast around it.
func (tr *translator) arrayExpr(n *pg_query.Node, a *pg_query.A_ArrayExpr, sc *scope, want typ) (typ, error) {
	if len(a.Elements) == 0 {
		return unknownTyp, tr.generic(n, sc)
	}
	elemWant := unknownTyp
	if e := ElemOID(want.oid); e != 0 {
		elemWant = typ{e, -1}
	}
	t, err := tr.commonTypeArgs(a.Elements, sc, elemWant, "ARRAY")
	if err != nil || !t.known() || t.oid == OIDUnknown {
		return unknownTyp, err
	}
	nested := true
	for _, e := range a.Elements {
		if e.GetAArrayExpr() == nil {
			nested = false
		}
	}
	if nested && ElemOID(t.oid) != 0 {
		return t, nil
	}
	if arr := ArrayOID(t.oid); arr != 0 {
		return typ{arr, -1}, nil
	}
	return unknownTyp, nil
}

// arrayNesting is the dimensions an ARRAY[] constructor nests as
// sub-arrays (ARRAY[[1],[2]] is 2), counted up to limit. The innermost
// constructor is checked first in PostgreSQL, so a nest deeper than MAXDIM
// is always reported as MAXDIM + 1.
func arrayNesting(a *pg_query.A_ArrayExpr, limit int) int {
	if limit <= 1 {
		return 1
	}
	d := 1
	for _, e := range a.Elements {
		if sub := e.GetAArrayExpr(); sub != nil {
			d = max(d, 1+arrayNesting(sub, limit-1))
		}
	}
	return d
}

// systemColumn replaces a reference to the system column tableoid of a
// relation that knows its OID (the system catalogs) by that OID, typed
// oid, as PostgreSQL reads it from the row: pg_dump selects it from nearly
// every catalog. A column of that name wins, as in PostgreSQL (where no
// user column may take a system column's name); an unqualified tableoid
// is the one relation of the innermost query level that has it.
func systemColumn(n *pg_query.Node, cr *pg_query.ColumnRef, sc *scope) (typ, bool) {
	var names []string
	for _, f := range cr.Fields {
		str := f.GetString_()
		if str == nil {
			return unknownTyp, false
		}
		names = append(names, str.Sval)
	}
	if len(names) == 0 || len(names) > 2 || names[len(names)-1] != "tableoid" {
		return unknownTyp, false
	}
	if rel, _ := resolveColumn(cr, sc); rel != nil {
		return unknownTyp, false
	}
	var found *relInfo
	for s := sc; s != nil && found == nil; s = s.parent {
		for _, r := range s.rels {
			if len(names) == 2 && r.alias != names[0] || r.tableOID == 0 {
				continue
			}
			if found != nil {
				return unknownTyp, false // ambiguous: left to the engine's error
			}
			found = r
		}
	}
	if found == nil {
		return unknownTyp, false
	}
	n.Node = pg_query.MakeAConstStrNode(strconv.FormatUint(uint64(found.tableOID), 10), -1).Node
	pinType(n, "bigint") // an oid is an int8 in the engine (rewriteRegCast)
	return typ{OIDOid, -1}, true
}
