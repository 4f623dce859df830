package server

import (
	"context"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// planVacuum runs VACUUM FULL [table, ...]: PostgreSQL's statement that
// rewrites a table's files. Tables are append-only here, so there is
// nothing to reclaim; what it rewrites are the data files that hold text
// that is not valid UTF-8 (or a NUL), which versions before the input
// checks stored and which no query can read back (txn.RepairText: each
// run of invalid bytes becomes U+FFFD). Without a table it does every
// table of the database. A NOTICE says what was repaired.
//
// Plain VACUUM and ANALYZE (planLightVacuum) check their tables and do
// nothing else: a table here is immutable Parquet files plus a buffer, so
// there are no dead rows to reclaim, and the engine keeps no statistics to
// refresh. (The table maintenance that compacts small files is its own
// work, not VACUUM's yet.)
func (s *session) planVacuum(st *bsql.Statement) (plan, bool, error) {
	vs := st.Tree.GetVacuumStmt()
	if vs == nil {
		return nil, false, nil
	}
	if !vs.IsVacuumcmd || !vacuumFull(vs) {
		return s.planLightVacuum(vs)
	}
	for _, r := range vs.Rels {
		if vr := r.GetVacuumRelation(); vr != nil && len(vr.VaCols) > 0 {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ANALYZE option must be specified when a column list is provided")
		}
	}
	if s.tx != nil {
		return nil, true, pgerr.New(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
	}
	return tagOnly("VACUUM", func(ctx context.Context) error {
		var ids []catalog.TableID
		for _, r := range vs.Rels {
			rv := r.GetVacuumRelation().GetRelation()
			if rv == nil {
				continue
			}
			id, err := s.resolve(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if len(vs.Rels) == 0 {
			entries, err := s.eng.ListTables(ctx, s.db)
			if err != nil {
				return err
			}
			for _, e := range entries {
				ids = append(ids, e.ID)
			}
		}
		for _, id := range ids {
			t, err := s.eng.Table(ctx, id)
			if err != nil {
				return err
			}
			res, err := t.T.RepairText(ctx)
			if err != nil {
				return err
			}
			if res.Values > 0 {
				_ = s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
					Message: fmt.Sprintf("table \"%s\": %d text values that were not valid UTF-8 repaired (U+FFFD) in %d data files", id.Name, res.Values, res.Files)})
			}
		}
		return nil
	}), true, nil
}

// planLightVacuum is VACUUM without FULL, and ANALYZE: PostgreSQL's
// errors for a table that does not exist and for VACUUM in a transaction
// block, then nothing to do.
func (s *session) planLightVacuum(vs *pg_query.VacuumStmt) (plan, bool, error) {
	tag := "ANALYZE"
	if vs.IsVacuumcmd {
		tag = "VACUUM"
		if s.tx != nil && !s.tx.implicit {
			return nil, true, pgerr.New(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
		}
	}
	return tagOnly(tag, func(ctx context.Context) error {
		for _, r := range vs.Rels {
			rv := r.GetVacuumRelation().GetRelation()
			if rv == nil {
				continue
			}
			id, err := s.resolve(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return err
			}
			if _, err := s.eng.Catalog().Table(ctx, id); err != nil {
				return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
			}
		}
		return nil
	}), true, nil
}

// vacuumFull reports whether a VACUUM has the FULL option (VACUUM FULL,
// VACUUM (FULL), VACUUM (FULL true)).
func vacuumFull(vs *pg_query.VacuumStmt) bool {
	for _, o := range vs.Options {
		d := o.GetDefElem()
		if d == nil || !strings.EqualFold(d.Defname, "full") {
			continue
		}
		if d.Arg == nil {
			return true
		}
		switch v := strings.ToLower(defElemText(d.Arg)); v {
		case "false", "off", "0":
			return false
		}
		return true
	}
	return false
}

// defElemText is the text of an option's value (a string, a number or a
// boolean).
func defElemText(n *pg_query.Node) string {
	switch {
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetInteger() != nil:
		return fmt.Sprint(n.GetInteger().Ival)
	case n.GetBoolean() != nil:
		return fmt.Sprint(n.GetBoolean().Boolval)
	case n.GetAConst() != nil:
		c := n.GetAConst()
		switch {
		case c.GetSval() != nil:
			return c.GetSval().Sval
		case c.GetIval() != nil:
			return fmt.Sprint(c.GetIval().Ival)
		case c.GetBoolval() != nil:
			return fmt.Sprint(c.GetBoolval().Boolval)
		}
	}
	return ""
}
