package pgtypes

import (
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Cases from PostgreSQL 15's expected outputs (numeric.out, int8.out,
// float8.out, strings.out); the differential tests in server compare many
// more with a running PostgreSQL.

func TestToCharNumeric(t *testing.T) {
	cases := []struct{ v, f, want string }{
		{"-34338492", "9G999G999G999G999G999", "           -34,338,492"},
		{"4.31", "9G999G999G999G999G999D999G999G999G999G999", "                     4.310,000,000,000,000"},
		{"-34338492.215397047", "9999999999999999.999999999999999PR", "        <34338492.215397047000000>"},
		{"4.31", "9999999999999999.999999999999999S", "               4.310000000000000+"},
		{"-34338492.215397047", "FMS9999999999999999.999999999999999", "-34338492.215397047"},
		{"0", "FM9999999999999999.999999999999999THPR", "0."},
		{"7799461.4119", "SG9999999999999999.999999999999999th", "+         7799461.411900000000000"},
		{"0", "0999999999999999.999999999999999", " 0000000000000000.000000000000000"},
		{"-4.31", "FM0999999999999999.999999999999999", "-0000000000000004.31"},
		{"0", "FM9999999999999999.099999999999999", ".0"},
		{"0", "FM9999999999990999.990999999999999", "0000.000"},
		{"4.31", "L9999999999999999.099999999999999", "                 4.310000000000000"},
		{"-34338492.215397047", "S 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 . 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9", "                 -3 4 3 3 8 4 9 2 . 2 1 5 3 9 7 0 4 7 0 0 0 0 0 0 0 0"},
		{"4.31", `99999 "text" 9999 "9999" 999 "\"text between quote marks\"" 9999`, "      text      9999     \"text between quote marks\"     4"},
		{"-34338492.215397047", "999999SG9999999999", "      -  34338492"},
		{"-34338492.215397047", "9.999EEEE", "-3.434e+07"},
		{"4.31", "9.999EEEE", " 4.310e+00"},
		{"NaN", "9.999EEEE", " #.#######"},
		{"100", "FM999.9", "100."},
		{"100", "FM999.", "100"},
		{"100", "FM999", "100"},
		{"100", "foo999", "foo 100"},
		{"100", `f\oo999`, `f\oo 100`},
		{"100", `f"ool"999`, "fool 100"},
		{"9.99", "9.9EEEE", " 10.0e+00"},
		{"1234", "RN", "       MCCXXXIV"},
		{"1234", "FMrn", "mccxxxiv"},
		{"-1.5", "99.9MI", " 1.5-"},
		{"1000", "99", " ##"},
		{"12.3", "9V99", " ###"},
		{"1.5", "", ""},
	}
	for _, c := range cases {
		got, err := ToCharNumeric(c.v, c.f)
		if err != nil || got != c.want {
			t.Errorf("to_char(%s, %q) = %q, %v; want %q", c.v, c.f, got, err, c.want)
		}
	}
	for _, c := range []struct{ f, msg string }{
		{"99.9.9", "multiple decimal points"},
		{"S9S", `cannot use "S" twice`},
		{"9PR9", `"9" must be ahead of "PR"`},
		{"FM9EEEE", `"EEEE" is incompatible with other formats`},
		{"9EEEE9", `"EEEE" must be the last pattern used`},
	} {
		_, err := ToCharNumeric("1", c.f)
		if e, ok := pgerr.As(err); !ok || e.Code != "42601" || e.Message != c.msg {
			t.Errorf("to_char(1, %q): %v, want 42601 %s", c.f, err, c.msg)
		}
	}
	if _, err := ToCharNumeric("NaN", "RN"); err == nil || err.(*pgerr.Error).Message != "cannot convert NaN to integer" {
		t.Errorf("to_char(NaN, RN): %v", err)
	}
}

func TestToCharIntFloat(t *testing.T) {
	ints := []struct {
		v    int64
		int4 bool
		f    string
		want string
	}{
		{4567890123456789, false, "9G999G999G999G999G999", " 4,567,890,123,456,789"},
		{-4567890123456789, false, "9999999999999999PR", "<4567890123456789>"},
		{456, false, "FM9999999999999999THPR", "456TH"},
		{4567890123456789, false, "SG9999999999999999th", "+4567890123456789th"},
		{123, false, "FM9999999999999999.000", "123.000"},
		{125, true, "9.9EEEE", " 1.2e+02"},
		{125, false, "9.9EEEE", " 1.3e+02"},
		{21, true, "FM99th", "21st"},
		{12, true, "FM99th", "12th"},
	}
	for _, c := range ints {
		got, err := ToCharInt(c.v, c.int4, c.f)
		if err != nil || got != c.want {
			t.Errorf("to_char(%d, %q) = %q, %v; want %q", c.v, c.f, got, err, c.want)
		}
	}
	floats := []struct {
		v    float64
		f4   bool
		f    string
		want string
	}{
		{1.2345678901234e+200, false, "9.999EEEE", " 1.235e+200"},
		{12345678901, false, "FM9999999999D9999900000000000000000", "##########.####"},
		{-0.5, false, "MI99.99", "-  .50"},
		{0.5, true, "MI99.99", "   .50"},
		{1e20, false, "9G999", " #,###"},
	}
	for _, c := range floats {
		got, err := ToCharFloat(c.v, c.f4, c.f)
		if err != nil || got != c.want {
			t.Errorf("to_char(%g, %q) = %q, %v; want %q", c.v, c.f, got, err, c.want)
		}
	}
}

func TestToNumber(t *testing.T) {
	cases := []struct{ v, f, want string }{
		{"-34,338,492", "99G999G999", "-34338492"},
		{"-34,338,492.654,878", "99G999G999D999G999", "-34338492.654878"},
		{"<564646.654564>", "999999.999999PR", "-564646.654564"},
		{"0.00001-", "9.999999S", "-0.00001"},
		{"5.01-", "FM9.999999S", "-5.01"},
		{"5.01-", "FM9.999999MI", "-5.01"},
		{"5 4 4 4 4 8 . 7 8", "9 9 9 9 9 9 . 9 9", "544448.78"},
		{".01", "FM9.99", "0.01"},
		{".0", "99999999.99999999", "0.0"},
		{"0", "99.99", "0"},
		{".-01", "S99.99", "-0.01"},
		{".01-", "99.99S", "-0.01"},
		{" . 0 1-", " 9 9 . 9 9 S", "-0.01"},
		{"34,50", "999,99", "3450"},
		{"123,000", "999G", "123"},
		{"123456", "999G999", "123456"},
		{"$1234.56", "L9,999.99", "1234.56"},
		{"$1234.56", "L99,999.99", "1234.56"},
		{"$1,234.56", "L99,999.99", "1234.56"},
		{"1234.56", "L99,999.99", "1234.56"},
		{"1,234.56", "L99,999.99", "1234.56"},
		{"42nd", "99th", "42"},
		{"12345", "999V99", "123.4500000000000000"},
	}
	for _, c := range cases {
		got, ok, err := ToNumber(c.v, c.f)
		if err != nil || !ok || got != c.want {
			t.Errorf("to_number(%q, %q) = %q, %v, %v; want %q", c.v, c.f, got, ok, err, c.want)
		}
	}
	if _, _, err := ToNumber("1", "9EEEE"); err == nil {
		t.Error("EEEE for input accepted")
	}
	if _, _, err := ToNumber("", "999"); err == nil || err.(*pgerr.Error).Message != `invalid input syntax for type numeric: " "` {
		t.Errorf("to_number('', '999'): %v", err)
	}
}

func TestNumericFunctions(t *testing.T) {
	for _, c := range []struct{ x, y, want string }{
		{"999999999999999999999", "1000000000000000000000", "0"},
		{"-9999999999999999999999", "1000000000000000000000", "-9"},
		{"12345678901234567890", "123", "100371373180768844"},
		{"7.5", "-2", "-3"}, {"Infinity", "2", "Infinity"}, {"-Infinity", "2", "-Infinity"},
		{"2", "Infinity", "0"}, {"NaN", "0", "NaN"},
	} {
		if got, err := NumericDiv(c.x, c.y); err != nil || got != c.want {
			t.Errorf("div(%s, %s) = %q, %v; want %s", c.x, c.y, got, err, c.want)
		}
	}
	if _, err := NumericDiv("0", "0"); err == nil || err.(*pgerr.Error).Code != "22012" {
		t.Errorf("div(0, 0): %v", err)
	}
	for _, c := range []struct {
		v          string
		scale, min int32
		trim       string
	}{
		{"1.12", 2, 2, "1.12"}, {"0.00", 2, 0, "0"}, {"-13.000000000000000", 15, 0, "-13"}, {"110123.12475871100000000", 17, 9, "110123.124758711"},
	} {
		s, _, _ := NumericScaleOf(c.v)
		m, _, _ := NumericMinScaleOf(c.v)
		tr, _ := NumericTrimScale(c.v)
		if s != c.scale || m != c.min || tr != c.trim {
			t.Errorf("%s: scale %d, min_scale %d, trim_scale %s", c.v, s, m, tr)
		}
	}
	if _, ok, _ := NumericScaleOf("NaN"); ok {
		t.Error("scale(NaN) is not NULL")
	}
}
