package server

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// A statement that writes a table takes the table's schema lock shared
// (planner.Engine.LockForWrite) before it reads the table's schema, and
// the session holds it until its transaction ends (for a statement
// outside one: until the statement, or the extended protocol's batch,
// ends). ALTER TABLE waits for the holders, and the writes that come
// after it run on the new schema, as PostgreSQL's locks order them.

// lockForWrite takes the schema lock of the table rv names, unless the
// session holds it. Temporary tables and unknown names need none (the
// statement reports an unknown name itself).
func (s *session) lockForWrite(ctx context.Context, rv *pg_query.RangeVar) error {
	if rv == nil || s.isTempSchema(rv.Schemaname) || rv.Schemaname == "" && s.tempTable("", rv.Relname) != nil {
		return nil
	}
	id, err := s.resolve(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil
	}
	if _, held := s.schemaLocks[id]; held {
		return nil
	}
	release, err := s.eng.LockForWrite(ctx, id)
	if err != nil {
		return err
	}
	if s.schemaLocks == nil {
		s.schemaLocks = map[catalog.TableID]func(){}
	}
	s.schemaLocks[id] = release
	return nil
}

// releaseSchemaLock gives up the session's lock of id, if it holds it (an
// ALTER of a table the session only planned a write to, in a transaction
// that has not written: it would otherwise wait for itself).
func (s *session) releaseSchemaLock(id catalog.TableID) {
	if release, ok := s.schemaLocks[id]; ok {
		release()
		delete(s.schemaLocks, id)
	}
}

// releaseSchemaLocks ends the session's hold on every schema lock (its
// transaction ended).
func (s *session) releaseSchemaLocks() {
	for id, release := range s.schemaLocks {
		release()
		delete(s.schemaLocks, id)
	}
}
