package pgtypes

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// tzAbbrevs is a subset of PostgreSQL's "Default" timezone_abbreviations
// (offsets in seconds east; the ones clients actually send).
var tzAbbrevs = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0, "wet": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"west": 3600, "bst": 3600, "cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "msk": 3 * 3600, "ist": 2 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "sgt": 8 * 3600, "awst": 8 * 3600,
	"acst": 9*3600 + 1800, "acdt": 10*3600 + 1800, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

var dayNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

// dtFields is the result of decoding a date/time string.
type dtFields struct {
	year, mon, mday    int
	hour, min, sec     int
	fsec               int64 // microseconds
	haveDate, haveTime bool
	bc, pm, am         bool
	tzOff              int // seconds east
	haveTZ             bool
	zone               *time.Location // named zone, resolved at the local time
	special            string         // infinity, -infinity, epoch, now, today, tomorrow, yesterday, allballs
}

type dtError struct {
	code string
	msg  string
}

func (s *Settings) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// decodeDateTime splits and decodes a date/time string (a practical subset
// of PostgreSQL's ParseDateTime + DecodeDateTime). timeOnly selects
// DecodeTimeOnly behavior (a lone number is not a date).
func decodeDateTime(text []byte, order DateOrder, timeOnly bool) (dtFields, *dtError) {
	var f dtFields
	syn := &dtError{pgerr.InvalidDatetimeFormat, ""}
	rng := &dtError{pgerr.DatetimeFieldOverflow, ""}
	str := asciiLower(strings.TrimSpace(string(text)))
	switch str {
	case "infinity", "+infinity", "-infinity", "epoch", "now", "today", "tomorrow", "yesterday", "allballs":
		f.special = str
		return f, nil
	case "":
		return f, syn
	}
	orig := strings.TrimSpace(string(text))
	toks := tokenize(str, orig)
	var nums []string // bare numbers awaiting assignment
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == 'a': // letters
			w := t.s
			if m, ok := monthNames[w]; ok && !f.haveDate {
				f.mon = m
				continue
			}
			switch {
			case dayNames[w]:
			case w == "bc":
				f.bc = true
			case w == "ad":
			case w == "am":
				f.am = true
			case w == "pm":
				f.pm = true
			case w == "t":
			case w == "allballs":
				f.haveTime = true
			case w == "today", w == "now", w == "epoch", w == "tomorrow", w == "yesterday":
				f.special = w
			default:
				if off, ok := tzAbbrevs[w]; ok {
					if f.haveTZ {
						return f, syn
					}
					f.tzOff, f.haveTZ = off, true
					continue
				}
				loc, err := loadZoneName(t.orig)
				if err != nil {
					if strings.ContainsRune(w, '/') {
						return f, &dtError{pgerr.InvalidParameterValue, "time zone \"" + w + "\" not recognized"}
					}
					return f, syn
				}
				f.zone, f.haveTZ = loc, true
			}
		case t.kind == 'z': // +hh[:mm] offset
			off, ok := parseNumericOffset(t.s)
			if !ok || f.haveTZ {
				return f, &dtError{pgerr.InvalidDatetimeFormat, ""}
			}
			f.tzOff, f.haveTZ = off, true
		case strings.ContainsRune(t.s, ':'):
			if f.haveTime {
				return f, syn
			}
			if err := decodeClock(t.s, &f); err != nil {
				return f, err
			}
			f.haveTime = true
		case strings.ContainsAny(t.s, "-/.") && !(strings.Count(t.s, ".") == 1 && !strings.ContainsAny(t.s, "-/") && f.haveDate):
			if f.haveDate {
				return f, syn
			}
			if err := decodeDate(t.s, order, &f); err != nil {
				return f, err
			}
			f.haveDate = true
		default: // a bare number
			d := t.s
			switch {
			case len(d) == 8 && !f.haveDate && !timeOnly:
				f.year, _ = strconv.Atoi(d[:4])
				f.mon, _ = strconv.Atoi(d[4:6])
				f.mday, _ = strconv.Atoi(d[6:])
				f.haveDate = true
			case (len(d) == 6 || strings.Contains(d, ".")) && (f.haveDate || timeOnly) && !f.haveTime:
				ip := d
				frac := ""
				if k := strings.IndexByte(d, '.'); k >= 0 {
					ip, frac = d[:k], d[k:]
				}
				if len(ip) != 6 {
					return f, syn
				}
				if err := decodeClock(ip[:2]+":"+ip[2:4]+":"+ip[4:]+frac, &f); err != nil {
					return f, err
				}
				f.haveTime = true
			default:
				nums = append(nums, d)
			}
		}
	}
	if f.mon != 0 && !f.haveDate { // textual month: assign day and year
		for _, n := range nums {
			v, err := strconv.Atoi(n)
			if err != nil {
				return f, syn
			}
			switch {
			case len(n) >= 3 || v > 31 || (f.mday != 0 && f.year == 0):
				if f.year != 0 {
					return f, syn
				}
				f.year = v
			case f.mday == 0:
				f.mday = v
			default:
				return f, syn
			}
		}
		if f.mday == 0 || f.year == 0 && len(nums) < 2 {
			return f, syn
		}
		f.haveDate = true
		nums = nil
	}
	if len(nums) > 0 {
		return f, syn
	}
	if f.special != "" && (f.haveDate || f.haveTime) {
		return f, syn
	}
	if f.bc {
		if f.year <= 0 {
			return f, rng
		}
		f.year = 1 - f.year
	}
	if f.pm || f.am {
		if f.hour > 12 || f.hour < 0 {
			return f, rng
		}
		if f.pm && f.hour < 12 {
			f.hour += 12
		} else if f.am && f.hour == 12 {
			f.hour = 0
		}
	}
	if f.haveDate {
		if f.mon < 1 || f.mon > 12 || f.mday < 1 || f.mday > daysIn(f.year, f.mon) {
			return f, rng
		}
	}
	return f, nil
}

// loadZoneName resolves an IANA zone name (PostgreSQL matches them
// case-insensitively; we try the spelling given, then common casings).
func loadZoneName(name string) (*time.Location, error) {
	if strings.Contains(name, "..") || name == "" || strings.EqualFold(name, "local") {
		return nil, errBadZone
	}
	loc, err := time.LoadLocation(name)
	if err == nil {
		return loc, nil
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		sub := strings.Split(strings.ToLower(p), "_")
		for j, w := range sub {
			if w != "" {
				sub[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(sub, "_")
	}
	if loc, err2 := time.LoadLocation(strings.Join(parts, "/")); err2 == nil {
		return loc, nil
	}
	if loc, err2 := time.LoadLocation(strings.ToUpper(name)); err2 == nil {
		return loc, nil
	}
	return nil, err
}

var errBadZone = errors.New("bad zone name")

type dtToken struct {
	kind byte // 'n' number-ish, 'a' letters, 'z' signed offset
	s    string
	orig string
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets (the
// tokenizer slices the original text with them; strings.ToLower would
// rewrite invalid UTF-8).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// tokenize splits on spaces and commas, separates letters from digits
// ("2001-02-03t04:05:06z" -> date, t, time, z) and signed offsets after a
// time ("04:05:06+02").
func tokenize(s, orig string) []dtToken {
	var out []dtToken
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == ',' || c == '\t':
			i++
		case isAlpha(c) && monthPrefix(s[i:]):
			// "jan-08-1999": a date led by a month name
			j := i
			for j < len(s) && (isAlpha(s[j]) || isDigit(s[j]) || s[j] == '-' || s[j] == '/') {
				j++
			}
			out = append(out, dtToken{'n', s[i:j], orig[i:j]})
			i = j
		case isAlpha(c):
			j := i
			for j < len(s) && (isAlpha(s[j]) || s[j] == '/' || s[j] == '_' || (j > i && (s[j] == '-' || s[j] == '+' || isDigit(s[j])) && strings.Contains(s[i:], "/"))) {
				j++
			}
			out = append(out, dtToken{'a', s[i:j], orig[i:j]})
			i = j
		case (c == '+' || c == '-') && len(out) > 0 && (strings.ContainsAny(out[len(out)-1].s, ":-/") || out[len(out)-1].kind != 'n' || len(out) >= 2):
			// A signed field after another field is a zone (PostgreSQL's
			// ParseDateTime), also right after a date: '2024-02-21 +00' is
			// what pgjdbc's setDate sends.
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == ':') {
				j++
			}
			out = append(out, dtToken{'z', s[i:j], orig[i:j]})
			i = j
		default:
			j := i
			if c == '+' || c == '-' {
				j++
			}
			for j < len(s) && (isDigit(s[j]) || s[j] == ':' || s[j] == '.' || s[j] == '/' || (s[j] == '-' && !strings.ContainsRune(s[i:j], ':')) || (isAlpha(s[j]) && j+1 < len(s) && strings.ContainsRune("-/", rune(s[j-1])))) {
				if isAlpha(s[j]) { // month name inside a date: 01-feb-2003
					for j < len(s) && isAlpha(s[j]) {
						j++
					}
					continue
				}
				j++
			}
			if j == i {
				j++
			}
			out = append(out, dtToken{'n', s[i:j], orig[i:j]})
			i = j
		}
	}
	return out
}

func monthPrefix(s string) bool {
	j := 0
	for j < len(s) && isAlpha(s[j]) {
		j++
	}
	_, ok := monthNames[s[:j]]
	return ok && j+1 < len(s) && (s[j] == '-' || s[j] == '/') && isDigit(s[j+1])
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if (y%4 == 0 && y%100 != 0) || y%400 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// decodeClock parses HH:MM[:SS[.frac]].
func decodeClock(s string, f *dtFields) *dtError {
	syn := &dtError{pgerr.InvalidDatetimeFormat, ""}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return syn
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || parts[0] == "" || parts[1] == "" {
		return syn
	}
	sec, frac := 0, int64(0)
	if len(parts) == 3 {
		sp := parts[2]
		if k := strings.IndexByte(sp, '.'); k >= 0 {
			fs := sp[k+1:]
			sp = sp[:k]
			fv, err := strconv.ParseFloat("0."+fs+"0", 64)
			if err != nil || strings.ContainsAny(fs, "+-e") {
				return syn
			}
			frac = int64(fv*1e6 + 0.5)
		}
		var err error
		if sec, err = strconv.Atoi(sp); err != nil || sp == "" {
			return syn
		}
	}
	if h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || h > 24 {
		return &dtError{pgerr.DatetimeFieldOverflow, ""}
	}
	if h == 24 && (m > 0 || sec > 0 || frac > 0) {
		return &dtError{pgerr.DatetimeFieldOverflow, ""}
	}
	f.hour, f.min, f.sec, f.fsec = h, m, sec, frac
	return nil
}

// decodeDate parses a date with -, / or . separators, numeric or with a
// month name, honoring DateOrder for ambiguous numeric dates.
func decodeDate(s string, order DateOrder, f *dtFields) *dtError {
	syn := &dtError{pgerr.InvalidDatetimeFormat, ""}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 {
		return syn
	}
	vals := [3]int{}
	month := -1
	for i, p := range parts {
		if m, ok := monthNames[p]; ok {
			month = i
			vals[i] = m
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil || p[0] == '+' || p[0] == '-' {
			return syn
		}
		vals[i] = v
	}
	switch {
	case month == 1: // DD-Mon-YYYY or YYYY-Mon-DD
		if len(parts[0]) >= 3 || vals[0] > 31 {
			f.year, f.mon, f.mday = vals[0], vals[1], vals[2]
		} else {
			f.mday, f.mon, f.year = vals[0], vals[1], vals[2]
		}
	case month == 0: // Mon-DD-YYYY
		f.mon, f.mday, f.year = vals[0], vals[1], vals[2]
	case month == 2:
		return syn
	case len(parts[0]) >= 3 || order == DateOrderYMD:
		f.year, f.mon, f.mday = vals[0], vals[1], vals[2]
	case order == DateOrderDMY:
		f.mday, f.mon, f.year = vals[0], vals[1], vals[2]
	default:
		f.mon, f.mday, f.year = vals[0], vals[1], vals[2]
	}
	// Two-digit years: 70..99 -> 19xx, 00..69 -> 20xx (AdjustYears).
	yp := parts[2]
	if f.year == vals[0] && len(parts[0]) >= 3 {
		yp = parts[0]
	}
	if len(yp) <= 2 && !f.bc {
		if f.year < 70 {
			f.year += 2000
		} else if f.year < 100 {
			f.year += 1900
		}
	}
	return nil
}

func dtErr(e *dtError, typ string, text []byte) error {
	switch {
	case e.msg != "":
		return pgerr.New(e.code, "%s", e.msg)
	case e.code == pgerr.DatetimeFieldOverflow:
		return pgerr.New(e.code, "date/time field value out of range: \"%s\"", text)
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, text)
}

func parseDate(text []byte, s *Settings) (Date, error) {
	f, e := decodeDateTime(text, s.DateOrder, false)
	if e != nil {
		return 0, dtErr(e, "date", text)
	}
	switch f.special {
	case "infinity", "+infinity":
		return DateInfinity, nil
	case "-infinity":
		return DateNegInfinity, nil
	case "epoch":
		return MakeDate(1970, 1, 1), nil
	case "now", "today", "tomorrow", "yesterday":
		d := DateFromTime(s.now().In(s.loc()))
		switch f.special {
		case "tomorrow":
			d++
		case "yesterday":
			d--
		}
		return d, nil
	case "allballs":
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, "date", text)
	}
	if !f.haveDate {
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, "date", text)
	}
	if jd := date2j(f.year, f.mon, f.mday); f.year < -4713 || f.year > 5874897 || jd < 0 || jd >= endDateJulian {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", text)
	}
	return MakeDate(f.year, f.mon, f.mday), nil
}

// roundMicros applies a time/timestamp precision typmod (round half away
// from zero).
func roundMicros(us int64, typmod int32) int64 {
	if typmod < 0 || typmod >= 6 {
		return us
	}
	scale := [...]int64{1000000, 100000, 10000, 1000, 100, 10}[typmod]
	off := scale / 2
	if us >= 0 {
		return (us + off) / scale * scale
	}
	return -((-us + off) / scale * scale)
}

func parseTime(text []byte, typmod int32, s *Settings) (Time, error) {
	f, e := decodeDateTime(text, s.DateOrder, true)
	if e != nil {
		return 0, dtErr(e, "time", text)
	}
	switch f.special {
	case "allballs":
		return 0, nil
	case "now":
		t := s.now().In(s.loc())
		return Time(roundMicros(int64(TimestampFromTime(t))-int64(DateFromTime(t))*usPerDay, typmod)), nil
	case "":
	default:
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, "time", text)
	}
	if !f.haveTime {
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, "time", text)
	}
	us := int64(f.hour)*usPerHour + int64(f.min)*usPerMin + int64(f.sec)*usPerSec + f.fsec
	us = roundMicros(us, typmod)
	if us > usPerDay {
		return 0, dtErr(&dtError{pgerr.DatetimeFieldOverflow, ""}, "time", text)
	}
	return Time(us), nil
}

func parseTimeTZ(text []byte, typmod int32, s *Settings) (TimeTZ, error) {
	f, e := decodeDateTime(text, s.DateOrder, true)
	if e != nil {
		return TimeTZ{}, dtErr(e, "time with time zone", text)
	}
	if f.special == "allballs" {
		return TimeTZ{}, nil
	}
	if !f.haveTime || f.special != "" {
		return TimeTZ{}, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, "time with time zone", text)
	}
	us := roundMicros(int64(f.hour)*usPerHour+int64(f.min)*usPerMin+int64(f.sec)*usPerSec+f.fsec, typmod)
	off := f.tzOff
	if !f.haveTZ || f.zone != nil {
		loc := f.zone
		if loc == nil {
			loc = s.loc()
		}
		_, off = s.now().In(loc).Zone()
	}
	return TimeTZ{Micros: us, Offset: int32(off)}, nil
}

// parseTimestamp is timestamp_in / timestamptz_in; the result is µs since
// 2000-01-01 (wall clock, or UTC for withTZ).
func parseTimestamp(text []byte, typmod int32, withTZ bool, s *Settings) (int64, error) {
	typ := "timestamp"
	if withTZ {
		typ = "timestamp with time zone"
	}
	f, ok := fastISO(text)
	if !ok {
		var e *dtError
		if f, e = decodeDateTime(text, s.DateOrder, false); e != nil {
			return 0, dtErr(e, typ, text)
		}
	}
	loc := s.loc()
	switch f.special {
	case "infinity", "+infinity":
		return int64(TimestampInfinity), nil
	case "-infinity":
		return int64(TimestampNegInfinity), nil
	case "epoch":
		return -unixToPGMicros, nil
	case "now":
		t := s.now()
		if withTZ {
			return int64(TimestampTZFromTime(t)), nil
		}
		return int64(TimestampFromTime(t.In(loc))), nil
	case "today", "tomorrow", "yesterday":
		d := DateFromTime(s.now().In(loc))
		if f.special == "tomorrow" {
			d++
		} else if f.special == "yesterday" {
			d--
		}
		f.year, f.mon, f.mday = d.YMD()
		f.haveDate = true
	case "":
	default:
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, typ, text)
	}
	if !f.haveDate {
		return 0, dtErr(&dtError{pgerr.InvalidDatetimeFormat, ""}, typ, text)
	}
	if f.year < -4713 || f.year > 294276 {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", text)
	}
	days := int64(date2j(f.year, f.mon, f.mday) - pgEpochJDate)
	local := days*usPerDay + int64(f.hour)*usPerHour + int64(f.min)*usPerMin + int64(f.sec)*usPerSec + f.fsec
	local = roundMicros(local, typmod)
	if !withTZ {
		if local < minTimestamp || local >= endTimestamp {
			return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", text)
		}
		return local, nil
	}
	var utc int64
	switch {
	case f.haveTZ && f.zone == nil:
		utc = local - int64(f.tzOff)*usPerSec
	default:
		z := loc
		if f.zone != nil {
			z = f.zone
		}
		utc = localToUTC(local, z)
	}
	if utc < minTimestamp || utc >= endTimestamp {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", text)
	}
	return utc, nil
}

// localToUTC resolves a wall-clock time in zone loc like PostgreSQL's
// DetermineTimeZoneOffset: in a spring-forward gap the offset in effect
// before the transition is used; in a fall-back overlap, the one after.
func localToUTC(local int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return local
	}
	sec := floorDiv(local, usPerSec) + unixToPGMicros/usPerSec
	frac := local - floorDiv(local, usPerSec)*usPerSec
	_, off1 := time.Unix(sec-86400, 0).In(loc).Zone()
	_, off2 := time.Unix(sec+86400, 0).In(loc).Zone()
	for _, off := range []int{off2, off1} {
		u := sec - int64(off)
		if _, o := time.Unix(u, 0).In(loc).Zone(); o == off {
			return (u-unixToPGMicros/usPerSec)*usPerSec + frac
		}
	}
	// In a gap: use the offset before the transition.
	u := sec - int64(off1)
	return (u-unixToPGMicros/usPerSec)*usPerSec + frac
}
