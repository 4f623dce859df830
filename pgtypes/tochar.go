package pgtypes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ToCharTime is PostgreSQL's to_char(timestamp[tz], text) with the
// templates of formatting.c (C locale). t is formatted as its wall-clock
// time in its location. zoned: t is a timestamptz shown in the session's
// time zone (t's location), whose abbreviation and offset the TZ, OF, TZH
// and TZM patterns print; otherwise they print as PostgreSQL does for a
// timestamp without time zone ("", "+00", "+00", "00").
func ToCharTime(t time.Time, format string, zoned bool) (string, error) {
	f, err := compileToChar(format)
	if err != nil {
		return "", err
	}
	if !zoned {
		y, mo, d := t.Date()
		t = time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), noZone)
	}
	var b strings.Builder
	for _, n := range f {
		n.write(&b, t)
	}
	return b.String(), nil
}

// noZone marks a wall-clock time without a time zone.
var noZone = time.FixedZone("", 0)

// zoneFields returns TZ and the offset parts of t.
func zoneFields(t time.Time) (abbrev string, sign byte, h, m int) {
	if t.Location() == noZone {
		return "", '+', 0, 0
	}
	name, off := t.Zone()
	sign = '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return name, sign, off / 3600, off % 3600 / 60
}

var (
	toCharCache  sync.Map // format -> []toCharNode
	toCharCached atomic.Int64
)

// toCharNode is a literal (kw nil) or a pattern with its modifiers.
type toCharNode struct {
	lit    string
	kw     *toCharKeyword
	fm     bool   // FM: no padding
	suffix string // "TH" or "th"
}

type toCharKeyword struct {
	name    string
	numeric bool                              // takes FM (no zero padding) and TH
	out     func(t time.Time, fm bool) string // text keywords
	num     func(t time.Time) (n int, width int)
}

func (n toCharNode) write(b *strings.Builder, t time.Time) {
	if n.kw == nil {
		b.WriteString(n.lit)
		return
	}
	if n.kw.num == nil {
		b.WriteString(n.kw.out(t, n.fm))
		return
	}
	v, width := n.kw.num(t)
	s := strconv.Itoa(v)
	if !n.fm && width > 0 {
		neg := v < 0
		if neg {
			s = s[1:]
		}
		if len(s) < width {
			s = strings.Repeat("0", width-len(s)) + s
		}
		if neg {
			s = "-" + s
		}
	}
	b.WriteString(s)
	if n.suffix != "" {
		b.WriteString(ordinal(v, n.suffix == "TH"))
	}
}

func ordinal(v int, upper bool) string {
	if v < 0 {
		v = -v
	}
	s := "th"
	if v%100 < 11 || v%100 > 13 {
		switch v % 10 {
		case 1:
			s = "st"
		case 2:
			s = "nd"
		case 3:
			s = "rd"
		}
	}
	if upper {
		return strings.ToUpper(s)
	}
	return s
}

var (
	tcMonths   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	tcDays     = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMonth = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

// caseLike spells s as the pattern is spelled: all upper, all lower, or
// capitalized.
func caseLike(s string, pattern string) string {
	switch {
	case pattern == strings.ToUpper(pattern):
		return strings.ToUpper(s)
	case pattern == strings.ToLower(pattern):
		return strings.ToLower(s)
	}
	return s
}

func pad(s string, width int, fm bool) string {
	if fm || len(s) >= width {
		return s
	}
	return s + strings.Repeat(" ", width-len(s))
}

func numKW(name string, width int, f func(t time.Time) int) []*toCharKeyword {
	kw := func(n string) *toCharKeyword {
		return &toCharKeyword{name: n, numeric: true, num: func(t time.Time) (int, int) { return f(t), width }}
	}
	if lower := strings.ToLower(name); lower != name {
		return []*toCharKeyword{kw(name), kw(lower)}
	}
	return []*toCharKeyword{kw(name)}
}

func hour12(t time.Time) int {
	h := t.Hour() % 12
	if h == 0 {
		h = 12
	}
	return h
}

func julianDay(t time.Time) int {
	y, m, d := t.Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	return int(days) + 2440588
}

func century(t time.Time) int {
	y := t.Year()
	if y > 0 {
		return (y + 99) / 100
	}
	return -((99 - (y - 1)) / 100)
}

func isoDayOfWeek(t time.Time) int {
	d := int(t.Weekday())
	if d == 0 {
		return 7
	}
	return d
}

var toCharKeywords = func() []*toCharKeyword {
	var k []*toCharKeyword
	add := func(ks ...*toCharKeyword) { k = append(k, ks...) }
	add(numKW("HH24", 2, func(t time.Time) int { return t.Hour() })...)
	add(numKW("HH12", 2, hour12)...)
	add(numKW("HH", 2, hour12)...)
	add(numKW("MI", 2, func(t time.Time) int { return t.Minute() })...)
	add(numKW("SSSSS", 0, func(t time.Time) int { return t.Hour()*3600 + t.Minute()*60 + t.Second() })...)
	add(numKW("SSSS", 0, func(t time.Time) int { return t.Hour()*3600 + t.Minute()*60 + t.Second() })...)
	add(numKW("SS", 2, func(t time.Time) int { return t.Second() })...)
	add(numKW("MS", 3, func(t time.Time) int { return t.Nanosecond() / 1e6 })...)
	add(numKW("US", 6, func(t time.Time) int { return t.Nanosecond() / 1e3 })...)
	for i := 1; i <= 6; i++ {
		div := 1
		for j := i; j < 9; j++ {
			div *= 10
		}
		add(numKW(fmt.Sprintf("FF%d", i), i, func(t time.Time) int { return t.Nanosecond() / div })...)
	}
	add(numKW("Y,YYY", 0, func(t time.Time) int { return t.Year() })...) // formatted below
	add(numKW("YYYY", 4, func(t time.Time) int { return t.Year() })...)
	add(numKW("YYY", 3, func(t time.Time) int { return t.Year() % 1000 })...)
	add(numKW("YY", 2, func(t time.Time) int { return t.Year() % 100 })...)
	add(numKW("Y", 1, func(t time.Time) int { return t.Year() % 10 })...)
	isoYear := func(t time.Time) int { y, _ := t.ISOWeek(); return y }
	add(numKW("IYYY", 4, isoYear)...)
	add(numKW("IYY", 3, func(t time.Time) int { return isoYear(t) % 1000 })...)
	add(numKW("IY", 2, func(t time.Time) int { return isoYear(t) % 100 })...)
	add(numKW("IDDD", 3, func(t time.Time) int { _, w := t.ISOWeek(); return (w-1)*7 + isoDayOfWeek(t) })...)
	add(numKW("ID", 1, isoDayOfWeek)...)
	add(numKW("IW", 2, func(t time.Time) int { _, w := t.ISOWeek(); return w })...)
	add(numKW("I", 1, func(t time.Time) int { return isoYear(t) % 10 })...)
	add(numKW("MM", 2, func(t time.Time) int { return int(t.Month()) })...)
	add(numKW("DDD", 3, func(t time.Time) int { return t.YearDay() })...)
	add(numKW("DD", 2, func(t time.Time) int { return t.Day() })...)
	add(numKW("D", 1, func(t time.Time) int { return int(t.Weekday()) + 1 })...)
	add(numKW("WW", 2, func(t time.Time) int { return (t.YearDay()-1)/7 + 1 })...)
	add(numKW("W", 1, func(t time.Time) int { return (t.Day()-1)/7 + 1 })...)
	add(numKW("CC", 2, century)...)
	add(numKW("J", 0, julianDay)...)
	add(numKW("Q", 1, func(t time.Time) int { return (int(t.Month())-1)/3 + 1 })...)
	text := func(names []string, f func(t time.Time, name string, fm bool) string) {
		for _, n := range names {
			add(&toCharKeyword{name: n, out: func(t time.Time, fm bool) string { return f(t, n, fm) }})
		}
	}
	text([]string{"MONTH", "Month", "month"}, func(t time.Time, p string, fm bool) string {
		return pad(caseLike(tcMonths[t.Month()-1], p), 9, fm)
	})
	text([]string{"MON", "Mon", "mon"}, func(t time.Time, p string, fm bool) string {
		return caseLike(tcMonths[t.Month()-1][:3], p)
	})
	text([]string{"DAY", "Day", "day"}, func(t time.Time, p string, fm bool) string {
		return pad(caseLike(tcDays[t.Weekday()], p), 9, fm)
	})
	text([]string{"DY", "Dy", "dy"}, func(t time.Time, p string, fm bool) string {
		return caseLike(tcDays[t.Weekday()][:3], p)
	})
	text([]string{"RM", "rm"}, func(t time.Time, p string, fm bool) string {
		return pad(caseLike(romanMonth[t.Month()-1], p), 4, fm)
	})
	text([]string{"AM", "am", "PM", "pm", "A.M.", "a.m.", "P.M.", "p.m."}, func(t time.Time, p string, fm bool) string {
		s := "AM"
		if t.Hour() >= 12 {
			s = "PM"
		}
		if strings.Contains(p, ".") {
			s = s[:1] + "." + s[1:] + "."
		}
		return caseLike(s, p)
	})
	text([]string{"AD", "ad", "BC", "bc", "A.D.", "a.d.", "B.C.", "b.c."}, func(t time.Time, p string, fm bool) string {
		s := "AD"
		if t.Year() <= 0 {
			s = "BC"
		}
		if strings.Contains(p, ".") {
			s = s[:1] + "." + s[1:] + "."
		}
		return caseLike(s, p)
	})
	text([]string{"TZ", "tz"}, func(t time.Time, p string, fm bool) string {
		a, _, _, _ := zoneFields(t)
		return caseLike(a, p)
	})
	text([]string{"OF", "of"}, func(t time.Time, p string, fm bool) string {
		_, sign, h, m := zoneFields(t)
		if m != 0 {
			return fmt.Sprintf("%c%02d:%02d", sign, h, m)
		}
		return fmt.Sprintf("%c%02d", sign, h)
	})
	text([]string{"TZH", "tzh"}, func(t time.Time, p string, fm bool) string {
		_, sign, h, _ := zoneFields(t)
		return fmt.Sprintf("%c%02d", sign, h)
	})
	text([]string{"TZM", "tzm"}, func(t time.Time, p string, fm bool) string {
		_, _, _, m := zoneFields(t)
		return fmt.Sprintf("%02d", m)
	})
	// Longest first: "HH24" before "HH", "MONTH" before "MON" before "MM".
	sort.SliceStable(k, func(i, j int) bool { return len(k[i].name) > len(k[j].name) })
	return k
}()

func compileToChar(format string) ([]toCharNode, error) {
	if v, ok := toCharCache.Load(format); ok {
		return v.([]toCharNode), nil
	}
	var out []toCharNode
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, toCharNode{lit: lit.String()})
			lit.Reset()
		}
	}
	fm := false
	for i := 0; i < len(format); {
		rest := format[i:]
		switch {
		case rest[0] == '"':
			// Quoted literal text; a backslash escapes the next character.
			j := 1
			for j < len(rest) && rest[j] != '"' {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
				}
				lit.WriteByte(rest[j])
				j++
			}
			i += min(j+1, len(rest))
			continue
		case strings.HasPrefix(rest, `\"`):
			// Outside quotes a backslash escapes only a double quote.
			lit.WriteByte('"')
			i += 2
			continue
		case hasPrefixFold(rest, "FM"):
			fm = true
			i += 2
			continue
		case hasPrefixFold(rest, "FX"), hasPrefixFold(rest, "TM"):
			i += 2
			continue
		}
		var kw *toCharKeyword
		for _, k := range toCharKeywords {
			if strings.HasPrefix(rest, k.name) {
				kw = k
				break
			}
		}
		if kw == nil {
			lit.WriteByte(rest[0])
			i++
			continue
		}
		flush()
		i += len(kw.name)
		n := toCharNode{kw: kw, fm: fm}
		fm = false
		if kw.numeric && (strings.HasPrefix(format[i:], "TH") || strings.HasPrefix(format[i:], "th")) {
			n.suffix = format[i : i+2]
			i += 2
		}
		if kw.name == "Y,YYY" || kw.name == "y,yyy" {
			kwc := *kw
			kwc.num = nil
			kwc.out = func(t time.Time, _ bool) string {
				y := t.Year()
				return fmt.Sprintf("%d,%03d", y/1000, y%1000)
			}
			n.kw = &kwc
		}
		out = append(out, n)
	}
	flush()
	if toCharCached.Add(1) <= 1024 { // dynamic formats: do not grow forever
		toCharCache.Store(format, out)
	}
	return out, nil
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// The zone registry: a translated query names the session's time zone by
// a key that the Go functions of the query engine resolve (a
// *time.Location cannot be spelled in SQL, and fixed-offset zones of
// PostgreSQL's syntax have no IANA name).
var zones sync.Map // key -> *time.Location

// ZoneKey registers loc and returns its key.
func ZoneKey(loc *time.Location) string {
	key := loc.String()
	if v, ok := zones.Load(key); ok && v.(*time.Location) != loc {
		// Another location with the same name (fixed zones): tell them
		// apart by their offset now.
		_, off := time.Now().In(loc).Zone()
		key = fmt.Sprintf("%s@%d", key, off)
	}
	zones.LoadOrStore(key, loc)
	return key
}

// ZoneByKey returns the location registered under key, or UTC.
func ZoneByKey(key string) *time.Location {
	if v, ok := zones.Load(key); ok {
		return v.(*time.Location)
	}
	return time.UTC
}
