package pgtypes

import (
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Cases from PostgreSQL 15's strings.out.

func TestRegexpReplace(t *testing.T) {
	cases := []struct {
		s, p, r     string
		start, n    int64
		hasN        bool
		flags, want string
	}{
		{"1112223333", `(\d{3})(\d{3})(\d{4})`, `(\1) \2-\3`, 1, 0, false, "", "(111) 222-3333"},
		{"AAA   BBB   CCC   ", `\s+`, " ", 1, 0, false, "g", "AAA BBB CCC "},
		{"AAA", "^|$", "Z", 1, 0, false, "g", "ZAAAZ"},
		{"AAA aaa", "A+", "Z", 1, 0, false, "gi", "Z Z"},
		{"A PostgreSQL function", "A|e|i|o|u", "X", 1, 0, false, "", "X PostgreSQL function"},
		{"A PostgreSQL function", "A|e|i|o|u", "X", 1, 2, true, "", "A PXstgreSQL function"},
		{"A PostgreSQL function", "a|e|i|o|u", "X", 1, 0, true, "i", "X PXstgrXSQL fXnctXXn"},
		{"A PostgreSQL function", "a|e|i|o|u", "X", 1, 3, true, "i", "A PostgrXSQL function"},
		{"A PostgreSQL function", "a|e|i|o|u", "X", 1, 9, true, "i", "A PostgreSQL function"},
		{"A PostgreSQL function", "A|e|i|o|u", "X", 7, 0, true, "i", "A PostgrXSQL fXnctXXn"},
		{"abc", "b", `[\&]`, 1, 0, false, "", "a[b]c"},
		{"abc", "", "-", 1, 0, false, "g", "-a-b-c-"},
	}
	for _, c := range cases {
		got, err := RegexpReplace(c.s, c.p, c.r, c.start, c.n, c.hasN, c.flags)
		if err != nil || got != c.want {
			t.Errorf("regexp_replace(%q, %q, %q, %d, %d, %q) = %q, %v; want %q", c.s, c.p, c.r, c.start, c.n, c.flags, got, err, c.want)
		}
	}
	for _, c := range []struct {
		start, n int64
		flags    string
		msg      string
	}{
		{-1, 0, "i", `invalid value for parameter "start": -1`},
		{1, -1, "i", `invalid value for parameter "n": -1`},
		{1, 0, "z", `invalid regular expression option: "z"`},
	} {
		_, err := RegexpReplace("x", "x", "y", c.start, c.n, true, c.flags)
		if e, ok := pgerr.As(err); !ok || e.Code != "22023" || e.Message != c.msg {
			t.Errorf("%v: %v, want %s", c, err, c.msg)
		}
	}
}

func TestRegexpFunctions(t *testing.T) {
	if n, _ := RegexpCount("123123123123123", "(12)3", 1, ""); n != 5 {
		t.Errorf("regexp_count: %d", n)
	}
	if n, _ := RegexpCount("ABCABCABCABC", "Abc", 1, "i"); n != 4 {
		t.Errorf("regexp_count i: %d", n)
	}
	if n, _ := RegexpCount("123123123123", "123", 3, ""); n != 3 {
		t.Errorf("regexp_count start: %d", n)
	}
	for _, c := range []struct {
		s, p, flags string
		want        bool
	}{
		{"Steven", "^Ste(v|ph)en$", "", true}, {"a\nd", "a.d", "n", false}, {"a\nd", "a.d", "s", true},
		{"abc", " a . c ", "x", true}, {"x.y", "x.y", "q", true}, {"xzy", "x.y", "q", false}, {"ABC", "(?i)abc", "", true},
		{"foo bar", `\yfoo\y`, "", true}, {"a\tb", `a\tb`, "", true}, {"AbC", "[[:upper:]]b[[.C.]]", "", true},
	} {
		if got, err := RegexpLike(c.s, c.p, c.flags); err != nil || got != c.want {
			t.Errorf("regexp_like(%q, %q, %q) = %v, %v", c.s, c.p, c.flags, got, err)
		}
	}
	for _, c := range []struct {
		p    int64
		n    int64
		end  int64
		sub  int64
		pat  string
		want int32
	}{
		{1, 1, 0, 0, "d.f", 4}, {1, 1, 0, 0, "d.q", 0}, {2, 1, 0, 0, "a.c", 4}, {1, 3, 0, 0, "a.c", 7},
	} {
		s := "abcdefghi"
		if c.pat == "a.c" {
			s = "abcabcabc"
		}
		if got, err := RegexpInstr(s, c.pat, c.p, c.n, c.end, "", c.sub); err != nil || got != c.want {
			t.Errorf("regexp_instr(%q, %q, %d, %d) = %d, %v; want %d", s, c.pat, c.p, c.n, got, err, c.want)
		}
	}
	for sub, want := range []int32{1, 1, 4, 5, 7, 0} {
		if got, _ := RegexpInstr("1234567890", "(123)(4(56)(78))", 1, 1, 0, "i", int64(sub)); got != want {
			t.Errorf("regexp_instr subexpr %d = %d, want %d", sub, got, want)
		}
	}
	if s, ok, _ := RegexpSubstr("1234567890", "(123)(4(56)(78))", 1, 1, "i", 3); !ok || s != "56" {
		t.Errorf("regexp_substr: %q %v", s, ok)
	}
	if s, _, _ := RegexpSubstr("abcd", "a|ab|abc", 1, 1, "", 0); s != "abc" {
		t.Errorf("regexp_substr longest: %q", s)
	}
	ms, _ := RegexpMatches("foobarbequebazilbarfbonk", "(b[^b]+)(b[^b]+)", "g")
	if len(ms) != 2 || *ms[0][0] != "bar" || *ms[1][1] != "barf" {
		t.Errorf("regexp_matches: %v", ms)
	}
	m, _ := RegexpMatch("foobarbequebaz", "(bar)(.+)?(beque)", "")
	if len(m) != 3 || m[1] != nil {
		t.Errorf("regexp_match: %v", m)
	}
	ms, _ = RegexpMatches("1\n2\n3\n4\n", "^.?", "mg")
	if len(ms) != 5 {
		t.Errorf("regexp_matches mg: %d rows", len(ms))
	}
	for _, c := range []struct{ s, p, want string }{
		{"the quick brown fox", `\s+`, "the|quick|brown|fox"},
		{"123456", "", "1|2|3|4|5|6"}, {"123456", "1", "|23456"}, {"123456", "6", "12345|"}, {"123456", ".", "||||||"},
		{"the quick", "nomatch", "the quick"},
	} {
		parts, err := RegexpSplit(c.s, c.p, "", "regexp_split_to_array")
		if err != nil || strings.Join(parts, "|") != c.want {
			t.Errorf("regexp_split(%q, %q) = %q, %v", c.s, c.p, parts, err)
		}
	}
	for _, c := range []struct{ p, code, msg string }{
		{"(barbeque", "2201B", "invalid regular expression: parentheses () not balanced"},
		{"(bar)(beque){2,1}", "2201B", "invalid regular expression: invalid repetition count(s)"},
		{"a{256}", "2201B", "invalid regular expression: invalid repetition count(s)"},
		{"*a", "2201B", "invalid regular expression: quantifier operand invalid"},
		{"[a", "2201B", "invalid regular expression: brackets [] not balanced"},
		{`\q`, "2201B", `invalid regular expression: invalid escape \ sequence`},
		{"[b-a]", "2201B", "invalid regular expression: invalid character range"},
		{`(.)\1`, "0A000", "regular expression back references are not supported"},
	} {
		_, err := RegexpLike("a", c.p, "")
		if e, ok := pgerr.As(err); !ok || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%q: %v, want %s %s", c.p, err, c.code, c.msg)
		}
	}
	if _, err := RegexpLike("a", "a", "g"); err == nil || err.(*pgerr.Error).Message != `regexp_like() does not support the "global" option` {
		t.Errorf("regexp_like g: %v", err)
	}
}

func TestUnistrOverlay(t *testing.T) {
	if s, err := Unistr(`\0064at\+0000610`); err != nil || s != "data0" {
		t.Errorf("unistr: %q %v", s, err)
	}
	if s, err := Unistr(`d\u0061t\U000000610`); err != nil || s != "data0" {
		t.Errorf("unistr: %q %v", s, err)
	}
	for in, msg := range map[string]string{
		`wrong: \db99`:                "invalid Unicode surrogate pair",
		`wrong: \+2FFFFF`:             "invalid Unicode code point: 2FFFFF",
		`wrong: \xyz`:                 "invalid Unicode escape",
		`wrong: \U0000db99\U00000061`: "invalid Unicode surrogate pair",
	} {
		if _, err := Unistr(in); err == nil || err.(*pgerr.Error).Message != msg {
			t.Errorf("unistr(%q): %v, want %s", in, err, msg)
		}
	}
	for _, c := range []struct {
		s, r       string
		from, for_ int64
		has        bool
		want       string
	}{
		{"abcdef", "45", 4, 0, false, "abc45f"}, {"yabadoo", "daba", 5, 0, false, "yabadaba"},
		{"yabadoo", "daba", 5, 0, true, "yabadabadoo"}, {"babosa", "ubb", 2, 4, true, "bubba"},
	} {
		if got, err := Overlay(c.s, c.r, c.from, c.for_, c.has, false); err != nil || got != c.want {
			t.Errorf("overlay(%q, %q, %d): %q %v", c.s, c.r, c.from, got, err)
		}
	}
}
