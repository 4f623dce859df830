package pgtypes

import (
	"math"
	"math/big"
	"testing"
	"time"
)

// These tests need no reference server.

func TestDateConversions(t *testing.T) {
	for _, tc := range []struct {
		y, m, d int
		days    Date
	}{
		{2000, 1, 1, 0}, {1999, 12, 31, -1}, {1970, 1, 1, -10957}, {2000, 3, 1, 60},
		{0, 12, 31, -730120}, {-4713, 11, 24, -2451545}, {1582, 10, 4, -152395},
	} {
		if got := MakeDate(tc.y, tc.m, tc.d); got != tc.days {
			t.Errorf("MakeDate(%d,%d,%d) = %d, want %d", tc.y, tc.m, tc.d, got, tc.days)
		}
		if y, m, d := tc.days.YMD(); y != tc.y || m != tc.m || d != tc.d {
			t.Errorf("%d.YMD() = %d-%d-%d", tc.days, y, m, d)
		}
	}
	// Every day over a wide range round-trips.
	for d := Date(-2451545); d < 3000000; d += 97 {
		y, m, dd := d.YMD()
		if MakeDate(y, m, dd) != d {
			t.Fatalf("day %d: %d-%d-%d does not round-trip", d, y, m, dd)
		}
	}
	tm := time.Date(2024, 2, 29, 23, 30, 0, 123456000, time.FixedZone("x", -5*3600))
	if got := DateFromTime(tm).Time(); !got.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DateFromTime: %v", got)
	}
	if got := TimestampFromTime(tm).Time(); !got.Equal(time.Date(2024, 2, 29, 23, 30, 0, 123456000, time.UTC)) {
		t.Errorf("TimestampFromTime keeps the wall clock: %v", got)
	}
	if got := TimestampTZFromTime(tm).Time(); !got.Equal(tm) {
		t.Errorf("TimestampTZFromTime keeps the instant: %v", got)
	}
	pre := time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC)
	if got := TimestampTZFromTime(pre).Time(); !got.Equal(pre) {
		t.Errorf("pre-1970 instant: %v", got)
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	n := func(s string) Numeric {
		v, err := ParseNumeric([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	vals := []struct {
		oid uint32
		v   any
	}{
		{OIDBool, true}, {OIDInt2, int16(-5)}, {OIDInt4, int32(math.MinInt32)}, {OIDInt8, int64(math.MaxInt64)},
		{OIDFloat4, float32(1.5)}, {OIDFloat8, -0.1}, {OIDOID, uint32(4294967295)},
		{OIDNumeric, n("0")}, {OIDNumeric, n("0.000")}, {OIDNumeric, n("-123456789.000000001")}, {OIDNumeric, n("1e30")},
		{OIDNumeric, n("0.00001234")}, {OIDNumeric, n("9999.9999")}, {OIDNumeric, Numeric{NaN: true}}, {OIDNumeric, Numeric{Inf: -1}},
		{OIDText, "héllo"}, {OIDBytea, []byte{0, 1, 255}}, {OIDUUID, [16]byte{1, 2, 3}},
		{OIDDate, Date(-800000)}, {OIDDate, DateInfinity}, {OIDTime, Time(usPerDay)}, {OIDTimeTZ, TimeTZ{Micros: 5, Offset: -3600}},
		{OIDTimestamp, Timestamp(-1)}, {OIDTimestampTZ, TimestampTZInfinity},
		{OIDInterval, Interval{Months: -14, Days: 3, Micros: -1}}, {OIDJSONB, `{"a": 1}`},
	}
	for _, tc := range vals {
		b, err := AppendBinary(nil, tc.oid, -1, tc.v)
		if err != nil {
			t.Fatalf("%d %v: %v", tc.oid, tc.v, err)
		}
		back, err := ParseBinary(tc.oid, -1, b)
		if err != nil {
			t.Fatalf("%d %v: %v", tc.oid, tc.v, err)
		}
		t1, _ := AppendText(nil, tc.oid, -1, tc.v, nil)
		t2, _ := AppendText(nil, tc.oid, -1, back, nil)
		if string(t1) != string(t2) {
			t.Errorf("oid %d: %q -> %q", tc.oid, t1, t2)
		}
		// And through text.
		v3, err := ParseText(tc.oid, -1, t1, nil)
		if err != nil {
			t.Errorf("oid %d: ParseText(%q): %v", tc.oid, t1, err)
			continue
		}
		if t3, _ := AppendText(nil, tc.oid, -1, v3, nil); string(t3) != string(t1) {
			t.Errorf("oid %d text: %q -> %q", tc.oid, t1, t3)
		}
	}
	if _, err := ParseBinary(OIDInt4, -1, []byte{1, 2}); err == nil {
		t.Error("short int4 accepted")
	}
	if _, err := ParseBinary(OIDNumeric, -1, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}); err == nil {
		t.Error("numeric digit 10000 accepted")
	}
}

func TestEncodeGoTimeValues(t *testing.T) {
	// The DuckDB driver hands us time.Time for date/timestamp kinds.
	tm := time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)
	s := DefaultSettings()
	for _, tc := range []struct {
		oid  uint32
		want string
	}{
		{OIDDate, "2024-01-02"}, {OIDTimestamp, "2024-01-02 03:04:05.6"}, {OIDTimestampTZ, "2024-01-02 03:04:05.6+00"}, {OIDTime, "03:04:05.6"},
	} {
		got, err := AppendText(nil, tc.oid, -1, tm, s)
		if err != nil || string(got) != tc.want {
			t.Errorf("oid %d: %q %v", tc.oid, got, err)
		}
	}
	if got, _ := AppendText(nil, OIDNumeric, -1, Numeric{Int: big.NewInt(-5), Scale: 3}, s); string(got) != "-0.005" {
		t.Errorf("numeric: %q", got)
	}
	if got, _ := AppendText(nil, OIDBPChar, VarcharTypmod(4), "ab", s); string(got) != "ab  " {
		t.Errorf("bpchar padding: %q", got)
	}
}

func TestSettings(t *testing.T) {
	s := DefaultSettings()
	if err := s.SetDateStyle("German"); err != nil || s.DateStyleString() != "German, DMY" {
		t.Errorf("German: %v %s", err, s.DateStyleString())
	}
	if err := s.SetDateStyle("SQL, YMD"); err != nil || s.DateStyleString() != "SQL, YMD" {
		t.Errorf("SQL, YMD: %v %s", err, s.DateStyleString())
	}
	if err := s.SetDateStyle("ISO, SQL"); err == nil {
		t.Error("conflicting styles accepted")
	}
	if err := s.SetTimeZone("Not/AZone"); err == nil {
		t.Error("bad zone accepted")
	}
	if _, err := ParseIntervalStyle("iso_8601"); err != nil {
		t.Error(err)
	}
}

// TestFastISOAgreesWithDecoder: the allocation-free ISO path must decode
// exactly like the general decoder wherever it accepts the input.
func TestFastISOAgreesWithDecoder(t *testing.T) {
	ins := []string{"2024-01-02", "2024-01-02 03:04:05", "2024-01-02T03:04:05Z", "2024-01-02 03:04:05.5", "2024-01-02 03:04:05.123456+05:30",
		"2024-01-02 03:04:05-08", "2024-01-02 03:04:05+05:30:15", "1999-12-31 23:59:59.000001-00", "2024-02-29 00:00:00z", "2024-01-02 03:04:05.1234567", "2024-01-02 03:04:05.9999995"}
	for d := Date(-700000); d < 3000000; d += 9973 {
		b, _ := AppendText(nil, OIDTimestamp, -1, Timestamp(int64(d)*usPerDay+int64(d)*7777777%usPerDay), nil)
		ins = append(ins, string(b))
	}
	accepted := 0
	for _, in := range ins {
		fast, ok := fastISO([]byte(in))
		if !ok {
			continue
		}
		accepted++
		slow, e := decodeDateTime([]byte(in), DateOrderMDY, false)
		if e != nil || fast != slow {
			t.Errorf("%q: fast %+v, decoder %+v (%v)", in, fast, slow, e)
		}
	}
	if accepted < len(ins)/2 {
		t.Errorf("fast path accepted only %d of %d", accepted, len(ins))
	}
}
