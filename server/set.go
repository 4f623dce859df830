package server

import (
	"context"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// planSet handles SET, SET LOCAL (treated as SET), RESET and RESET ALL.
func (s *session) planSet(ctx context.Context, st *bsql.Statement) (plan, error) {
	vs := st.Tree.GetVariableSetStmt()
	if vs == nil {
		return nil, st.Unsupported()
	}
	if n := strings.ToLower(vs.Name); n == "role" || n == "session_authorization" {
		return s.planSetRole(vs), nil
	}
	tag := "SET"
	if vs.Kind == pg_query.VariableSetKind_VAR_RESET || vs.Kind == pg_query.VariableSetKind_VAR_RESET_ALL {
		tag = "RESET"
	}
	return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
		var changed []*guc
		switch vs.Kind {
		case pg_query.VariableSetKind_VAR_SET_MULTI:
			// SET TRANSACTION ... / SET SESSION CHARACTERISTICS: accepted;
			// every transaction is snapshot-isolated per statement.
		case pg_query.VariableSetKind_VAR_RESET_ALL:
			for _, g := range sortedNames() {
				if g.readOnly {
					continue
				}
				if _, err := s.set.reset(g.name); err == nil {
					changed = append(changed, g)
				}
			}
		case pg_query.VariableSetKind_VAR_RESET, pg_query.VariableSetKind_VAR_SET_DEFAULT:
			g, err := s.set.reset(vs.Name)
			if err != nil {
				return err
			}
			changed = append(changed, g)
		case pg_query.VariableSetKind_VAR_SET_VALUE:
			val, err := setValue(vs.Name, vs.Args)
			if err != nil {
				return err
			}
			g, err := s.set.set(vs.Name, val, false)
			if err != nil {
				return err
			}
			changed = append(changed, g)
		case pg_query.VariableSetKind_VAR_SET_CURRENT:
			// SET x FROM CURRENT: no-op.
		}
		if err := s.settingsChanged(ctx, w, changed); err != nil {
			return err
		}
		return w.Complete(tag)
	}}, nil
}

// setValue renders SET arguments as the setting's text value.
func setValue(name string, args []*pg_query.Node) (string, error) {
	var parts []string
	for _, a := range args {
		switch {
		case a.GetAConst() != nil:
			c := a.GetAConst()
			switch {
			case c.GetSval() != nil:
				parts = append(parts, c.GetSval().Sval)
			case c.GetIval() != nil:
				parts = append(parts, strconv.Itoa(int(c.GetIval().Ival)))
			case c.GetFval() != nil:
				parts = append(parts, c.GetFval().Fval)
			case c.GetBoolval() != nil:
				if c.GetBoolval().Boolval {
					parts = append(parts, "on")
				} else {
					parts = append(parts, "off")
				}
			case c.Isnull:
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": NULL", name)
			}
		case a.GetTypeCast() != nil:
			// SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE
			tc := a.GetTypeCast()
			if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
				parts = append(parts, c.GetSval().Sval)
			}
		case a.GetString_() != nil:
			parts = append(parts, a.GetString_().Sval)
		default:
			return "", pgerr.New(pgerr.SyntaxError, "unsupported value for SET %s", name)
		}
	}
	if strings.EqualFold(name, "search_path") {
		for i, p := range parts {
			if p == "" || p != strings.ToLower(p) || strings.ContainsAny(p, " ,\"") {
				parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
			}
		}
	}
	return strings.Join(parts, ", "), nil
}

// planShow handles SHOW name and SHOW ALL.
func (s *session) planShow(ctx context.Context, st *bsql.Statement, formats []int16) (plan, error) {
	vs := st.Tree.GetVariableShowStmt()
	if vs == nil {
		return nil, st.Unsupported()
	}
	if strings.EqualFold(vs.Name, "all") {
		p := &rowsPlan{cols: []resultCol{
			{name: "name", oid: pgtypes.OIDText, typmod: -1, format: formatOf(formats, 0)},
			{name: "setting", oid: pgtypes.OIDText, typmod: -1, format: formatOf(formats, 1)},
			{name: "description", oid: pgtypes.OIDText, typmod: -1, format: formatOf(formats, 2)},
		}, tag: "SHOW"}
		for _, g := range sortedNames() {
			if g.meta == nil {
				continue // is_superuser, role, ...: not shown (GUC_NO_SHOW_ALL)
			}
			v, _, _ := s.set.get(g.name)
			p.rows = append(p.rows, []string{g.name, v, g.desc})
		}
		return p, nil
	}
	name := vs.Name
	var v string
	switch strings.ToLower(name) {
	case "transaction isolation level", "transaction_isolation":
		name, v = "transaction_isolation", "read committed"
	default:
		val, g, err := s.set.get(vs.Name)
		if err != nil {
			return nil, err
		}
		if g != nil && gucs[strings.ToLower(g.name)] != nil {
			name = g.name // PostgreSQL names the column with the canonical spelling
		}
		v = val
	}
	return &rowsPlan{cols: []resultCol{{name: name, oid: pgtypes.OIDText, typmod: -1, format: formatOf(formats, 0)}}, rows: [][]string{{v}}, tag: "SHOW"}, nil
}

// settingsChanged applies the effects of changed settings: DuckDB's time
// zone, and ParameterStatus for the reported ones (each once).
func (s *session) settingsChanged(ctx context.Context, w pgwire.ResultWriter, changed []*guc) error {
	seen := map[*guc]bool{}
	for _, g := range changed {
		if seen[g] {
			continue
		}
		seen[g] = true
		if strings.EqualFold(g.name, "TimeZone") {
			_ = s.syncZone(ctx)
		}
		if g.reported {
			v, _, _ := s.set.get(g.name)
			if err := w.ParameterStatus(g.name, v); err != nil {
				return err
			}
		}
	}
	return nil
}
