package pgtypes

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// TestParseArrayText: array_in's text forms and its errors, each checked
// against PostgreSQL 15 (outputs through array_out).
func TestParseArrayText(t *testing.T) {
	cases := []struct {
		oid       uint32
		in, want  string
		errDetail string
	}{
		{OIDTextArray, `{ a , b }`, `{a,b}`, ""},
		{OIDTextArray, `{"",NULL,"NULL",null}`, `{"",NULL,"NULL",NULL}`, ""},
		{OIDTextArray, `{a\,b}`, `{"a,b"}`, ""},
		{OIDInt4Array, `[0:1]={1,2}`, `[0:1]={1,2}`, ""},
		{OIDInt4Array, `{  }`, `{}`, ""},
		{OIDInt4Array, `{{1},{2}}`, `{{1},{2}}`, ""},
		{OIDInt4Array, `{{1,2},{3,4}}`, `{{1,2},{3,4}}`, ""},
		{OIDInt4Array, `{{}}`, "", `Unexpected "}" character.`},
		{OIDInt4Array, `{1,{2}}`, "", `Unexpected "{" character.`},
		{OIDInt4Array, `{{1},2}`, "", `Unexpected array element.`},
		{OIDInt4Array, `{{1,2},{3}}`, "", `Multidimensional arrays must have sub-arrays with matching dimensions.`},
		{OIDInt4Array, `{1,2`, "", `Unexpected end of input.`},
		{OIDInt4Array, `1,2`, "", `Array value must start with "{" or dimension information.`},
		{OIDInt4Array, `{1} x`, "", `Junk after closing right brace.`},
	}
	for _, c := range cases {
		v, err := ParseText(c.oid, -1, []byte(c.in), nil)
		if c.errDetail != "" {
			pe, ok := pgerr.As(err)
			if !ok || pe.Code != pgerr.InvalidTextRepresentation {
				t.Errorf("%s: %v, want 22P02", c.in, err)
			} else if pe.Detail != c.errDetail {
				t.Errorf("%s: detail %q, want %q", c.in, pe.Detail, c.errDetail)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		out, err := AppendText(nil, c.oid, -1, v, nil)
		if err != nil || string(out) != c.want {
			t.Errorf("%s -> %s, %v; want %s", c.in, out, err, c.want)
		}
	}
	if _, err := ParseText(OIDInt4Array, -1, []byte(`{a}`), nil); fmt.Sprint(err) == "<nil>" {
		t.Error("{a} as int[]: no error")
	}
}

// TestArrayMaxDims: arrays have at most MAXDIM (6) dimensions, in text
// (braces, or the dimension prefix) and binary input, with PostgreSQL's
// 54000 at the level that passes it; a literal nested thousands of levels
// is refused there instead of being built (it used to be folded into an
// expression too deep for the deparser, which killed the server).
func TestArrayMaxDims(t *testing.T) {
	const msg = "number of array dimensions (7) exceeds the maximum allowed (6)"
	deep := func(n int, inner string) string {
		return strings.Repeat("{", n) + inner + strings.Repeat("}", n)
	}
	for _, in := range []string{
		deep(7, "1"), deep(4500, "1"), "{{{{{{{x", "[1:1][1:1][1:1][1:1][1:1][1:1][1:1]=1",
		"[1:1][1:1][1:1][1:1][1:1][1:1][1:1]=" + deep(7, "1"),
	} {
		for _, oid := range []uint32{OIDInt4Array, OIDTextArray} {
			_, err := ParseText(oid, -1, []byte(in), nil)
			if !isPgErr(err, pgerr.ProgramLimitExceeded, msg) {
				t.Errorf("%.40s: %v, want 54000 %s", in, err, msg)
			}
		}
	}
	v, err := ParseText(OIDInt4Array, -1, []byte(deep(6, "1")), nil)
	if err != nil {
		t.Fatalf("6 dimensions: %v", err)
	}
	bin, err := AppendBinary(nil, OIDInt4Array, -1, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseBinary(OIDInt4Array, -1, bin); err != nil {
		t.Fatalf("6 dimensions, binary: %v", err)
	}
	// array_recv of ndim 7.
	bin7 := binary.BigEndian.AppendUint32(nil, 7)
	bin7 = append(bin7, 0, 0, 0, 0)
	bin7 = binary.BigEndian.AppendUint32(bin7, OIDInt4)
	for range 7 {
		bin7 = append(bin7, 0, 0, 0, 1, 0, 0, 0, 1)
	}
	bin7 = append(bin7, 0, 0, 0, 4, 0, 0, 0, 1)
	if _, err := ParseBinary(OIDInt4Array, -1, bin7); !isPgErr(err, pgerr.ProgramLimitExceeded, msg) {
		t.Errorf("binary, 7 dimensions: %v, want %s", err, msg)
	}
}

// FuzzParseArrayText: no input makes array_in panic; what parses prints
// and parses back to the same text.
func FuzzParseArrayText(f *testing.F) {
	for _, s := range []string{`{1,2}`, `{"a\"b",NULL}`, `[0:1]={1,2}`, `{{1},{2}}`, `{`, `{{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseText(OIDTextArray, -1, []byte(s), nil)
		if err != nil {
			return
		}
		out, err := AppendText(nil, OIDTextArray, -1, v, nil)
		if err != nil {
			t.Fatalf("%q parsed but does not print: %v", s, err)
		}
		v2, err := ParseText(OIDTextArray, -1, out, nil)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, out, err)
		}
		out2, _ := AppendText(nil, OIDTextArray, -1, v2, nil)
		if string(out2) != string(out) {
			t.Fatalf("%q: %q then %q", s, out, out2)
		}
	})
}

// isPgErr reports whether err is a *pgerr.Error of code and message.
func isPgErr(err error, code, msg string) bool {
	pe, ok := pgerr.As(err)
	return ok && pe.Code == code && pe.Message == msg
}
