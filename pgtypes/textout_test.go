package pgtypes

import (
	"fmt"
	"strings"
	"testing"
)

// outputCases are SQL literals per type; each is fetched from the reference
// server in binary (decoded with ParseBinary) and, under every settings
// combination, in text; AppendText of the decoded value must equal the text.
var outputCases = []struct {
	typ  string
	oid  uint32
	vals []string
}{
	{"bool", OIDBool, []string{"true", "false"}},
	{"int2", OIDInt2, []string{"0", "-32768", "32767", "42"}},
	{"int4", OIDInt4, []string{"0", "-2147483648", "2147483647", "-7"}},
	{"int8", OIDInt8, []string{"0", "-9223372036854775808", "9223372036854775807"}},
	{"oid", OIDOID, []string{"0", "4294967295", "1259"}},
	{"float8", OIDFloat8, []string{"0", "'-0'", "1", "-1.5", "0.1", "1e15", "1e14", "123456789012345", "1234567890123456", "1e16", "1e20", "1e-4", "1e-5", "0.00012345", "1.5e-7",
		"3.141592653589793", "2.718281828459045e100", "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "'nan'", "'infinity'", "'-infinity'", "100", "1e22", "123.456", "9007199254740993", "0.3"}},
	{"float4", OIDFloat4, []string{"0", "'-0'", "1", "0.1", "1e6", "1e5", "123456", "1234567", "1e-4", "1e-5", "3.4028235e38", "1.4e-45", "1.17549435e-38", "'nan'", "'infinity'", "'-infinity'", "3.14159", "0.3", "16777217"}},
	{"numeric", OIDNumeric, []string{"0", "0.00", "1.50", "-1.50", "123456789012345678901234567890.123456789", "0.000001", "-0.0000000001", "1e20", "1.5e-3", "'nan'", "'infinity'", "'-infinity'", "10000", "99990000.0001", "-0", "0.1", "12345678.90123"}},
	{"text", OIDText, []string{"''", "'hello'", "'tab\there'", "'ünïcødé'", `E'back\\slash'`}},
	{"varchar(5)", OIDVarchar, []string{"'ab'", "'abcde'"}},
	{"char(5)", OIDBPChar, []string{"'ab'", "'abcde'", "''"}},
	{`"char"`, OIDChar, []string{"'a'", "''", `'\377'`, `'\001'`}},
	{"name", OIDName, []string{"'pg_class'"}},
	{"bytea", OIDBytea, []string{`'\x'`, `'\x00ff10'`, `'abc\\def'`, `'\x0a0d5c7f80'`, `'\x20417e'`}},
	{"uuid", OIDUUID, []string{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"}},
	{"json", OIDJSON, []string{`'{"b":1, "a" : [1,2]}'`}},
	{"jsonb", OIDJSONB, []string{`'{"b":1, "a" : [1,2.50, 1e2, -0], "aa": {"z": null, "y": true}, "a": "dup"}'`, `'"\u00e9\n\u0001"'`, `'[]'`, `'{}'`, `'1.0e-3'`}},
	{"date", OIDDate, []string{"'2000-01-01'", "'1999-12-31'", "'0001-01-01'", "'0001-12-31 BC'", "'4713-11-24 BC'", "'5874897-12-31'", "'1582-10-10'", "'infinity'", "'-infinity'", "'2024-02-29'", "'10000-01-01'"}},
	{"time", OIDTime, []string{"'00:00:00'", "'23:59:59.999999'", "'12:34:56.5'", "'24:00:00'", "'01:02:03.000100'"}},
	{"timetz", OIDTimeTZ, []string{"'12:34:56+05:30'", "'00:00:00-03:00:30'", "'23:59:59.5+00'"}},
	{"timestamp", OIDTimestamp, []string{"'2000-01-01 00:00:00'", "'1999-12-31 23:59:59.999999'", "'2024-02-29 12:00:00.5'", "'0001-01-01 00:00:00 BC'", "'4713-11-24 00:00:00 BC'", "'294276-12-31 23:59:59.999999'", "'1582-10-10 10:10:10'", "'infinity'", "'-infinity'", "'1970-01-01'"}},
	{"timestamptz", OIDTimestampTZ, []string{"'2000-01-01 00:00:00+00'", "'2024-07-01 12:34:56.789+02'", "'2024-01-01 12:00:00 America/New_York'", "'1850-01-01 00:00:00+00'", "'0044-03-15 12:00:00+00 BC'", "'infinity'", "'-infinity'", "'2024-03-31 01:30:00+00'", "'1900-01-01 00:00:00+00'"}},
	{"int4[]", OIDInt4Array, []string{"'{}'", "'{1,2,NULL,-3}'", "'{{1,2},{3,4}}'", "'[0:1]={5,6}'"}},
	{"text[]", OIDTextArray, []string{`'{"", "a b", "NULL", "null", "x,y", "q\"uote", "back\\slash", "{br}", plain, NULL}'`}},
	{"numeric[]", OIDNumericArray, []string{"'{1.50,NaN}'"}},
	{"timestamptz[]", OIDTimestampTZArray, []string{"'{2024-01-01 00:00:00+00,infinity}'"}},
	{"bytea[]", OIDByteaArray, []string{`'{"\\x00ff"}'`}},
	{"interval", OIDInterval, []string{"'0'", "'1 year 2 mons 3 days 04:05:06.789'", "'-1 year -2 mons +3 days -04:05:06'", "'1 day'", "'-1 day'", "'00:00:00.000001'", "'-00:00:00.5'", "'1 mon -1 day'", "'100 years'", "'1 year -1 second'", "'-1 year'", "'2 hours 3 minutes'", "'1 second'", "'-1 second'", "'1.5 seconds'", "'3 days 1 second'", "'-3 days -1 second'", "'178956970 years 7 mons'", "'2562047788:00:54.775807'"}},
}

type settingsCase struct {
	name string
	sql  string
	s    *Settings
}

func settingsMatrix(t *testing.T) []settingsCase {
	var out []settingsCase
	for _, ds := range []string{"ISO, MDY", "ISO, DMY", "SQL, MDY", "SQL, DMY", "Postgres, MDY", "Postgres, DMY", "German, DMY"} {
		for _, tz := range []string{"UTC", "America/New_York", "Asia/Kolkata", "America/St_Johns", "Europe/Moscow", "+5", "-03:30", "-9.5"} {
			s := DefaultSettings()
			if err := s.SetDateStyle(ds); err != nil {
				t.Fatal(err)
			}
			if err := s.SetTimeZone(tz); err != nil {
				t.Fatal(err)
			}
			out = append(out, settingsCase{ds + "/" + tz, fmt.Sprintf("SET DateStyle = '%s'; SET TimeZone = '%s'", ds, tz), s})
		}
	}
	for _, is := range []IntervalStyle{IntervalStylePostgres, IntervalStylePostgresVerbose, IntervalStyleSQLStandard, IntervalStyleISO8601} {
		s := DefaultSettings()
		s.IntervalStyle = is
		out = append(out, settingsCase{"IntervalStyle=" + is.String(), "SET IntervalStyle = " + is.String(), s})
	}
	for _, efd := range []int{-15, -5, 0, 1, 2, 3} {
		s := DefaultSettings()
		s.ExtraFloatDigits = efd
		out = append(out, settingsCase{fmt.Sprintf("efd=%d", efd), fmt.Sprintf("SET extra_float_digits = %d", efd), s})
	}
	s := DefaultSettings()
	s.ByteaOutput = ByteaEscape
	out = append(out, settingsCase{"bytea_output=escape", "SET bytea_output = escape", s})
	return out
}

func TestTextOutputMatchesPostgres(t *testing.T) {
	c := refConn(t)
	reset := "RESET DateStyle; RESET TimeZone; RESET IntervalStyle; RESET extra_float_digits; RESET bytea_output; SET TimeZone = 'UTC'"
	refExec(t, c, reset)
	// Decode every case from binary once, under default settings.
	type item struct {
		expr string
		oid  uint32
		typ  string
		v    any
	}
	var items []item
	for _, tc := range outputCases {
		for _, lit := range tc.vals {
			expr := "(" + lit + ")::" + tc.typ
			bin, null, err := refValue(c, expr, 1)
			if err != nil || null {
				t.Fatalf("%s: %v (null=%v)", expr, err, null)
			}
			v, err := ParseBinary(tc.oid, -1, bin)
			if err != nil {
				t.Errorf("ParseBinary(%s) % x: %v", expr, bin, err)
				continue
			}
			// Round trip: AppendBinary must reproduce PostgreSQL's bytes.
			if tc.oid != OIDJSONB && tc.oid != OIDBPChar {
				if got, err := AppendBinary(nil, tc.oid, -1, v); err != nil || string(got) != string(bin) {
					t.Errorf("AppendBinary(%s) = % x, %v; PostgreSQL sends % x", expr, got, err, bin)
				}
			}
			items = append(items, item{expr, tc.oid, tc.typ, v})
		}
	}
	fails, checks := 0, 0
	for _, sc := range settingsMatrix(t) {
		refExec(t, c, reset+"; "+sc.sql)
		for _, it := range items {
			want, _, err := refValue(c, it.expr, 0)
			if err != nil {
				t.Fatalf("%s: %v", it.expr, err)
			}
			typmod := int32(-1)
			if strings.HasPrefix(it.typ, "char(") {
				typmod = VarcharTypmod(5)
			}
			checks++
			got, err := AppendText(nil, it.oid, typmod, it.v, sc.s)
			if err != nil || string(got) != string(want) {
				fails++
				if fails < 60 {
					t.Errorf("[%s] %s: got %q (%v), PostgreSQL %q", sc.name, it.expr, got, err, want)
				}
			}
		}
	}
	t.Logf("%d values x settings compared, %d mismatches", checks, fails)
}
