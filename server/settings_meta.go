package server

import (
	"math"
	"strconv"
	"strings"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
)

// pgSetting describes one of PostgreSQL 15's configuration parameters as
// pg_settings does (settings_gen.go).
type pgSetting struct {
	name, vartype, context, category, unit, min, max string
	enumvals                                         []string
	boot, short, extra                               string
}

// mergePGSettings makes every parameter of PostgreSQL 15 one of ours: the
// ones defined in settings.go get their description (context, unit,
// bounds...), the others are defined from it with PostgreSQL's boot value,
// validated as PostgreSQL validates their type (bool, integer and real
// with units and bounds, enum) and without effect here. SET of one that
// only the server's configuration may change fails as in PostgreSQL.
func mergePGSettings() {
	for i := range pgSettings {
		m := &pgSettings[i]
		if g, ok := gucs[strings.ToLower(m.name)]; ok {
			g.meta = m
			switch {
			case m.vartype == "integer" || m.vartype == "real":
				// Bounds, units and SHOW's spelling are PostgreSQL's
				// ('5000' for statement_timeout shows as 5s).
				g.check = checkNumber(m)
			case g.check == nil && m.vartype == "bool":
				g.check = checkBool(m.name)
			case g.check == nil && m.vartype == "enum":
				g.check = checkEnum(m)
			}
			continue
		}
		g := &guc{name: m.name, desc: m.short, meta: m, readOnly: m.context != "user" && m.context != "superuser"}
		g.def = m.boot
		switch m.vartype {
		case "bool":
			g.check = checkBool(m.name)
		case "enum":
			g.check = checkEnum(m)
		case "integer", "real":
			g.check = checkNumber(m)
			if v, err := g.check(m.boot); err == nil {
				g.def = v
			}
		}
		defGUC(g)
	}
}

// settable reports the error PostgreSQL gives for SET of a parameter of
// this context (set_config_option), or nil.
func (m *pgSetting) settable(super bool) error {
	switch m.context {
	case "internal":
		return pgerr.New("55P02", "parameter \"%s\" cannot be changed", m.name)
	case "postmaster":
		return pgerr.New("55P02", "parameter \"%s\" cannot be changed without restarting the server", m.name)
	case "sighup":
		return pgerr.New("55P02", "parameter \"%s\" cannot be changed now", m.name)
	case "backend", "superuser-backend":
		return pgerr.New("55P02", "parameter \"%s\" cannot be set after connection start", m.name)
	case "superuser":
		if !super {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set parameter \"%s\"", m.name)
		}
	}
	return nil
}

// checkEnum is an enum parameter's parse: one of its values, in any case.
func checkEnum(m *pgSetting) func(string) (string, error) {
	return func(v string) (string, error) {
		t := strings.TrimSpace(v)
		for _, e := range m.enumvals {
			if strings.EqualFold(t, e) {
				return e, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", m.name, v).
			WithHint("Available values: %s.", strings.Join(m.enumvals, ", "))
	}
}

type unitConv struct {
	unit string
	mult float64
}

// unitTables are guc.c's conversions to each base unit, greatest first.
var unitTables = map[string][]unitConv{
	"B":   {{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}},
	"kB":  {{"TB", 1 << 30}, {"GB", 1 << 20}, {"MB", 1 << 10}, {"kB", 1}, {"B", 1.0 / 1024}},
	"MB":  {{"TB", 1 << 20}, {"GB", 1 << 10}, {"MB", 1}, {"kB", 1.0 / 1024}, {"B", 1.0 / (1 << 20)}},
	"8kB": {{"TB", (1 << 30) / 8}, {"GB", (1 << 20) / 8}, {"MB", 1024.0 / 8}, {"kB", 1.0 / 8}, {"B", 1.0 / 8192}},
	"ms":  {{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}, {"us", 1.0 / 1000}},
	"s":   {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}, {"ms", 1.0 / 1000}, {"us", 1.0 / 1e6}},
	"min": {{"d", 1440}, {"h", 60}, {"min", 1}, {"s", 1.0 / 60}, {"ms", 1.0 / 60000}, {"us", 1.0 / 6e7}},
}

func unitsHint(unit string) string {
	switch unit {
	case "ms", "s", "min":
		return `Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`
	}
	return `Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`
}

// parseNumber is guc.c's parse_int / parse_real: a number (integers also
// in hex or octal), an optional unit converted to the base unit (rounded
// to the next smaller unit), integers rounded.
func parseNumber(m *pgSetting, v string) (float64, error) {
	s := strings.TrimSpace(v)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || strings.IndexByte("+-.eExXabcdefABCDEF", s[end]) >= 0) {
		end++
	}
	// Leave a unit's letters (kB, d, min...) out of the number.
	num, rest := s[:end], strings.TrimSpace(s[end:])
	for num != "" {
		if _, err := strconv.ParseFloat(num, 64); err == nil {
			break
		}
		if n, err := strconv.ParseInt(num, 0, 64); err == nil && m.vartype == "integer" {
			num = strconv.FormatInt(n, 10)
			break
		}
		rest = strings.TrimSpace(num[len(num)-1:] + s[len(num):])
		num = num[:len(num)-1]
	}
	invalid := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", m.name, v)
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) {
		return 0, invalid
	}
	if rest != "" {
		tbl := unitTables[m.unit]
		if tbl == nil {
			return 0, invalid
		}
		found := false
		for i, c := range tbl {
			if c.unit == rest {
				f *= c.mult
				if i+1 < len(tbl) {
					f = math.Round(f/tbl[i+1].mult) * tbl[i+1].mult
				}
				found = true
				break
			}
		}
		if !found {
			return 0, invalid.WithHint("%s", unitsHint(m.unit))
		}
	}
	if m.vartype == "integer" {
		f = math.Round(f)
	}
	return f, nil
}

// checkNumber validates an integer or real parameter and gives its value
// as SHOW prints it (in the greatest unit that represents it exactly).
func checkNumber(m *pgSetting) func(string) (string, error) {
	return func(v string) (string, error) {
		f, err := parseNumber(m, v)
		if err != nil {
			return "", err
		}
		lo, _ := strconv.ParseFloat(m.min, 64)
		hi, _ := strconv.ParseFloat(m.max, 64)
		if f < lo || f > hi {
			unit := ""
			if m.unit != "" {
				unit = " " + m.unit
			}
			if m.vartype == "integer" {
				return "", pgerr.New(pgerr.InvalidParameterValue, "%s%s is outside the valid range for parameter \"%s\" (%s .. %s)",
					strconv.FormatFloat(f, 'f', 0, 64), unit, m.name, m.min, m.max)
			}
			return "", pgerr.New(pgerr.InvalidParameterValue, "%s%s is outside the valid range for parameter \"%s\" (%s .. %s)",
				gFormat(f), unit, m.name, gFormat(lo), gFormat(hi))
		}
		return showNumber(m, f), nil
	}
}

// showNumber is _ShowOption of a number in its base unit.
func showNumber(m *pgSetting, f float64) string {
	tbl := unitTables[m.unit]
	if f <= 0 || tbl == nil {
		if m.vartype == "integer" {
			return strconv.FormatFloat(f, 'f', 0, 64)
		}
		return gFormat(f)
	}
	if m.vartype == "integer" {
		for _, c := range tbl {
			if c.mult <= 1 || math.Mod(f, c.mult) == 0 {
				return strconv.FormatFloat(math.Round(f/c.mult), 'f', 0, 64) + c.unit
			}
		}
	}
	var x float64
	var unit string
	for _, c := range tbl {
		x, unit = f/c.mult, c.unit
		if x > 0 && math.Abs(math.Round(x)/x-1) <= 1e-8 {
			break
		}
	}
	return gFormat(x) + unit
}

// baseNumber is a number parameter's value in its base unit, as
// pg_settings.setting shows it.
func baseNumber(m *pgSetting, shown string) string {
	f, err := parseNumber(m, shown)
	if err != nil {
		return shown
	}
	if m.vartype == "integer" {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return gFormat(f)
}

// gFormat is C's %g.
func gFormat(f float64) string {
	s := strconv.FormatFloat(f, 'g', 6, 64)
	if strings.Contains(s, "e") {
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		for len(digits) < 2 {
			digits = "0" + digits
		}
		return mant + "e" + string(sign) + digits
	}
	return s
}

// pgSettingsRow is a parameter's row of pg_settings for a session whose
// value is v, whose RESET value is reset and which set it from source
// ("client", "session", "" = not set).
func pgSettingsRow(g *guc, v, reset, source string) pgcatalog.Setting {
	m := g.meta
	st := pgcatalog.Setting{Name: g.name, Value: v, Default: g.def, ShortDesc: g.desc, ReadOnly: g.readOnly,
		Context: m.context, VarType: m.vartype, Category: m.category, Unit: m.unit, ExtraDesc: m.extra,
		Min: m.min, Max: m.max, EnumVals: m.enumvals, Boot: g.def, Reset: reset, Source: "default"}
	if m.vartype == "integer" || m.vartype == "real" {
		if d, err := checkNumber(m)(g.def); err == nil {
			st.Boot = d
		}
	}
	if m.vartype == "integer" || m.vartype == "real" {
		st.Value, st.Boot, st.Reset = baseNumber(m, v), baseNumber(m, g.def), baseNumber(m, reset)
	}
	switch {
	case source != "":
		st.Source = source
	case v != g.def:
		st.Source = "configuration file" // the server's own settings (BSDB_*)
	}
	return st
}
