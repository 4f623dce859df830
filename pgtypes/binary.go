package pgtypes

import (
	"encoding/binary"
	"math"
	"math/big"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Numeric binary sign words (numeric.c).
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
	// infDScale is what numeric_send puts in the dscale word of ±Infinity
	// (the header bits of the short format leak through); recv ignores it.
	infDScale = 0x20
)

// AppendBinary appends the PostgreSQL binary (typsend) form of v. The
// formats: bool 1 byte; int2/int4/int8, oid, float4/float8 big-endian;
// numeric int16 ndigits, int16 weight, uint16 sign, int16 dscale, then
// ndigits int16 base-10000 digits; date int32 days since 2000-01-01; time
// int64 µs; timetz int64 µs + int32 seconds WEST of UTC; timestamp[tz]
// int64 µs since 2000-01-01; interval int64 µs, int32 days, int32 months;
// uuid 16 bytes; jsonb a version byte 1 then the text; text-like types and
// bytea their bytes.
func AppendBinary(buf []byte, oid uint32, typmod int32, v any) ([]byte, error) {
	if v == nil {
		return buf, pgerr.New(pgerr.InternalError, "pgtypes: AppendBinary: NULL has no binary form")
	}
	switch oid {
	case OIDBool:
		b, ok := v.(bool)
		if !ok {
			return buf, badValue(oid, v)
		}
		if b {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case OIDInt2:
		i, ok := toInt64(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint16(buf, uint16(i)), nil
	case OIDInt4:
		i, ok := toInt64(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
	case OIDInt8, OIDXID8:
		if u, ok := v.(uint64); ok {
			return binary.BigEndian.AppendUint64(buf, u), nil
		}
		i, ok := toInt64(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(i)), nil
	case OIDOID, OIDXID, OIDCID, OIDRegClass, OIDRegType, OIDRegProc, OIDRegNamespace, OIDRegRole, OIDRegOper, OIDRegProcedure:
		i, ok := toInt64(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
	case OIDFloat4:
		switch f := v.(type) {
		case float32:
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(f)), nil
		case float64:
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
		}
		return buf, badValue(oid, v)
	case OIDFloat8:
		switch f := v.(type) {
		case float64:
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(f)), nil
		case float32:
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(float64(f))), nil
		}
		return buf, badValue(oid, v)
	case OIDNumeric:
		n, ok := toNumeric(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return appendNumericBinary(buf, n), nil
	case OIDChar:
		switch x := v.(type) {
		case string:
			if len(x) == 0 {
				return append(buf, 0), nil
			}
			return append(buf, x[0]), nil
		case byte:
			return append(buf, x), nil
		case int8:
			return append(buf, byte(x)), nil
		}
		return buf, badValue(oid, v)
	case OIDBPChar:
		str, ok := toStr(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return AppendText(buf, oid, typmod, str, nil) // blank padding
	case OIDJSONB:
		str, ok := toStr(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		// Version 1, then the text jsonb_out prints: normalized, as in
		// the text format (asyncpg reads jsonb in binary).
		return AppendText(append(buf, 1), oid, typmod, str, nil)
	case OIDUUID:
		switch x := v.(type) {
		case [16]byte:
			return append(buf, x[:]...), nil
		case []byte:
			if len(x) == 16 {
				return append(buf, x...), nil
			}
		}
		return buf, badValue(oid, v)
	case OIDDate:
		d, ok := toDate(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint32(buf, uint32(d)), nil
	case OIDTime:
		t, ok := toTime(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(t)), nil
	case OIDTimeTZ:
		t, ok := toTimeTZ(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(t.Micros))
		return binary.BigEndian.AppendUint32(buf, uint32(-t.Offset)), nil
	case OIDTimestamp:
		ts, ok := toTimestamp(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(ts)), nil
	case OIDTimestampTZ:
		ts, ok := toTimestampTZ(v)
		if !ok {
			return buf, badValue(oid, v)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(ts)), nil
	case OIDInterval:
		iv, ok := v.(Interval)
		if !ok {
			if d, isDur := v.(time.Duration); isDur {
				iv = Interval{Micros: int64(d / time.Microsecond)}
			} else {
				return buf, badValue(oid, v)
			}
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(iv.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(iv.Months)), nil
	}
	if elem, isArr := arrayElem(oid); isArr {
		return appendArrayBinary(buf, elem, typmod, v)
	}
	b, ok := toBytes(v)
	if !ok {
		return buf, badValue(oid, v)
	}
	return append(buf, b...), nil
}

var bigTenThousand = big.NewInt(10000)

// appendNumericBinary is numeric_send.
func appendNumericBinary(buf []byte, n Numeric) []byte {
	put := func(ndigits, weight int, sign uint16, dscale int) {
		buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
		buf = binary.BigEndian.AppendUint16(buf, sign)
		buf = binary.BigEndian.AppendUint16(buf, uint16(dscale))
	}
	switch {
	case n.NaN:
		put(0, 0, numericNaN, 0)
		return buf
	case n.Inf > 0:
		put(0, 0, numericPInf, infDScale)
		return buf
	case n.Inf < 0:
		put(0, 0, numericNInf, infDScale)
		return buf
	}
	dscale := int(n.Scale)
	var abs big.Int
	if n.Int != nil {
		abs.Abs(n.Int)
	}
	if dscale < 0 { // normalize to a non-negative display scale
		abs.Mul(&abs, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-dscale)), nil))
		dscale = 0
	}
	sign := uint16(numericPos)
	if n.Int != nil && n.Int.Sign() < 0 {
		sign = numericNeg
	}
	if abs.Sign() == 0 {
		put(0, 0, numericPos, dscale)
		return buf
	}
	// Scale the value so the decimal point sits on a base-10000 boundary.
	fracGroups := (dscale + 3) / 4
	pad := fracGroups*4 - dscale
	if pad > 0 {
		abs.Mul(&abs, big.NewInt([...]int64{1, 10, 100, 1000}[pad]))
	}
	var digits []uint16 // least significant first
	var q, r big.Int
	q.Set(&abs)
	for q.Sign() != 0 {
		q.QuoRem(&q, bigTenThousand, &r)
		digits = append(digits, uint16(r.Int64()))
	}
	// weight of the most significant group.
	weight := len(digits) - 1 - fracGroups
	// strip trailing zero groups (least significant).
	lo := 0
	for lo < len(digits) && digits[lo] == 0 {
		lo++
	}
	digits = digits[lo:]
	put(len(digits), weight, sign, dscale)
	for i := len(digits) - 1; i >= 0; i-- {
		buf = binary.BigEndian.AppendUint16(buf, digits[i])
	}
	return buf
}

func binErr(oid uint32) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format for type %s", FormatType(oid, -1))
}

// ParseBinary decodes the binary (typreceive) form of a value of type oid
// into the canonical Go representation. Length or content errors give
// 22P03.
func ParseBinary(oid uint32, typmod int32, data []byte) (any, error) {
	need := func(n int) error {
		if len(data) != n {
			return binErr(oid)
		}
		return nil
	}
	be := binary.BigEndian
	switch oid {
	case OIDBool:
		if err := need(1); err != nil {
			return nil, err
		}
		return data[0] != 0, nil
	case OIDInt2:
		if err := need(2); err != nil {
			return nil, err
		}
		return int16(be.Uint16(data)), nil
	case OIDInt4:
		if err := need(4); err != nil {
			return nil, err
		}
		return int32(be.Uint32(data)), nil
	case OIDInt8:
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(be.Uint64(data)), nil
	case OIDOID, OIDXID, OIDCID, OIDRegClass, OIDRegType, OIDRegProc, OIDRegNamespace, OIDRegRole, OIDRegOper, OIDRegProcedure:
		if err := need(4); err != nil {
			return nil, err
		}
		return be.Uint32(data), nil
	case OIDFloat4:
		if err := need(4); err != nil {
			return nil, err
		}
		return math.Float32frombits(be.Uint32(data)), nil
	case OIDFloat8:
		if err := need(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(be.Uint64(data)), nil
	case OIDNumeric:
		return parseNumericBinary(data)
	case OIDChar:
		if err := need(1); err != nil {
			return nil, err
		}
		if data[0] == 0 {
			return "", nil
		}
		return string(data[:1]), nil
	case OIDJSONB:
		if len(data) < 1 || data[0] != 1 {
			return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "unsupported jsonb version number %d", firstByte(data))
		}
		if e := pgerr.CheckText(data[1:]); e != nil {
			return nil, e
		}
		return ParseText(OIDJSONB, typmod, data[1:], nil)
	case OIDBytea:
		return append([]byte(nil), data...), nil
	case OIDUUID:
		if err := need(16); err != nil {
			return nil, err
		}
		var u [16]byte
		copy(u[:], data)
		return u, nil
	case OIDDate:
		if err := need(4); err != nil {
			return nil, err
		}
		return Date(int32(be.Uint32(data))), nil
	case OIDTime:
		if err := need(8); err != nil {
			return nil, err
		}
		t := int64(be.Uint64(data))
		if t < 0 || t > usPerDay {
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "time out of range")
		}
		return Time(t), nil
	case OIDTimeTZ:
		if err := need(12); err != nil {
			return nil, err
		}
		return TimeTZ{Micros: int64(be.Uint64(data)), Offset: -int32(be.Uint32(data[8:]))}, nil
	case OIDTimestamp:
		if err := need(8); err != nil {
			return nil, err
		}
		return Timestamp(int64(be.Uint64(data))), nil
	case OIDTimestampTZ:
		if err := need(8); err != nil {
			return nil, err
		}
		return TimestampTZ(int64(be.Uint64(data))), nil
	case OIDInterval:
		if err := need(16); err != nil {
			return nil, err
		}
		return Interval{Micros: int64(be.Uint64(data)), Days: int32(be.Uint32(data[8:])), Months: int32(be.Uint32(data[12:]))}, nil
	case OIDText, OIDVarchar, OIDBPChar, OIDName, OIDJSON, OIDXML, OIDUnknown:
		// textrecv and its kin take the bytes through the client-to-server
		// conversion, which refuses invalid UTF-8 and NUL (22021).
		if e := pgerr.CheckText(data); e != nil {
			return nil, e
		}
		return ParseText(oid, typmod, data, nil)
	}
	if elem, isArr := arrayElem(oid); isArr {
		return parseArrayBinary(oid, elem, typmod, data)
	}
	return string(data), nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// parseNumericBinary is numeric_recv.
func parseNumericBinary(data []byte) (any, error) {
	bad := pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid numeric binary data")
	if len(data) < 8 {
		return nil, bad
	}
	be := binary.BigEndian
	ndigits := int(int16(be.Uint16(data)))
	weight := int(int16(be.Uint16(data[2:])))
	sign := be.Uint16(data[4:])
	dscale := int(int16(be.Uint16(data[6:])))
	if ndigits < 0 || len(data) != 8+2*ndigits {
		return nil, bad
	}
	switch sign {
	case numericNaN:
		return Numeric{NaN: true}, nil
	case numericPInf:
		return Numeric{Inf: 1}, nil
	case numericNInf:
		return Numeric{Inf: -1}, nil
	case numericPos, numericNeg:
	default:
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid sign in external \"numeric\" value")
	}
	if dscale < 0 || dscale > 0x3FFF {
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid scale in external \"numeric\" value")
	}
	v := new(big.Int)
	for i := 0; i < ndigits; i++ {
		d := be.Uint16(data[8+2*i:])
		if d >= 10000 {
			return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid digit in external \"numeric\" value")
		}
		v.Mul(v, bigTenThousand)
		v.Add(v, big.NewInt(int64(d)))
	}
	// v * 10000^(weight-ndigits+1) * 10^dscale, rounded to dscale.
	exp10 := 4*(weight-ndigits+1) + dscale
	if exp10 >= 0 {
		v.Mul(v, pow10(exp10))
	} else {
		v = roundDiv(v, pow10(-exp10))
	}
	if sign == numericNeg {
		v.Neg(v)
	}
	return Numeric{Int: v, Scale: int32(dscale)}, nil
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// roundDiv is v/d rounded half away from zero (v >= 0 or negative).
func roundDiv(v, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(v, d, new(big.Int))
	r.Abs(r)
	r.Lsh(r, 1)
	if r.Cmp(d) >= 0 {
		if v.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
