package pgtypes

import "strconv"

// itm is PostgreSQL's pg_itm: an interval split into fields, each carrying
// the sign of its source (truncating division).
type itm struct {
	year, mon, mday, hour, min, sec int64
	fsec                            int64
}

func splitInterval(iv Interval) itm {
	var t itm
	t.year = int64(iv.Months / 12)
	t.mon = int64(iv.Months % 12)
	t.mday = int64(iv.Days)
	us := iv.Micros
	t.hour = us / usPerHour
	us -= t.hour * usPerHour
	t.min = us / usPerMin
	us -= t.min * usPerMin
	t.sec = us / usPerSec
	t.fsec = us - t.sec*usPerSec
	return t
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendInterval is interval_out (EncodeInterval).
func appendInterval(buf []byte, iv Interval, style IntervalStyle) []byte {
	t := splitInterval(iv)
	isZero, isBefore := true, false
	switch style {
	case IntervalStyleISO8601:
		if t == (itm{}) {
			return append(buf, "PT0S"...)
		}
		buf = append(buf, 'P')
		part := func(v int64, c byte) {
			if v != 0 {
				buf = strconv.AppendInt(buf, v, 10)
				buf = append(buf, c)
			}
		}
		part(t.year, 'Y')
		part(t.mon, 'M')
		part(t.mday, 'D')
		if t.hour != 0 || t.min != 0 || t.sec != 0 || t.fsec != 0 {
			buf = append(buf, 'T')
		}
		part(t.hour, 'H')
		part(t.min, 'M')
		if t.sec != 0 || t.fsec != 0 {
			if t.sec < 0 || t.fsec < 0 {
				buf = append(buf, '-')
			}
			buf = appendSeconds(buf, int(abs64(t.sec)), t.fsec, false)
			buf = append(buf, 'S')
		}
		return buf
	case IntervalStyleSQLStandard:
		hasNeg := t.year < 0 || t.mon < 0 || t.mday < 0 || t.hour < 0 || t.min < 0 || t.sec < 0 || t.fsec < 0
		hasPos := t.year > 0 || t.mon > 0 || t.mday > 0 || t.hour > 0 || t.min > 0 || t.sec > 0 || t.fsec > 0
		hasYM := t.year != 0 || t.mon != 0
		hasDT := t.mday != 0 || t.hour != 0 || t.min != 0 || t.sec != 0 || t.fsec != 0
		std := !(hasNeg && hasPos) && !(hasYM && hasDT)
		if hasNeg && std {
			buf = append(buf, '-')
			t = itm{-t.year, -t.mon, -t.mday, -t.hour, -t.min, -t.sec, -t.fsec}
		}
		switch {
		case !hasNeg && !hasPos:
			return append(buf, '0')
		case !std:
			ys, ds, ss := byte('+'), byte('+'), byte('+')
			if t.year < 0 || t.mon < 0 {
				ys = '-'
			}
			if t.mday < 0 {
				ds = '-'
			}
			if t.hour < 0 || t.min < 0 || t.sec < 0 || t.fsec < 0 {
				ss = '-'
			}
			buf = append(buf, ys)
			buf = strconv.AppendInt(buf, abs64(t.year), 10)
			buf = append(buf, '-')
			buf = strconv.AppendInt(buf, abs64(t.mon), 10)
			buf = append(buf, ' ', ds)
			buf = strconv.AppendInt(buf, abs64(t.mday), 10)
			buf = append(buf, ' ', ss)
			buf = strconv.AppendInt(buf, abs64(t.hour), 10)
			buf = append(buf, ':')
			buf = appendPad(buf, int(abs64(t.min)), 2)
			buf = append(buf, ':')
			return appendSeconds(buf, int(abs64(t.sec)), t.fsec, true)
		case hasYM:
			buf = strconv.AppendInt(buf, t.year, 10)
			buf = append(buf, '-')
			return strconv.AppendInt(buf, t.mon, 10)
		default:
			if t.mday != 0 {
				buf = strconv.AppendInt(buf, t.mday, 10)
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, t.hour, 10)
			buf = append(buf, ':')
			buf = appendPad(buf, int(t.min), 2)
			buf = append(buf, ':')
			return appendSeconds(buf, int(t.sec), t.fsec, true)
		}
	case IntervalStylePostgres:
		part := func(v int64, unit string) {
			if v == 0 {
				return
			}
			if !isZero {
				buf = append(buf, ' ')
			}
			if isBefore && v > 0 {
				buf = append(buf, '+')
			}
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, ' ')
			buf = append(buf, unit...)
			if v != 1 {
				buf = append(buf, 's')
			}
			isBefore = v < 0
			isZero = false
		}
		part(t.year, "year")
		part(t.mon, "mon")
		part(t.mday, "day")
		if isZero || t.hour != 0 || t.min != 0 || t.sec != 0 || t.fsec != 0 {
			minus := t.hour < 0 || t.min < 0 || t.sec < 0 || t.fsec < 0
			if !isZero {
				buf = append(buf, ' ')
			}
			if minus {
				buf = append(buf, '-')
			} else if isBefore {
				buf = append(buf, '+')
			}
			buf = appendPad2(buf, abs64(t.hour))
			buf = append(buf, ':')
			buf = appendPad(buf, int(abs64(t.min)), 2)
			buf = append(buf, ':')
			buf = appendSeconds(buf, int(abs64(t.sec)), t.fsec, true)
		}
		return buf
	default: // postgres_verbose
		buf = append(buf, '@')
		part := func(v int64, unit string) {
			if v == 0 {
				return
			}
			if isZero {
				isBefore = v < 0
				v = abs64(v)
			} else if isBefore {
				v = -v
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, ' ')
			buf = append(buf, unit...)
			if v != 1 {
				buf = append(buf, 's')
			}
			isZero = false
		}
		part(t.year, "year")
		part(t.mon, "mon")
		part(t.mday, "day")
		part(t.hour, "hour")
		part(t.min, "min")
		if t.sec != 0 || t.fsec != 0 {
			buf = append(buf, ' ')
			if t.sec < 0 || (t.sec == 0 && t.fsec < 0) {
				if isZero {
					isBefore = true
				} else if !isBefore {
					buf = append(buf, '-')
				}
			} else if isBefore {
				buf = append(buf, '-')
			}
			buf = appendSeconds(buf, int(abs64(t.sec)), t.fsec, false)
			buf = append(buf, " sec"...)
			if abs64(t.sec) != 1 || t.fsec != 0 {
				buf = append(buf, 's')
			}
			isZero = false
		}
		if isZero {
			buf = append(buf, " 0"...)
		}
		if isBefore {
			buf = append(buf, " ago"...)
		}
		return buf
	}
}

// appendPad2 zero-pads an int64 to at least two digits.
func appendPad2(buf []byte, v int64) []byte {
	if v < 10 {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, v, 10)
}
