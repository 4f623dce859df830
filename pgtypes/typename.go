package pgtypes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Typmod encoding, exactly PostgreSQL's (atttypmod). -1 means "none".
const (
	varHdrSz = 4
	// MaxVarcharLen is PostgreSQL's MaxAttrSize-derived limit for
	// varchar(n)/char(n).
	MaxVarcharLen      = 10485760
	NumericMaxPrec     = 1000
	NumericMinScale    = -1000
	NumericMaxScale    = 1000
	MaxTimePrecision   = 6
	intervalFullRange  = 0x7FFF
	intervalFullPrec   = 0xFFFF
	intervalMaxPrecMsk = 0xFFFF
)

// VarcharTypmod is the typmod of varchar(n) and char(n): n+4.
func VarcharTypmod(n int) int32 { return int32(n) + varHdrSz }

// NumericTypmod is the typmod of numeric(p,s): ((p<<16) | (s & 0x7ff)) + 4.
func NumericTypmod(p, s int) int32 { return int32((p<<16)|(s&0x7ff)) + varHdrSz }

// NumericPrecScale decodes a numeric typmod; ok is false for -1.
func NumericPrecScale(typmod int32) (prec, scale int, ok bool) {
	if typmod < varHdrSz {
		return 0, 0, false
	}
	t := typmod - varHdrSz
	prec = int(t>>16) & 0xffff
	scale = int(((t & 0x7ff) ^ 1024) - 1024) // sign-extend 11 bits
	return prec, scale, true
}

// CharLength decodes a varchar/bpchar typmod; ok is false for -1.
func CharLength(typmod int32) (int, bool) {
	if typmod < varHdrSz {
		return 0, false
	}
	return int(typmod - varHdrSz), true
}

// Interval typmod field bits (INTERVAL_MASK of PostgreSQL's datetime.h).
const (
	IntervalMonth  = 1 << 1
	IntervalYear   = 1 << 2
	IntervalDay    = 1 << 3
	IntervalHour   = 1 << 10
	IntervalMinute = 1 << 11
	IntervalSecond = 1 << 12
)

// IntervalTypmod is INTERVAL_TYPMOD(precision, rangeMask); precision -1
// means unspecified.
func IntervalTypmod(precision int, rangeMask int) int32 {
	if precision < 0 {
		precision = intervalFullPrec
	}
	return int32(((rangeMask & 0x7FFF) << 16) | (precision & 0xFFFF))
}

func typmodErr(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidParameterValue, format, args...)
}

// ParseTypeName resolves a type name as pg_query's TypeName node gives it
// (names e.g. ["pg_catalog","int4"], ["varchar"], ["text"]; typmods the
// integer constants in parentheses) to the type and its encoded typmod
// (-1 if none). Errors carry SQLSTATE 42704 (unknown type) or 22023
// (bad modifier), with PostgreSQL's messages.
func ParseTypeName(names []string, typmods []int32) (TypeInfo, int32, error) {
	if len(names) == 0 || len(names) > 2 {
		return TypeInfo{}, -1, pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	name := names[len(names)-1]
	if len(names) == 2 && !strings.EqualFold(names[0], "pg_catalog") {
		return TypeInfo{}, -1, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	lname := strings.ToLower(name)
	if (lname == "float" || lname == "double precision") && len(typmods) == 1 {
		p := typmods[0]
		switch {
		case p < 1:
			return TypeInfo{}, -1, typmodErr("precision for type float must be at least 1 bit")
		case p <= 24:
			t, _ := TypeByOID(OIDFloat4)
			return t, -1, nil
		case p <= 53:
			t, _ := TypeByOID(OIDFloat8)
			return t, -1, nil
		default:
			return TypeInfo{}, -1, typmodErr("precision for type float must be less than 54 bits")
		}
	}
	t, ok := TypeByName(name)
	if !ok {
		return TypeInfo{}, -1, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name)
	}
	tm, err := EncodeTypmod(t, typmods)
	if err != nil {
		return TypeInfo{}, -1, err
	}
	return t, tm, nil
}

// EncodeTypmod applies the type's typmodin to the modifier list.
func EncodeTypmod(t TypeInfo, typmods []int32) (int32, error) {
	if len(typmods) == 0 {
		return -1, nil
	}
	oid := t.OID
	if t.IsArray() {
		oid = t.ElemOID
	}
	switch oid {
	case OIDVarchar, OIDBPChar:
		tn := "varchar"
		if oid == OIDBPChar {
			tn = "char"
		}
		if len(typmods) != 1 {
			return -1, typmodErr("invalid type modifier")
		}
		n := typmods[0]
		if n < 1 {
			return -1, typmodErr("length for type %s must be at least 1", tn)
		}
		if n > MaxVarcharLen {
			return -1, typmodErr("length for type %s cannot exceed %d", tn, MaxVarcharLen)
		}
		return VarcharTypmod(int(n)), nil
	case OIDNumeric:
		if len(typmods) > 2 {
			return -1, typmodErr("invalid NUMERIC type modifier")
		}
		p := int(typmods[0])
		s := 0
		if len(typmods) == 2 {
			s = int(typmods[1])
		}
		if p < 1 || p > NumericMaxPrec {
			return -1, typmodErr("NUMERIC precision %d must be between 1 and %d", p, NumericMaxPrec)
		}
		if s < NumericMinScale || s > NumericMaxScale {
			return -1, typmodErr("NUMERIC scale %d must be between %d and %d", s, NumericMinScale, NumericMaxScale)
		}
		return NumericTypmod(p, s), nil
	case OIDTimestamp, OIDTimestampTZ, OIDTime, OIDTimeTZ:
		if len(typmods) != 1 {
			return -1, typmodErr("invalid type modifier")
		}
		p := typmods[0]
		if p < 0 {
			tn := map[uint32]string{OIDTimestamp: "TIMESTAMP", OIDTimestampTZ: "TIMESTAMP", OIDTime: "TIME", OIDTimeTZ: "TIME"}[oid]
			tz := ""
			if oid == OIDTimestampTZ || oid == OIDTimeTZ {
				tz = " WITH TIME ZONE"
			}
			return -1, typmodErr("%s(%d)%s precision must not be negative", tn, p, tz)
		}
		if p > MaxTimePrecision {
			p = MaxTimePrecision // PostgreSQL warns and reduces
		}
		return p, nil
	case OIDInterval:
		// pg_query form: [rangeMask] or [rangeMask, precision].
		mask := int(typmods[0])
		prec := -1
		if len(typmods) == 2 {
			prec = int(typmods[1])
			if prec < 0 {
				return -1, typmodErr("INTERVAL(%d) precision must not be negative", prec)
			}
			if prec > MaxTimePrecision {
				prec = MaxTimePrecision
			}
		} else if len(typmods) > 2 {
			return -1, typmodErr("invalid INTERVAL type modifier")
		}
		if mask == intervalFullRange && prec < 0 {
			return -1, nil
		}
		return IntervalTypmod(prec, mask), nil
	}
	return -1, pgerr.New(pgerr.SyntaxError, "type modifier is not allowed for type \"%s\"", t.Name)
}

// FormatType is PostgreSQL's format_type(oid, typmod) with the typmod given
// (as pg_attribute.atttypmod is): -1 means none. Unknown OIDs give "???"
// like format_type does for a missing type.
func FormatType(oid uint32, typmod int32) string {
	t, ok := byOID[oid]
	if !ok {
		return "???"
	}
	if t.IsArray() {
		return FormatType(t.ElemOID, typmod) + "[]"
	}
	if typmod < 0 {
		if oid == OIDBPChar {
			return "bpchar"
		}
		return t.SQLName
	}
	switch oid {
	case OIDVarchar:
		return fmt.Sprintf("character varying(%d)", typmod-varHdrSz)
	case OIDBPChar:
		return fmt.Sprintf("character(%d)", typmod-varHdrSz)
	case OIDNumeric:
		p, s, _ := NumericPrecScale(typmod)
		return fmt.Sprintf("numeric(%d,%d)", p, s)
	case OIDTimestamp:
		return fmt.Sprintf("timestamp(%d) without time zone", typmod)
	case OIDTimestampTZ:
		return fmt.Sprintf("timestamp(%d) with time zone", typmod)
	case OIDTime:
		return fmt.Sprintf("time(%d) without time zone", typmod)
	case OIDTimeTZ:
		return fmt.Sprintf("time(%d) with time zone", typmod)
	case OIDInterval:
		return "interval" + intervalTypmodOut(typmod)
	}
	return t.SQLName
}

var intervalFieldNames = map[int]string{
	IntervalYear: " year", IntervalMonth: " month", IntervalDay: " day",
	IntervalHour: " hour", IntervalMinute: " minute", IntervalSecond: " second",
	IntervalYear | IntervalMonth:                                 " year to month",
	IntervalDay | IntervalHour:                                   " day to hour",
	IntervalDay | IntervalHour | IntervalMinute:                  " day to minute",
	IntervalDay | IntervalHour | IntervalMinute | IntervalSecond: " day to second",
	IntervalHour | IntervalMinute:                                " hour to minute",
	IntervalHour | IntervalMinute | IntervalSecond:               " hour to second",
	IntervalMinute | IntervalSecond:                              " minute to second",
	intervalFullRange:                                            "",
}

// intervalFieldMasks maps "day to second" etc. to typmod range masks.
var intervalFieldMasks = func() map[string]int {
	m := map[string]int{}
	for k, v := range intervalFieldNames {
		if v != "" {
			m[v[1:]] = k
		}
	}
	return m
}()

func intervalTypmodOut(typmod int32) string {
	prec := int(typmod & 0xFFFF)
	rng := int(typmod>>16) & 0x7FFF
	fields := intervalFieldNames[rng]
	if prec != intervalFullPrec {
		return fmt.Sprintf("%s(%d)", fields, prec)
	}
	return fields
}

// ParseTypeString parses a type spelled as SQL (what FormatType returns and
// what Column.Annotation stores): "integer", "character varying(20)",
// "numeric(10,2)", "timestamp(3) with time zone", "text[]", "int4".
func ParseTypeString(s string) (TypeInfo, int32, error) {
	str := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	array := false
	for strings.HasSuffix(str, "[]") {
		array = true
		str = strings.TrimSpace(strings.TrimSuffix(str, "[]"))
	}
	var mods []int32
	base := str
	if i := strings.IndexByte(str, '('); i >= 0 {
		j := strings.IndexByte(str, ')')
		if j < i {
			return TypeInfo{}, -1, pgerr.New(pgerr.SyntaxError, "syntax error in type name %q", s)
		}
		for _, m := range strings.Split(str[i+1:j], ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(m), 10, 32)
			if err != nil {
				return TypeInfo{}, -1, pgerr.New(pgerr.SyntaxError, "syntax error in type name %q", s)
			}
			mods = append(mods, int32(v))
		}
		base = strings.TrimSpace(str[:i] + str[j+1:])
		base = strings.Join(strings.Fields(base), " ")
	}
	var (
		t   TypeInfo
		tm  int32
		err error
	)
	if f, ok := strings.CutPrefix(base, "interval "); ok {
		mask, known := intervalFieldMasks[f]
		if !known {
			return TypeInfo{}, -1, pgerr.New(pgerr.SyntaxError, "syntax error in type name %q", s)
		}
		mods = append([]int32{int32(mask)}, mods...)
		t, tm, err = ParseTypeName([]string{"interval"}, mods)
	} else if base == "interval" && len(mods) == 1 {
		t, tm, err = ParseTypeName([]string{base}, []int32{intervalFullRange, mods[0]})
	} else if base == "bpchar" && len(mods) == 0 {
		t, tm, err = ParseTypeName([]string{base}, nil)
	} else {
		t, tm, err = ParseTypeName([]string{base}, mods)
	}
	if err != nil {
		return TypeInfo{}, -1, err
	}
	if array {
		at, ok := ArrayOf(t.OID)
		if !ok {
			return TypeInfo{}, -1, pgerr.New(pgerr.UndefinedObject, "type \"%s[]\" does not exist", base)
		}
		t = at
	}
	return t, tm, nil
}
