package pgtypes

import (
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

// Chr is chr(integer) in the UTF8 encoding: the character of code point c,
// which must be a Unicode scalar value other than NUL (oracle_compat.c).
func Chr(c int32) (string, error) {
	switch {
	case c < 0:
		return "", pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
	case c == 0:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case c > 0x10ffff:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
	case c >= 0xd800 && c <= 0xdfff:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", c)
	}
	return string(rune(c)), nil
}
