package sql

import (
	"fmt"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// PostgreSQL's JSON constructors, which DuckDB does not have (or has with
// other names and another output): to_json[b], json[b]_build_object,
// json[b]_build_array, json[b]_agg, json[b]_object_agg. They are built
// as text with PostgreSQL's layout ({"a" : 1, "b" : 2} for
// json_build_object, [1, 2] for json_agg, { "k" : v } for
// json_object_agg); the jsonb variants are that text cast to JSON, which
// the server prints as jsonb_out does. Each value becomes its JSON text by
// its type, as PostgreSQL's datum_to_json: numbers as they print, booleans
// true/false, non-finite floats, text, dates and times as strings (times
// in ISO 8601 with a "T", timestamptz in the session's time zone with its
// offset), json as is, jsonb as jsonb_out prints it.

// jsonFunc rewrites a call of a JSON constructor; handled is false for
// any other function.
func (tr *translator) jsonFunc(n *pg_query.Node, fc *pg_query.FuncCall, name string, args []typ, sc *scope) (t typ, handled bool, err error) {
	out := typ{OIDJSON, -1}
	jsonb := len(name) > 5 && name[:5] == "jsonb" || name == "to_jsonb"
	if jsonb {
		out = typ{OIDJSONB, -1}
	}
	var text *pg_query.Node
	switch name {
	case "__bsdb_json_record":
		names, ok := tr.jsonRecords[fc]
		if !ok || len(names) != len(fc.Args) {
			return unknownTyp, false, nil
		}
		parts := []*pg_query.Node{strConst("{")}
		for i, a := range fc.Args {
			val, err := tr.jsonValue(a, args[i], sc, "row_to_json")
			if err != nil {
				return unknownTyp, true, err
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			parts = append(parts, strConst(sep+pgtypes.JSONQuote(names[i])+":"), orNull(val))
		}
		n.Node = concatNodes(append(parts, strConst("}"))).Node
		return typ{OIDJSON, jsonComposite}, true, nil
	case "row_to_json":
		if len(fc.Args) != 1 || args[0].oid != OIDJSON || args[0].mod != jsonComposite {
			return unknownTyp, false, nil
		}
		n.Node = fc.Args[0].Node
		return typ{OIDJSON, -1}, true, nil
	case "to_json", "to_jsonb":
		if len(fc.Args) != 1 || fc.Over != nil || fc.AggStar {
			return unknownTyp, false, nil
		}
		if text, err = tr.jsonValue(fc.Args[0], args[0], sc, name); err != nil {
			return unknownTyp, true, err
		}
	case "json_build_object", "jsonb_build_object":
		if len(fc.Args)%2 != 0 {
			return unknownTyp, true, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
				WithHint("The arguments of %s() must consist of alternating keys and values.", name)
		}
		parts := []*pg_query.Node{strConst("{")}
		for i := 0; i < len(fc.Args); i += 2 {
			key, err := tr.jsonKey(fc.Args[i], args[i], sc, fmt.Sprintf("SQLSTATE 22023: argument %d cannot be null\x1f\x1fObject keys should be text.", i+1), nil)
			if err != nil {
				return unknownTyp, true, err
			}
			val, err := tr.jsonValue(fc.Args[i+1], args[i+1], sc, name)
			if err != nil {
				return unknownTyp, true, err
			}
			if i > 0 {
				parts = append(parts, strConst(", "))
			}
			parts = append(parts, key, strConst(" : "), orNull(val))
		}
		text = concatNodes(append(parts, strConst("}")))
	case "json_build_array", "jsonb_build_array":
		parts := []*pg_query.Node{strConst("[")}
		for i, a := range fc.Args {
			val, err := tr.jsonValue(a, args[i], sc, name)
			if err != nil {
				return unknownTyp, true, err
			}
			if i > 0 {
				parts = append(parts, strConst(", "))
			}
			parts = append(parts, orNull(val))
		}
		text = concatNodes(append(parts, strConst("]")))
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		object := name == "json_object_agg" || name == "jsonb_object_agg"
		if len(fc.Args) != map[bool]int{false: 1, true: 2}[object] || fc.AggStar || fc.AggWithinGroup {
			return unknownTyp, false, nil
		}
		sc.aggDepth++ // the arguments are aggregated: a column's text is usable
		var elem *pg_query.Node
		composite := false
		if object {
			key, err := tr.jsonKey(fc.Args[0], args[0], sc, "SQLSTATE 22023: field name must not be null", fc.AggFilter)
			if err != nil {
				sc.aggDepth--
				return unknownTyp, true, err
			}
			val, err := tr.jsonValue(fc.Args[1], args[1], sc, name)
			if err != nil {
				sc.aggDepth--
				return unknownTyp, true, err
			}
			elem = concatNodes([]*pg_query.Node{key, strConst(" : "), orNull(val)})
		} else {
			val, err := tr.jsonValue(fc.Args[0], args[0], sc, name)
			if err != nil {
				sc.aggDepth--
				return unknownTyp, true, err
			}
			elem = orNull(val)
			if args[0].oid == OIDJSON && args[0].mod == jsonComposite {
				// A record after the first: ", \n " (json_agg_transfn).
				composite = true
				elem = caseNull(fc.Args[0], strConst("null"), concatNodes([]*pg_query.Node{strConst("\n "), val}))
			}
		}
		sc.aggDepth--
		agg := &pg_query.FuncCall{
			Funcname: []*pg_query.Node{pg_query.MakeStrNode("string_agg")}, Args: []*pg_query.Node{elem, strConst(", ")},
			AggOrder: fc.AggOrder, AggFilter: fc.AggFilter, AggDistinct: fc.AggDistinct, Over: fc.Over,
			Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL, Location: fc.Location,
		}
		open, close := "[", "]"
		if object {
			open, close = "{ ", " }"
		}
		body := &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: agg}}
		if composite {
			// The first element has no line break before it.
			body = makeCall("regexp_replace", -1, body, strConst("^\n "), strConst(""))
		}
		text = concatNodes([]*pg_query.Node{strConst(open), body, strConst(close)})
	default:
		return unknownTyp, false, nil
	}
	if jsonb {
		// jsonb_out's layout (as text: DuckDB would hand a JSON scalar
		// to the server decoded).
		text = makeCall("__bsdb_jsonb_text", -1, text)
	}
	n.Node = text.Node
	return out, true, nil
}

// jsonComposite is the typmod marking JSON text of a record (a whole-row
// reference turned into __bsdb_json_record): json_agg separates such
// elements with ", \n " as PostgreSQL does.
const jsonComposite = -2

// jsonRecordArgs replaces a whole-row reference argument of a JSON
// function (json_agg(r), row_to_json(r)) by __bsdb_json_record(r.c1, ...)
// before translation, when r's columns are known.
func (tr *translator) jsonRecordArgs(fc *pg_query.FuncCall, name string, sc *scope) {
	switch name {
	case "to_json", "to_jsonb", "row_to_json", "json_agg", "jsonb_agg":
	default:
		return
	}
	if len(fc.Args) != 1 {
		return
	}
	alias, ok := bareName(fc.Args[0])
	if !ok {
		return
	}
	cr := fc.Args[0].GetColumnRef()
	if rel, _ := resolveColumn(cr, sc); rel != nil {
		return // a column
	}
	for s := sc; s != nil; s = s.parent {
		for _, r := range s.rels {
			if r.alias != alias {
				continue
			}
			if r.cols == nil || r.scalarCol != "" {
				return
			}
			var refs []*pg_query.Node
			var names []string
			for _, c := range r.cols {
				refs = append(refs, pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(alias), pg_query.MakeStrNode(c.name)}, cr.Location))
				names = append(names, c.name)
			}
			rec := makeCall("__bsdb_json_record", cr.Location, refs...)
			if tr.jsonRecords == nil {
				tr.jsonRecords = map[*pg_query.FuncCall][]string{}
			}
			tr.jsonRecords[rec.GetFuncCall()] = names
			fc.Args[0] = rec
			return
		}
	}
}

// jsonKey is an object key: the text of k as a JSON string; NULL is an
// error (22004).
// guard, if not nil, is the condition under which the key is used (an
// aggregate's FILTER: DuckDB computes the argument of every row).
func (tr *translator) jsonKey(k *pg_query.Node, t typ, sc *scope, nullErr string, guard *pg_query.Node) (*pg_query.Node, error) {
	test := proto.Clone(k).(*pg_query.Node)
	if isRawType(t) && tr.numericText(k, sc) {
		// numeric's own text
	} else if t.oid != OIDText && t.oid != OIDVarchar && t.oid != OIDUnknown {
		outputText(k, t)
	}
	quoted := makeCall("__bsdb_json_quote", -1, castNode(k, "VARCHAR"))
	isNull := nullTest(test, true)
	if guard != nil {
		isNull = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, []*pg_query.Node{proto.Clone(guard).(*pg_query.Node), isNull}, -1)
	}
	return caseNode(quoted, caseWhen(isNull, makeCall("error", -1, strConst(nullErr)))), nil
}

// jsonValue is the JSON text of the translated value v of type t (NULL
// for NULL).
func (tr *translator) jsonValue(v *pg_query.Node, t typ, sc *scope, fn string) (*pg_query.Node, error) {
	if t.oid == OIDNumeric {
		if isRawType(t) {
			tr.numericText(v, sc) // its own text if known
		}
		return castNode(v, "VARCHAR"), nil
	}
	a := proto.Clone(v).(*pg_query.Node)
	quote := func(s *pg_query.Node) *pg_query.Node {
		return concatNodes([]*pg_query.Node{strConst(`"`), s, strConst(`"`)})
	}
	switch t.oid {
	case OIDInt2, OIDInt4, OIDInt8, OIDOid:
		return castNode(a, "VARCHAR"), nil
	case OIDFloat8, OIDFloat4:
		fn := "__bsdb_float8_text"
		if t.oid == OIDFloat4 {
			fn = "__bsdb_float4_text"
		}
		txt := makeCall(fn, -1, a)
		finite := makeCall("isfinite", -1, proto.Clone(v).(*pg_query.Node))
		return caseNode(quote(proto.Clone(txt).(*pg_query.Node)), caseWhen(finite, txt)), nil
	case OIDBool:
		return boolText(a, "true", "false"), nil
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar, OIDUnknown:
		return makeCall("__bsdb_json_quote", -1, castNode(a, "VARCHAR")), nil
	case OIDJSON:
		return castNode(a, "VARCHAR"), nil
	case OIDJSONB:
		return makeCall("__bsdb_jsonb_text", -1, castNode(a, "VARCHAR")), nil
	case OIDUUID:
		return quote(castNode(a, "VARCHAR")), nil
	case OIDInterval, OIDBytea:
		outputText(a, t)
		return makeCall("__bsdb_json_quote", -1, castNode(a, "VARCHAR")), nil
	case OIDDate:
		return quote(makeCall("__bsdb_to_char", -1, castNode(a, "TIMESTAMP"), strConst("YYYY-MM-DD"))), nil
	case OIDTimestamp:
		s := makeCall("__bsdb_to_char", -1, a, strConst(`YYYY-MM-DD"T"HH24:MI:SS.US`))
		return quote(trimFraction(s)), nil
	case OIDTimestamptz:
		loc := time.UTC
		if s := tr.typeSettings(); s != nil && s.TimeZone != nil {
			loc = s.TimeZone
		}
		zone := strConst(pgtypes.ZoneKey(loc))
		s := makeCall("__bsdb_to_char_tz", -1, a, strConst(`YYYY-MM-DD"T"HH24:MI:SS.US`), zone)
		off := makeCall("__bsdb_to_char_tz", -1, proto.Clone(v).(*pg_query.Node), strConst("TZH:TZM"), proto.Clone(zone).(*pg_query.Node))
		return quote(concatNodes([]*pg_query.Node{trimFraction(s), off})), nil
	}
	what := "unknown type"
	if t.known() {
		what = "type " + pgtypes.FormatType(t.oid, -1)
	}
	return nil, withLocation(pgerr.New(pgerr.FeatureNotSupported, "%s of a value of %s is not supported", fn, what), exprLocation(v))
}

// trimFraction drops the zeros ending the fractional seconds of s (and
// the point if nothing is left): 05.120000 -> 05.12, 05.000000 -> 05.
func trimFraction(s *pg_query.Node) *pg_query.Node {
	return makeCall("rtrim", -1, makeCall("rtrim", -1, s, strConst("0")), strConst("."))
}

// orNull is coalesce(v, 'null').
func orNull(v *pg_query.Node) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_CoalesceExpr{CoalesceExpr: &pg_query.CoalesceExpr{
		Args: []*pg_query.Node{v, strConst("null")}, Location: -1}}}
}

// caseNull is CASE WHEN x IS NULL THEN ifNull ELSE other END.
func caseNull(x, ifNull, other *pg_query.Node) *pg_query.Node {
	return caseNode(other, caseWhen(nullTest(proto.Clone(x).(*pg_query.Node), true), ifNull))
}

// concatNodes is p0 || p1 || ... (NULL if any part is NULL).
func concatNodes(parts []*pg_query.Node) *pg_query.Node {
	out := parts[0]
	for _, p := range parts[1:] {
		out = opNode("||", out, p)
	}
	return out
}
