package pgerr

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestInvalidText: the offset of the first byte PostgreSQL's
// pg_verify_mbstr refuses for UTF8, and report_invalid_encoding's message
// (each message checked against PostgreSQL 15: COPY of the same bytes).
func TestInvalidText(t *testing.T) {
	for _, c := range []struct {
		in  string
		at  int
		msg string
	}{
		{"", -1, ""},
		{"plain ascii text, longer than a word", -1, ""},
		{"héllo wörld ✓ 𝄞", -1, ""},
		{"bad\xff\xfe", 3, "0xff"},
		{"x\xc3\x28", 1, "0xc3 0x28"},
		{"nul\x00x", 3, "0x00"},
		{"0123456789abcdef\x00", 16, "0x00"},
		{"0123456\x80", 7, "0x80"},
		{"ab\xe2\x82", 2, "0xe2 0x82"},                 // truncated: what is left
		{"ab\xe2\x82\x28zz", 2, "0xe2 0x82 0x28"},      // pg_utf_mblen's 3
		{"\xed\xa0\x80", 0, "0xed 0xa0 0x80"},          // a surrogate
		{"\xc0\xaf", 0, "0xc0 0xaf"},                   // overlong
		{"\xf4\x90\x80\x80", 0, "0xf4 0x90 0x80 0x80"}, // above U+10FFFF
		{"\xf8\x88\x80\x80\x80", 0, "0xf8"},
	} {
		if got := InvalidTextString(c.in); got != c.at {
			t.Errorf("InvalidTextString(%q) = %d, want %d", c.in, got, c.at)
		}
		if got := InvalidText([]byte(c.in)); got != c.at {
			t.Errorf("InvalidText([]byte %q) = %d, want %d", c.in, got, c.at)
		}
		e := CheckTextString(c.in)
		switch {
		case c.at < 0 && e != nil:
			t.Errorf("CheckText(%q) = %v", c.in, e)
		case c.at >= 0 && (e == nil || e.Code != "22021" || e.Message != `invalid byte sequence for encoding "UTF8": `+c.msg):
			t.Errorf("CheckText(%q) = %v, want 22021 ... %s", c.in, e, c.msg)
		}
	}
}

// TestInvalidTextMatchesUTF8: on every 1-3 byte string over a set of
// interesting bytes, InvalidText agrees with unicode/utf8 plus "no NUL".
func TestInvalidTextMatchesUTF8(t *testing.T) {
	bs := []byte{0, 'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff}
	var buf []byte
	var rec func(n int)
	rec = func(n int) {
		want := utf8.Valid(buf) && bytes.IndexByte(buf, 0) < 0
		if got := ValidText(buf); got != want {
			t.Fatalf("ValidText(% x) = %v, want %v", buf, got, want)
		}
		if got := InvalidText(buf) < 0; got != want {
			t.Fatalf("InvalidText(% x) < 0 = %v, want %v", buf, got, want)
		}
		if n == 0 {
			return
		}
		for _, b := range bs {
			buf = append(buf, b)
			rec(n - 1)
			buf = buf[:len(buf)-1]
		}
	}
	rec(4)
}

func BenchmarkValidText(b *testing.B) {
	ascii := []byte(strings.Repeat("12345\tsome ascii text\t2024-01-02 03:04:05\n", 2000))
	mixed := []byte(strings.Repeat("12345\tdéjà vu ✓\t2024-01-02 03:04:05\n", 2000))
	for _, c := range []struct {
		name string
		in   []byte
	}{{"ascii", ascii}, {"mixed", mixed}} {
		b.Run(c.name+"/InvalidText", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				if InvalidText(c.in) >= 0 {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkValidTextShort: the fields of a binary COPY (a kind, a 40-byte
// payload), one call each.
func BenchmarkValidTextShort(b *testing.B) {
	fields := [][]byte{[]byte("click"), []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"), []byte("signup"), []byte("0123456789 -_abcdefghijklmnopqrstuvwxyzAB")}
	n := int64(len(fields[0]) + len(fields[1]) + len(fields[2]) + len(fields[3]))
	b.Run("ValidText", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, f := range fields {
				if !ValidText(f) {
					b.Fatal("invalid")
				}
			}
		}
	})
	// The two calls ValidText makes for a long input, for comparison.
	b.Run("utf8.Valid+IndexByte", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			for _, f := range fields {
				if !utf8.Valid(f) || bytes.IndexByte(f, 0) >= 0 {
					b.Fatal("invalid")
				}
			}
		}
	})
}
