package pgtypes

import (
	"math"
	"testing"
)

// TestEngineValueForms: the forms the SQL layer's engine hands to the
// encoders for values DuckDB cannot represent natively must print as
// PostgreSQL prints them.
func TestEngineValueForms(t *testing.T) {
	cases := []struct {
		oid  uint32
		v    any
		want string
	}{
		// numeric NaN/±Infinity travel as DOUBLE.
		{OIDNumeric, math.NaN(), "NaN"},
		{OIDNumeric, math.Inf(1), "Infinity"},
		{OIDNumeric, math.Inf(-1), "-Infinity"},
		{OIDNumeric, 2.5, "2.5"},
		// jsonb fragments from DuckDB's JSON functions are compact.
		{OIDJSONB, `[1,2,{"c":null}]`, `[1, 2, {"c": null}]`},
		{OIDJSONB, `{"b":1,"a":2}`, `{"a": 2, "b": 1}`},
		{OIDJSONB, `3.10`, `3.10`},
		// json keeps its text.
		{OIDJSON, `{"b":1,"a":2}`, `{"b":1,"a":2}`},
	}
	for _, c := range cases {
		got, err := AppendText(nil, c.oid, -1, c.v, nil)
		if err != nil || string(got) != c.want {
			t.Errorf("AppendText(%d, %#v) = %q, %v; want %q", c.oid, c.v, got, err, c.want)
		}
	}
}
