package pgtypes

import (
	"math"
	"math/big"
	"time"
)

// Numeric is a PostgreSQL numeric: Int * 10^-Scale, or NaN, or ±Infinity
// (Inf = +1 / -1). Scale is the display scale (dscale): 1.50 is {150, 2}
// and prints as "1.50". A nil Int with no NaN/Inf means zero.
type Numeric struct {
	Int   *big.Int
	Scale int32
	NaN   bool
	Inf   int8
}

// Date is a PostgreSQL date: days since 2000-01-01 (proleptic Gregorian),
// with DateNegInfinity and DateInfinity as sentinels.
type Date int32

// Date sentinels (PostgreSQL's DATEVAL_NOBEGIN / DATEVAL_NOEND).
const (
	DateNegInfinity Date = math.MinInt32
	DateInfinity    Date = math.MaxInt32
)

// Time is a PostgreSQL time: microseconds since midnight, 0..86400000000
// (24:00:00 is valid).
type Time int64

// TimeTZ is a PostgreSQL time with time zone: the local time and the zone's
// offset in seconds east of UTC (PostgreSQL stores seconds west; the binary
// format carries west).
type TimeTZ struct {
	Micros int64
	Offset int32
}

// Timestamp is a PostgreSQL timestamp without time zone: microseconds since
// 2000-01-01 00:00:00 (wall clock), with infinity sentinels.
type Timestamp int64

// TimestampTZ is a PostgreSQL timestamp with time zone: microseconds since
// 2000-01-01 00:00:00 UTC (an instant), with infinity sentinels.
type TimestampTZ int64

// Timestamp sentinels (PostgreSQL's DT_NOBEGIN / DT_NOEND).
const (
	TimestampNegInfinity Timestamp   = math.MinInt64
	TimestampInfinity    Timestamp   = math.MaxInt64
	TimestampTZNegInf    TimestampTZ = math.MinInt64
	TimestampTZInfinity  TimestampTZ = math.MaxInt64
)

// Interval is a PostgreSQL interval. The three fields are independent (a
// month is not a fixed number of days, nor a day 24 hours).
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// Time-unit constants.
const (
	usPerSec  = int64(1000000)
	usPerMin  = 60 * usPerSec
	usPerHour = 60 * usPerMin
	usPerDay  = 24 * usPerHour
	secPerDay = 86400

	// pgEpochJDate is the Julian day of 2000-01-01; unixEpochJDate of 1970-01-01.
	pgEpochJDate   = 2451545
	unixEpochJDate = 2440588
	// UnixEpochDays is 1970-01-01 as a Date (days before 2000-01-01).
	unixToPGDays = pgEpochJDate - unixEpochJDate // 10957
	// unixToPGMicros is 2000-01-01 - 1970-01-01 in microseconds.
	unixToPGMicros = int64(unixToPGDays) * usPerDay
)

// Range limits accepted by PostgreSQL (datetime.h): dates from 4714-11-24 BC
// (Julian day 0) to 5874897-12-31, timestamps up to 294276-12-31 23:59:59.999999.
const (
	minDateJulian = 0
	endDateJulian = 2147483494 // exclusive
	minTimestamp  = int64(-211813488000000000)
	endTimestamp  = int64(9223371331200000000)
)

// date2j returns the Julian day number of a proleptic Gregorian date
// (astronomical years: 0 is 1 BC). Same arithmetic as PostgreSQL's date2j.
func date2j(year, month, day int) int {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// j2date inverts date2j (valid for jd >= 0).
func j2date(jd int) (year, month, day int) {
	julian := uint32(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int(quad * 4)
	year = y - 4800
	quad = julian * 2141 / 65536
	day = int(julian - 7834*quad/256)
	month = int((quad+10)%12 + 1)
	return
}

// j2day is the day of week (0 = Sunday) of a Julian day.
func j2day(jd int) int {
	d := (jd + 1) % 7
	if d < 0 {
		d += 7
	}
	return d
}

// MakeDate returns the Date of a proleptic Gregorian date (astronomical year:
// 0 is 1 BC, -1 is 2 BC).
func MakeDate(year, month, day int) Date { return Date(date2j(year, month, day) - pgEpochJDate) }

// YMD returns the date's year (astronomical), month and day. Undefined for
// the infinity sentinels.
func (d Date) YMD() (year, month, day int) { return j2date(int(d) + pgEpochJDate) }

// DateFromTime returns the calendar date of t in t's location.
func DateFromTime(t time.Time) Date {
	y, m, d := t.Date()
	return MakeDate(y, int(m), d)
}

// Time returns midnight UTC of d; the infinity sentinels map to far-away
// instants (year ±292277026596 is out of time.Time's printable range, so
// callers should test for them first).
func (d Date) Time() time.Time {
	switch d {
	case DateInfinity:
		return time.Unix(math.MaxInt64/2, 0).UTC()
	case DateNegInfinity:
		return time.Unix(math.MinInt64/2, 0).UTC()
	}
	y, m, dd := d.YMD()
	return time.Date(y, time.Month(m), dd, 0, 0, 0, 0, time.UTC)
}

// TimestampFromTime returns the wall-clock time of t (in t's location) as a
// timestamp without time zone.
func TimestampFromTime(t time.Time) Timestamp {
	days := int64(DateFromTime(t))
	h, m, s := t.Clock()
	return Timestamp(days*usPerDay + int64(h)*usPerHour + int64(m)*usPerMin + int64(s)*usPerSec + int64(t.Nanosecond()/1000))
}

// Time returns the timestamp's wall clock as a time.Time in UTC.
func (ts Timestamp) Time() time.Time { return TimestampTZ(ts).Time() }

// TimestampTZFromTime returns the instant t.
func TimestampTZFromTime(t time.Time) TimestampTZ {
	sec := t.Unix()
	return TimestampTZ((sec-unixToPGMicros/usPerSec)*usPerSec + int64(t.Nanosecond()/1000))
}

// Time returns the instant as a time.Time in UTC.
func (ts TimestampTZ) Time() time.Time {
	us := int64(ts)
	sec := floorDiv(us, usPerSec)
	frac := us - sec*usPerSec
	return time.Unix(sec+unixToPGMicros/usPerSec, frac*1000).UTC()
}

// TimeFromDuration converts a duration since midnight.
func TimeFromDuration(d time.Duration) Time { return Time(d / time.Microsecond) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// NumericFromInt64 returns v with scale 0.
func NumericFromInt64(v int64) Numeric { return Numeric{Int: big.NewInt(v)} }

// IsZero reports whether n is a finite zero.
func (n Numeric) IsZero() bool { return !n.NaN && n.Inf == 0 && (n.Int == nil || n.Int.Sign() == 0) }

// String is the PostgreSQL text form.
func (n Numeric) String() string { return string(appendNumeric(nil, n)) }
