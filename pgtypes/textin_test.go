package pgtypes

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/jackc/pgx/v5/pgconn"
)

// inputCases are text inputs per type; PostgreSQL's verdict (binary value
// or SQLSTATE + message) is the oracle for ParseText.
var inputCases = []struct {
	typ    string
	oid    uint32
	typmod int32
	ins    []string
}{
	{"int2", OIDInt2, -1, []string{"0", " 12 ", "-32768", "32768", "+5", "1.0", "", " ", "12a", "--1", "99999999999999999999"}},
	{"int4", OIDInt4, -1, []string{"2147483647", "-2147483648", "2147483648", "-2147483649", "\t42\n", "4 2", "x", "0x10", "1_000"}},
	{"int8", OIDInt8, -1, []string{"9223372036854775807", "-9223372036854775808", "9223372036854775808", "abc"}},
	{"float8", OIDFloat8, -1, []string{"1.5", " -2e10 ", "NaN", "nan", "Infinity", "-inf", "+inf", "1e400", "1e-400", "4.9e-324", "abc", "", "1.5x", ".5", "5.", "1e", "0x1p3"}},
	{"float4", OIDFloat4, -1, []string{"1.5", "3.4028236e38", "1e39", "1e-46", "1.4e-45", "0.1", "inf"}},
	{"numeric", OIDNumeric, -1, []string{"1.50", " -0.001 ", "1e3", "1.5e-3", "1.50E+1", "NaN", "Infinity", "-inf", ".5", "5.", "abc", "1e", "", "00012.3400"}},
	{"numeric(5,2)", OIDNumeric, NumericTypmod(5, 2), []string{"123.456", "123.455", "-123.455", "999.995", "1000", "0.001", "NaN", "Infinity"}},
	{"numeric(3,-2)", OIDNumeric, NumericTypmod(3, -2), []string{"12345", "99949", "99950"}},
	{"numeric(2,2)", OIDNumeric, NumericTypmod(2, 2), []string{"0.994", "0.995"}},
	{"bool", OIDBool, -1, []string{"t", "TRUE", " yes ", "on", "1", "f", "no", "off", "0", "tr", "o", "of", "y", "maybe", "", "n"}},
	{"varchar(3)", OIDVarchar, VarcharTypmod(3), []string{"abc", "abcd", "abc   ", "ab ", "äöü", "äöüß"}},
	{"char(3)", OIDBPChar, VarcharTypmod(3), []string{"a", "abc", "abcd", "abc  "}},
	{"bytea", OIDBytea, -1, []string{`\x`, `\x0aff`, `\x0A FF`, `\x0`, `\xzz`, `abc`, `a\\b`, `\001\377`, `\q`, `\x12 3`}},
	{"uuid", OIDUUID, -1, []string{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC999C0B4EF8BB6D6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "xyz", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
	{"json", OIDJSON, -1, []string{`{"a":1}`, `[1,2`, ` "x" `, `nul`, `{bad`, `{"a" 1}`, `[1 2]`, `"abc`, `{"a":1}x`, `{"a":1,}`, `{"a":1, 2}`, `[1,]`, `1.`, `-`, `{"a":"b` + "\n" + `"}`, `"\q"`, `"\u12"`,
		"{\n  \"a\": tru,\n  \"b\": 2}", `{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": 1, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb": bad, "c": 1}`, ``, `   `}},
	{"jsonb", OIDJSONB, -1, []string{`{"b":1,"a":{"c":[1,2.0,"x"]}}`, `{"a":1,"a":2}`, `"\ud83d\ude00"`, `"\u0000"`, `[1,]`, `1e2`, `-0.0`, `{"aaa":1,"b":2,"aa":3}`}},
	{"date", OIDDate, -1, []string{"2024-02-29", "2024-02-21 +00", "2024-02-21 -05", "2024-02-21 +05:30", "2024-02-21 10:00 -08", "2023-02-29", "1/8/1999", "January 8, 1999", "1999-Jan-08", "08-Jan-1999", "Jan-08-1999", "19990108", "990108x", "1999.01.08", "epoch", "infinity", "-infinity", "0001-01-01 BC", "4714-11-24 BC", "4714-11-23 BC", "5874897-12-31", "5874898-01-01", "2024-13-01", "garbage", "1/18/1999", "99-01-08", "2024-02-29 12:34"}},
	{"time", OIDTime, -1, []string{"04:05:06.789", "04:05", "4:05 PM", "12:00 AM", "24:00:00", "24:00:01", "04:05:06.1234567", "allballs", "04:60", "040506", "2003-04-12 04:05:06", "xx"}},
	{"time(2)", OIDTime, 2, []string{"04:05:06.789", "23:59:59.999"}},
	{"timestamp", OIDTimestamp, -1, []string{"2004-10-19 10:23:54", "2004-10-19T10:23:54.123456Z", "2004-10-19 10:23:54+02", "1999-01-08 04:05:06 PST", "January 8 04:05:06 1999 PST", "2004-10-19", "epoch", "infinity", "-infinity", "0001-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999", "294277-01-01 00:00:00", "2004-10-19 25:00:00", "Sat Jan 08 04:05:06 1999", "20041019 102354"}},
	{"timestamp(0)", OIDTimestamp, 0, []string{"2004-10-19 10:23:54.5", "2004-10-19 10:23:54.4"}},
	{"timestamptz", OIDTimestampTZ, -1, []string{"2004-10-19 +02", "2004-10-19 10:23:54+02", "2004-10-19 10:23:54-08:00", "2004-10-19 10:23:54 +05:30", "2004-10-19 10:23:54Z", "2004-10-19 10:23:54 UTC", "2004-10-19 10:23:54 EST", "2004-10-19 10:23:54 Europe/Paris", "2004-10-19 10:23:54", "2024-03-10 02:30:00 America/New_York", "2024-11-03 01:30:00 America/New_York", "2004-10-19 10:23:54 Mars/Olympus", "2004-10-19 10:23:54+0530", "epoch", "infinity"}},
	{"interval", OIDInterval, -1, []string{"1 day", "1 day 02:03:04", "1 year 2 mons", "@ 1 hour ago", "-1 day +2 hours", "1.5 years", "1.5 months", "1.5 days", "1.5 weeks", "2 hours 30 minutes 10.5 seconds", "P1Y2M3DT4H5M6S", "P1DT2H", "PT1.5S", "P1W", "P0001-02-03T04:05:06", "1-2", "3 4:05:06", "10", "-1:30", "1 decade", "1 century", "1 millennium", "100 ms", "1 us", "xyz", "1 fortnight", "", "@ 1 year 2 mons -3 days 4 hours ago", "1 day ago", "05:06.5"}},
}

// dateOrderInputs are checked under other DateStyle settings.
var dateOrderInputs = []string{"1/8/1999", "08/01/1999", "13/01/1999", "01/13/1999", "1999/01/08", "8.1.1999", "08-01-99", "99-01-08", "Jan 8 1999", "8 Jan 1999", "1999 Jan 8", "20/20/2020", "01/02/03"}

func TestDateOrderInputMatchesPostgres(t *testing.T) {
	c := refConn(t)
	for _, ds := range []string{"ISO, DMY", "SQL, YMD", "German", "Postgres, MDY"} {
		refExec(t, c, "SET DateStyle = '"+ds+"'")
		s := DefaultSettings()
		if err := s.SetDateStyle(ds); err != nil {
			t.Fatal(err)
		}
		for _, in := range dateOrderInputs {
			for _, typ := range []struct {
				name string
				oid  uint32
			}{{"date", OIDDate}, {"timestamp", OIDTimestamp}} {
				expr := "'" + in + "'::" + typ.name
				want, _, perr := refValue(c, expr, 1)
				got, err := ParseText(typ.oid, -1, []byte(in), s)
				if perr != nil || err != nil {
					var pe *pgconn.PgError
					e, _ := pgerr.As(err)
					if !errors.As(perr, &pe) || e == nil || e.Code != pe.Code || e.Message != pe.Message {
						t.Errorf("[%s] %s: ours %v, PostgreSQL %v", ds, expr, err, perr)
					}
					continue
				}
				if bin, _ := AppendBinary(nil, typ.oid, -1, got); string(bin) != string(want) {
					t.Errorf("[%s] %s: ours %#v, PostgreSQL % x", ds, expr, got, want)
				}
			}
		}
	}
}

func TestTextInputMatchesPostgres(t *testing.T) {
	c := refConn(t)
	refExec(t, c, "SET TimeZone = 'America/New_York'; SET DateStyle = 'ISO, MDY'")
	s := DefaultSettings()
	if err := s.SetTimeZone("America/New_York"); err != nil {
		t.Fatal(err)
	}
	checks, fails := 0, 0
	for _, tc := range inputCases {
		for _, in := range tc.ins {
			checks++
			lit := "'" + strings.ReplaceAll(in, "'", "''") + "'"
			if strings.Contains(in, `\`) {
				lit = "E'" + strings.ReplaceAll(strings.ReplaceAll(in, `\`, `\\`), "'", "''") + "'"
			}
			expr := lit + "::" + tc.typ
			switch tc.oid { // a cast would truncate; input (COPY, INSERT) checks
			case OIDVarchar:
				expr = fmt.Sprintf("varcharin(%s, 0, %d)", lit, tc.typmod)
			case OIDBPChar:
				expr = fmt.Sprintf("bpcharin(%s, 0, %d)", lit, tc.typmod)
			}
			want, _, perr := refValue(c, expr, 1)
			got, err := ParseText(tc.oid, tc.typmod, []byte(in), s)
			var pgErr *pgconn.PgError
			if errors.As(perr, &pgErr) {
				e, ok := pgerr.As(err)
				if !ok {
					fails++
					t.Errorf("%s: PostgreSQL error %s %q, we accepted %#v (%v)", expr, pgErr.Code, pgErr.Message, got, err)
					continue
				}
				if e.Code != pgErr.Code || e.Message != pgErr.Message {
					fails++
					t.Errorf("%s: error %s %q, PostgreSQL %s %q", expr, e.Code, e.Message, pgErr.Code, pgErr.Message)
				} else if (tc.oid == OIDJSON || tc.oid == OIDJSONB) && (e.Detail != pgErr.Detail || e.Where != pgErr.Where) {
					// JSON errors: users see DETAIL and CONTEXT too.
					fails++
					t.Errorf("%s: detail %q context %q, PostgreSQL %q %q", expr, e.Detail, e.Where, pgErr.Detail, pgErr.Where)
				}
				continue
			}
			if perr != nil {
				t.Fatalf("%s: %v", expr, perr)
			}
			if err != nil {
				fails++
				t.Errorf("%s: we fail (%v), PostgreSQL accepts % x", expr, err, want)
				continue
			}
			bin, err := AppendBinary(nil, tc.oid, tc.typmod, got)
			if err != nil || string(bin) != string(want) {
				fails++
				t.Errorf("%s: we parse %#v = % x, PostgreSQL % x", expr, got, bin, want)
			}
		}
	}
	t.Logf("%d inputs compared, %d mismatches", checks, fails)
}
