package sql

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Set is SET [LOCAL|SESSION] name {TO|=} value[, ...] | DEFAULT, and the
// special forms SET TIME ZONE, SET NAMES, SET SCHEMA, SET TRANSACTION ...
type Set struct {
	Name    string   // lower-case GUC name ("timezone", "search_path", ...)
	Values  []string // the values as text (strings unquoted, numbers as written)
	Local   bool
	Default bool // SET x TO DEFAULT (= RESET x)
	// Transaction is set for SET TRANSACTION / SET SESSION CHARACTERISTICS:
	// their options (isolation level, read only) are accepted and ignored.
	Transaction bool
}

// Show is SHOW name (lower-case; "all" for SHOW ALL).
type Show struct{ Name string }

// Reset is RESET name | RESET ALL.
type Reset struct {
	Name string
	All  bool
}

// Explain is EXPLAIN [ANALYZE] [VERBOSE] query.
type Explain struct {
	Query   *pg_query.Node
	Analyze bool
	Verbose bool
}

// Prepare is SQL-level PREPARE name [(types)] AS query.
type Prepare struct {
	Name      string
	ParamOIDs []uint32
	Query     *pg_query.Node
}

// Execute is SQL-level EXECUTE name [(params)].
type Execute struct {
	Name   string
	Params []*pg_query.Node
}

// Deallocate is DEALLOCATE [PREPARE] name | ALL.
type Deallocate struct {
	Name string
	All  bool
}

// TranslateSet translates SET.
func TranslateSet(stmt *pg_query.Node) (*Set, error) {
	vs := stmt.GetVariableSetStmt()
	if vs == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateSet on %T", stmt.GetNode())
	}
	s := &Set{Name: strings.ToLower(vs.Name), Local: vs.IsLocal}
	switch vs.Kind {
	case pg_query.VariableSetKind_VAR_SET_DEFAULT:
		s.Default = true
	case pg_query.VariableSetKind_VAR_SET_CURRENT:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SET ... FROM CURRENT is not supported")
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		s.Transaction = true
		return s, nil
	}
	for _, a := range vs.Args {
		v, err := setValue(a)
		if err != nil {
			return nil, err
		}
		s.Values = append(s.Values, v)
	}
	return s, nil
}

func setValue(n *pg_query.Node) (string, error) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		switch c := v.AConst.Val.(type) {
		case *pg_query.A_Const_Sval:
			return c.Sval.Sval, nil
		case *pg_query.A_Const_Ival:
			return fmt.Sprint(c.Ival.Ival), nil
		case *pg_query.A_Const_Fval:
			return c.Fval.Fval, nil
		case *pg_query.A_Const_Boolval:
			if c.Boolval.Boolval {
				return "on", nil
			}
			return "off", nil
		}
	case *pg_query.Node_TypeCast:
		// SET TIME ZONE INTERVAL '...' HOUR TO MINUTE
		return setValue(v.TypeCast.Arg)
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "unsupported SET value %s", nodeName(n))
}

// TranslateShow translates SHOW.
func TranslateShow(stmt *pg_query.Node) (*Show, error) {
	s := stmt.GetVariableShowStmt()
	if s == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateShow on %T", stmt.GetNode())
	}
	return &Show{Name: strings.ToLower(s.Name)}, nil
}

// TranslateReset translates RESET.
func TranslateReset(stmt *pg_query.Node) (*Reset, error) {
	vs := stmt.GetVariableSetStmt()
	if vs == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateReset on %T", stmt.GetNode())
	}
	return &Reset{Name: strings.ToLower(vs.Name), All: vs.Kind == pg_query.VariableSetKind_VAR_RESET_ALL}, nil
}

// TranslateExplain translates EXPLAIN.
func TranslateExplain(stmt *pg_query.Node) (*Explain, error) {
	es := stmt.GetExplainStmt()
	if es == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateExplain on %T", stmt.GetNode())
	}
	e := &Explain{Query: es.Query}
	for _, o := range es.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		on, err := defBool(d)
		if err != nil {
			return nil, err
		}
		switch d.Defname {
		case "analyze":
			e.Analyze = on
		case "verbose":
			e.Verbose = on
		case "costs", "buffers", "timing", "summary", "settings", "wal", "format", "generic_plan", "memory", "serialize":
			// accepted, ignored
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option \"%s\"", d.Defname).WithPosition(int(d.Location) + 1)
		}
	}
	return e, nil
}

// TranslatePrepare translates SQL-level PREPARE.
func TranslatePrepare(stmt *pg_query.Node) (*Prepare, error) {
	ps := stmt.GetPrepareStmt()
	if ps == nil {
		return nil, fmt.Errorf("BUG: sql: TranslatePrepare on %T", stmt.GetNode())
	}
	p := &Prepare{Name: ps.Name, Query: ps.Query}
	for _, a := range ps.Argtypes {
		oid, _, err := ResolveTypeName(a.GetTypeName())
		if err != nil {
			return nil, err
		}
		p.ParamOIDs = append(p.ParamOIDs, oid)
	}
	return p, nil
}

// TranslateExecute translates SQL-level EXECUTE.
func TranslateExecute(stmt *pg_query.Node) (*Execute, error) {
	es := stmt.GetExecuteStmt()
	if es == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateExecute on %T", stmt.GetNode())
	}
	return &Execute{Name: es.Name, Params: es.Params}, nil
}

// TranslateDeallocate translates DEALLOCATE.
func TranslateDeallocate(stmt *pg_query.Node) (*Deallocate, error) {
	ds := stmt.GetDeallocateStmt()
	if ds == nil {
		return nil, fmt.Errorf("BUG: sql: TranslateDeallocate on %T", stmt.GetNode())
	}
	return &Deallocate{Name: ds.Name, All: ds.Isall}, nil
}
