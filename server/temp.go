package server

import (
	"context"
	"sort"
	"strconv"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Temporary tables (CREATE TEMP TABLE, CREATE TEMP TABLE ... AS, SELECT
// INTO TEMP): session-local tables in the session's schema pg_temp_N,
// searched before the search path as PostgreSQL does (so a temporary
// table hides a table of the same name), in memory only
// (planner.CreateTempTable: no warehouse, no catalog, no WAL on disk), and
// dropped when the session ends. ON COMMIT PRESERVE ROWS is the only
// action.

type tempState struct {
	n      int // N of pg_temp_N; 0 = no slot yet
	tables map[string]*planner.Table
	views  map[string]*catalog.Entry // temporary views (CREATE TEMP VIEW)
}

// tempSlots hands out the N of pg_temp_N: the lowest free one, as
// PostgreSQL's backend slot numbers.
var tempSlots struct {
	mu   sync.Mutex
	used map[int]bool
}

func (s *session) tempSchema() string {
	if s.temp.n == 0 {
		tempSlots.mu.Lock()
		if tempSlots.used == nil {
			tempSlots.used = map[int]bool{}
		}
		n := 3 // PostgreSQL's first client backend gets pg_temp_3
		for tempSlots.used[n] {
			n++
		}
		tempSlots.used[n] = true
		tempSlots.mu.Unlock()
		s.temp.n = n
	}
	return "pg_temp_" + strconv.Itoa(s.temp.n)
}

// isTempSchema reports whether a schema name means the session's
// temporary schema: pg_temp or its own pg_temp_N.
func (s *session) isTempSchema(name string) bool {
	return name == "pg_temp" || (s.temp.n != 0 && name == s.tempSchema())
}

// tempTable is the session's temporary table a (possibly qualified) name
// means, or nil.
func (s *session) tempView(schemaName, name string) *catalog.Entry {
	if len(s.temp.views) == 0 || (schemaName != "" && !s.isTempSchema(schemaName)) {
		return nil
	}
	return s.temp.views[name]
}

// createTempView is CREATE [OR REPLACE] TEMP VIEW: the view lives in the
// session only, in pg_temp_N.
func (s *session) createTempView(rv *pg_query.RangeVar, def *catalog.ViewDef, replace bool) error {
	if rv.Schemaname != "" && !s.isTempSchema(rv.Schemaname) {
		return pgerr.New("42P16", "cannot create temporary relation in non-temporary schema")
	}
	name := rv.Relname
	if s.temp.tables[name] != nil {
		if replace {
			return pgerr.New("42809", "\"%s\" is not a view", name)
		}
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if old := s.temp.views[name]; old != nil {
		if !replace {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
		}
		if err := checkViewColumns(old.View.Columns, def.Columns); err != nil {
			return err
		}
		old.View = def
		return nil
	}
	if s.temp.views == nil {
		s.temp.views = map[string]*catalog.Entry{}
	}
	s.temp.views[name] = &catalog.Entry{ID: catalog.TableID{Database: s.db, Schema: s.tempSchema(), Name: name},
		OID: planner.TempOID(), Owner: s.currentRole, Kind: catalog.KindView, View: def}
	return nil
}

func (s *session) tempTable(schemaName, name string) *planner.Table {
	if len(s.temp.tables) == 0 || (schemaName != "" && !s.isTempSchema(schemaName)) {
		return nil
	}
	return s.temp.tables[name]
}

// createTempTable creates a temporary table; created is false when it
// exists and ifNotExists.
func (s *session) createTempTable(ctx context.Context, schemaName, name string, sch *schema.Schema, ifNotExists bool) (*planner.Table, bool, error) {
	if schemaName != "" && !s.isTempSchema(schemaName) {
		return nil, false, pgerr.New("42P16", "cannot create temporary relation in non-temporary schema")
	}
	if s.temp.views[name] != nil {
		return nil, false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if t := s.temp.tables[name]; t != nil {
		if ifNotExists {
			return t, false, nil
		}
		return nil, false, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", name)
	}
	id := catalog.TableID{Database: s.db, Schema: s.tempSchema(), Name: name}
	t, err := s.eng.CreateTempTable(ctx, id, sch, s.currentRole)
	if err != nil {
		return nil, false, err
	}
	if s.temp.tables == nil {
		s.temp.tables = map[string]*planner.Table{}
	}
	s.temp.tables[name] = t
	return t, true, nil
}

// dropTempTable drops one temporary table.
func (s *session) dropTempTable(ctx context.Context, t *planner.Table) {
	delete(s.temp.tables, t.ID.Name)
	s.stmts.clear() // cached statements may name its mirror
	s.eng.DropTempTable(ctx, t)
}

// dropTempTables drops every temporary table of the session (its end,
// DISCARD ALL / TEMP) and frees its pg_temp_N.
func (s *session) dropTempTables(ctx context.Context) {
	s.temp.views = nil
	for _, t := range s.temp.tables {
		s.dropTempTable(ctx, t)
	}
	if s.temp.n != 0 {
		tempSlots.mu.Lock()
		delete(tempSlots.used, s.temp.n)
		tempSlots.mu.Unlock()
		s.temp.n = 0
	}
}

// tempTablesSorted lists the temporary tables by OID.
func (s *session) tempTablesSorted() []*planner.Table {
	out := make([]*planner.Table, 0, len(s.temp.tables))
	for _, t := range s.temp.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Entry.OID < out[j].Entry.OID })
	return out
}
