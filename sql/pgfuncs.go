package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// PostgreSQL's functions that DuckDB lacks or runs differently, as the Go
// functions of pgtypes the planner registers (planner/udf_pgfuncs.go):
// to_char of numbers, to_number, the regexp family, numeric's scale
// functions and more. Each call is typed by PostgreSQL's catalog
// (resolveCall) before it gets here; the rewrites only choose the Go
// function and spell the arguments as it takes them.

// rewriteToCharNumber is to_char(numeric|int|float, text): a numeric as
// its text (the value exactly), integers as BIGINT (int2 and int4 run
// int4_to_char, with its own EEEE and V rules), floats as DOUBLE (real
// with float4's digit limit).
func (tr *translator) rewriteToCharNumber(n, value, format *pg_query.Node, t typ, sc *scope) {
	switch t.oid {
	case OIDNumeric:
		tr.numericArgText(value, t, sc)
		rewriteCall(n, "__bsdb_to_char_numeric", value, format)
	case OIDInt2, OIDInt4, OIDInt8:
		_ = castTo(value, typ{OIDInt8, -1})
		rewriteCall(n, "__bsdb_to_char_int", value, format, boolConst(t.oid != OIDInt8))
	case OIDFloat4, OIDFloat8:
		_ = castTo(value, typ{OIDFloat8, -1})
		rewriteCall(n, "__bsdb_to_char_float", value, format, boolConst(t.oid == OIDFloat4))
	}
}

// numericArgText makes a translated numeric argument its text: a raw
// column's stored text or a formatted value where numericText can, else
// DuckDB's text of the DECIMAL (the same value).
func (tr *translator) numericArgText(value *pg_query.Node, t typ, sc *scope) *pg_query.Node {
	if r, ok := tr.rawCasts[value]; ok {
		value.Node = proto.Clone(r.ref).(*pg_query.Node).Node
		delete(tr.rawCasts, value)
		return value
	}
	if isRawType(t) && tr.numericText(value, sc) {
		return value
	}
	_ = castTo(value, typ{OIDText, -1})
	return value
}

// numericResult makes n, a call of a Go function returning numeric's text,
// a numeric: its DECIMAL where computed with, its text where printed
// (rawnum.go's raw casts).
func (tr *translator) numericResult(n *pg_query.Node) {
	ref := &pg_query.Node{Node: n.Node}
	rewriteCall(n, "__bsdb_dec", proto.Clone(ref).(*pg_query.Node))
	if tr.rawCasts == nil {
		tr.rawCasts = map[*pg_query.Node]*rawRef{}
	}
	tr.rawCasts[n] = &rawRef{ref: ref}
}

func boolConst(b bool) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
		Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: b}}, Location: -1}}}
}

// pgFunc rewrites the calls of this file's functions; ok reports whether
// name was one (with the argument types PostgreSQL resolved it for).
func (tr *translator) pgFunc(n *pg_query.Node, fc *pg_query.FuncCall, name string, args []typ, sc *scope) (typ, bool, error) {
	if fc.Over != nil || fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.FuncVariadic {
		return unknownTyp, false, nil
	}
	for _, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			return unknownTyp, false, nil
		}
	}
	if t, ok := tr.regexpFunc(n, fc, name, args); ok {
		return t, true, nil
	}
	if op, ok := comparisonFuncs[name]; ok && len(fc.Args) == 2 {
		// booleq(a, b) is a = b (the function behind the operator).
		n.Node = opNode(op, fc.Args[0], fc.Args[1]).Node
		return typ{OIDBool, -1}, true, nil
	}
	nargs := len(fc.Args)
	oneOf := func(want ...int) bool {
		for _, w := range want {
			if nargs == w && len(args) == w {
				return true
			}
		}
		return false
	}
	num := func(v int64) *pg_query.Node { return castNode(pg_query.MakeAConstIntNode(v, -1), "bigint") }
	switch name {
	case "scale", "min_scale":
		if !oneOf(1) {
			break
		}
		rewriteCall(n, "__bsdb_numeric_"+name, tr.numericArgText(fc.Args[0], args[0], sc))
		return typ{OIDInt4, -1}, true, nil
	case "trim_scale":
		if !oneOf(1) {
			break
		}
		rewriteCall(n, "__bsdb_trim_scale", tr.numericArgText(fc.Args[0], args[0], sc))
		tr.numericResult(n)
		return typ{OIDNumeric, -1}, true, nil
	case "div":
		if !oneOf(2) {
			break
		}
		rewriteCall(n, "__bsdb_numeric_div", tr.numericArgText(fc.Args[0], args[0], sc), tr.numericArgText(fc.Args[1], args[1], sc))
		tr.numericResult(n)
		return typ{OIDNumeric, -1}, true, nil
	case "unistr":
		if !oneOf(1) {
			break
		}
		rewriteCall(n, "__bsdb_unistr", textArgOf(fc.Args[0], args[0]))
		return typ{OIDText, -1}, true, nil
	case "float4send", "float8send":
		if !oneOf(1) {
			break
		}
		rewriteCall(n, "__bsdb_"+name, castNode(fc.Args[0], map[string]string{"float4send": "float", "float8send": "double"}[name]))
		return typ{OIDBytea, -1}, true, nil
	case "get_byte":
		if !oneOf(2) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_get_byte", fc.Args[0], intArg(fc.Args[1]))
		return typ{OIDInt4, -1}, true, nil
	case "set_byte":
		if !oneOf(3) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_set_byte", fc.Args[0], intArg(fc.Args[1]), intArg(fc.Args[2]))
		return typ{OIDBytea, -1}, true, nil
	case "overlay":
		if !oneOf(3, 4) {
			break
		}
		count, has := num(0), boolConst(false)
		if nargs == 4 {
			count, has = intArg(fc.Args[3]), boolConst(true)
		}
		if args[0].oid == OIDBytea {
			rewriteCall(n, "__bsdb_overlay_bytea", fc.Args[0], fc.Args[1], intArg(fc.Args[2]), count, has)
			return typ{OIDBytea, -1}, true, nil
		}
		rewriteCall(n, "__bsdb_overlay", textArgOf(fc.Args[0], args[0]), textArgOf(fc.Args[1], args[1]), intArg(fc.Args[2]), count, has)
		return typ{OIDText, -1}, true, nil
	case "substring":
		if !oneOf(2, 3) || !isStringArg(args[0]) || !isStringArg(args[1]) || nargs == 3 && !isStringArg(args[2]) {
			if name == "substring" && oneOf(2, 3) && args[0].oid == OIDBytea {
				return tr.pgFunc(n, fc, "substr", args, sc)
			}
			break
		}
		if nargs == 2 {
			// substring(string from pattern): a POSIX regular expression.
			rewriteCall(n, "__bsdb_regexp_substring", textArgOf(fc.Args[0], args[0]), textArgOf(fc.Args[1], args[1]))
		} else {
			// substring(string similar pattern escape esc).
			rewriteCall(n, "__bsdb_similar_substring", textArgOf(fc.Args[0], args[0]), textArgOf(fc.Args[1], args[1]), textArgOf(fc.Args[2], args[2]))
		}
		return typ{OIDText, -1}, true, nil
	case "substr":
		if !oneOf(2, 3) || args[0].oid != OIDBytea || !isIntType(args[1]) || nargs == 3 && !isIntType(args[2]) {
			break
		}
		count, has := num(0), boolConst(false)
		if nargs == 3 {
			count, has = intArg(fc.Args[2]), boolConst(true)
		}
		rewriteCall(n, "__bsdb_bytea_substr", fc.Args[0], intArg(fc.Args[1]), count, has)
		return typ{OIDBytea, -1}, true, nil
	case "similar_to_escape", "similar_escape":
		if !oneOf(1, 2) {
			break
		}
		esc, has := castNode(pg_query.MakeAConstStrNode("", -1), "varchar"), boolConst(false)
		if nargs == 2 {
			esc, has = textArgOf(fc.Args[1], args[1]), boolConst(true)
		}
		rewriteCall(n, "__bsdb_similar_escape", textArgOf(fc.Args[0], args[0]), esc, has)
		return typ{OIDText, -1}, true, nil
	case "lpad", "rpad":
		if !oneOf(2, 3) || !isIntType(args[1]) {
			break
		}
		if c := constOf(fc.Args[1]); c != nil && c.GetIval() != nil && c.GetIval().Ival >= 0 {
			if nargs == 2 {
				break // DuckDB's lpad/rpad with a blank (funcs.go) are PostgreSQL's
			}
			if f := constOf(fc.Args[2]); f != nil && f.GetSval() != nil && f.GetSval().Sval != "" {
				break
			}
		}
		// An empty fill (DuckDB refuses it), a negative length or one
		// unknown until run time: PostgreSQL's lpad/rpad.
		fill := castNode(pg_query.MakeAConstStrNode(" ", -1), "varchar")
		if nargs == 3 {
			fill = textArgOf(fc.Args[2], args[2])
		}
		rewriteCall(n, "__bsdb_pad", textArgOf(fc.Args[0], args[0]), intArg(fc.Args[1]), fill, boolConst(name == "lpad"))
		return typ{OIDText, -1}, true, nil
	case "btrim", "ltrim", "rtrim":
		if !oneOf(2) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_bytea_trim", fc.Args[0], fc.Args[1], boolConst(name != "rtrim"), boolConst(name != "ltrim"))
		return typ{OIDBytea, -1}, true, nil
	case "bit_count":
		if !oneOf(1) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_bit_count", fc.Args[0])
		return typ{OIDInt8, -1}, true, nil
	case "get_bit":
		if !oneOf(2) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_get_bit", fc.Args[0], intArg(fc.Args[1]))
		return typ{OIDInt4, -1}, true, nil
	case "set_bit":
		if !oneOf(3) || args[0].oid != OIDBytea {
			break
		}
		rewriteCall(n, "__bsdb_set_bit", fc.Args[0], intArg(fc.Args[1]), intArg(fc.Args[2]))
		return typ{OIDBytea, -1}, true, nil
	case "sha224", "sha384", "sha512":
		if !oneOf(1) {
			break
		}
		rewriteCall(n, "__bsdb_"+name, castNode(fc.Args[0], "blob"))
		return typ{OIDBytea, -1}, true, nil
	case "pg_client_encoding":
		if nargs != 0 {
			break
		}
		// The server and client encoding is UTF8.
		n.Node = castNode(pg_query.MakeAConstStrNode("UTF8", -1), "varchar").Node
		return typ{OIDName, -1}, true, nil
	case "to_number":
		if len(fc.Args) != 2 {
			return unknownTyp, false, nil
		}
		rewriteCall(n, "__bsdb_to_number", textArg(fc.Args[0]), textArg(fc.Args[1]))
		tr.numericResult(n)
		return typ{OIDNumeric, -1}, true, nil
	}
	return unknownTyp, false, nil
}

// textArg is a text argument as DuckDB's VARCHAR.
func textArg(a *pg_query.Node) *pg_query.Node {
	return castNode(a, "varchar")
}

// comparisonFuncs are the functions behind comparison operators that
// PostgreSQL's own tests call by name.
var comparisonFuncs = map[string]string{}

func init() {
	ops := map[string]string{"eq": "=", "ne": "<>", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
	for _, t := range []string{"bool", "int2", "int4", "int8", "float4", "float8", "text", "date"} {
		for suffix, op := range ops {
			comparisonFuncs[t+suffix] = op
		}
	}
}

// textArgOf is a text argument of PostgreSQL type t as VARCHAR (a
// character(n) without its padding, as bpchar's conversion to text).
func textArgOf(a *pg_query.Node, t typ) *pg_query.Node {
	if t.oid == OIDBpchar {
		rtrimBlanks(a)
	}
	return castNode(a, "varchar")
}

// constOf is the constant n is, through the casts that pin its type.
func constOf(n *pg_query.Node) *pg_query.A_Const {
	for n != nil {
		if c := n.GetAConst(); c != nil {
			return c
		}
		tc := n.GetTypeCast()
		if tc == nil {
			return nil
		}
		n = tc.Arg
	}
	return nil
}

// isStringArg: a text type or an untyped literal.
func isStringArg(t typ) bool {
	switch t.oid {
	case 0, OIDUnknown, OIDText, OIDVarchar, OIDBpchar, OIDName:
		return true
	}
	return false
}

func intArg(a *pg_query.Node) *pg_query.Node { return castNode(a, "bigint") }

func isIntType(t typ) bool { return t.oid == OIDInt2 || t.oid == OIDInt4 || t.oid == OIDInt8 }

// regexpFunc rewrites PostgreSQL's regular expression functions
// (pgtypes/regexp.go). regexp_matches and regexp_split_to_table are
// set-returning: the unnest of the list of their rows (srf.go expands it
// in the select list and in FROM).
func (tr *translator) regexpFunc(n *pg_query.Node, fc *pg_query.FuncCall, name string, args []typ) (typ, bool) {
	nargs := len(fc.Args)
	if len(args) != nargs || nargs < 2 {
		return unknownTyp, false
	}
	a := make([]*pg_query.Node, nargs)
	for i, x := range fc.Args {
		if isIntType(args[i]) {
			a[i] = intArg(x)
		} else {
			a[i] = textArgOf(x, args[i])
		}
	}
	str := func(s string) *pg_query.Node { return castNode(pg_query.MakeAConstStrNode(s, -1), "varchar") }
	num := func(v int64) *pg_query.Node { return castNode(pg_query.MakeAConstIntNode(v, -1), "bigint") }
	flagsAt := func(i int) *pg_query.Node {
		if i < nargs {
			return a[i]
		}
		return str("")
	}
	intAt := func(i int, def int64) *pg_query.Node {
		if i < nargs {
			return a[i]
		}
		return num(def)
	}
	switch name {
	case "regexp_like":
		if nargs > 3 {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_like", a[0], a[1], flagsAt(2))
		return typ{OIDBool, -1}, true
	case "regexp_match":
		if nargs > 3 {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_match", a[0], a[1], flagsAt(2))
		return typ{ArrayOID(OIDText), -1}, true
	case "regexp_split_to_array":
		if nargs > 3 {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_split", a[0], a[1], flagsAt(2), str(name))
		return typ{ArrayOID(OIDText), -1}, true
	case "regexp_count":
		if nargs > 4 || nargs >= 3 && !isIntType(args[2]) {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_count", a[0], a[1], intAt(2, 1), flagsAt(3))
		return typ{OIDInt4, -1}, true
	case "regexp_instr":
		if nargs > 7 {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_instr", a[0], a[1], intAt(2, 1), intAt(3, 1), intAt(4, 0), flagsAt(5), intAt(6, 0))
		return typ{OIDInt4, -1}, true
	case "regexp_substr":
		if nargs > 6 {
			return unknownTyp, false
		}
		rewriteCall(n, "__bsdb_regexp_substr", a[0], a[1], intAt(2, 1), intAt(3, 1), flagsAt(4), intAt(5, 0))
		return typ{OIDText, -1}, true
	case "regexp_replace":
		if nargs < 3 || nargs > 6 {
			return unknownTyp, false
		}
		switch {
		case nargs == 3:
			rewriteCall(n, "__bsdb_regexp_replace", a[0], a[1], a[2], num(1), num(1), boolConst(false), str(""), boolConst(false))
		case nargs == 4 && !isIntType(args[3]):
			rewriteCall(n, "__bsdb_regexp_replace", a[0], a[1], a[2], num(1), num(1), boolConst(false), a[3], boolConst(true))
		case nargs == 4:
			rewriteCall(n, "__bsdb_regexp_replace", a[0], a[1], a[2], a[3], num(1), boolConst(false), str(""), boolConst(false))
		default:
			rewriteCall(n, "__bsdb_regexp_replace", a[0], a[1], a[2], a[3], a[4], boolConst(true), flagsAt(5), boolConst(false))
		}
		return typ{OIDText, -1}, true
	}
	return unknownTyp, false
}

// regexpSRF turns regexp_matches / regexp_split_to_table into unnest of
// the list of their rows; t is the type of a row.
func regexpSRF(fc *pg_query.FuncCall, name string, args []typ) (typ, bool) {
	nargs := len(fc.Args)
	if nargs < 2 || nargs > 3 || len(args) != nargs || fc.Over != nil || fc.AggStar || fc.FuncVariadic {
		return unknownTyp, false
	}
	for _, x := range fc.Args {
		if x.GetNamedArgExpr() != nil {
			return unknownTyp, false
		}
	}
	a := make([]*pg_query.Node, 3)
	for i, x := range fc.Args {
		a[i] = textArgOf(x, args[i])
	}
	if nargs == 2 {
		a[2] = castNode(pg_query.MakeAConstStrNode("", -1), "varchar")
	}
	var list *pg_query.Node
	t := typ{ArrayOID(OIDText), -1}
	switch name {
	case "regexp_matches":
		list = makeCall("__bsdb_regexp_matches", -1, a...)
	case "regexp_split_to_table":
		list = makeCall("__bsdb_regexp_split", -1, append(a, castNode(pg_query.MakeAConstStrNode(name, -1), "varchar"))...)
		t = typ{OIDText, -1}
	default:
		return unknownTyp, false
	}
	fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("unnest")}
	fc.Args = []*pg_query.Node{list}
	return t, true
}
