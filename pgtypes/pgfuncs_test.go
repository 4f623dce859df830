package pgtypes

import "testing"

// TestChr: chr(integer) in UTF8, with PostgreSQL 15's errors.
func TestChr(t *testing.T) {
	for _, c := range []struct {
		in        int32
		want      string
		code, msg string
	}{
		{65, "A", "", ""},
		{233, "é", "", ""},
		{0x10ffff, "\U0010ffff", "", ""},
		{0, "", "54000", "null character not permitted"},
		{-1, "", "22023", "character number must be positive"},
		{1114112, "", "54000", "requested character too large for encoding: 1114112"},
		{55296, "", "54000", "requested character not valid for encoding: 55296"},
		{57343, "", "54000", "requested character not valid for encoding: 57343"},
	} {
		got, err := Chr(c.in)
		if c.code == "" {
			if err != nil || got != c.want {
				t.Errorf("chr(%d) = %q, %v; want %q", c.in, got, err, c.want)
			}
			continue
		}
		if !isPgErr(err, c.code, c.msg) {
			t.Errorf("chr(%d): %v, want %s %s", c.in, err, c.code, c.msg)
		}
	}
}
