package pgtypes

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// AppendText appends the PostgreSQL text output of v (typoutput of the type
// oid, with typmod applied where output depends on it: char(n) padding)
// under settings s (nil = defaults). v must be in the canonical Go
// representation (see doc.go); NULL (nil) is the caller's business and is
// an error here. Types without a dedicated encoder accept a string or
// []byte and copy it verbatim.
func AppendText(buf []byte, oid uint32, typmod int32, v any, s *Settings) ([]byte, error) {
	s = orDefault(s)
	if v == nil {
		return buf, fmt.Errorf("pgtypes: AppendText: NULL has no text form")
	}
	switch oid {
	case OIDJSONB:
		// jsonb prints its normalized form whatever text the engine
		// produced (DuckDB's JSON functions print compactly).
		if str, ok := toStr(v); ok {
			if norm, err := NormalizeJSONB([]byte(str)); err == nil {
				return append(buf, norm...), nil
			}
			return append(buf, str...), nil
		}
	case OIDBool:
		b, ok := v.(bool)
		if !ok {
			return buf, badValue(oid, v)
		}
		if b {
			return append(buf, 't'), nil
		}
		return append(buf, 'f'), nil
	case OIDInt2, OIDInt4, OIDInt8, OIDOID, OIDXID, OIDCID, OIDRegClass, OIDRegType, OIDRegProc, OIDRegNamespace, OIDRegRole, OIDRegOper, OIDRegProcedure, OIDXID8:
		if str, ok := v.(string); ok { // reg* types output names
			return append(buf, str...), nil
		}
		if u, ok := v.(uint32); ok {
			return strconv.AppendUint(buf, uint64(u), 10), nil
		}
		if u, ok := v.(uint64); ok {
			return strconv.AppendUint(buf, u, 10), nil
		}
		i, ok := toInt64(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return strconv.AppendInt(buf, i, 10), nil
	case OIDFloat4:
		switch f := v.(type) {
		case float32:
			return appendFloat(buf, float64(f), 32, s.ExtraFloatDigits), nil
		case float64:
			return appendFloat(buf, float64(float32(f)), 32, s.ExtraFloatDigits), nil
		}
		return buf, badValue(oid, v)
	case OIDFloat8:
		switch f := v.(type) {
		case float64:
			return appendFloat(buf, f, 64, s.ExtraFloatDigits), nil
		case float32:
			return appendFloat(buf, float64(f), 64, s.ExtraFloatDigits), nil
		}
		return buf, badValue(oid, v)
	case OIDNumeric:
		n, ok := toNumeric(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendNumeric(buf, n), nil
	case OIDBPChar:
		str, ok := toStr(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		buf = append(buf, str...)
		if n, ok := CharLength(typmod); ok {
			for c := utf8.RuneCountInString(str); c < n; c++ {
				buf = append(buf, ' ')
			}
		}
		return buf, nil
	case OIDChar:
		var c byte
		switch x := v.(type) {
		case string:
			if len(x) > 0 {
				c = x[0]
			}
		case byte:
			c = x
		case int8:
			c = byte(x)
		default:
			return buf, badValue(oid, v)
		}
		if c >= 0x80 {
			return append(buf, '\\', '0'+(c>>6), '0'+(c>>3)&7, '0'+c&7), nil
		}
		if c == 0 {
			return buf, nil
		}
		return append(buf, c), nil
	case OIDBytea:
		b, ok := toBytes(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendBytea(buf, b, s.ByteaOutput), nil
	case OIDUUID:
		var u [16]byte
		switch x := v.(type) {
		case [16]byte:
			u = x
		case []byte:
			if len(x) != 16 {
				return buf, badValue(oid, v)
			}
			copy(u[:], x)
		case string:
			return append(buf, x...), nil
		default:
			return buf, badValue(oid, v)
		}
		return appendUUID(buf, u), nil
	case OIDDate:
		d, ok := toDate(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendDate(buf, d, s), nil
	case OIDTime:
		t, ok := toTime(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendClock(buf, int64(t)), nil
	case OIDTimeTZ:
		t, ok := toTimeTZ(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		buf = appendClock(buf, t.Micros)
		return appendTZOffset(buf, int(t.Offset)), nil
	case OIDTimestamp:
		ts, ok := toTimestamp(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendTimestamp(buf, int64(ts), false, s), nil
	case OIDTimestampTZ:
		ts, ok := toTimestampTZ(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendTimestamp(buf, int64(ts), true, s), nil
	case OIDInterval:
		iv, ok := v.(Interval)
		if !ok {
			if d, isDur := v.(time.Duration); isDur {
				iv = Interval{Micros: int64(d / time.Microsecond)}
			} else {
				return buf, badValue(oid, v)
			}
		}
		return appendInterval(buf, iv, s.IntervalStyle), nil
	}
	if elem, isArr := arrayElem(oid); isArr && oid != OIDInt2Vector && oid != OIDOIDVector {
		if _, isStr := v.(string); !isStr {
			return appendArrayText(buf, elem, typmod, v, s)
		}
	}
	str, ok := toStr(v)
	if !ok {
		return buf, badValue(oid, v)
	}
	return append(buf, str...), nil
}

func badValue(oid uint32, v any) error {
	return pgerr.New(pgerr.InternalError, "pgtypes: cannot encode Go %T as %s", v, FormatType(oid, -1))
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

func toStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

func toBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case []byte:
		return x, true
	case string:
		return []byte(x), true
	}
	return nil, false
}

func toNumeric(v any) (Numeric, bool) {
	switch x := v.(type) {
	case Numeric:
		return x, true
	case *Numeric:
		if x == nil {
			return Numeric{}, false
		}
		return *x, true
	case *big.Int:
		return Numeric{Int: x}, true
	case string:
		// Numeric text computed by the SQL layer (exact division).
		n, err := ParseNumeric([]byte(x))
		return n, err == nil
	case float64:
		// The SQL layer carries numeric NaN/±Infinity as a DOUBLE (DuckDB's
		// DECIMAL has none); finite values convert like float8::numeric
		// (15 significant digits).
		switch {
		case math.IsNaN(x):
			return Numeric{NaN: true}, true
		case math.IsInf(x, 1):
			return Numeric{Inf: 1}, true
		case math.IsInf(x, -1):
			return Numeric{Inf: -1}, true
		}
		n, err := ParseNumeric([]byte(strconv.FormatFloat(x, 'g', 15, 64)))
		return n, err == nil
	}
	if i, ok := toInt64(v); ok {
		return NumericFromInt64(i), true
	}
	return Numeric{}, false
}

func toDate(v any) (Date, bool) {
	switch x := v.(type) {
	case Date:
		return x, true
	case time.Time:
		return DateFromTime(x), true
	}
	return 0, false
}

func toTime(v any) (Time, bool) {
	switch x := v.(type) {
	case Time:
		return x, true
	case time.Duration:
		return TimeFromDuration(x), true
	case time.Time:
		h, m, s := x.Clock()
		return Time(int64(h)*usPerHour + int64(m)*usPerMin + int64(s)*usPerSec + int64(x.Nanosecond()/1000)), true
	}
	return 0, false
}

// toTimeTZ accepts a time.Time too (DuckDB's TIMETZ): its wall clock and
// its zone's offset.
func toTimeTZ(v any) (TimeTZ, bool) {
	switch x := v.(type) {
	case TimeTZ:
		return x, true
	case time.Time:
		t, _ := toTime(x)
		_, off := x.Zone()
		return TimeTZ{Micros: int64(t), Offset: int32(off)}, true
	}
	return TimeTZ{}, false
}

func toTimestamp(v any) (Timestamp, bool) {
	switch x := v.(type) {
	case Timestamp:
		return x, true
	case time.Time:
		return TimestampFromTime(x), true
	}
	return 0, false
}

func toTimestampTZ(v any) (TimestampTZ, bool) {
	switch x := v.(type) {
	case TimestampTZ:
		return x, true
	case time.Time:
		return TimestampTZFromTime(x), true
	}
	return 0, false
}

// appendFloat is float4out/float8out. bits selects FLT_DIG (6) or DBL_DIG (15).
func appendFloat(buf []byte, f float64, bits int, efd int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	if efd > 0 {
		// Shortest round-trip digits (Ryu in PostgreSQL); fixed notation
		// when the decimal exponent is in [-4, digits), like %g.
		start := len(buf)
		buf = strconv.AppendFloat(buf, f, 'e', -1, bits)
		e := buf[start:]
		i := len(e) - 1
		for e[i] != 'e' {
			i--
		}
		exp, _ := strconv.Atoi(string(e[i+1:]))
		if exp < -4 || exp >= digits {
			return buf
		}
		return strconv.AppendFloat(buf[:start], f, 'f', -1, bits)
	}
	p := digits + efd
	if p < 1 {
		p = 1
	}
	return strconv.AppendFloat(buf, f, 'g', p, 64)
}

// appendNumeric is numeric_out.
func appendNumeric(buf []byte, n Numeric) []byte {
	switch {
	case n.NaN:
		return append(buf, "NaN"...)
	case n.Inf > 0:
		return append(buf, "Infinity"...)
	case n.Inf < 0:
		return append(buf, "-Infinity"...)
	}
	if n.Int == nil {
		buf = append(buf, '0')
		if n.Scale > 0 {
			buf = append(buf, '.')
			for i := int32(0); i < n.Scale; i++ {
				buf = append(buf, '0')
			}
		}
		return buf
	}
	if n.Int.Sign() < 0 {
		buf = append(buf, '-')
	}
	var abs big.Int
	abs.Abs(n.Int)
	if n.Scale <= 0 {
		buf = abs.Append(buf, 10)
		if abs.Sign() != 0 {
			for i := n.Scale; i < 0; i++ {
				buf = append(buf, '0')
			}
		}
		return buf
	}
	start := len(buf)
	buf = abs.Append(buf, 10)
	nd := len(buf) - start
	sc := int(n.Scale)
	if nd <= sc { // left-pad with zeros to sc+1 digits
		pad := sc + 1 - nd
		buf = append(buf, make([]byte, pad)...)
		copy(buf[start+pad:], buf[start:start+nd])
		for i := 0; i < pad; i++ {
			buf[start+i] = '0'
		}
		nd += pad
	}
	buf = append(buf, 0)
	pt := start + nd - sc
	copy(buf[pt+1:], buf[pt:start+nd])
	buf[pt] = '.'
	return buf
}

const hexDigits = "0123456789abcdef"

func appendBytea(buf, b []byte, style ByteaOutput) []byte {
	if style == ByteaHex {
		buf = append(buf, '\\', 'x')
		for _, c := range b {
			buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
		}
		return buf
	}
	for _, c := range b {
		switch {
		case c == '\\':
			buf = append(buf, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			buf = append(buf, '\\', '0'+(c>>6), '0'+(c>>3)&7, '0'+c&7)
		default:
			buf = append(buf, c)
		}
	}
	return buf
}

func appendUUID(buf []byte, u [16]byte) []byte {
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[c>>4], hexDigits[c&15])
	}
	return buf
}
