package server

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// planLock runs LOCK [TABLE] name [, ...] [IN mode MODE] [NOWAIT], which
// pg_dump sends for every table it dumps (IN ACCESS SHARE MODE). It checks
// what PostgreSQL checks (a transaction block, that each table exists, the
// privilege the mode needs: LockTableAclCheck) and takes no lock: a table
// here is immutable files plus an append-only buffer, a statement reads a
// snapshot, and DDL does not run concurrently with a reader's snapshot, so
// there is nothing a lock would keep out that a reader could see.
func (s *session) planLock(st *bsql.Statement) (plan, bool, error) {
	ls := st.Tree.GetLockStmt()
	if ls == nil {
		return nil, false, nil
	}
	if !s.inBlock() {
		return nil, true, pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	// lockmode: 1 AccessShare ... 8 AccessExclusive (lockdefs.h).
	var want acl.Mode
	switch ls.Mode {
	case 1:
		want = acl.Select
	case 3:
		want = acl.Insert | acl.Update | acl.Delete | acl.Truncate
	default:
		want = acl.Update | acl.Delete | acl.Truncate
	}
	return tagOnly("LOCK TABLE", func(ctx context.Context) error {
		for _, r := range ls.Relations {
			rv := r.GetRangeVar()
			if rv == nil {
				continue
			}
			if err := s.checkLockable(ctx, rv, want); err != nil {
				return err
			}
		}
		return nil
	}), true, nil
}

func (s *session) checkLockable(ctx context.Context, rv *pg_query.RangeVar, want acl.Mode) error {
	id, a, _, err := s.lookupExisting(ctx, rv)
	if err != nil {
		return err
	}
	m, err := s.tableMask(ctx, a, id, want)
	if err != nil {
		return err
	}
	if m == 0 {
		return errPermission("table", id.Name)
	}
	return nil
}
