package pgtypes

import (
	"time"
)

var (
	monthAbbrev = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	dayAbbrev   = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
)

func appendPad(buf []byte, v int, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	if v < 0 {
		v = -v
	}
	for v > 0 || i == len(tmp) {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	for n := len(tmp) - i; n < width; n++ {
		buf = append(buf, '0')
	}
	return append(buf, tmp[i:]...)
}

// bcYear is the displayed year: astronomical year <= 0 is (1-y) BC.
func bcYear(y int) int {
	if y > 0 {
		return y
	}
	return 1 - y
}

// appendDate is date_out (EncodeDateOnly).
func appendDate(buf []byte, d Date, s *Settings) []byte {
	switch d {
	case DateInfinity:
		return append(buf, "infinity"...)
	case DateNegInfinity:
		return append(buf, "-infinity"...)
	}
	y, m, dd := d.YMD()
	return appendYMD(buf, y, m, dd, s, true)
}

func appendYMD(buf []byte, y, m, d int, s *Settings, withBC bool) []byte {
	switch s.DateStyle {
	case DateStyleISO:
		buf = appendPad(buf, bcYear(y), 4)
		buf = append(buf, '-')
		buf = appendPad(buf, m, 2)
		buf = append(buf, '-')
		buf = appendPad(buf, d, 2)
	case DateStyleSQL, DateStylePostgres:
		sep := byte('/')
		if s.DateStyle == DateStylePostgres {
			sep = '-'
		}
		if s.DateOrder == DateOrderDMY {
			buf = appendPad(buf, d, 2)
			buf = append(buf, sep)
			buf = appendPad(buf, m, 2)
		} else {
			buf = appendPad(buf, m, 2)
			buf = append(buf, sep)
			buf = appendPad(buf, d, 2)
		}
		buf = append(buf, sep)
		buf = appendPad(buf, bcYear(y), 4)
	case DateStyleGerman:
		buf = appendPad(buf, d, 2)
		buf = append(buf, '.')
		buf = appendPad(buf, m, 2)
		buf = append(buf, '.')
		buf = appendPad(buf, bcYear(y), 4)
	}
	if withBC && y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendSeconds appends SS[.ffffff] with trailing fractional zeros trimmed
// (AppendSeconds with fillzeros).
func appendSeconds(buf []byte, sec int, frac int64, fill bool) []byte {
	if fill {
		buf = appendPad(buf, sec, 2)
	} else {
		buf = appendPad(buf, sec, 1)
	}
	if frac < 0 {
		frac = -frac
	}
	if frac == 0 {
		return buf
	}
	buf = append(buf, '.')
	var tmp [6]byte
	for i := 5; i >= 0; i-- {
		tmp[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 6
	for n > 0 && tmp[n-1] == '0' {
		n--
	}
	return append(buf, tmp[:n]...)
}

// appendClock is time_out: HH:MM:SS[.ffffff].
func appendClock(buf []byte, us int64) []byte {
	h := us / usPerHour
	us -= h * usPerHour
	m := us / usPerMin
	us -= m * usPerMin
	sec := us / usPerSec
	us -= sec * usPerSec
	buf = appendPad(buf, int(h), 2)
	buf = append(buf, ':')
	buf = appendPad(buf, int(m), 2)
	buf = append(buf, ':')
	return appendSeconds(buf, int(sec), us, true)
}

// appendTZOffset is EncodeTimezone for an offset in seconds east:
// +HH, +HH:MM or +HH:MM:SS.
func appendTZOffset(buf []byte, east int) []byte {
	if east < 0 {
		buf = append(buf, '-')
		east = -east
	} else {
		buf = append(buf, '+')
	}
	h, m, sec := east/3600, east/60%60, east%60
	buf = appendPad(buf, h, 2)
	if m != 0 || sec != 0 {
		buf = append(buf, ':')
		buf = appendPad(buf, m, 2)
	}
	if sec != 0 {
		buf = append(buf, ':')
		buf = appendPad(buf, sec, 2)
	}
	return buf
}

// zoneAt returns the UTC offset (seconds east) and abbreviation of loc at the
// instant us (µs since 2000-01-01 UTC).
func zoneAt(loc *time.Location, us int64) (int, string) {
	if loc == time.UTC {
		return 0, "UTC"
	}
	sec := floorDiv(us, usPerSec) + unixToPGMicros/usPerSec
	name, off := time.Unix(sec, 0).In(loc).Zone()
	return off, name
}

// appendTimestamp is timestamp_out / timestamptz_out (EncodeDateTime).
func appendTimestamp(buf []byte, us int64, withTZ bool, s *Settings) []byte {
	switch us {
	case int64(TimestampInfinity):
		return append(buf, "infinity"...)
	case int64(TimestampNegInfinity):
		return append(buf, "-infinity"...)
	}
	off, abbr := 0, ""
	if withTZ {
		off, abbr = zoneAt(s.loc(), us)
		us += int64(off) * usPerSec
	}
	days := floorDiv(us, usPerDay)
	tod := us - days*usPerDay
	y, mo, d := j2date(int(days) + pgEpochJDate)
	h := int(tod / usPerHour)
	mi := int(tod / usPerMin % 60)
	sec := int(tod / usPerSec % 60)
	frac := tod % usPerSec

	tz := func(buf []byte) []byte {
		if !withTZ {
			return buf
		}
		if s.DateStyle != DateStyleISO {
			// PostgreSQL always has an abbreviation here (possibly empty,
			// for POSIX offset zones, which then prints a lone space).
			return append(append(buf, ' '), abbr...)
		}
		return appendTZOffset(buf, off)
	}
	hms := func(buf []byte) []byte {
		buf = appendPad(buf, h, 2)
		buf = append(buf, ':')
		buf = appendPad(buf, mi, 2)
		buf = append(buf, ':')
		return appendSeconds(buf, sec, frac, true)
	}
	switch s.DateStyle {
	case DateStyleISO:
		buf = appendYMD(buf, y, mo, d, s, false)
		buf = append(buf, ' ')
		buf = hms(buf)
		buf = tz(buf)
	case DateStyleSQL, DateStyleGerman:
		if s.DateStyle == DateStyleGerman {
			buf = appendPad(buf, d, 2)
			buf = append(buf, '.')
			buf = appendPad(buf, mo, 2)
			buf = append(buf, '.')
		} else if s.DateOrder == DateOrderDMY {
			buf = appendPad(buf, d, 2)
			buf = append(buf, '/')
			buf = appendPad(buf, mo, 2)
			buf = append(buf, '/')
		} else {
			buf = appendPad(buf, mo, 2)
			buf = append(buf, '/')
			buf = appendPad(buf, d, 2)
			buf = append(buf, '/')
		}
		buf = appendPad(buf, bcYear(y), 4)
		buf = append(buf, ' ')
		buf = hms(buf)
		buf = tz(buf)
	case DateStylePostgres:
		buf = append(buf, dayAbbrev[j2day(int(days)+pgEpochJDate)]...)
		buf = append(buf, ' ')
		if s.DateOrder == DateOrderDMY {
			buf = appendPad(buf, d, 2)
			buf = append(buf, ' ')
			buf = append(buf, monthAbbrev[mo-1]...)
		} else {
			buf = append(buf, monthAbbrev[mo-1]...)
			buf = append(buf, ' ')
			buf = appendPad(buf, d, 2)
		}
		buf = append(buf, ' ')
		buf = hms(buf)
		buf = append(buf, ' ')
		buf = appendPad(buf, bcYear(y), 4)
		buf = tz(buf)
	}
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}
