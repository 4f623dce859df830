package server

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgtypes"
)

// encodeValue appends v (as returned by the DuckDB driver) in column c's
// type and format.
func encodeValue(buf []byte, c resultCol, v any, st *pgtypes.Settings) ([]byte, error) {
	if info, ok := pgtypes.TypeByOID(c.oid); ok && info.IsArray() {
		return encodeArray(buf, c, info, v, st)
	}
	pv, err := fromDuck(c.oid, v)
	if err != nil {
		return buf, err
	}
	if c.format == 1 {
		return pgtypes.AppendBinary(buf, c.oid, c.typmod, pv)
	}
	return pgtypes.AppendText(buf, c.oid, c.typmod, pv, st)
}

// fromDuck converts a DuckDB driver value into pgtypes' canonical form for
// the PostgreSQL type oid.
func fromDuck(oid uint32, v any) (any, error) {
	switch x := v.(type) {
	case duckdb.Decimal:
		n := pgtypes.Numeric{Int: x.Value, Scale: int32(x.Scale)}
		switch oid {
		case pgtypes.OIDFloat8:
			return x.Float64(), nil
		case pgtypes.OIDInt8, pgtypes.OIDInt4, pgtypes.OIDInt2:
			return x.Value.Int64(), nil
		}
		return n, nil
	case *big.Int:
		if oid == pgtypes.OIDNumeric {
			return pgtypes.Numeric{Int: x}, nil
		}
		if x.IsInt64() {
			return x.Int64(), nil
		}
		return pgtypes.Numeric{Int: x}, nil
	case duckdb.Interval:
		return pgtypes.Interval{Months: x.Months, Days: x.Days, Micros: x.Micros}, nil
	case duckdb.UUID:
		return [16]byte(x), nil
	case *duckdb.UUID:
		return [16]byte(*x), nil
	case time.Time:
		if inf := duckInfinity(oid, x); inf != nil {
			return inf, nil
		}
		switch oid {
		case pgtypes.OIDDate:
			return pgtypes.DateFromTime(x), nil
		case pgtypes.OIDTime:
			h, m, s := x.Clock()
			return pgtypes.Time(int64(h)*3600e6 + int64(m)*60e6 + int64(s)*1e6 + int64(x.Nanosecond()/1000)), nil
		case pgtypes.OIDTimestamp:
			return pgtypes.TimestampFromTime(x), nil
		case pgtypes.OIDTimestampTZ:
			return pgtypes.TimestampTZFromTime(x), nil
		}
		return x, nil
	case int8:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if oid == pgtypes.OIDNumeric {
			return pgtypes.Numeric{Int: new(big.Int).SetUint64(x)}, nil
		}
		return int64(x), nil
	case int16, int32, int64:
		if oid == pgtypes.OIDNumeric {
			i, _ := toInt64(x)
			return pgtypes.NumericFromInt64(i), nil
		}
		return x, nil
	case float32:
		if oid == pgtypes.OIDFloat8 {
			return float64(x), nil
		}
		return x, nil
	case float64:
		if oid == pgtypes.OIDFloat4 {
			return float32(x), nil
		}
		return x, nil
	case []byte:
		if oid == pgtypes.OIDUUID && len(x) == 16 {
			return [16]byte(x), nil
		}
		if oid == pgtypes.OIDBytea {
			return x, nil
		}
		return string(x), nil
	case string, bool:
		return x, nil
	case []any:
		if oid == pgtypes.OIDInt2Vector || oid == pgtypes.OIDOIDVector {
			return vectorText(x), nil // catalog columns (indkey, proargtypes) are lists
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return fmt.Sprint(v), nil
}

// vectorText is an int2vector / oidvector's text: "1 2".
func vectorText(l []any) string {
	b := make([]byte, 0, 8*len(l))
	for i, e := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		b = fmt.Append(b, e)
	}
	return string(b)
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// encodeArray renders a DuckDB list in PostgreSQL's array text form
// ({a,b,NULL} with quoting) or binary array format.
func encodeArray(buf []byte, c resultCol, info pgtypes.TypeInfo, v any, st *pgtypes.Settings) ([]byte, error) {
	list, ok := v.([]any)
	if !ok {
		return buf, fmt.Errorf("array value of type %T", v)
	}
	elem := resultCol{oid: info.ElemOID, typmod: c.typmod, format: c.format}
	if c.format == 1 {
		vals := make([]any, len(list))
		for i, e := range list {
			if e == nil {
				continue
			}
			pv, err := fromDuck(elem.oid, e)
			if err != nil {
				return buf, err
			}
			vals[i] = pv
		}
		return appendBinaryArray(buf, info.ElemOID, c.typmod, vals)
	}
	buf = append(buf, '{')
	for i, e := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		if e == nil {
			buf = append(buf, "NULL"...)
			continue
		}
		if sub, ok := e.([]any); ok {
			var err error
			buf, err = encodeArray(buf, c, info, sub, st)
			if err != nil {
				return buf, err
			}
			continue
		}
		pv, err := fromDuck(elem.oid, e)
		if err != nil {
			return buf, err
		}
		text, err := pgtypes.AppendText(nil, elem.oid, elem.typmod, pv, st)
		if err != nil {
			return buf, err
		}
		buf = appendArrayElem(buf, text)
	}
	return append(buf, '}'), nil
}

func appendArrayElem(buf, text []byte) []byte {
	needQuote := len(text) == 0 || (len(text) == 4 && (string(text) == "NULL" || string(text) == "null"))
	for _, ch := range text {
		switch ch {
		case '"', '\\', '{', '}', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			needQuote = true
		}
	}
	if !needQuote {
		return append(buf, text...)
	}
	buf = append(buf, '"')
	for _, ch := range text {
		if ch == '"' || ch == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, ch)
	}
	return append(buf, '"')
}

// appendBinaryArray writes a one-dimensional array in PostgreSQL's binary
// array format (array_send).
func appendBinaryArray(buf []byte, elem uint32, typmod int32, vals []any) ([]byte, error) {
	hasNull := int32(0)
	for _, v := range vals {
		if v == nil {
			hasNull = 1
		}
	}
	be := func(b []byte, v uint32) []byte { return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
	if len(vals) == 0 {
		buf = be(buf, 0)
		buf = be(buf, 0)
		return be(buf, elem), nil
	}
	buf = be(buf, 1)
	buf = be(buf, uint32(hasNull))
	buf = be(buf, elem)
	buf = be(buf, uint32(len(vals)))
	buf = be(buf, 1)
	for _, v := range vals {
		if v == nil {
			buf = be(buf, 0xffffffff)
			continue
		}
		at := len(buf)
		buf = be(buf, 0)
		var err error
		buf, err = pgtypes.AppendBinary(buf, elem, typmod, v)
		if err != nil {
			return buf, err
		}
		n := uint32(len(buf) - at - 4)
		buf[at], buf[at+1], buf[at+2], buf[at+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
	return buf, nil
}

// duckInfinity returns the PostgreSQL infinity of a date or timestamp that
// DuckDB's driver hands over as a time.Time at DuckDB's infinity (±(2^31-1)
// days, ±(2^63-1) microseconds from 1970; the minimum values too, as
// written before shiftTS and arrowDate mapped to DuckDB's), else nil.
func duckInfinity(oid uint32, x time.Time) any {
	switch oid {
	case pgtypes.OIDDate:
		sec := x.Unix()
		days := sec / 86400
		if sec < 0 && sec%86400 != 0 {
			days--
		}
		switch days {
		case math.MaxInt32:
			return pgtypes.DateInfinity
		case -math.MaxInt32, math.MinInt32:
			return pgtypes.DateNegInfinity
		}
	case pgtypes.OIDTimestamp, pgtypes.OIDTimestampTZ:
		sign := 0
		switch x.UnixMicro() {
		case math.MaxInt64:
			sign = 1
		case -math.MaxInt64, math.MinInt64:
			sign = -1
		}
		switch {
		case sign > 0 && oid == pgtypes.OIDTimestamp:
			return pgtypes.TimestampInfinity
		case sign < 0 && oid == pgtypes.OIDTimestamp:
			return pgtypes.TimestampNegInfinity
		case sign > 0:
			return pgtypes.TimestampTZInfinity
		case sign < 0:
			return pgtypes.TimestampTZNegInf
		}
	}
	return nil
}
