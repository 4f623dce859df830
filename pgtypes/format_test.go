package pgtypes

import (
	"errors"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func formatArgs(a ...any) []*string {
	out := make([]*string, len(a))
	for i, v := range a {
		if s, ok := v.(string); ok {
			out[i] = &s
		}
	}
	return out
}

var formatQuoteIdent = func(s string) string { return QuoteIdent(s, func(string) bool { return false }) }

// TestFormat: format() as PostgreSQL 15 prints it (pg_functions.sql runs
// the same calls on both).
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		f    string
		args []any
		want string
	}{
		{"Hello %s, %I, %L, %%, %L", []any{"World", "Select", "it's", nil}, `Hello World, "Select", 'it''s', %, NULL`},
		{"%2$s %1$s", []any{"a", "b"}, "b a"},
		{"|%5s|%-5s|", []any{"ab", "cd"}, "|   ab|cd   |"},
		{"%*s|%-*s|", []any{"4", "x", "3", "y"}, "   x|y  |"},
		{"%s", []any{nil}, ""},
		{"%*s", []any{" 3 ", "x"}, "  x"},
		{"%*s", []any{nil, "x"}, "x"},
		{"%-*s|", []any{"-3", "x"}, "x  |"},
		{"%1$*1$s|", []any{"3"}, "  3|"},
		{"%1$s %s", []any{"a", "b"}, "a b"},
		{"%s %1$s %s", []any{"a", "b"}, "a a b"},
		{"%2$-5s|", []any{"a", "b"}, "b    |"},
		{"%3s|", []any{"é"}, "  é|"},
	} {
		got, err := Format(c.f, formatArgs(c.args...), formatQuoteIdent)
		if err != nil || got != c.want {
			t.Errorf("format(%q) = %q, %v; want %q", c.f, got, err, c.want)
		}
	}
}

// TestFormatErrors: the errors of PostgreSQL 15's format(), SQLSTATE,
// message and hint, each checked against it (psql -c "select format(...)").
func TestFormatErrors(t *testing.T) {
	const hint = `For a single "%" use "%%".`
	for _, c := range []struct {
		f         string
		args      []any
		code, msg string
		hint      bool
	}{
		// Position 0 was a Go panic (index -1) that ended the session.
		{"%*0$s", []any{"Hello"}, "22023", "format specifies argument 0, but arguments are numbered from 1", false},
		{"%0$s", []any{"Hello"}, "22023", "format specifies argument 0, but arguments are numbered from 1", false},
		{"%*s", []any{"-2147483648", "x"}, "22003", "number is out of range", false},
		{"%*s", []any{"abc", "x"}, "22P02", `invalid input syntax for type integer: "abc"`, false},
		{"%*s", []any{"99999999999", "x"}, "22003", `value "99999999999" is out of range for type integer`, false},
		{"%99999999999s", []any{"x"}, "22003", "number is out of range", false},
		{"%5", nil, "22023", "unterminated format() type specifier", true},
		{"%1$", nil, "22023", "unterminated format() type specifier", true},
		{"%-", nil, "22023", "unterminated format() type specifier", true},
		{"%", nil, "22023", "unterminated format() type specifier", true},
		{"%5-s", []any{"x"}, "22023", `unrecognized format() type specifier "-"`, true},
		{"%x", []any{"x"}, "22023", `unrecognized format() type specifier "x"`, true},
		{"%é", nil, "22023", `unrecognized format() type specifier "é"`, true},
		{"%*5s", []any{"1", "x"}, "22023", `width argument position must be ended by "$"`, false},
		{"%*2$s %s", []any{"a", "3", "c"}, "22023", "too few arguments for format()", false},
		{"%*s", nil, "22023", "too few arguments for format()", false},
		{"%*s", []any{"3"}, "22023", "too few arguments for format()", false},
		{"%3$s", []any{"a"}, "22023", "too few arguments for format()", false},
		{"%s %s", []any{"a"}, "22023", "too few arguments for format()", false},
		{"%I", []any{nil}, "22004", "null values cannot be formatted as an SQL identifier", false},
	} {
		_, err := Format(c.f, formatArgs(c.args...), formatQuoteIdent)
		pe, ok := pgerr.As(err)
		if !ok {
			t.Errorf("format(%q): %v, want %s %s", c.f, err, c.code, c.msg)
			continue
		}
		wantHint := ""
		if c.hint {
			wantHint = hint
		}
		if pe.Code != c.code || pe.Message != c.msg || pe.Hint != wantHint {
			t.Errorf("format(%q): %s %q hint %q; want %s %q hint %q", c.f, pe.Code, pe.Message, pe.Hint, c.code, c.msg, wantHint)
		}
	}
}

// FuzzFormat: no format string or arguments make Format panic, and every
// error it returns is a *pgerr.Error (a SQLSTATE for the client), never a
// Go error that would reach the wire as XX000.
func FuzzFormat(f *testing.F) {
	for _, s := range []string{"%s", "%*0$s", "%1$*2$-s", "%-*s|%I|%L|%%", "%*1$", "%99$s", "%5", "%é", "%2147483647s"} {
		f.Add(s, "3", "a", "-2")
	}
	f.Fuzz(func(t *testing.T, format, a1, a2, a3 string) {
		// A width of many digits is a legal request for up to 1 GB of
		// spaces, as in PostgreSQL: not what a fuzz iteration should
		// allocate, so such inputs are skipped.
		for _, s := range []string{format, a1, a2, a3} {
			if longDigitRun(s, 6) {
				t.Skip()
			}
		}
		args := formatArgs(a1, a2, a3)
		if a3 == "" {
			args[2] = nil // a NULL argument too
		}
		_, err := Format(format, args, formatQuoteIdent)
		if err == nil {
			return
		}
		var pe *pgerr.Error
		if !errors.As(err, &pe) || len(pe.Code) != 5 {
			t.Fatalf("format(%q): %T %v is not a *pgerr.Error with a SQLSTATE", format, err, err)
		}
	})
}

// longDigitRun reports whether s holds more than n digits in a row.
func longDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if run++; run > n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
