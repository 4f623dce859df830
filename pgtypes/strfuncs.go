package pgtypes

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Unistr is unistr(text): the escapes \XXXX, \+XXXXXX, \uXXXX,
// \UXXXXXXXX (UTF-16 surrogate pairs joined) and \\ decoded.
func Unistr(s string) (string, error) {
	var b strings.Builder
	var pairFirst rune
	invalidPair := func() error { return pgerr.New("42601", "invalid Unicode surrogate pair") }
	hexN := func(t string, n int) (rune, bool) {
		if len(t) < n {
			return 0, false
		}
		for i := 0; i < n; i++ {
			if !reIsHex(t[i]) {
				return 0, false
			}
		}
		v, _ := strconv.ParseUint(t[:n], 16, 32)
		return rune(v), true
	}
	for len(s) > 0 {
		if s[0] != '\\' {
			if pairFirst != 0 {
				return "", invalidPair()
			}
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		if len(s) >= 2 && s[1] == '\\' {
			if pairFirst != 0 {
				return "", invalidPair()
			}
			b.WriteByte('\\')
			s = s[2:]
			continue
		}
		var u rune
		var n int
		if v, ok := hexN(s[1:], 4); ok {
			u, n = v, 5
		} else if v, ok := hexN(s[min(2, len(s)):], 4); ok && s[1] == 'u' {
			u, n = v, 6
		} else if v, ok := hexN(s[min(2, len(s)):], 6); ok && s[1] == '+' {
			u, n = v, 8
		} else if v, ok := hexN(s[min(2, len(s)):], 8); ok && s[1] == 'U' {
			u, n = v, 10
		} else {
			return "", pgerr.New("42601", "invalid Unicode escape").WithHint(
				`Unicode escapes must be \XXXX, \+XXXXXX, \uXXXX, or \UXXXXXXXX.`)
		}
		if u <= 0 || u > 0x10FFFF {
			return "", pgerr.New("22023", "invalid Unicode code point: %04X", uint32(u))
		}
		first, second := u >= 0xD800 && u <= 0xDBFF, u >= 0xDC00 && u <= 0xDFFF
		switch {
		case pairFirst != 0 && second:
			u = (pairFirst-0xD800)<<10 + (u - 0xDC00) + 0x10000
			pairFirst = 0
		case pairFirst != 0 || second:
			return "", invalidPair()
		}
		if u >= 0xD800 && u <= 0xDBFF && first {
			pairFirst = u
		} else {
			b.WriteRune(u)
		}
		s = s[n:]
	}
	if pairFirst != 0 {
		return "", invalidPair()
	}
	return b.String(), nil
}

// Float4Send and Float8Send are float4send / float8send: the IEEE bits,
// big-endian.
func Float4Send(f float32) []byte {
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(f))
}

func Float8Send(f float64) []byte {
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
}

// GetByte is get_byte(bytea, int).
func GetByte(b []byte, n int64) (int32, error) {
	if n < 0 || n >= int64(len(b)) {
		return 0, pgerr.New("2202E", "index %d out of valid range, 0..%d", n, len(b)-1)
	}
	return int32(b[n]), nil
}

// SetByte is set_byte(bytea, int, int).
func SetByte(b []byte, n, v int64) ([]byte, error) {
	if n < 0 || n >= int64(len(b)) {
		return nil, pgerr.New("2202E", "index %d out of valid range, 0..%d", n, len(b)-1)
	}
	out := append([]byte(nil), b...)
	out[n] = byte(v)
	return out, nil
}

// substrRange is text_substring's range of characters [start, start+count)
// (count < 0: to the end), clamped to 0..n, with its error for a negative
// length.
func substrRange(n int, start, count int64, toEnd bool) (int, int, error) {
	if !toEnd && count < 0 {
		return 0, 0, pgerr.New("22011", "negative substring length not allowed")
	}
	s := start - 1
	e := int64(n)
	if !toEnd {
		e = s + count
		if count > 0 && e < s { // overflow
			e = int64(n)
		}
	}
	if s < 0 {
		s = 0
	}
	if e > int64(n) {
		e = int64(n)
	}
	if s > int64(n) {
		s = int64(n)
	}
	if e < s {
		e = s
	}
	return int(s), int(e), nil
}

// Overlay is overlay(string placing repl from start [for count]) of text
// (textoverlay) or, with bytes, of bytea (byteaoverlay); without count the
// length of repl.
func Overlay(s, repl string, start, count int64, hasCount, bytes bool) (string, error) {
	n, rn := utf8.RuneCountInString(s), utf8.RuneCountInString(repl)
	if bytes {
		n, rn = len(s), len(repl)
	}
	if !hasCount {
		count = int64(rn)
	}
	if start <= 0 {
		return "", pgerr.New("22011", "negative substring length not allowed")
	}
	end := start + count
	if end > math.MaxInt32 || end < math.MinInt32 {
		return "", pgerr.New("22003", "integer out of range")
	}
	_, e1, err := substrRange(n, 1, start-1, false)
	if err != nil {
		return "", err
	}
	s2, _, err := substrRange(n, end, -1, true)
	if err != nil {
		return "", err
	}
	if bytes {
		return s[:e1] + repl + s[s2:], nil
	}
	return s[:runeOffset(s, e1)] + repl + s[runeOffset(s, s2):], nil
}

func runeOffset(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// ByteaSubstr is substr/substring of bytea (bytea_substring): count bytes
// from the 1-based start, to the end without a count.
func ByteaSubstr(b []byte, start, count int64, hasCount bool) ([]byte, error) {
	s, e, err := substrRange(len(b), start, count, !hasCount)
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b[s:e]...), nil
}

// Pad is lpad (left) / rpad(string, length, fill): cut to length
// characters, then padded with fill repeated (not padded with an empty
// fill).
func Pad(s string, n int64, fill string, left bool) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if n > 1<<28 {
		return "", pgerr.New("54000", "requested length too large")
	}
	sl := int64(utf8.RuneCountInString(s))
	if sl >= n {
		return s[:runeOffset(s, int(n))], nil
	}
	if fill == "" {
		return s, nil
	}
	var b strings.Builder
	if !left {
		b.WriteString(s)
	}
	fr := []rune(fill)
	for i := int64(0); i < n-sl; i++ {
		b.WriteRune(fr[i%int64(len(fr))])
	}
	if left {
		b.WriteString(s)
	}
	return b.String(), nil
}

// ByteaTrim is btrim / ltrim / rtrim of bytea: the bytes of set removed
// from the chosen ends.
func ByteaTrim(b, set []byte, left, right bool) []byte {
	in := func(c byte) bool {
		for _, x := range set {
			if x == c {
				return true
			}
		}
		return false
	}
	i, j := 0, len(b)
	for left && i < j && in(b[i]) {
		i++
	}
	for right && j > i && in(b[j-1]) {
		j--
	}
	return append([]byte{}, b[i:j]...)
}

// BitCount is bit_count(bytea).
func BitCount(b []byte) int64 {
	n := 0
	for _, c := range b {
		for ; c != 0; c &= c - 1 {
			n++
		}
	}
	return int64(n)
}

// GetBit is get_bit(bytea, bigint): bit n%8 of byte n/8.
func GetBit(b []byte, n int64) (int32, error) {
	if n < 0 || n >= int64(len(b))*8 {
		return 0, pgerr.New("2202E", "index %d out of valid range, 0..%d", n, int64(len(b))*8-1)
	}
	return int32(b[n/8]>>(n%8)) & 1, nil
}

// SetBit is set_bit(bytea, bigint, int).
func SetBit(b []byte, n, v int64) ([]byte, error) {
	if n < 0 || n >= int64(len(b))*8 {
		return nil, pgerr.New("2202E", "index %d out of valid range, 0..%d", n, int64(len(b))*8-1)
	}
	if v != 0 && v != 1 {
		return nil, pgerr.New("22023", "new bit must be 0 or 1")
	}
	out := append([]byte{}, b...)
	if v == 1 {
		out[n/8] |= 1 << (n % 8)
	} else {
		out[n/8] &^= 1 << (n % 8)
	}
	return out, nil
}
