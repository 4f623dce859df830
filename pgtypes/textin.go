package pgtypes

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// ParseText parses the text (typinput) form of a value of type oid into the
// canonical Go representation, applying typmod (varchar/char length,
// numeric precision and scale, time precision). Errors are *pgerr.Error with
// PostgreSQL's SQLSTATE and message, e.g. 22P02 `invalid input syntax for
// type integer: "x"`, 22003 `value "x" is out of range for type integer`,
// 22001 `value too long for type character varying(3)`.
func ParseText(oid uint32, typmod int32, text []byte, s *Settings) (any, error) {
	s = orDefault(s)
	switch oid {
	case OIDBool:
		return parseBool(text)
	case OIDInt2:
		v, err := parseInt(text, 16, "smallint")
		return int16(v), err
	case OIDInt4:
		v, err := parseInt(text, 32, "integer")
		return int32(v), err
	case OIDInt8:
		return parseInt(text, 64, "bigint")
	case OIDOID, OIDXID, OIDCID, OIDRegClass, OIDRegType, OIDRegProc, OIDRegNamespace, OIDRegRole, OIDRegOper, OIDRegProcedure:
		return parseOID(oid, text)
	case OIDFloat4:
		f, err := parseFloat(text, 32)
		if f != f {
			return math.Float32frombits(0x7fc00000), err // canonical quiet NaN, as PostgreSQL
		}
		return float32(f), err
	case OIDFloat8:
		return parseFloat(text, 64)
	case OIDNumeric:
		n, err := ParseNumeric(text)
		if err != nil {
			return nil, err
		}
		return ApplyNumericTypmod(n, typmod)
	case OIDText, OIDUnknown, OIDXML:
		return string(text), nil
	case OIDVarchar:
		return checkCharLength(string(text), typmod, false)
	case OIDBPChar:
		return checkCharLength(string(text), typmod, true)
	case OIDName:
		str := string(text)
		if len(str) > 63 {
			n := 63
			for n > 0 && !utf8.RuneStart(str[n]) {
				n--
			}
			str = str[:n]
		}
		return str, nil
	case OIDChar:
		if len(text) == 4 && text[0] == '\\' && isOctal(text[1]) && isOctal(text[2]) && isOctal(text[3]) {
			return string([]byte{(text[1]-'0')<<6 | (text[2]-'0')<<3 | (text[3] - '0')}), nil
		}
		if len(text) == 0 {
			return "", nil
		}
		return string(text[:1]), nil
	case OIDBytea:
		return parseBytea(text)
	case OIDUUID:
		return parseUUID(text)
	case OIDJSON:
		// json keeps its text; validation is jsonb's parser (PostgreSQL's
		// error DETAIL/CONTEXT), except that json accepts \u0000.
		if _, err := NormalizeJSONB(text); err != nil {
			if e, ok := pgerr.As(err); !ok || e.Code != pgerr.UntranslatableCharacter {
				return nil, err
			}
		}
		return string(text), nil
	case OIDJSONB:
		return NormalizeJSONB(text)
	case OIDDate:
		return parseDate(text, s)
	case OIDTime:
		return parseTime(text, typmod, s)
	case OIDTimeTZ:
		return parseTimeTZ(text, typmod, s)
	case OIDTimestamp:
		v, err := parseTimestamp(text, typmod, false, s)
		return Timestamp(v), err
	case OIDTimestampTZ:
		v, err := parseTimestamp(text, typmod, true, s)
		return TimestampTZ(v), err
	case OIDInterval:
		return ParseInterval(text, typmod, s.IntervalStyle)
	}
	if elem, ok := arrayElem(oid); ok && textArrayElem(elem) {
		return parseArrayText(oid, elem, typmod, text, s)
	}
	return string(text), nil
}

// textArrayElem reports whether arrays of elem are parsed by ParseText
// (array_in); other arrays (oidvector, name[] of the catalogs, ...) keep
// their text.
func textArrayElem(elem uint32) bool {
	switch elem {
	case OIDBool, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric, OIDText, OIDVarchar, OIDBPChar,
		OIDDate, OIDTime, OIDTimestamp, OIDTimestampTZ, OIDInterval, OIDBytea, OIDUUID:
		return true
	}
	return false
}

func syntaxErr(typ string, text []byte) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typ, text)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseInt is pg_strtoint16/32/64 (PostgreSQL 15: decimal only).
func parseInt(text []byte, bits int, typ string) (int64, error) {
	p := text
	for len(p) > 0 && isSpace(p[0]) {
		p = p[1:]
	}
	neg := false
	if len(p) > 0 && (p[0] == '-' || p[0] == '+') {
		neg = p[0] == '-'
		p = p[1:]
	}
	if len(p) == 0 || !isDigit(p[0]) {
		return 0, syntaxErr(typ, text)
	}
	// Accumulate negatively so the minimum value fits.
	limit := int64(-1) << (bits - 1)
	var v int64
	for len(p) > 0 && isDigit(p[0]) {
		d := int64(p[0] - '0')
		if v < (limit+d)/10 || v*10 < limit+d {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", text, typ)
		}
		v = v*10 - d
		p = p[1:]
	}
	for len(p) > 0 && isSpace(p[0]) {
		p = p[1:]
	}
	if len(p) != 0 {
		return 0, syntaxErr(typ, text)
	}
	if !neg {
		if v == limit {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", text, typ)
		}
		v = -v
	}
	return v, nil
}

func parseOID(oid uint32, text []byte) (any, error) {
	// oidin accepts -2147483648..4294967295 (negatives wrap), like strtoul.
	t := trimSpace(text)
	v, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
		if err == nil || strings.Contains(err.Error(), "range") {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type oid", text)
		}
		if oid == OIDOID {
			return nil, syntaxErr("oid", text)
		}
		// reg* names need the catalog: the SQL layer resolves them.
		return string(text), nil
	}
	return uint32(v), nil
}

// parseFloat is float4in/float8in.
func parseFloat(text []byte, bits int) (float64, error) {
	typ := "double precision"
	if bits == 32 {
		typ = "real"
	}
	t := trimSpace(text)
	if len(t) == 0 {
		return 0, syntaxErr(typ, text)
	}
	str := string(t)
	switch strings.ToLower(str) {
	case "nan", "+nan", "-nan":
		return math.Float64frombits(0x7ff8000000000000), nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	hex := strings.HasPrefix(strings.TrimLeft(strings.ToLower(str), "+-"), "0x") // strtod accepts C99 hex floats
	for i := 0; i < len(str); i++ {
		c := str[i]
		if !(isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') && !(hex && (c == 'x' || c == 'X' || c == 'p' || c == 'P' || isHexLetter(c))) {
			return 0, syntaxErr(typ, text) // no underscores, no "inf" in the middle
		}
	}
	if hex && !strings.ContainsAny(str, "pP") {
		str += "p0"
	}
	f, err := strconv.ParseFloat(str, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", t, typ)
		}
		return 0, syntaxErr(typ, text)
	}
	if f == 0 && hasNonZeroMantissa(str) { // underflow to zero
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", t, typ)
	}
	return f, nil
}

func isHexLetter(c byte) bool { return c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hasNonZeroMantissa(s string) bool {
	if strings.Contains(strings.ToLower(s), "0x") {
		s = strings.ToLower(s)
		s = s[strings.Index(s, "0x")+2:]
		for i := 0; i < len(s) && s[i] != 'p'; i++ {
			if s[i] != '0' && s[i] != '.' {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			return false
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

// parseBool is boolin (parse_bool_with_len: unique prefixes accepted).
func parseBool(text []byte) (bool, error) {
	t := strings.ToLower(string(trimSpace(text)))
	if t != "" {
		switch {
		case strings.HasPrefix("true", t), strings.HasPrefix("yes", t), t == "1", len(t) >= 2 && strings.HasPrefix("on", t):
			return true, nil
		case strings.HasPrefix("false", t), strings.HasPrefix("no", t), t == "0", len(t) >= 2 && strings.HasPrefix("off", t):
			return false, nil
		}
	}
	return false, syntaxErr("boolean", text)
}

// checkCharLength is varchar_input / bpchar_input: over-long input is an
// error unless the excess is all spaces (then truncated); bpchar pads.
func checkCharLength(str string, typmod int32, pad bool) (string, error) {
	n, ok := CharLength(typmod)
	if !ok {
		return str, nil
	}
	count := utf8.RuneCountInString(str)
	if count > n {
		// byte offset of the n-th rune
		off, i := 0, 0
		for i < n {
			_, sz := utf8.DecodeRuneInString(str[off:])
			off += sz
			i++
		}
		if strings.Trim(str[off:], " ") != "" {
			tn := "character varying"
			if pad {
				tn = "character"
			}
			return "", pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s(%d)", tn, n)
		}
		return str[:off], nil
	}
	if pad && count < n {
		str += strings.Repeat(" ", n-count)
	}
	return str, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseBytea is byteain (hex and escape formats).
func parseBytea(text []byte) ([]byte, error) {
	if len(text) >= 2 && text[0] == '\\' && text[1] == 'x' {
		out := make([]byte, 0, (len(text)-2)/2)
		p := text[2:]
		for len(p) > 0 {
			if isSpace(p[0]) {
				p = p[1:]
				continue
			}
			hi, ok := unhex(p[0])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", runeAt(p))
			}
			if len(p) < 2 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := unhex(p[1])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", runeAt(p[1:]))
			}
			out = append(out, hi<<4|lo)
			p = p[2:]
		}
		return out, nil
	}
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 < len(text) && text[i+1] == '\\' {
			out = append(out, '\\')
			i += 2
			continue
		}
		if i+3 < len(text) && text[i+1] >= '0' && text[i+1] <= '3' && isOctal(text[i+2]) && isOctal(text[i+3]) {
			out = append(out, (text[i+1]-'0')<<6|(text[i+2]-'0')<<3|(text[i+3]-'0'))
			i += 4
			continue
		}
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
	}
	return out, nil
}

func runeAt(p []byte) string {
	_, n := utf8.DecodeRune(p)
	return string(p[:n])
}

// parseUUID is uuid_in (string_to_uuid).
func parseUUID(text []byte) ([16]byte, error) {
	var u [16]byte
	p := text
	braces := len(p) > 0 && p[0] == '{'
	if braces {
		p = p[1:]
	}
	for i := 0; i < 16; i++ {
		if len(p) < 2 {
			return u, syntaxErr("uuid", text)
		}
		hi, ok1 := unhex(p[0])
		lo, ok2 := unhex(p[1])
		if !ok1 || !ok2 {
			return u, syntaxErr("uuid", text)
		}
		u[i] = hi<<4 | lo
		p = p[2:]
		if len(p) > 0 && p[0] == '-' && i%2 == 1 && i < 15 {
			p = p[1:]
		}
	}
	if braces {
		if len(p) == 0 || p[0] != '}' {
			return u, syntaxErr("uuid", text)
		}
		p = p[1:]
	}
	if len(p) != 0 {
		return u, syntaxErr("uuid", text)
	}
	return u, nil
}

// ParseNumeric is numeric_in without a typmod.
func ParseNumeric(text []byte) (Numeric, error) {
	t := trimSpace(text)
	switch strings.ToLower(string(t)) {
	case "nan", "+nan", "-nan":
		if strings.EqualFold(string(t), "nan") {
			return Numeric{NaN: true}, nil
		}
	case "infinity", "+infinity", "inf", "+inf":
		return Numeric{Inf: 1}, nil
	case "-infinity", "-inf":
		return Numeric{Inf: -1}, nil
	}
	p := t
	neg := false
	if len(p) > 0 && (p[0] == '+' || p[0] == '-') {
		neg = p[0] == '-'
		p = p[1:]
	}
	var digits []byte
	scale := 0
	seenDot, any := false, false
	for len(p) > 0 {
		c := p[0]
		if isDigit(c) {
			digits = append(digits, c)
			any = true
			if seenDot {
				scale++
			}
		} else if c == '.' && !seenDot {
			seenDot = true
		} else {
			break
		}
		p = p[1:]
	}
	if !any {
		return Numeric{}, syntaxErr("numeric", text)
	}
	if len(p) > 0 && (p[0] == 'e' || p[0] == 'E') {
		p = p[1:]
		eneg := false
		if len(p) > 0 && (p[0] == '+' || p[0] == '-') {
			eneg = p[0] == '-'
			p = p[1:]
		}
		if len(p) == 0 || !isDigit(p[0]) {
			return Numeric{}, syntaxErr("numeric", text)
		}
		exp := 0
		for len(p) > 0 && isDigit(p[0]) {
			exp = exp*10 + int(p[0]-'0')
			if exp > NumericMaxScale*2 { // NUMERIC_MAX_DISPLAY_SCALE * 2 in numeric.c
				return Numeric{}, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", text)
			}
			p = p[1:]
		}
		if eneg {
			exp = -exp
		}
		scale -= exp
	}
	if len(p) != 0 {
		return Numeric{}, syntaxErr("numeric", text)
	}
	v, _ := new(big.Int).SetString(string(digits), 10)
	if scale < 0 { // dscale is never negative: multiply out
		v.Mul(v, pow10(-scale))
		scale = 0
	}
	if neg {
		v.Neg(v)
	}
	return Numeric{Int: v, Scale: int32(scale)}, nil
}

// ApplyNumericTypmod rounds n to the typmod's scale (half away from zero)
// and checks its precision: 22003 "numeric field overflow" like
// apply_typmod.
func ApplyNumericTypmod(n Numeric, typmod int32) (Numeric, error) {
	prec, scale, ok := NumericPrecScale(typmod)
	if !ok || n.NaN {
		return n, nil
	}
	if n.Inf != 0 {
		return n, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", prec, scale)
	}
	v := n.Int
	if v == nil {
		v = new(big.Int)
	}
	cur := int(n.Scale)
	switch {
	case cur > scale:
		v = roundDiv(v, pow10(cur-scale))
	case cur < scale:
		v = new(big.Int).Mul(v, pow10(scale-cur))
	}
	// v now has `scale` fractional digits; the integer part must have at most
	// prec-scale digits: |v| < 10^prec.
	if new(big.Int).Abs(v).Cmp(pow10(prec)) >= 0 {
		maxdigits := prec - scale
		if maxdigits != 0 {
			return n, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
				WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", prec, scale, maxdigits)
		}
		return n, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", prec, scale)
	}
	if scale < 0 { // negative scale: display scale 0
		v = new(big.Int).Mul(v, pow10(-scale))
		scale = 0
	}
	return Numeric{Int: v, Scale: int32(scale)}, nil
}
