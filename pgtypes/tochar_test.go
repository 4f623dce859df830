package pgtypes

import (
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// TestToCharTime: outputs checked against PostgreSQL 15 (the regress
// script to_char.sql runs the same patterns on a real server).
func TestToCharTime(t *testing.T) {
	ts := time.Date(2024, 3, 5, 14, 7, 9, 123456000, time.UTC)
	cases := []struct{ f, want string }{
		{"YYYY-MM-DD HH24:MI:SS", "2024-03-05 14:07:09"},
		{"YYYY-MM-DD\"T\"HH24:MI:SS.US", "2024-03-05T14:07:09.123456"},
		{"Day, DD Month YYYY", "Tuesday  , 05 March     2024"},
		{"FMDay, FMDD FMMonth YYYY", "Tuesday, 5 March 2024"},
		{"Dy Mon dd yy", "Tue Mar 05 24"},
		{"HH12:MI AM", "02:07 PM"},
		{"hh:mi a.m.", "02:07 p.m."},
		{"DDDth \"day\", Q\"Q\", WW, IW, D, ID", "065th day, 1Q, 10, 10, 3, 2"},
		{"FMDDth \"of\" FMMonth", "5th of March"},
		{"FMDDth of", "5th +00"},
		{"TZ|tz|OF|TZH|TZM|", "||+00|+00|00|"},
		{"Y,YYY CC J", "2,024 21 2460375"},
		{"MS FF3 SSSS", "123 123 50829"},
		{"RM rm|", "III  iii |"},
		{"MONTH|month|MON", "MARCH    |march    |MAR"},
	}
	for _, c := range cases {
		got, err := ToCharTime(ts, c.f, false)
		if err != nil {
			t.Errorf("%q: %v", c.f, err)
			continue
		}
		if got != c.want {
			t.Errorf("to_char(%q) = %q, want %q", c.f, got, c.want)
		}
	}
	zoned := []struct{ zone, want string }{
		{"Europe/Berlin", "2024-07-01 12:00 CEST|cest|+02|+02|00|"},
		{"Asia/Kolkata", "2024-07-01 15:30 IST|ist|+05:30|+05|30|"},
		{"America/St_Johns", "2024-07-01 07:30 NDT|ndt|-02:30|-02|30|"},
		{"UTC", "2024-07-01 10:00 UTC|utc|+00|+00|00|"},
	}
	for _, z := range zoned {
		loc, err := time.LoadLocation(z.zone)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ToCharTime(time.Date(2024, 7, 1, 10, 0, 0, 0, time.UTC).In(loc), "YYYY-MM-DD HH24:MI TZ|tz|OF|TZH|TZM|", true)
		if err != nil || got != z.want {
			t.Errorf("%s: %q, %v; want %q", z.zone, got, err, z.want)
		}
	}
}

// FuzzToCharTime: no template makes to_char panic, and a template without
// patterns is printed as is.
func FuzzToCharTime(f *testing.F) {
	for _, s := range []string{"YYYY-MM-DD", `"a\"b" \" FMDDth`, "Y,YYY TZ OF", "\"", "FM", "ddd\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, format string) {
		ts := time.Date(2024, 3, 5, 14, 7, 9, 0, time.UTC)
		if _, err := ToCharTime(ts, format, false); err != nil {
			t.Fatal(err)
		}
		if _, err := ToCharTime(ts, format, true); err != nil {
			t.Fatal(err)
		}
	})
}

// TestEncodeDecode: PostgreSQL's formats, and the errors with their
// SQLSTATEs (outputs checked against PostgreSQL 15 by bytea_functions.sql).
func TestEncodeDecode(t *testing.T) {
	b := []byte{0, 0xff, '\\', 'A'}
	for f, want := range map[string]string{"hex": "00ff5c41", "escape": `\000\377\\A`, "base64": "AP9cQQ=="} {
		got, err := EncodeBytes(b, f)
		if err != nil || got != want {
			t.Errorf("encode %s = %q, %v; want %q", f, got, err, want)
		}
		back, err := DecodeBytes(got, f)
		if err != nil || string(back) != string(b) {
			t.Errorf("decode %s(%q) = %q, %v", f, got, back, err)
		}
	}
	long, _ := EncodeBytes(make([]byte, 60), "base64")
	if len(long) != 81 || long[76] != '\n' {
		t.Errorf("base64 of 60 bytes: %q (want a line break after 76 characters)", long)
	}
	for _, c := range []struct{ in, f, code string }{{"6", "hex", "22023"}, {"zz", "hex", "22023"}, {`a\q`, "escape", "22P02"}, {"a", "rot13", "22023"}} {
		_, err := DecodeBytes(c.in, c.f)
		if pe, ok := pgerr.As(err); !ok || pe.Code != c.code {
			t.Errorf("decode(%q, %q): %v, want SQLSTATE %s", c.in, c.f, err, c.code)
		}
	}
}

// TestPGFuncs: initcap, quote_ident, quote_literal and justify_* as
// PostgreSQL 15 prints them (pg_functions.sql runs them on both).
func TestPGFuncs(t *testing.T) {
	if got := Initcap("hELLO wOrLD-foo_bar 3rd"); got != "Hello World-Foo_Bar 3rd" {
		t.Errorf("initcap: %q", got)
	}
	for in, want := range map[string]string{"select": `"select"`, "Abc": `"Abc"`, "abc_1": "abc_1", "1a": `"1a"`, "name": "name", `a"b`: `"a""b"`, "": `""`} {
		keyword := func(s string) bool { return s == "select" }
		if got := QuoteIdent(in, keyword); got != want {
			t.Errorf("quote_ident(%q) = %s, want %s", in, got, want)
		}
	}
	if got := QuoteLiteral(`a\b'c`); got != `E'a\\b''c'` {
		t.Errorf("quote_literal: %s", got)
	}
	day := usPerDay
	for _, c := range []struct {
		f        func(Interval) Interval
		in, want Interval
	}{
		{JustifyHours, Interval{Micros: -27 * usPerHour}, Interval{Days: -1, Micros: -3 * usPerHour}},
		{JustifyHours, Interval{Days: 1, Micros: -27 * usPerHour}, Interval{Micros: -3 * usPerHour}},
		{JustifyDays, Interval{Months: 1, Days: -35}, Interval{Days: -5}},
		{JustifyInterval, Interval{Months: 1, Micros: -usPerHour}, Interval{Days: 29, Micros: day - usPerHour}},
		{JustifyInterval, Interval{Months: -1, Days: 50, Micros: 30 * usPerHour}, Interval{Days: 21, Micros: 6 * usPerHour}},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("justify %+v = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// TestToTimestamp: template parsing as PostgreSQL 15 does it (to_char.sql
// runs the same inputs on both, errors included).
func TestToTimestamp(t *testing.T) {
	for _, c := range []struct{ in, f, want string }{
		{"2024-3-5", "YYYY-MM-DD", "2024-03-05 00:00:00"},
		{"20240305", "YYYYMMDD", "2024-03-05 00:00:00"},
		{"March 5, 2024", "Month DD, YYYY", "2024-03-05 00:00:00"},
		{"05/03/2024 02:30 PM", "DD/MM/YYYY HH12:MI AM", "2024-03-05 14:30:00"},
		{"2024 065", "YYYY DDD", "2024-03-05 00:00:00"},
		{"99-03-05", "YY-MM-DD", "1999-03-05 00:00:00"},
	} {
		got, err := ToTimestamp(c.in, c.f)
		if err != nil || got.Format("2006-01-02 15:04:05") != c.want {
			t.Errorf("to_timestamp(%q, %q) = %v, %v; want %s", c.in, c.f, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, f, code string }{
		{"2024-13-05", "YYYY-MM-DD", "22008"}, {"xx", "YYYY-MM-DD", "22007"}, {"13:00 PM", "HH12:MI AM", "22007"},
	} {
		_, err := ToTimestamp(c.in, c.f)
		if pe, ok := pgerr.As(err); !ok || pe.Code != c.code {
			t.Errorf("to_timestamp(%q, %q): %v, want SQLSTATE %s", c.in, c.f, err, c.code)
		}
	}
}

// FuzzToTimestamp: no input and template make the parser panic.
func FuzzToTimestamp(f *testing.F) {
	f.Add("2024-03-05 14:30", "YYYY-MM-DD HH24:MI")
	f.Add("March 5", "Month DD")
	f.Add("", "J")
	f.Fuzz(func(t *testing.T, in, format string) {
		_, _ = ToTimestamp(in, format)
	})
}
