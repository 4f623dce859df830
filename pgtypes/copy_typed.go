package pgtypes

import (
	"strconv"
	"unsafe"
)

// Typed input functions for COPY FROM: the same parsing and the same errors
// as ParseText for one type, returning the value unboxed so that a COPY can
// append it to a typed column builder without an allocation per value.

// ParseIntText is int2in / int4in / int8in (bits 16, 32 or 64).
func ParseIntText(text []byte, bits int) (int64, error) {
	switch bits {
	case 16:
		return parseInt(text, 16, "smallint")
	case 32:
		return parseInt(text, 32, "integer")
	}
	return parseInt(text, 64, "bigint")
}

// ParseFloatText is float4in (bits 32) / float8in (bits 64). Plain decimal
// input ("-12.5e3") takes a fast path without allocating; anything else, and
// every error, goes through the general parser.
func ParseFloatText(text []byte, bits int) (float64, error) {
	if plainDecimal(text) {
		f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), bits)
		if err == nil && (f != 0 || !hasNonZeroMantissa(string(text))) {
			return f, nil
		}
	}
	return parseFloat(text, bits)
}

// plainDecimal reports whether b is [+-]digits[.digits][(e|E)[+-]digits]
// with at least one digit in the mantissa: a form strconv and strtod agree on.
func plainDecimal(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && isDigit(b[i]) {
		i++
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < len(b) && isDigit(b[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(b)
}

// ParseBoolText is boolin.
func ParseBoolText(text []byte) (bool, error) {
	switch len(text) {
	case 1:
		switch text[0] {
		case 't', 'T', 'y', 'Y', '1':
			return true, nil
		case 'f', 'F', 'n', 'N', '0':
			return false, nil
		}
	case 4:
		if string(text) == "true" {
			return true, nil
		}
	case 5:
		if string(text) == "false" {
			return false, nil
		}
	}
	return parseBool(text)
}

// ParseDateText is date_in under the settings' DateStyle.
func ParseDateText(text []byte, s *Settings) (Date, error) { return parseDate(text, orDefault(s)) }

// ParseTimestampText is timestamp_in (withTZ false) or timestamptz_in: µs
// since 2000-01-01 (wall clock, or UTC for withTZ), typmod applied.
func ParseTimestampText(text []byte, typmod int32, withTZ bool, s *Settings) (int64, error) {
	return parseTimestamp(text, typmod, withTZ, orDefault(s))
}

// ParseUUIDText is uuid_in.
func ParseUUIDText(text []byte) ([16]byte, error) { return parseUUID(text) }

// ParseByteaText is byteain (hex and escape formats); the result is new
// memory.
func ParseByteaText(text []byte) ([]byte, error) { return parseBytea(text) }
