package pgtypes

import (
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// ToTimestamp is the parsing half of PostgreSQL's to_timestamp(text, text)
// and to_date(text, text) (formatting.c, without FX): it returns the
// wall-clock time the input spells in the template (UTC location; the
// caller applies the session's time zone). Blanks in the template match
// any run of blanks, other literal characters match one character, a
// number takes at most its pattern's digits, and names of months and days
// are matched without regard to case. Fields not given default as in
// PostgreSQL (year 1, January, day 1, midnight).
func ToTimestamp(input, format string) (time.Time, error) {
	nodes, err := compileToChar(format)
	if err != nil {
		return time.Time{}, err
	}
	p := &dateParser{in: input}
	f := dateFields{year: 0, month: 1, day: 1} // year 0 is 1 BC, as in PostgreSQL
	for i, n := range nodes {
		if n.kw == nil {
			p.literal(n.lit)
			continue
		}
		// A field directly followed by another takes exactly its width
		// ('YYYYMMDD'); otherwise YYYY and J read every digit.
		p.adjacent = i+1 < len(nodes) && nodes[i+1].kw != nil
		if err := p.field(n.kw.name, &f); err != nil {
			return time.Time{}, err
		}
	}
	return f.build(input)
}

type dateFields struct {
	year, month, day, yday, julian int
	hour, min, sec, micros         int
	hour12, pm, bc                 bool
	haveYDay, haveJulian, haveMD   bool
}

type dateParser struct {
	in       string
	pos      int
	adjacent bool
}

// rest is the input from the current position to the next blank (what
// PostgreSQL's errors quote).
func (p *dateParser) rest() string {
	end := p.pos
	for end < len(p.in) && p.in[end] != ' ' {
		end++
	}
	return p.in[p.pos:end]
}

func (p *dateParser) skipBlanks() {
	for p.pos < len(p.in) && p.in[p.pos] == ' ' {
		p.pos++
	}
}

func (p *dateParser) literal(lit string) {
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == ' ':
			p.skipBlanks()
		case p.pos >= len(p.in):
			return
		case p.in[p.pos] == c || !isAlnum(p.in[p.pos]):
			p.pos++ // a separator matches any separator
		}
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// digits reads up to max digits (0: any number); n is how many were read.
func (p *dateParser) digits(kw string, max int) (v, n int, err error) {
	p.skipBlanks()
	start := p.pos
	for p.pos < len(p.in) && p.in[p.pos] >= '0' && p.in[p.pos] <= '9' && (max == 0 || p.pos-start < max) {
		p.pos++
	}
	if p.pos == start {
		e := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", p.rest(), kw)
		e.Detail = "Value must be an integer."
		if start >= len(p.in) {
			e = pgerr.New(pgerr.InvalidDatetimeFormat, "source string too short for \"%s\" formatting field", kw)
			e.Detail = "Field requires more characters, but only 0 remain."
		}
		return 0, 0, e
	}
	v, _ = strconv.Atoi(p.in[start:p.pos])
	return v, p.pos - start, nil
}

// word matches one of names (case-insensitively, longest first) and
// returns its index.
func (p *dateParser) word(kw string, names []string, prefix int) (int, error) {
	p.skipBlanks()
	rest := strings.ToLower(p.in[p.pos:])
	best, bestLen := -1, 0
	for i, n := range names {
		n = strings.ToLower(n)
		if prefix > 0 && len(n) > prefix {
			n = n[:prefix]
		}
		if strings.HasPrefix(rest, n) && len(n) > bestLen {
			best, bestLen = i, len(n)
		}
	}
	if best < 0 {
		e := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", p.rest(), kw)
		e.Detail = "The given value did not match any of the allowed values for this field."
		return 0, e
	}
	p.pos += bestLen
	return best, nil
}

func (p *dateParser) field(kw string, f *dateFields) error {
	upper := strings.ToUpper(kw)
	num := func(max int) (int, int, error) { return p.digits(kw, max) }
	var err error
	var v, n int
	switch upper {
	case "YYYY", "IYYY":
		v, _, err = num(map[bool]int{true: 4}[p.adjacent])
		f.year = v
	case "Y,YYY":
		var hi, lo int
		if hi, _, err = num(0); err == nil {
			if p.pos < len(p.in) && p.in[p.pos] == ',' {
				p.pos++
			}
			lo, _, err = num(3)
			f.year = hi*1000 + lo
		}
	case "YYY", "IYY":
		v, _, err = num(3)
		f.year = v
		if v < 100 {
			f.year += 2000
		} else if v < 1000 {
			f.year += 1000
		}
	case "YY", "IY":
		v, _, err = num(2)
		f.year = 1900 + v
		if v < 70 {
			f.year = 2000 + v
		}
	case "Y", "I":
		v, _, err = num(1)
		f.year = 2000 + v
	case "MM":
		v, _, err = num(2)
		f.month, f.haveMD = v, true
	case "DD":
		v, _, err = num(2)
		f.day, f.haveMD = v, true
	case "DDD", "IDDD":
		v, _, err = num(3)
		f.yday, f.haveYDay = v, true
	case "HH", "HH12":
		v, _, err = num(2)
		f.hour, f.hour12 = v, true
	case "HH24":
		v, _, err = num(2)
		f.hour = v
	case "MI":
		v, _, err = num(2)
		f.min = v
	case "SS":
		v, _, err = num(2)
		f.sec = v
	case "SSSS", "SSSSS":
		v, _, err = num(0)
		f.hour, f.min, f.sec = v/3600, v%3600/60, v%60
	case "MS":
		v, n, err = num(3)
		for ; n < 3; n++ {
			v *= 10
		}
		f.micros += v * 1000
	case "US", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		max := 6
		if upper != "US" {
			max = int(upper[2] - '0')
		}
		v, n, err = num(max)
		for ; n < 6; n++ {
			v *= 10
		}
		f.micros += v
	case "J":
		v, _, err = num(map[bool]int{true: 7}[p.adjacent])
		f.julian, f.haveJulian = v, true
	case "D", "ID", "W", "Q":
		_, _, err = num(1) // accepted and ignored, as PostgreSQL does
	case "WW", "IW", "CC":
		_, _, err = num(2)
	case "MONTH":
		v, err = p.word(kw, tcMonths, 0)
		f.month, f.haveMD = v+1, true
	case "MON":
		v, err = p.word(kw, tcMonths, 3)
		f.month, f.haveMD = v+1, true
	case "DAY":
		_, err = p.word(kw, tcDays, 0)
	case "DY":
		_, err = p.word(kw, tcDays, 3)
	case "RM":
		v, err = p.word(kw, romanMonth, 0)
		f.month, f.haveMD = v+1, true
	case "AM", "PM":
		v, err = p.word(kw, []string{"AM", "PM"}, 0)
		f.pm = v == 1
	case "A.M.", "P.M.":
		v, err = p.word(kw, []string{"A.M.", "P.M."}, 0)
		f.pm = v == 1
	case "AD", "BC":
		v, err = p.word(kw, []string{"AD", "BC"}, 0)
		f.bc = v == 1
	case "A.D.", "B.C.":
		v, err = p.word(kw, []string{"A.D.", "B.C."}, 0)
		f.bc = v == 1
	default: // TZ, TZH, TZM, OF
		err = pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", kw)
	}
	return err
}

func (f *dateFields) build(input string) (time.Time, error) {
	outOfRange := func() (time.Time, error) {
		return time.Time{}, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
	}
	if f.bc {
		f.year = 1 - f.year
	}
	hour := f.hour
	if f.hour12 {
		if hour < 1 || hour > 12 {
			e := pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hour)
			e.Hint = "Use the 24-hour clock, or give an hour between 1 and 12."
			return time.Time{}, e
		}
		hour %= 12
		if f.pm {
			hour += 12
		}
	} else if f.pm && hour < 12 {
		hour += 12
	}
	if hour > 24 || f.min > 59 || f.sec > 60 {
		return outOfRange()
	}
	var d time.Time
	switch {
	case f.haveJulian:
		d = time.Unix(int64(f.julian-2440588)*86400, 0).UTC()
	case f.haveYDay && !f.haveMD:
		if f.yday < 1 || f.yday > 366 {
			return outOfRange()
		}
		d = time.Date(f.year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, f.yday-1)
	default:
		if f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysIn(f.year, f.month) {
			return outOfRange()
		}
		d = time.Date(f.year, time.Month(f.month), f.day, 0, 0, 0, 0, time.UTC)
	}
	return d.Add(time.Duration(hour)*time.Hour + time.Duration(f.min)*time.Minute +
		time.Duration(f.sec)*time.Second + time.Duration(f.micros)*time.Microsecond), nil
}
