package pgtypes

import (
	"fmt"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Functions of PostgreSQL that the query engine lacks or spells
// differently, as Go functions the planner registers in DuckDB (the
// translator renames the calls).

// Initcap is initcap(text) under the C locale: the first ASCII letter or
// digit of each run of them upper case, the rest lower case.
func Initcap(s string) string {
	b := []byte(s)
	inWord := false
	for i, c := range b {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case alnum && !inWord && c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case alnum && inWord && c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
		inWord = alnum
	}
	return string(b)
}

// QuoteIdent is quote_ident(text): the name as is when it is a lower-case
// identifier and not a keyword that needs quoting (keyword tells; the
// grammar's list is pg_query's, which this leaf package does not import),
// else in double quotes with embedded quotes doubled.
func QuoteIdent(s string, keyword func(string) bool) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !keyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteLiteral is quote_literal(text): single quotes doubled, and a string
// with backslashes written as E'...' with them doubled.
func QuoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		q = "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// JustifyHours is justify_hours(interval): whole days of the time part
// move to days, the signs of days and time made to agree.
func JustifyHours(iv Interval) Interval { return alignDayTime(carryTime(iv)) }

// JustifyDays is justify_days(interval): 30-day periods move to months.
func JustifyDays(iv Interval) Interval {
	iv = carryDays(iv)
	switch {
	case iv.Months > 0 && iv.Days < 0:
		iv.Days += 30
		iv.Months--
	case iv.Months < 0 && iv.Days > 0:
		iv.Days -= 30
		iv.Months++
	}
	return iv
}

// JustifyInterval is justify_interval(interval): both, with the signs of
// all three fields made to agree.
func JustifyInterval(iv Interval) Interval {
	iv = carryTime(carryDays(iv))
	switch {
	case iv.Months > 0 && (iv.Days < 0 || iv.Days == 0 && iv.Micros < 0):
		iv.Days += 30
		iv.Months--
	case iv.Months < 0 && (iv.Days > 0 || iv.Days == 0 && iv.Micros > 0):
		iv.Days -= 30
		iv.Months++
	}
	return alignDayTime(iv)
}

func carryTime(iv Interval) Interval {
	whole := iv.Micros / usPerDay
	iv.Micros -= whole * usPerDay
	iv.Days += int32(whole)
	return iv
}

func carryDays(iv Interval) Interval {
	whole := iv.Days / 30
	iv.Days -= whole * 30
	iv.Months += whole
	return iv
}

func alignDayTime(iv Interval) Interval {
	switch {
	case iv.Days > 0 && iv.Micros < 0:
		iv.Micros += usPerDay
		iv.Days--
	case iv.Days < 0 && iv.Micros > 0:
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv
}

// Format is format(formatstr, args...): %s (NULL as empty), %I (an
// identifier, quoted by quoteIdent), %L (a literal, NULL unquoted) and %%,
// with a position (%2$s), the - flag and a width (a number, * or *n$).
// args are the arguments' text, nil for NULL.
func Format(format string, args []*string, quoteIdent func(string) string) (string, error) {
	var b strings.Builder
	next := 0 // the next argument taken without a position
	bad := func(msg string, a ...any) *pgerr.Error { return pgerr.New(pgerr.InvalidParameterValue, msg, a...) }
	arg := func(pos int) (*string, error) {
		if pos >= len(args) {
			return nil, bad("too few arguments for format()")
		}
		return args[pos], nil
	}
	// number reads digits at i; ok false when there are none.
	number := func(i int) (n, j int, ok bool) {
		j = i
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			n = n*10 + int(format[j]-'0')
			j++
		}
		return n, j, j > i
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", bad("unterminated format() type specifier")
		}
		if format[i] == '%' {
			b.WriteByte('%')
			continue
		}
		pos := -1
		if n, j, ok := number(i); ok && j < len(format) && format[j] == '$' {
			pos, i = n-1, j+1
		}
		left := false
		for i < len(format) && format[i] == '-' {
			left, i = true, i+1
		}
		width := 0
		switch {
		case i < len(format) && format[i] == '*':
			i++
			wpos := next
			if n, j, ok := number(i); ok && j < len(format) && format[j] == '$' {
				wpos, i = n-1, j+1
			} else {
				next++
			}
			w, err := arg(wpos)
			if err != nil {
				return "", err
			}
			if w != nil {
				fmt.Sscan(*w, &width)
			}
			if width < 0 {
				left, width = true, -width
			}
		default:
			if n, j, ok := number(i); ok {
				width, i = n, j
			}
		}
		if i >= len(format) {
			return "", bad("unterminated format() type specifier")
		}
		if pos < 0 {
			pos = next
			next++
		} else {
			next = pos + 1
		}
		v, err := arg(pos)
		if err != nil {
			return "", err
		}
		var s string
		switch format[i] {
		case 's':
			if v != nil {
				s = *v
			}
		case 'I':
			if v == nil {
				return "", pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(*v)
		case 'L':
			s = "NULL"
			if v != nil {
				s = QuoteLiteral(*v)
			}
		default:
			e := bad("unrecognized format() type specifier \"%c\"", format[i])
			e.Hint = `For a single "%" use "%%".`
			return "", e
		}
		if pad := width - len([]rune(s)); pad > 0 {
			if left {
				s += strings.Repeat(" ", pad)
			} else {
				s = strings.Repeat(" ", pad) + s
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}
