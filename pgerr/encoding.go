package pgerr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The server encoding is UTF8, as PostgreSQL's default; every text that
// enters a table or a statement must be valid UTF-8 without NUL bytes, as
// pg_verify_mbstr checks it. The check lives here, in the leaf package,
// because both the wire layer (query strings) and the type layer (values,
// COPY) make it and both answer with this error.

// InvalidText returns the byte offset of the first byte of b that is not
// valid text for the UTF8 server encoding (an invalid or truncated UTF-8
// sequence, or a NUL byte), or -1 when all of b is valid. Valid input, the
// case that matters for speed, costs one utf8.Valid and one IndexByte
// (vectorized: ~20 GB/s of ASCII); the offset is searched only in input
// that fails.
func InvalidText(b []byte) int {
	if ValidText(b) {
		return -1
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0:
			return i
		case c < utf8.RuneSelf:
			i++
		default:
			n := utf8SeqLen(b[i:])
			if n == 0 {
				return i
			}
			i += n
		}
	}
	return -1
}

// InvalidTextString is InvalidText of a string.
func InvalidTextString(s string) int { return InvalidText(stringBytes(s)) }

// stringBytes views s as bytes, read only, without a copy.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// utf8SeqLen is the length of the valid UTF-8 sequence that starts with
// the non-ASCII byte b[0], or 0 (pg_utf8_islegal: no overlong forms, no
// surrogates, nothing above U+10FFFF, the same set as unicode/utf8).
func utf8SeqLen(b []byte) int {
	c := b[0]
	n, lo, hi := 0, byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		n = 2
	case c == 0xe0:
		n, lo = 3, 0xa0
	case c == 0xed:
		n, hi = 3, 0x9f
	case c >= 0xe1 && c <= 0xef:
		n = 3
	case c == 0xf0:
		n, lo = 4, 0x90
	case c >= 0xf1 && c <= 0xf3:
		n = 4
	case c == 0xf4:
		n, hi = 4, 0x8f
	default:
		return 0
	}
	if n > len(b) || b[1] < lo || b[1] > hi {
		return 0
	}
	for j := 2; j < n; j++ {
		if b[j] < 0x80 || b[j] > 0xbf {
			return 0
		}
	}
	return n
}

// ValidText reports whether b is valid text for the server encoding. A
// short b (a COPY field, a parameter) is checked for plain ASCII without
// NUL eight bytes at a time in line, which costs less than the two calls
// that check a long one.
func ValidText(b []byte) bool {
	if len(b) >= shortText {
		return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
	}
	const hi, lo = 0x8080808080808080, 0x0101010101010101
	i := 0
	for ; i+8 <= len(b); i += 8 {
		// A high bit, or (with no high bit) a zero byte: w-lo borrows
		// into the high bit of a byte only below a zero byte's.
		if w := binary.LittleEndian.Uint64(b[i:]); (w|(w-lo)&^w)&hi != 0 {
			return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == 0 || c >= utf8.RuneSelf {
			return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
		}
	}
	return true
}

// shortText is the length below which ValidText checks in line.
const shortText = 64

// ValidTextString is ValidText of a string.
func ValidTextString(s string) bool { return ValidText(stringBytes(s)) }

// CheckText returns nil when b is valid text for the server encoding, else
// PostgreSQL's 22021 error naming the offending bytes.
func CheckText(b []byte) *Error {
	if i := InvalidText(b); i >= 0 {
		return InvalidByteSequence(b[i:])
	}
	return nil
}

// CheckTextString is CheckText of a string.
func CheckTextString(s string) *Error { return CheckText(stringBytes(s)) }

// InvalidByteSequence is report_invalid_encoding for the UTF8 encoding:
// 22021 "invalid byte sequence for encoding "UTF8": 0xc3 0x28", where b
// starts at the invalid sequence and runs to the end of the input that was
// checked. As PostgreSQL, it names as many bytes as the first one's
// sequence length (pg_utf_mblen), at most what b holds.
func InvalidByteSequence(b []byte) *Error {
	n := 1
	if len(b) > 0 {
		switch c := b[0]; {
		case c&0xe0 == 0xc0:
			n = 2
		case c&0xf0 == 0xe0:
			n = 3
		case c&0xf8 == 0xf0:
			n = 4
		}
	}
	n = min(n, len(b))
	var s strings.Builder
	for j := 0; j < n; j++ {
		if j > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "0x%02x", b[j])
	}
	return New(CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", s.String())
}
