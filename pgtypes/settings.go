package pgtypes

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// DateStyle is the output half of the DateStyle setting.
type DateStyle uint8

// Output styles.
const (
	DateStyleISO DateStyle = iota
	DateStylePostgres
	DateStyleSQL
	DateStyleGerman
)

func (d DateStyle) String() string {
	return [...]string{"ISO", "Postgres", "SQL", "German"}[d]
}

// DateOrder is the field-order half of DateStyle (input, and the SQL and
// Postgres output styles).
type DateOrder uint8

// Orders.
const (
	DateOrderMDY DateOrder = iota
	DateOrderDMY
	DateOrderYMD
)

func (o DateOrder) String() string { return [...]string{"MDY", "DMY", "YMD"}[o] }

// IntervalStyle is the IntervalStyle setting.
type IntervalStyle uint8

// Interval output styles.
const (
	IntervalStylePostgres IntervalStyle = iota
	IntervalStylePostgresVerbose
	IntervalStyleSQLStandard
	IntervalStyleISO8601
)

func (s IntervalStyle) String() string {
	return [...]string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"}[s]
}

// ParseIntervalStyle parses an IntervalStyle setting value.
func ParseIntervalStyle(v string) (IntervalStyle, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "postgres":
		return IntervalStylePostgres, nil
	case "postgres_verbose":
		return IntervalStylePostgresVerbose, nil
	case "sql_standard":
		return IntervalStyleSQLStandard, nil
	case "iso_8601":
		return IntervalStyleISO8601, nil
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"IntervalStyle\": \"%s\"", v).
		WithHint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.")
}

// ByteaOutput is the bytea_output setting.
type ByteaOutput uint8

// bytea output formats.
const (
	ByteaHex ByteaOutput = iota
	ByteaEscape
)

func (b ByteaOutput) String() string { return [...]string{"hex", "escape"}[b] }

// Settings are the session settings that change text input and output.
// A nil *Settings means DefaultSettings(). The zero value is NOT the default
// (ExtraFloatDigits 0 selects the old %.15g output); use DefaultSettings.
type Settings struct {
	DateStyle     DateStyle
	DateOrder     DateOrder
	TimeZone      *time.Location // nil = UTC
	TimeZoneName  string         // what SHOW TimeZone says; "" = TimeZone.String()
	IntervalStyle IntervalStyle
	// ExtraFloatDigits > 0: shortest exact (round-trip) output; <= 0: %.{15+n}g
	// for float8 and %.{6+n}g for float4, as PostgreSQL 12+ does.
	ExtraFloatDigits int
	ByteaOutput      ByteaOutput
	// Now is the transaction timestamp for the input keywords now, today,
	// tomorrow, yesterday (PostgreSQL uses the transaction start); nil =
	// time.Now.
	Now func() time.Time
}

// DefaultSettings are PostgreSQL's built-in defaults with TimeZone UTC:
// DateStyle "ISO, MDY", IntervalStyle postgres, extra_float_digits 1,
// bytea_output hex.
func DefaultSettings() *Settings {
	return &Settings{TimeZone: time.UTC, TimeZoneName: "UTC", ExtraFloatDigits: 1}
}

var defaultSettings = DefaultSettings()

func orDefault(s *Settings) *Settings {
	if s == nil {
		return defaultSettings
	}
	return s
}

func (s *Settings) loc() *time.Location {
	if s.TimeZone == nil {
		return time.UTC
	}
	return s.TimeZone
}

// DateStyleString is SHOW DateStyle ("ISO, MDY").
func (s *Settings) DateStyleString() string {
	return s.DateStyle.String() + ", " + s.DateOrder.String()
}

// SetDateStyle applies a DateStyle value like PostgreSQL's check_datestyle:
// a comma list of a style (ISO, SQL, Postgres, German) and/or an order
// (MDY/US/NonEuropean, DMY/Euro/European, YMD); German alone implies DMY.
func (s *Settings) SetDateStyle(v string) error {
	style, order := s.DateStyle, s.DateOrder
	haveStyle, haveOrder := false, false
	for _, tok := range strings.Split(v, ",") {
		tok = strings.ToLower(strings.TrimSpace(tok))
		conflict := false
		switch tok {
		case "iso":
			conflict, style, haveStyle = haveStyle && style != DateStyleISO, DateStyleISO, true
		case "sql":
			conflict, style, haveStyle = haveStyle && style != DateStyleSQL, DateStyleSQL, true
		case "postgres":
			conflict, style, haveStyle = haveStyle && style != DateStylePostgres, DateStylePostgres, true
		case "german":
			conflict, style, haveStyle = haveStyle && style != DateStyleGerman, DateStyleGerman, true
			if !haveOrder {
				order = DateOrderDMY
			}
		case "ymd":
			conflict, order, haveOrder = haveOrder && order != DateOrderYMD, DateOrderYMD, true
		case "dmy", "euro", "european":
			conflict, order, haveOrder = haveOrder && order != DateOrderDMY, DateOrderDMY, true
		case "mdy", "us", "noneuro", "noneuropean":
			conflict, order, haveOrder = haveOrder && order != DateOrderMDY, DateOrderMDY, true
		case "default":
			style, order = DateStyleISO, DateOrderMDY
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v).
				WithDetail("Unrecognized key word: \"%s\".", tok)
		}
		if conflict {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v).
				WithDetail("Conflicting \"datestyle\" specifications.")
		}
	}
	s.DateStyle, s.DateOrder = style, order
	return nil
}

// SetTimeZone sets TimeZone like PostgreSQL's check_timezone: a plain
// number is hours EAST of UTC (SQL convention: '+5', '-3.5'); an IANA name
// ("Europe/Paris", "UTC"); or a POSIX offset ("-03:30" is 3h30 EAST, POSIX
// signs are west-positive), whose abbreviation is empty.
func (s *Settings) SetTimeZone(name string) error {
	loc, err := LoadZone(name)
	if err != nil {
		return err
	}
	s.TimeZone, s.TimeZoneName = loc, name
	return nil
}

// LoadZone resolves a TimeZone setting value (see SetTimeZone).
func LoadZone(name string) (*time.Location, error) {
	if strings.EqualFold(name, "utc") {
		return time.UTC, nil
	}
	if h, err := strconv.ParseFloat(name, 64); err == nil && !strings.ContainsAny(name, "eEnNiIxX") {
		if h < -15.99 || h > 15.99 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", name)
		}
		east := int(math.Round(h * 3600))
		return time.FixedZone(posixOffsetName(east), east), nil
	}
	if name != "" && (name[0] == '+' || name[0] == '-') {
		if west, ok := parseNumericOffset(name); ok {
			return time.FixedZone("", -west), nil
		}
	}
	loc, err := loadZoneName(name)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", name)
	}
	return loc, nil
}

// posixOffsetName is PostgreSQL's abbreviation for a numeric zone: "+05" or
// "-03:30" style, the offset east.
func posixOffsetName(east int) string {
	return string(appendTZOffset(nil, east))
}

// parseNumericOffset parses [+-]H[H][:MM[:SS]] or [+-]HHMM into seconds.
func parseNumericOffset(s string) (int, bool) {
	sign := 1
	if s[0] == '+' || s[0] == '-' {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	var parts []int
	for _, p := range strings.Split(s, ":") {
		if p == "" || len(p) > 4 {
			return 0, false
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		parts = append(parts, n)
	}
	var sec int
	switch {
	case len(parts) == 1 && len(s) > 2:
		sec = parts[0]/100*3600 + parts[0]%100*60
	case len(parts) == 1:
		sec = parts[0] * 3600
	case len(parts) == 2:
		sec = parts[0]*3600 + parts[1]*60
	case len(parts) == 3:
		sec = parts[0]*3600 + parts[1]*60 + parts[2]
	default:
		return 0, false
	}
	if sec > 15*3600+59*60+59 {
		return 0, false
	}
	return sign * sec, true
}

func (s *Settings) String() string {
	return fmt.Sprintf("DateStyle=%s TimeZone=%s IntervalStyle=%s extra_float_digits=%d bytea_output=%s",
		s.DateStyleString(), s.TimeZoneName, s.IntervalStyle, s.ExtraFloatDigits, s.ByteaOutput)
}
