package pgtypes

import (
	"math"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// intervalUnits maps unit spellings to a unit code.
var intervalUnits = map[string]byte{
	"microsecond": 'u', "microseconds": 'u', "us": 'u', "usec": 'u', "usecs": 'u', "useconds": 'u',
	"millisecond": 'l', "milliseconds": 'l', "ms": 'l', "msec": 'l', "msecs": 'l', "mseconds": 'l',
	"second": 's', "seconds": 's', "s": 's', "sec": 's', "secs": 's',
	"minute": 'm', "minutes": 'm', "m": 'm', "min": 'm', "mins": 'm',
	"hour": 'h', "hours": 'h', "h": 'h', "hr": 'h', "hrs": 'h',
	"day": 'd', "days": 'd', "d": 'd',
	"week": 'w', "weeks": 'w', "w": 'w',
	"month": 'M', "months": 'M', "mon": 'M', "mons": 'M',
	"year": 'y', "years": 'y', "y": 'y', "yr": 'y', "yrs": 'y',
	"decade": 'D', "decades": 'D', "dec": 'D', "decs": 'D',
	"century": 'c', "centuries": 'c', "c": 'c', "cent": 'c',
	"millennium": 'k', "millennia": 'k', "mil": 'k', "mils": 'k', "millenniums": 'k',
}

// ivAcc accumulates an interval with PostgreSQL's fraction carrying.
type ivAcc struct {
	months, days float64 // integral parts kept exact below via int64
	m, d         int64
	us           float64
}

func (a *ivAcc) add(unit byte, v float64) {
	ip, fp := math.Modf(v)
	switch unit {
	case 'u':
		a.us += v
	case 'l':
		a.us += v * 1000
	case 's':
		a.us += v * 1e6
	case 'm':
		a.us += v * 60e6
	case 'h':
		a.us += v * 3600e6
	case 'd':
		a.d += int64(ip)
		a.us += fp * 86400e6
	case 'w':
		a.addFractDays(v * 7)
	case 'M':
		a.m += int64(ip)
		a.addFractDays(fp * 30)
	case 'y':
		a.m += int64(ip)*12 + int64(math.RoundToEven(fp*12))
	case 'D':
		a.m += int64(ip)*120 + int64(math.RoundToEven(fp*120))
	case 'c':
		a.m += int64(ip)*1200 + int64(math.RoundToEven(fp*1200))
	case 'k':
		a.m += int64(ip)*12000 + int64(math.RoundToEven(fp*12000))
	}
}

func (a *ivAcc) addFractDays(days float64) {
	ip, fp := math.Modf(days)
	a.d += int64(ip)
	a.us += fp * 86400e6
}

// ParseInterval is interval_in for the postgres ("1 day 02:03:04",
// "1 year 2 mons", "@ 1 hour ago"), SQL-standard ("1-2", "3 4:05:06") and
// ISO 8601 ("P1DT2H", "P0001-02-03T04:05:06") forms. style matters for
// SQL-standard input where a leading "-" negates every field.
func ParseInterval(text []byte, typmod int32, style IntervalStyle) (Interval, error) {
	syn := func() (Interval, error) {
		return Interval{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", text)
	}
	s := strings.ToLower(strings.TrimSpace(string(text)))
	if s == "" {
		return syn()
	}
	var a ivAcc
	if s[0] == 'p' {
		if !parseISOInterval(s[1:], &a) {
			return syn()
		}
		return finishInterval(&a, text, typmod)
	}
	s = strings.TrimPrefix(s, "@")
	fields := strings.Fields(s)
	ago := false
	if n := len(fields); n > 0 && fields[n-1] == "ago" {
		ago = true
		fields = fields[:n-1]
	}
	if len(fields) == 0 {
		return syn()
	}
	// SQL standard: a leading '-' applies to all fields when IntervalStyle is sql_standard.
	allNeg := false
	if style == IntervalStyleSQLStandard && strings.HasPrefix(fields[0], "-") {
		allNeg = true
		fields[0] = fields[0][1:]
		if fields[0] == "" {
			return syn()
		}
	}
	haveTime, haveYM := false, false
	for i := 0; i < len(fields); i++ {
		fld := fields[i]
		// unit glued to the number: "1day", "10s"
		numPart, unitPart := splitNumUnit(fld)
		switch {
		case strings.ContainsRune(fld, ':'):
			if haveTime {
				return syn()
			}
			neg := false
			t := fld
			if t[0] == '-' || t[0] == '+' {
				neg = t[0] == '-'
				t = t[1:]
			}
			var f dtFields
			parts := strings.Split(t, ":")
			if len(parts) == 2 && strings.Contains(parts[1], ".") { // MM:SS.frac
				t = "0:" + t
			}
			if err := decodeIntervalClock(t, &f); err != nil {
				return syn()
			}
			us := float64(f.hour)*3600e6 + float64(f.min)*60e6 + float64(f.sec)*1e6 + float64(f.fsec)
			if neg {
				us = -us
			}
			a.us += us
			haveTime = true
		case isYearMonth(fld):
			// SQL-standard year-month "1-2"
			if haveYM {
				return syn()
			}
			neg := strings.HasPrefix(fld, "-")
			t := strings.TrimPrefix(fld, "-")
			k := strings.IndexByte(t, '-')
			y, err1 := strconv.ParseInt(t[:k], 10, 32)
			m, err2 := strconv.ParseInt(t[k+1:], 10, 32)
			if err1 != nil || err2 != nil || m > 11 {
				return syn()
			}
			v := y*12 + m
			if neg {
				v = -v
			}
			a.m += v
			haveYM = true
		case numPart != "":
			v, err := strconv.ParseFloat(numPart, 64)
			if err != nil {
				return syn()
			}
			unit := unitPart
			if unit == "" && i+1 < len(fields) {
				if _, ok := intervalUnits[fields[i+1]]; ok {
					unit = fields[i+1]
					i++
				}
			}
			if unit == "" {
				// A bare number: days when followed by a time (SQL "3 4:05:06"),
				// else seconds.
				if i+1 < len(fields) && strings.ContainsRune(fields[i+1], ':') {
					unit = "day"
				} else {
					unit = "second"
				}
			}
			code, ok := intervalUnits[unit]
			if !ok {
				return syn()
			}
			a.add(code, v)
		default:
			return syn()
		}
	}
	if allNeg {
		a.m, a.d, a.us = -a.m, -a.d, -a.us
	}
	if ago {
		a.m, a.d, a.us = -a.m, -a.d, -a.us
	}
	return finishInterval(&a, text, typmod)
}

// isYearMonth matches the SQL-standard year-month literal [-]Y-M.
func isYearMonth(f string) bool {
	f = strings.TrimPrefix(f, "-")
	y, m, ok := strings.Cut(f, "-")
	return ok && y != "" && m != "" && strings.Trim(y, "0123456789") == "" && strings.Trim(m, "0123456789") == ""
}

func splitNumUnit(f string) (num, unit string) {
	i := 0
	if i < len(f) && (f[i] == '+' || f[i] == '-') {
		i++
	}
	start := i
	for i < len(f) && (isDigit(f[i]) || f[i] == '.') {
		i++
	}
	if i == start {
		return "", ""
	}
	if i < len(f) && (f[i] == 'e') && i+1 < len(f) && (isDigit(f[i+1]) || f[i+1] == '-' || f[i+1] == '+') {
		j := i + 2
		for j < len(f) && isDigit(f[j]) {
			j++
		}
		i = j
	}
	return f[:i], f[i:]
}

func decodeIntervalClock(s string, f *dtFields) *dtError {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return &dtError{pgerr.InvalidDatetimeFormat, ""}
	}
	h, err := strconv.Atoi(parts[0])
	if err != nil || h < 0 {
		return &dtError{pgerr.InvalidDatetimeFormat, ""}
	}
	// Reuse the clock parser for MM:SS with hours zeroed, then restore.
	if e := decodeClock("0:"+strings.Join(parts[1:], ":"), f); e != nil {
		return e
	}
	if f.min > 59 || f.sec > 59 {
		return &dtError{pgerr.DatetimeFieldOverflow, ""}
	}
	f.hour = h
	return nil
}

// parseISOInterval parses the part after "P": designators (1Y2M3W4DT5H6M7.5S)
// or the alternative format YYYY-MM-DDTHH:MM:SS.
func parseISOInterval(s string, a *ivAcc) bool {
	if s == "" {
		return false
	}
	if isDigit(s[0]) && len(s) >= 10 && s[4] == '-' { // alternative format
		datePart, timePart, _ := strings.Cut(s, "t")
		parts := strings.Split(datePart, "-")
		if len(parts) != 3 {
			return false
		}
		for i, u := range []byte{'y', 'M', 'd'} {
			v, err := strconv.ParseFloat(parts[i], 64)
			if err != nil {
				return false
			}
			a.add(u, v)
		}
		if timePart != "" {
			var f dtFields
			if decodeIntervalClock(timePart, &f) != nil {
				return false
			}
			a.us += float64(f.hour)*3600e6 + float64(f.min)*60e6 + float64(f.sec)*1e6 + float64(f.fsec)
		}
		return true
	}
	inTime := false
	for len(s) > 0 {
		if s[0] == 't' {
			if inTime {
				return false
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		if s[0] == '-' || s[0] == '+' {
			i++
		}
		for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
			i++
		}
		if i == 0 || i >= len(s) {
			return false
		}
		v, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return false
		}
		var u byte
		switch s[i] {
		case 'y':
			u = 'y'
		case 'm':
			if inTime {
				u = 'm'
			} else {
				u = 'M'
			}
		case 'w':
			u = 'w'
		case 'd':
			u = 'd'
		case 'h':
			u = 'h'
		case 's':
			u = 's'
		default:
			return false
		}
		if inTime != (u == 'h' || u == 'm' || u == 's') {
			return false
		}
		a.add(u, v)
		s = s[i+1:]
	}
	return true
}

func finishInterval(a *ivAcc, text []byte, typmod int32) (Interval, error) {
	us := math.Round(a.us)
	if a.m > math.MaxInt32 || a.m < math.MinInt32 || a.d > math.MaxInt32 || a.d < math.MinInt32 || math.Abs(us) > 9.2e18 {
		return Interval{}, pgerr.New(pgerr.DatetimeFieldOverflow, "interval field value out of range: \"%s\"", text)
	}
	iv := Interval{Months: int32(a.m), Days: int32(a.d), Micros: int64(us)}
	if typmod >= 0 {
		prec := typmod & 0xFFFF
		if prec != intervalFullPrec && prec < 6 {
			iv.Micros = roundMicros(iv.Micros, prec)
		}
	}
	return iv, nil
}
