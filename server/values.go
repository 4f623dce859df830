package server

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgerr"
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

// encodeArray renders a DuckDB list (nested lists for a multidimensional
// array) as PostgreSQL's array in the column's format. The writer is
// pgtypes' array_out/array_send, the one every array value goes through;
// this only converts the engine's elements to pgtypes' canonical values.
func encodeArray(buf []byte, c resultCol, info pgtypes.TypeInfo, v any, st *pgtypes.Settings) ([]byte, error) {
	list, ok := v.([]any)
	if !ok {
		return buf, fmt.Errorf("array value of type %T", v)
	}
	arr, err := duckArray(info.ElemOID, list)
	if err != nil {
		return buf, err
	}
	if c.format == 1 {
		return pgtypes.AppendBinary(buf, c.oid, c.typmod, arr)
	}
	return pgtypes.AppendText(buf, c.oid, c.typmod, arr, st)
}

// duckArray converts a DuckDB list into a pgtypes array value: []any for
// one dimension, pgtypes.Array for nested lists, which must be
// rectangular as PostgreSQL's arrays are (2202E otherwise, the error
// array_in gives for "{{1},{2,3}}"). A list of empty lists is the empty
// array, as PostgreSQL has no other way to write it.
func duckArray(elem uint32, list []any) (any, error) {
	var dims []int32
	for l := any(list); ; {
		sub, ok := l.([]any)
		if !ok {
			break
		}
		dims = append(dims, int32(len(sub)))
		if len(sub) == 0 {
			break
		}
		l = sub[0]
	}
	if len(dims) > 1 && dims[len(dims)-1] == 0 {
		return []any{}, nil
	}
	if len(dims) > pgtypes.MaxArrayDims {
		return nil, pgtypes.TooManyArrayDims(len(dims))
	}
	var elems []any
	var walk func(l []any, d int) error
	walk = func(l []any, d int) error {
		if int32(len(l)) != dims[d] {
			return pgerr.New(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
		}
		for _, e := range l {
			if d+1 < len(dims) {
				sub, ok := e.([]any)
				if !ok {
					return pgerr.New(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
				}
				if err := walk(sub, d+1); err != nil {
					return err
				}
				continue
			}
			if e == nil {
				elems = append(elems, nil)
				continue
			}
			if _, nested := e.([]any); nested {
				return pgerr.New(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
			}
			pv, err := fromDuck(elem, e)
			if err != nil {
				return err
			}
			elems = append(elems, pv)
		}
		return nil
	}
	if err := walk(list, 0); err != nil {
		return nil, err
	}
	if len(dims) == 1 {
		return elems, nil
	}
	lb := make([]int32, len(dims))
	for i := range lb {
		lb[i] = 1
	}
	return pgtypes.Array{Dims: dims, LBound: lb, Elems: elems}, nil
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
