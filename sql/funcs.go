package sql

import (
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/sql/resolve"
)

// funcResult gives the PostgreSQL result type of well-known functions
// whose type does not depend on their arguments.
var funcResult = map[string]typ{
	"count": {OIDInt8, -1}, "row_number": {OIDInt8, -1}, "rank": {OIDInt8, -1},
	"dense_rank": {OIDInt8, -1}, "ntile": {OIDInt4, -1},
	"percent_rank": {OIDFloat8, -1}, "cume_dist": {OIDFloat8, -1},
	"length": {OIDInt4, -1}, "char_length": {OIDInt4, -1}, "octet_length": {OIDInt4, -1},
	"position": {OIDInt4, -1}, "strpos": {OIDInt4, -1},
	"upper": {OIDText, -1}, "lower": {OIDText, -1}, "substring": {OIDText, -1}, "substr": {OIDText, -1},
	"btrim": {OIDText, -1}, "ltrim": {OIDText, -1}, "rtrim": {OIDText, -1},
	"concat": {OIDText, -1}, "concat_ws": {OIDText, -1}, "replace": {OIDText, -1},
	"string_agg": {OIDText, -1}, "left": {OIDText, -1}, "right": {OIDText, -1},
	"lpad": {OIDText, -1}, "rpad": {OIDText, -1}, "repeat": {OIDText, -1}, "reverse": {OIDText, -1},
	"md5": {OIDText, -1}, "initcap": {OIDText, -1}, "split_part": {OIDText, -1}, "to_char": {OIDText, -1},
	"now": {OIDTimestamptz, -1}, "statement_timestamp": {OIDTimestamptz, -1},
	"transaction_timestamp": {OIDTimestamptz, -1}, "clock_timestamp": {OIDTimestamptz, -1},
	"random": {OIDFloat8, -1}, "pi": {OIDFloat8, -1}, "sqrt": {OIDFloat8, -1},
	"extract": {OIDNumeric, -1}, "date_part": {OIDFloat8, -1},
	"bool_and": {OIDBool, -1}, "bool_or": {OIDBool, -1}, "every": {OIDBool, -1},
	"encode": {OIDText, -1}, "decode": {OIDBytea, -1}, "sha256": {OIDBytea, -1},
	"convert_to": {OIDBytea, -1}, "convert_from": {OIDText, -1}, "chr": {OIDText, -1},
	"quote_ident": {OIDText, -1}, "quote_literal": {OIDText, -1}, "quote_nullable": {OIDText, -1},
	"justify_hours": {OIDInterval, -1}, "justify_days": {OIDInterval, -1}, "justify_interval": {OIDInterval, -1},
	"width_bucket": {OIDInt4, -1}, "num_nulls": {OIDInt4, -1}, "num_nonnulls": {OIDInt4, -1},
	"json_typeof": {OIDText, -1}, "jsonb_typeof": {OIDText, -1}, "json_array_length": {OIDInt4, -1},
	"jsonb_array_length": {OIDInt4, -1}, "make_interval": {OIDInterval, -1},
	"gen_random_uuid": {OIDUUID, -1}, "version": {OIDText, -1},
	"current_database": {OIDName, -1}, "current_schema": {OIDName, -1},
	"stddev": {OIDNumeric, -1}, "variance": {OIDNumeric, -1},
}

// argTypedFuncs return the type of their first argument.
var argTypedFuncs = map[string]bool{
	"min": true, "max": true, "abs": true, "first_value": true, "last_value": true,
	"lag": true, "lead": true, "nth_value": true, "round": true, "trunc": true,
	"ceil": true, "ceiling": true, "floor": true, "sign": true,
}

func funcName(fc *pg_query.FuncCall) (schema, name string) {
	parts := make([]string, 0, len(fc.Funcname))
	for _, n := range fc.Funcname {
		parts = append(parts, n.GetString_().GetSval())
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// funcCall translates a function call. Rewrites (doc.go lists why):
//   - pg_catalog.f(...) -> f(...) unless it is special SQL syntax
//     (EXTRACT, SUBSTRING ... FROM, POSITION ... IN, TRIM ...), which
//     Deparse prints in its SQL form;
//   - sum(int2|int4) -> CAST(sum(x) AS BIGINT): DuckDB returns HUGEINT;
//   - avg(integer types|numeric) -> CAST(avg(x) AS DECIMAL(38,16)): DuckDB
//     returns DOUBLE, PostgreSQL numeric.
func (tr *translator) funcCall(n *pg_query.Node, fc *pg_query.FuncCall, sc *scope) (typ, error) {
	if parts, refused := refusedCall(fc); refused {
		// Not a function of PostgreSQL's (guard.go): its error, with the
		// argument types, as PostgreSQL resolves the arguments first.
		var argTypes []typ
		var argNames []string
		for _, a := range fc.Args {
			name := ""
			if na := a.GetNamedArgExpr(); na != nil {
				name, a = na.Name, na.Arg
			}
			t, err := tr.expr(a, sc, unknownTyp)
			if err != nil {
				return unknownTyp, err
			}
			argTypes, argNames = append(argTypes, t), append(argNames, name)
		}
		return unknownTyp, undefinedFunction(parts, argTypes, argNames, fc.Location, schemaExistsFunc(tr.cat))
	}
	schema, name := funcName(fc)
	pgName := name
	name = strings.ToLower(name)
	if ok, err := tr.rewriteHypothetical(n, fc, schema, name, sc); ok {
		if err != nil {
			return unknownTyp, err
		}
		return tr.expr(n, sc, unknownTyp) // hypothetical.go
	}
	if schema == "pg_catalog" && fc.Funcformat != pg_query.CoercionForm_COERCE_SQL_SYNTAX {
		fc.Funcname = fc.Funcname[len(fc.Funcname)-1:]
	}
	if op, prefix, ok := pgcatalog.OperatorOfFunc(name); ok && (schema == "" || schema == "pg_catalog") &&
		fc.Over == nil && !fc.AggStar && !fc.AggDistinct && fc.AggFilter == nil && len(fc.AggOrder) == 0 &&
		!fc.FuncVariadic && countNamed(fc) == 0 && (prefix && len(fc.Args) == 1 || !prefix && len(fc.Args) == 2) {
		// A function that implements an operator (booleq, int4pl,
		// textcat): the operator, which resolves to the same function.
		if fs := pgcatalog.FuncsByName(name); len(fs) == 1 {
			// One function of the name: its argument types, as the call
			// would resolve (date_pli('2020-01-01', 3) is date + int4,
			// float8div(1, 4) is 1::float8 / 4::float8). (An argument
			// PostgreSQL would not coerce implicitly is cast here too.)
			for i, a := range fc.Args {
				if i < len(fs[0].ArgTypes) {
					if ty := pgcatalog.TypeByOID(fs[0].ArgTypes[i]); ty != nil && !strings.HasPrefix(ty.Name, "any") && ty.Name != "internal" {
						fc.Args[i] = &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: a,
							TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(ty.Name)}, Typemod: -1, Location: -1}, Location: -1}}}
					}
				}
			}
		}
		e := &pg_query.A_Expr{Kind: pg_query.A_Expr_Kind_AEXPR_OP, Name: []*pg_query.Node{pg_query.MakeStrNode(op)}, Location: fc.Location}
		if prefix {
			e.Rexpr = fc.Args[0]
		} else {
			e.Lexpr, e.Rexpr = fc.Args[0], fc.Args[1]
		}
		n.Node = &pg_query.Node_AExpr{AExpr: e}
		return tr.expr(n, sc, unknownTyp)
	}
	if name == "list_contains" && len(fc.Args) == 2 && fc.AggOrder == nil && fc.Over == nil {
		// x = ANY(a) arrives here (syscat.go rewrites it to list_contains):
		// the array is typed from x, as PostgreSQL does.
		return tr.listContains(fc.Args[0], fc.Args[1], sc)
	}
	tr.jsonRecordArgs(fc, name, sc)
	recordArg := false
	for _, a := range fc.Args {
		if c := a.GetFuncCall(); c != nil && len(c.Funcname) == 1 && c.Funcname[0].GetString_().GetSval() == "__bsdb_json_record" {
			recordArg = true // a whole row (a record), which the translator spells as json
		}
	}
	srfsBefore := len(sc.srfs)
	var argTypes []typ
	agg := fc.Over == nil && (isAggregateCall(name, fc) || duckAggregates[name])
	if agg {
		sc.aggDepth++ // a grouped column's text is usable here (numericText)
	}
	// typename(x) is a cast in PostgreSQL (func_get_detail): keep the
	// argument as written, to translate the call as x::typename once the
	// argument's type says it resolves.
	var castArg *pg_query.Node
	if len(fc.Args) == 1 && fc.Args[0].GetNamedArgExpr() == nil && (schema == "" || schema == "pg_catalog") &&
		fc.Over == nil && !fc.AggStar && !fc.AggDistinct && fc.AggFilter == nil && len(fc.AggOrder) == 0 &&
		pgcatalog.TypeByName(pgName) != nil {
		castArg = proto.Clone(fc.Args[0]).(*pg_query.Node)
	}
	var argNames []string
	for _, a := range fc.Args {
		arg := a
		if na := a.GetNamedArgExpr(); na != nil && na.Arg != nil {
			arg = na.Arg
			argNames = append(argNames, na.Name)
		}
		t, err := tr.expr(arg, sc, unknownTyp)
		if err != nil {
			return unknownTyp, err
		}
		argTypes = append(argTypes, t)
	}
	if agg {
		sc.aggDepth--
	}
	pgRet := unknownTyp
	if !recordArg {
		var err error
		if pgRet, err = tr.resolveCall(fc, schema, pgName, argTypes, argNames); err != nil {
			return unknownTyp, err
		}
	}
	if castArg != nil && pgRet.known() && duckTypeKnown(pgRet) {
		// The call resolved: typename(x) is the cast x::typename.
		n.Node = &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: castArg,
			TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode(pgName)}, Typemod: -1, Location: fc.Location},
			Location: fc.Location}}
		return tr.expr(n, sc, unknownTyp)
	}
	if pgName == "pg_typeof" && len(argTypes) == 1 && resolvableType(argTypes[0]) && fc.Over == nil && !fc.AggStar {
		// pg_typeof is the argument's type as parse analysis gives it,
		// which is known here (DuckDB's namesake names DuckDB's types).
		name := pgcatalog.FormatType(argTypes[0].oid, -1)
		if arg := fc.Args[0]; hasAggregate(arg) || len(sc.srfs) > srfsBefore {
			// The argument is still evaluated where it makes the query an
			// aggregate or sets the number of rows: pg_typeof(sum(x))
			// over a table is one row, pg_typeof(generate_series(1,3))
			// three.
			n.Node = &pg_query.Node_CaseExpr{CaseExpr: &pg_query.CaseExpr{
				Args: []*pg_query.Node{{Node: &pg_query.Node_CaseWhen{CaseWhen: &pg_query.CaseWhen{
					Expr:   &pg_query.Node{Node: &pg_query.Node_NullTest{NullTest: &pg_query.NullTest{Arg: arg, Nulltesttype: pg_query.NullTestType_IS_NULL, Location: -1}}},
					Result: pg_query.MakeAConstStrNode(name, -1), Location: -1}}}},
				Defresult: pg_query.MakeAConstStrNode(name, -1), Location: -1}}
		} else {
			n.Node = pg_query.MakeAConstStrNode(name, fc.Location).Node
		}
		_ = castTo(n, typ{OIDText, -1})
		return typ{OIDRegType, -1}, nil
	}
	byteaAgg := name == "string_agg" && pgRet.oid == OIDBytea && len(fc.Args) == 2
	if byteaAgg {
		// string_agg(bytea, bytea): DuckDB aggregates only text, so the
		// values and the delimiter travel as hex (a NULL delimiter is none).
		fc.Args[0] = makeCall("hex", -1, fc.Args[0])
		fc.Args[1] = &pg_query.Node{Node: &pg_query.Node_CoalesceExpr{CoalesceExpr: &pg_query.CoalesceExpr{
			Args: []*pg_query.Node{makeCall("hex", -1, fc.Args[1]), pg_query.MakeAConstStrNode("", -1)}, Location: -1}}}
	}
	lo, rangeMsg, intGcd := intMin(pgRet.oid)
	intGcd = intGcd && (name == "gcd" || name == "lcm") && len(fc.Args) == 2 && fc.Over == nil
	if intGcd {
		// gcd/lcm of integers: computed in HUGEINT, then PostgreSQL's
		// range check (gcd(-2147483648, 0) and an lcm beyond the type
		// are "integer out of range"; DuckDB returns the wider value).
		for _, a := range fc.Args {
			inner := &pg_query.Node{Node: a.Node}
			a.Node = &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: inner,
				TypeName: &pg_query.TypeName{Names: []*pg_query.Node{pg_query.MakeStrNode("hugeint")}, Typemod: -1, Location: -1}, Location: -1}}
		}
	}
	t, err := tr.funcCallRest(n, fc, sc, name, argTypes, srfsBefore)
	if err == nil && intGcd {
		inner := &pg_query.Node{Node: n.Node}
		rewriteCall(n, "__bsdb_irange", inner, lo, pg_query.MakeAConstStrNode(rangeMsg, -1))
		_ = castTo(n, pgRet)
		return pgRet, nil
	}
	if err == nil && byteaAgg {
		inner := &pg_query.Node{Node: n.Node}
		rewriteCall(n, "unhex", inner)
		return pgRet, nil
	}
	if err == nil && pgRet.known() && (!t.known() || t.oid != pgRet.oid) {
		t = pgRet // PostgreSQL's type wins over the translator's guess
	}
	return t, err
}

// resolveCall resolves a call of one of PostgreSQL's functions as its
// ParseFuncOrColumn does (package resolve), when every argument's type is
// known: the result type (unknownTyp when it cannot tell), PostgreSQL's
// error for a function that does not exist or is not unique for these
// types (at the call), and untyped literal arguments typed as the
// function's arguments. Internal names (rewrites of the catalog and
// session functions) are not resolved.
func (tr *translator) resolveCall(fc *pg_query.FuncCall, schema, name string, argTypes []typ, argNames []string) (typ, error) {
	if pg, ok := strings.CutPrefix(name, SessionFuncPrefix); ok && strings.Contains(pg, "advisory") {
		// The advisory lock functions (renamed for the session) take
		// PostgreSQL's argument and result types: bigint or (integer,
		// integer), void or boolean.
		name = pg
	}
	if schema != "" && schema != "pg_catalog" || !pgcatalog.IsBuiltinFunction(name) || fc.FuncVariadic || fc.AggWithinGroup {
		// (WITHIN GROUP: an ordered-set aggregate's arguments include its
		// ORDER BY's, which the translator does not type.)
		return unknownTyp, nil
	}
	if len(argNames) > 0 && len(argNames) != countNamed(fc) {
		return unknownTyp, nil
	}

	oids := make([]uint32, len(argTypes))
	var params []int // arguments that are untyped $n: unknown, as PostgreSQL's Params
	for i, t := range argTypes {
		a := fc.Args[i]
		if na := a.GetNamedArgExpr(); na != nil {
			a = na.Arg
		}
		if !resolvableType(t) && tr.untypedParam(a) {
			oids[i] = OIDUnknown
			params = append(params, i)
			continue
		}
		if !resolvableType(t) {
			return unknownTyp, nil
		}
		oids[i] = t.oid
	}
	literal := len(fc.Args) == 1 && fc.Args[0].GetAConst() != nil
	call, err := Builtins.ResolveFunction(name, oids, argNames, literal)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return unknownTyp, withLocation(pe, fc.Location)
		}
		return unknownTyp, err
	}
	for i, a := range fc.Args {
		if i >= len(call.Args) {
			break
		}
		if na := a.GetNamedArgExpr(); na != nil {
			a = na.Arg
		}
		t := argTypes[i]
		if err := tr.typeUnknownOperand(a, &t, call.Args[i]); err != nil {
			return unknownTyp, err
		}
		if t.oid == OIDBpchar && (call.Args[i] == OIDText || call.Args[i] == OIDVarchar) {
			// char(n) passed as text loses its padding (PostgreSQL's
			// implicit cast rtrim1): lower(c), c || 'x', length(c::text).
			rtrimBlanks(a)
		}
	}
	for _, i := range params {
		// $n takes the type of the argument it is passed as
		// (make_fn_arguments coerces the unknown Param).
		if i < len(call.Args) && call.Args[i] != 0 && call.Args[i] != OIDUnknown && !resolve.IsPolymorphic(call.Args[i]) {
			a := fc.Args[i]
			if na := a.GetNamedArgExpr(); na != nil {
				a = na.Arg
			}
			tr.typeParam(a, typ{call.Args[i], -1})
		}
	}
	if call.Proc == nil {
		return typ{call.Ret, -1}, nil // typename(x): a cast
	}
	return typ{call.Ret, -1}, nil
}

// duckTypeKnown reports whether the translator can spell t for DuckDB.
func duckTypeKnown(t typ) bool {
	_, err := duckTypeName(t.oid, t.mod)
	return err == nil
}

func countNamed(fc *pg_query.FuncCall) int {
	n := 0
	for _, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			n++
		}
	}
	return n
}

// funcCallRest is funcCall once the arguments are translated: the
// rewrites of the calls whose DuckDB namesake differs, and the translator's
// own result types.
func (tr *translator) funcCallRest(n *pg_query.Node, fc *pg_query.FuncCall, sc *scope, name string, argTypes []typ, srfsBefore int) (typ, error) {
	if name == "concat" || name == "concat_ws" {
		// Arguments as text by their output functions (a boolean is t or
		// f, a float8 as float8out prints it).
		for i, a := range fc.Args {
			if isRawType(argTypes[i]) && tr.numericText(a, sc) {
				continue
			}
			if !fc.FuncVariadic && argTypes[i].known() && ElemOID(argTypes[i].oid) == 0 {
				outputText(a, argTypes[i])
			}
		}
	}
	for _, o := range fc.AggOrder {
		if err := tr.generic(o, sc); err != nil {
			return unknownTyp, err
		}
	}
	// Set-returning functions in the arguments (srf.go).
	if len(sc.srfs) > srfsBefore {
		first := sc.srfs[srfsBefore]
		switch {
		case sc.clause == clauseFrom:
			last, _ := srfSince(sc, srfsBefore)
			return unknownTyp, srfError("set-returning functions must appear at top level of FROM", false, last)
		case fc.Over != nil:
			return unknownTyp, srfError("window function calls cannot contain set-returning function calls", true, first)
		case isAggregateCall(name, fc):
			return unknownTyp, srfError("aggregate function calls cannot contain set-returning function calls", true, first)
		}
	}
	nestedSRF := len(sc.srfs) > srfsBefore
	if fc.AggFilter != nil {
		saved := sc.clause
		sc.clause = clauseFilter
		_, err := tr.expr(fc.AggFilter, sc, typ{OIDBool, -1})
		sc.clause = saved
		if err != nil {
			return unknownTyp, err
		}
	}
	if fc.Over != nil {
		if err := tr.windowDef(fc.Over, sc, true); err != nil {
			return unknownTyp, err
		}
	}
	if t, ok := regexpSRF(fc, name, argTypes); ok {
		// (srfCall types unnest's row from its argument: a list of t)
		if _, err := tr.srfCall(n, fc, "unnest", []typ{{ArrayOID(t.oid), -1}}, nestedSRF, sc); err != nil {
			return unknownTyp, err
		}
		return t, nil
	}
	if scalarSRF(name, fc) {
		return tr.srfCall(n, fc, name, argTypes, nestedSRF, sc)
	}
	if name == "unnest" && len(fc.Args) > 1 && sc.clause != clauseFrom {
		// unnest of several arrays exists only in FROM.
		if err := noSuchFunction(name, argTypes, fc.Location); err != nil {
			return unknownTyp, err
		}
	}
	first := unknownTyp
	if len(argTypes) > 0 {
		first = argTypes[0]
	}
	if t, ok, err := tr.jsonFunc(n, fc, name, argTypes, sc); ok || err != nil {
		return t, err
	}
	if name == "format" && len(fc.Args) >= 1 && fc.AggOrder == nil && fc.Over == nil && !fc.FuncVariadic {
		// PostgreSQL's format (pgtypes.Format), not DuckDB's fmt-style
		// one; its arguments are text by their types' output functions.
		for i, a := range fc.Args {
			if !(isRawType(argTypes[i]) && tr.numericText(a, sc)) {
				outputText(a, argTypes[i])
			}
		}
		fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_format")}
		return typ{OIDText, -1}, nil
	}
	if (name == "to_date" || name == "to_timestamp") && len(fc.Args) == 2 {
		// Parsing with a template (pgtypes.ToTimestamp): the wall-clock
		// time, a date, or a timestamptz in the session's time zone (the
		// DuckDB connection's TimeZone does the cast).
		t := typ{OIDTimestamptz, -1}
		if name == "to_date" {
			t = typ{OIDDate, -1}
		}
		inner := &pg_query.Node{Node: n.Node}
		rewriteCall(inner, "__bsdb_to_timestamp", fc.Args[0], fc.Args[1])
		n.Node = inner.Node
		return t, castTo(n, t)
	}
	if name == "array_remove" && len(fc.Args) == 2 {
		// DuckDB has no array_remove: its list_filter (setup.go).
		fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_array_remove")}
		return argTypes[0], nil
	}
	if name == "date_bin" && len(fc.Args) == 3 {
		// DuckDB's time_bucket(width, ts, origin) bins the same way.
		fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("time_bucket")}
		if err := castTo(fc.Args[0], typ{OIDInterval, -1}); err != nil {
			return unknownTyp, err
		}
		return argTypes[1], nil
	}
	if t, ok, err := tr.pgFunc(n, fc, name, argTypes, sc); ok || err != nil {
		return t, err
	}
	if t, ok := funcResult[name]; ok {
		switch name {
		case "length", "char_length", "character_length", "octet_length", "position", "strpos":
			rewriteLength(fc, name, argTypes)
			// DuckDB returns BIGINT; PostgreSQL integer.
			_ = castTo(n, t)
		case "extract", "date_part":
			rewriteDatePart(n, fc, name)
		case "to_char":
			if err := tr.rewriteToChar(n, fc, argTypes, sc); err != nil {
				return unknownTyp, err
			}
		case "initcap", "quote_ident", "justify_hours", "justify_days", "justify_interval", "width_bucket":
			// PostgreSQL's, as Go functions and macros (planner/udf.go,
			// setup.go): DuckDB has none of them.
			fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_" + name)}
		case "quote_literal", "quote_nullable":
			if len(fc.Args) == 1 {
				arg := &pg_query.Node{Node: castNode(fc.Args[0], "varchar").Node}
				quoted := makeCall("__bsdb_quote_literal", -1, arg)
				if name == "quote_nullable" {
					// NULL -> the word NULL.
					quoted = makeCall("ifnull", -1, quoted, pg_query.MakeAConstStrNode("NULL", -1))
				}
				n.Node = quoted.Node
			}
		case "json_typeof", "jsonb_typeof":
			fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_json_typeof")}
		case "json_array_length", "jsonb_array_length":
			fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("json_array_length")}
			_ = castTo(n, t)
		case "num_nulls", "num_nonnulls":
			rewriteNumNulls(n, fc, name == "num_nulls")
		case "make_interval":
			if err := rewriteMakeInterval(n, fc); err != nil {
				return unknownTyp, err
			}
		case "lpad", "rpad":
			if len(fc.Args) == 2 {
				// PostgreSQL's two-argument form pads with spaces; DuckDB
				// has only the three-argument one.
				fc.Args = append(fc.Args, pg_query.MakeAConstStrNode(" ", -1))
			}
		case "every":
			// DuckDB's name for the same aggregate.
			fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("bool_and")}
		case "sha256":
			// PostgreSQL returns the digest as bytea, DuckDB as hex text.
			if len(fc.Args) == 1 {
				inner := &pg_query.Node{Node: n.Node}
				rewriteCall(n, "unhex", inner)
			}
		case "convert_to", "convert_from":
			// The server encoding is UTF8: DuckDB's encode is the
			// conversion to UTF-8 bytes; the other way is
			// __bsdb_convert_from, which verifies them (no NUL, no
			// invalid sequence may become text).
			if len(fc.Args) == 2 {
				if c := fc.Args[1].GetAConst(); c != nil && c.GetSval() != nil {
					if e := strings.ToUpper(strings.ReplaceAll(c.GetSval().Sval, "-", "")); e == "UTF8" {
						fn := map[string]string{"convert_to": "encode", "convert_from": "__bsdb_convert_from"}[name]
						rewriteCall(n, fn, fc.Args[0])
					}
				}
			}
		case "chr":
			// PostgreSQL's checks (planner/udf.go): DuckDB's chr(0) makes
			// a NUL, which no text may hold.
			if len(fc.Args) == 1 {
				fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_chr")}
			}
		case "encode", "decode":
			// PostgreSQL's formats (pgtypes.EncodeBytes), not DuckDB's
			// encode(text) -> blob.
			if len(fc.Args) == 2 {
				fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("__bsdb_" + name)}
			}
		}
		return t, nil
	}
	switch name {
	case "sum":
		switch first.oid {
		case OIDInt2, OIDInt4:
			_ = castTo(n, typ{OIDInt8, -1})
			return typ{OIDInt8, -1}, nil
		case OIDInt8, OIDNumeric:
			return typ{OIDNumeric, -1}, nil
		case OIDFloat4, OIDFloat8, OIDInterval:
			return first, nil
		}
		return unknownTyp, nil
	case "avg":
		switch first.oid {
		case OIDInt2, OIDInt4, OIDInt8, OIDNumeric:
			_ = castTo(n, typ{OIDNumeric, TypeModNumeric(38, 16)})
			if len(fc.Args) == 1 && fc.Over == nil && fc.AggFilter == nil && !fc.AggDistinct && len(fc.AggOrder) == 0 && !fc.AggStar {
				// PostgreSQL's avg is sum / count in numeric (numdiv.go).
				tr.noteNumericDivision(n, aggCall("sum", fc.Args[0]), aggCall("count", fc.Args[0]))
			}
			return typ{OIDNumeric, -1}, nil
		case OIDFloat4, OIDFloat8:
			return typ{OIDFloat8, -1}, nil
		case OIDInterval:
			return first, nil
		}
		return unknownTyp, nil
	case "array_agg":
		if a := ArrayOID(first.oid); a != 0 {
			return typ{a, -1}, nil
		}
		return unknownTyp, nil
	case "date_trunc":
		if len(argTypes) > 1 && argTypes[1].known() {
			if argTypes[1].oid == OIDDate {
				// PostgreSQL has no date_trunc(text, date): the date is
				// converted to timestamptz. DuckDB would return TIMESTAMP.
				_ = castTo(fc.Args[1], typ{OIDTimestamptz, -1})
				return typ{OIDTimestamptz, -1}, nil
			}
			return argTypes[1], nil
		}
		return unknownTyp, nil
	case "coalesce", "greatest", "least":
		return first, nil
	}
	if name == "round" && len(fc.Args) == 1 && (first.oid == OIDFloat8 || first.oid == OIDFloat4) {
		// PostgreSQL's round(float8) is rint(): half to even. DuckDB's
		// round is half away from zero.
		fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode("round_even")}
		fc.Args = append(fc.Args, pg_query.MakeAConstIntNode(0, -1))
		_ = castTo(fc.Args[1], typ{OIDInt4, -1})
		return typ{OIDFloat8, -1}, nil
	}
	if argTypedFuncs[name] {
		if name == "round" && first.oid != OIDFloat8 && first.known() && len(argTypes) <= 2 {
			return typ{OIDNumeric, -1}, nil
		}
		return first, nil
	}
	return unknownTyp, nil
}

// rewriteDatePart gives extract/date_part PostgreSQL's result type and
// fractional seconds. DuckDB returns BIGINT for every field except epoch
// (DOUBLE) and truncates "second" to whole seconds; PostgreSQL returns
// numeric (extract: scale 6 for second/epoch, 3 for milliseconds, else 0)
// or float8 (date_part).
//
//	extract(second FROM x) -> CAST(CAST(extract(microseconds FROM x) AS DOUBLE) / 1000000 AS DECIMAL(38,6))
func rewriteDatePart(n *pg_query.Node, fc *pg_query.FuncCall, name string) {
	if len(fc.Args) != 2 {
		return
	}
	c := fc.Args[0].GetAConst()
	if c == nil || c.GetSval() == nil {
		return
	}
	field := strings.ToLower(c.GetSval().Sval)
	scale := 0
	switch field {
	case "second", "seconds", "epoch":
		scale = 6
	case "millisecond", "milliseconds":
		scale = 3
	}
	if field == "second" || field == "seconds" {
		c.GetSval().Sval = "microseconds"
		_ = castTo(n, typ{OIDFloat8, -1})
		inner := &pg_query.Node{Node: n.Node}
		n.Node = &pg_query.Node_AExpr{AExpr: &pg_query.A_Expr{
			Kind:  pg_query.A_Expr_Kind_AEXPR_OP,
			Name:  []*pg_query.Node{pg_query.MakeStrNode("/")},
			Lexpr: inner, Rexpr: pg_query.MakeAConstIntNode(1000000, -1), Location: -1,
		}}
	}
	if name == "date_part" {
		_ = castTo(n, typ{OIDFloat8, -1})
		return
	}
	_ = castTo(n, typ{OIDNumeric, TypeModNumeric(38, scale)})
}

// rewriteLength gives length functions PostgreSQL's meaning per argument
// type: octet_length counts bytes (DuckDB's takes only BLOB; strlen counts
// a string's bytes), including char(n)'s padding; length/char_length of
// char(n) ignore trailing blanks; length(bytea) is its byte count.
func rewriteLength(fc *pg_query.FuncCall, name string, args []typ) {
	if len(fc.Args) != 1 || len(args) != 1 {
		return
	}
	a, t := fc.Args[0], args[0]
	setName := func(f string) { fc.Funcname = []*pg_query.Node{pg_query.MakeStrNode(f)} }
	switch {
	case t.oid == OIDBytea && name != "octet_length":
		setName("octet_length")
	case name == "octet_length" && isStringType(t.oid):
		setName("strlen")
		if n, ok := charLen(t); ok && t.oid == OIDBpchar {
			// Stored values may lack the padding: count it explicitly.
			inner := &pg_query.Node{Node: a.Node}
			rewriteCall(a, "rpad", inner, pg_query.MakeAConstIntNode(int64(n), -1), pg_query.MakeAConstStrNode(" ", -1))
		}
	case t.oid == OIDBpchar && name != "octet_length":
		rtrimBlanks(a)
	}
}

func charLen(t typ) (int, bool) {
	if t.mod >= 4 {
		return int(t.mod - 4), true
	}
	return 0, false
}

// rewriteToChar runs to_char on dates and timestamps as PostgreSQL's
// formatting.c does (pgtypes.ToCharTime, through Go functions registered in
// DuckDB by the planner): a timestamptz (or a date, which PostgreSQL casts
// to one) is shown in the session's time zone, named by its key in
// pgtypes' zone registry. Other argument types are left to DuckDB.
func (tr *translator) rewriteToChar(n *pg_query.Node, fc *pg_query.FuncCall, args []typ, sc *scope) error {
	if len(fc.Args) != 2 || len(args) != 2 {
		return nil
	}
	value, format := fc.Args[0], fc.Args[1]
	switch args[0].oid {
	case OIDTimestamp:
		rewriteCall(n, "__bsdb_to_char", value, format)
	case OIDTimestamptz, OIDDate:
		if args[0].oid == OIDDate {
			if err := castTo(value, typ{OIDTimestamptz, -1}); err != nil {
				return err
			}
		}
		loc := time.UTC
		if s := tr.typeSettings(); s != nil && s.TimeZone != nil {
			loc = s.TimeZone
		}
		rewriteCall(n, "__bsdb_to_char_tz", value, format, pg_query.MakeAConstStrNode(pgtypes.ZoneKey(loc), -1))
	case OIDNumeric, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8:
		tr.rewriteToCharNumber(n, value, format, args[0], sc)
	}
	return nil
}

// listContains types list_contains(arr, x) and x op ANY/ALL (arr):
// '{1,2}' and an untyped $n as the array are an array of x's type (pgx
// sends a Go slice for ANY($1)); an untyped $n as x takes the array's
// element type.
func (tr *translator) listContains(arr, x *pg_query.Node, sc *scope) (typ, error) {
	if tr.untypedParam(x) {
		at, err := tr.expr(arr, sc, unknownTyp)
		if err != nil {
			return unknownTyp, err
		}
		want := unknownTyp
		if el := ElemOID(at.oid); el != 0 {
			want = typ{el, -1}
		}
		_, err = tr.expr(x, sc, want)
		return typ{OIDBool, -1}, err
	}
	xt, err := tr.expr(x, sc, unknownTyp)
	if err != nil {
		return unknownTyp, err
	}
	want := unknownTyp
	if a := ArrayOID(xt.oid); a != 0 {
		want = typ{a, -1}
		if c := arr.GetAConst(); c != nil && c.GetSval() != nil {
			_, err := tr.foldLiteral(arr, want)
			return typ{OIDBool, -1}, err
		}
	}
	_, err = tr.expr(arr, sc, want)
	return typ{OIDBool, -1}, err
}

// rewriteNumNulls spells num_nulls(a, b, ...) / num_nonnulls as a sum of
// CASEs (variadic: no macro can take it).
func rewriteNumNulls(n *pg_query.Node, fc *pg_query.FuncCall, nulls bool) {
	if len(fc.Args) == 0 {
		return
	}
	var sum *pg_query.Node
	for _, a := range fc.Args {
		one := caseNode(intConst(0), caseWhen(nullTest(a, nulls), intConst(1)))
		if sum == nil {
			sum = one
		} else {
			sum = opNode("+", sum, one)
		}
	}
	n.Node = castNode(sum, "integer").Node
}

// rewriteMakeInterval spells make_interval(years, months, weeks, days,
// hours, mins, secs), positional or named (days => 10), as a sum of
// DuckDB's to_* intervals.
func rewriteMakeInterval(n *pg_query.Node, fc *pg_query.FuncCall) error {
	names := []string{"years", "months", "weeks", "days", "hours", "mins", "secs"}
	args := map[string]*pg_query.Node{}
	for i, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			args[strings.ToLower(na.Name)] = na.Arg
			continue
		}
		if i < len(names) {
			args[names[i]] = a
		}
	}
	var sum *pg_query.Node
	add := func(term *pg_query.Node) {
		if sum == nil {
			sum = term
			return
		}
		sum = pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")}, sum, term, -1)
	}
	for _, k := range names {
		a, ok := args[k]
		if !ok {
			continue
		}
		switch k {
		case "years":
			add(makeCall("to_years", -1, castNode(a, "integer")))
		case "months":
			add(makeCall("to_months", -1, castNode(a, "integer")))
		case "weeks":
			add(makeCall("to_days", -1, pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP,
				[]*pg_query.Node{pg_query.MakeStrNode("*")}, castNode(a, "integer"), pg_query.MakeAConstIntNode(7, -1), -1)))
		case "days":
			add(makeCall("to_days", -1, castNode(a, "integer")))
		case "hours":
			add(makeCall("to_hours", -1, castNode(a, "bigint")))
		case "mins":
			add(makeCall("to_minutes", -1, castNode(a, "bigint")))
		case "secs":
			add(makeCall("to_microseconds", -1, castNode(makeCall("round", -1, pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP,
				[]*pg_query.Node{pg_query.MakeStrNode("*")}, castNode(a, "double"), pg_query.MakeAConstIntNode(1000000, -1), -1)), "bigint")))
		}
	}
	if sum == nil {
		sum = castNode(pg_query.MakeAConstStrNode("0 seconds", -1), "interval")
	}
	n.Node = sum.Node
	return nil
}

// castNode is CAST(a AS typeName) as a new node (pinType wraps in place).
func castNode(a *pg_query.Node, typeName string) *pg_query.Node {
	n := &pg_query.Node{Node: a.Node}
	pinType(n, typeName)
	return n
}

// outputText rewrites a translated expression of type t into its text as
// PostgreSQL's output function prints it, where DuckDB's CAST differs
// (boolean t/f, float, interval, bytea; character(n) without padding).
func outputText(n *pg_query.Node, t typ) {
	inner := &pg_query.Node{Node: n.Node}
	switch t.oid {
	case OIDText, OIDVarchar, OIDUnknown:
		return
	case OIDBool:
		n.Node = boolText(inner, "t", "f").Node
	case OIDFloat8:
		rewriteCall(n, "__bsdb_float8_text", inner)
	case OIDFloat4:
		rewriteCall(n, "__bsdb_float4_text", inner)
	case OIDInterval:
		rewriteCall(n, "__bsdb_interval_text", inner)
	case OIDBytea:
		rewriteCall(n, "__bsdb_bytea_text", inner)
	case OIDBpchar:
		rtrimBlanks(n)
	default:
		_ = castTo(n, typ{OIDText, -1})
	}
}
