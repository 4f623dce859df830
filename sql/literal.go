package sql

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

// SettingsSource is optionally implemented by a Catalog: the session
// settings that govern the input of literals (DateStyle's field order,
// TimeZone for timestamptz without a zone, IntervalStyle). Without it the
// translator uses pgtypes.DefaultSettings().
type SettingsSource interface {
	TypeSettings() *pgtypes.Settings
}

func (tr *translator) typeSettings() *pgtypes.Settings {
	if ss, ok := tr.cat.(SettingsSource); ok {
		if s := ss.TypeSettings(); s != nil {
			return s
		}
	}
	return nil
}

// literalSettings is what canonical literal text is printed with: ISO
// dates and UTC offsets, which DuckDB parses unambiguously.
var literalSettings = pgtypes.DefaultSettings()

// foldable reports whether a string literal of type oid is evaluated by
// PostgreSQL's input function at translation time (see doc.go, "literal
// folding"). Text types are left alone (their input is the identity).
func foldable(oid uint32) bool {
	if el := ElemOID(oid); el != 0 {
		// Arrays: '{1,2}'::int[], '{a,b}'::text[] (array_in).
		switch el {
		case OIDJSON, OIDJSONB:
			return false
		case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar, OIDOid:
			return true // (oid[], name[], "char"[]: catalog queries' ANY('{...}'))
		}
		return foldable(el)
	}
	switch oid {
	case OIDBool, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric,
		OIDDate, OIDTime, OIDTimestamp, OIDTimestamptz, OIDInterval,
		OIDBytea, OIDUUID, OIDJSON, OIDJSONB:
		return true
	}
	return false
}

// foldLiteral evaluates the constant n (a string literal, or a number when
// t is numeric) with t's PostgreSQL input function and replaces n by an
// equivalent DuckDB literal. It reports false (and leaves n alone) when n
// is not such a constant or the value has no exact DuckDB literal. Input
// errors carry the literal's position.
func (tr *translator) foldLiteral(n *pg_query.Node, t typ) (bool, error) {
	c := n.GetAConst()
	if c == nil || c.Isnull || !foldable(t.oid) {
		return false, nil
	}
	var text string
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Sval:
		text = v.Sval.Sval
	case *pg_query.A_Const_Fval:
		if t.oid == OIDFloat4 || t.oid == OIDFloat8 {
			return tr.foldNumericToFloat(n, c, v.Fval.Fval, t)
		}
		if t.oid != OIDNumeric {
			return false, nil
		}
		text = v.Fval.Fval
	case *pg_query.A_Const_Ival:
		if t.oid != OIDNumeric {
			return false, nil
		}
		text = strconv.FormatInt(int64(v.Ival.Ival), 10)
	default:
		return false, nil
	}
	val, err := pgtypes.ParseParamText(t.oid, t.mod, []byte(text), tr.typeSettings())
	if err != nil {
		return false, literalError(err, c)
	}
	lit, ok, err := duckLiteral(t, val)
	if err != nil || !ok {
		return false, err
	}
	n.Node = lit.Node
	return true, nil
}

// foldNumericToFloat folds a numeric constant (1.5, 1e309) assigned or
// compared to a float column: PostgreSQL converts the numeric to float with
// float8in/float4in of its text, and a value out of the float's range is
// error 22003 naming the numeric's full text (DuckDB would give Infinity).
func (tr *translator) foldNumericToFloat(n *pg_query.Node, c *pg_query.A_Const, text string, t typ) (bool, error) {
	val, err := pgtypes.ParseText(t.oid, -1, []byte(text), nil)
	if err != nil {
		e, ok := pgerr.As(err)
		if !ok || e.Code != pgerr.NumericValueOutOfRange {
			return false, nil
		}
		num, nerr := pgtypes.ParseText(OIDNumeric, -1, []byte(text), nil)
		if nerr != nil {
			return false, nil
		}
		name := "double precision"
		if t.oid == OIDFloat4 {
			name = "real"
		}
		return false, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", num.(pgtypes.Numeric).String(), name)
	}
	lit, ok, err := duckLiteral(t, val)
	if err != nil || !ok {
		return false, err
	}
	n.Node = lit.Node
	return true, nil
}

// duckLiteral spells a parsed value as a DuckDB expression of t's DuckDB
// type.
func duckLiteral(t typ, val any) (*pg_query.Node, bool, error) {
	str := func(s string, oid uint32, mod int32) (*pg_query.Node, bool, error) {
		n := pg_query.MakeAConstStrNode(s, -1)
		if err := castTo(n, typ{oid, mod}); err != nil {
			return nil, false, err
		}
		return n, true, nil
	}
	switch v := val.(type) {
	case bool:
		return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
			Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: v}}, Location: -1,
		}}}, true, nil
	case int16:
		return str(strconv.Itoa(int(v)), t.oid, -1)
	case int32:
		return str(strconv.Itoa(int(v)), t.oid, -1)
	case int64:
		return str(strconv.FormatInt(v, 10), t.oid, -1)
	case uint32: // oid
		return str(strconv.FormatUint(uint64(v), 10), t.oid, -1)
	case float32:
		return str(floatText(float64(v), 32), OIDFloat4, -1)
	case float64:
		return str(floatText(v, 64), OIDFloat8, -1)
	case pgtypes.Numeric:
		if v.NaN || v.Inf != 0 {
			// DuckDB's DECIMAL has no NaN/Infinity: a DOUBLE carries it
			// (the result column is still reported as numeric).
			s := "NaN"
			if v.Inf > 0 {
				s = "Infinity"
			} else if v.Inf < 0 {
				s = "-Infinity"
			}
			return str(s, OIDFloat8, -1)
		}
		mod := t.mod
		if _, _, ok := NumericPrecisionScale(mod); !ok {
			// Unconstrained: keep the value's own display scale, and the
			// smallest precision that holds it, so that DuckDB's type
			// unification of VALUES rows (DECIMAL(4,3) with DECIMAL(3,2)
			// -> DECIMAL(4,3)) never drops a digit: with precision 38
			// for both it would keep 38 digits and cut the scale.
			s := int(v.Scale)
			intDigits := len(strings.TrimLeft(strings.SplitN(strings.TrimPrefix(v.String(), "-"), ".", 2)[0], "0"))
			if s < 0 || intDigits+s > 38 {
				return nil, false, nil
			}
			mod = TypeModNumeric(max(intDigits+s, 1), s)
		}
		return str(v.String(), OIDNumeric, mod)
	case []byte:
		return &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
			Funcname:   []*pg_query.Node{pg_query.MakeStrNode("unhex")},
			Args:       []*pg_query.Node{pg_query.MakeAConstStrNode(hex.EncodeToString(v), -1)},
			Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
			Location:   -1,
		}}}, true, nil
	case pgtypes.Interval:
		return str(strconv.Itoa(int(v.Months))+" months "+strconv.Itoa(int(v.Days))+" days "+
			strconv.FormatInt(v.Micros, 10)+" microseconds", OIDInterval, -1)
	case []any:
		return arrayLiteral(t, [][]any{v}, nil)
	case pgtypes.Array:
		return arrayLiteral(t, nil, &v)
	case string:
		return str(v, t.oid, -1)
	case pgtypes.Date, pgtypes.Time, pgtypes.TimeTZ, pgtypes.Timestamp, pgtypes.TimestampTZ, [16]byte:
		b, err := pgtypes.AppendText(nil, t.oid, -1, v, literalSettings)
		if err != nil {
			return nil, false, err
		}
		s := string(b)
		if strings.HasSuffix(s, " BC") {
			return nil, false, nil // DuckDB's BC spelling differs
		}
		return str(s, t.oid, -1)
	}
	return nil, false, nil
}

// arrayLiteral spells an array value as ARRAY[...] (nested for several
// dimensions) cast to t: DuckDB's list. Arrays with other lower bounds
// than 1 have no DuckDB form (ok false).
func arrayLiteral(t typ, one [][]any, multi *pgtypes.Array) (*pg_query.Node, bool, error) {
	el := typ{ElemOID(t.oid), t.mod}
	if el.oid == 0 {
		return nil, false, nil
	}
	elem := func(v any) (*pg_query.Node, bool, error) {
		if v == nil {
			return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: -1}}}, true, nil
		}
		return duckLiteral(el, v)
	}
	build := func(elems []any) (*pg_query.Node, bool, error) {
		items := make([]*pg_query.Node, len(elems))
		for i, v := range elems {
			n, ok, err := elem(v)
			if err != nil || !ok {
				return nil, ok, err
			}
			items[i] = n
		}
		return &pg_query.Node{Node: &pg_query.Node_AArrayExpr{AArrayExpr: &pg_query.A_ArrayExpr{Elements: items, Location: -1}}}, true, nil
	}
	var arr *pg_query.Node
	var ok bool
	var err error
	if multi == nil {
		arr, ok, err = build(one[0])
	} else {
		for _, lb := range multi.LBound {
			if lb != 1 {
				return nil, false, nil
			}
		}
		// Row-major elements into nested ARRAY[...] by dimension.
		var nest func(d int, elems []any) (*pg_query.Node, bool, error)
		nest = func(d int, elems []any) (*pg_query.Node, bool, error) {
			if d == len(multi.Dims)-1 {
				return build(elems)
			}
			size := len(elems) / int(multi.Dims[d])
			items := make([]*pg_query.Node, multi.Dims[d])
			for i := range items {
				n, ok, err := nest(d+1, elems[i*size:(i+1)*size])
				if err != nil || !ok {
					return nil, ok, err
				}
				items[i] = n
			}
			return &pg_query.Node{Node: &pg_query.Node_AArrayExpr{AArrayExpr: &pg_query.A_ArrayExpr{Elements: items, Location: -1}}}, true, nil
		}
		arr, ok, err = nest(0, multi.Elems)
	}
	if err != nil || !ok {
		return nil, ok, err
	}
	if len(one) > 0 && len(one[0]) == 0 || multi != nil {
		// An empty ARRAY[] needs its type; nested lists need theirs spelled.
		dims := 1
		if multi != nil {
			dims = len(multi.Dims)
		}
		tn, terr := duckTypeName(el.oid, el.mod)
		if terr != nil {
			return nil, false, nil
		}
		for range dims {
			tn.ArrayBounds = append(tn.ArrayBounds, pg_query.MakeIntNode(-1))
		}
		return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: arr, TypeName: tn, Location: -1}}}, true, nil
	}
	if err := castTo(arr, t); err != nil {
		return nil, false, nil
	}
	return arr, true, nil
}

func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// foldAssigned folds a constant VALUES item assigned to a column of type t
// (PostgreSQL coerces the unknown literal with the column type's input
// function and typmod). Character columns are checked and cut like
// PostgreSQL's varchar/bpchar input (trailing blanks beyond the length are
// dropped silently); the value is stored without bpchar's padding.
func (tr *translator) foldAssigned(n *pg_query.Node, t typ) (bool, error) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return false, nil
	}
	if (t.oid == OIDVarchar || t.oid == OIDBpchar || t.oid == OIDName) && c.GetSval() != nil {
		// (name: cut to 63 bytes at a character boundary, as namein does.)
		val, err := pgtypes.ParseText(t.oid, t.mod, []byte(c.GetSval().GetSval()), tr.typeSettings())
		if err != nil {
			return false, literalError(err, c)
		}
		s, _ := val.(string)
		if t.oid == OIDBpchar {
			s = strings.TrimRight(s, " ")
		}
		lit, _, err := duckLiteral(typ{OIDText, -1}, s)
		if err != nil {
			return false, err
		}
		n.Node = lit.Node
		return true, nil
	}
	return tr.foldLiteral(n, t)
}

// literalError gives an input-function error the literal's position, as
// PostgreSQL does. Errors of the typmod coercion that follows the input
// function (varchar/char length 22001, numeric(p,s) "numeric field
// overflow") carry no position in PostgreSQL.
func literalError(err error, c *pg_query.A_Const) error {
	e, ok := pgerr.As(err)
	if !ok {
		return pgerr.Wrap(err, pgerr.InvalidTextRepresentation, "%v", err)
	}
	if e.Code == pgerr.StringDataRightTruncation || e.Message == "numeric field overflow" {
		return e
	}
	if e.Position == 0 && c.Location >= 0 {
		return e.WithPosition(int(c.Location) + 1)
	}
	return e
}
