package server

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// System catalogs (package pgcatalog): on first use, the session creates
// the catalog relations and function macros on its DuckDB connection (the
// static relations once per database), and the binder refreshes the dynamic relations (pg_class, pg_attribute,
// pg_stat_activity, information_schema.columns, ...) from the storage
// catalog before the first system relation a statement reads.

func (s *session) facts() pgcatalog.Facts {
	return pgcatalog.Facts{Database: s.db, User: s.user, PID: s.info.PID, ServerVersion: ServerVersion, StartTime: s.b.start}
}

// sessionCatalog is a connection's system catalog state.
type sessionCatalog struct {
	ready bool                // SessionSetup has run on the connection
	ref   pgcatalog.Refresher // what the dynamic relations hold
}

// sharedCatalogs runs pgcatalog.SharedSetup once per DuckDB database.
var sharedCatalogs sync.Map // *sql.DB -> *sharedSetup

type sharedSetup struct {
	once sync.Once
	err  error
}

// ensureCatalog prepares the connection for catalog queries, on first use
// only: connections that never look at the catalog (pgbench, ETL) pay
// nothing.
func (s *session) ensureCatalog(ctx context.Context) error {
	if s.pgcat.ready {
		return nil
	}
	v, _ := sharedCatalogs.LoadOrStore(s.eng.DB(), &sharedSetup{})
	sh := v.(*sharedSetup)
	sh.once.Do(func() {
		for _, q := range pgcatalog.SharedSetup() {
			if _, err := s.eng.DB().ExecContext(context.WithoutCancel(ctx), q); err != nil {
				sh.err = fmt.Errorf("pg_catalog shared setup %.80q: %w", q, err)
				return
			}
		}
	})
	if sh.err != nil {
		return sh.err
	}
	for _, q := range pgcatalog.SessionSetup(s.facts()) {
		if err := s.execDuck(ctx, q); err != nil {
			return fmt.Errorf("pg_catalog setup %.80q: %w", q, err)
		}
	}
	s.pgcat.ready = true
	return nil
}

// PrepareSystem implements sql.SystemPreparer: the macros read the dynamic
// relations ('t'::regclass looks t up in pg_class along the search path),
// so they are refreshed as for a query reading them.
func (b *binder) PrepareSystem() error {
	if err := b.s.ensureCatalog(b.ctx); err != nil {
		return err
	}
	if b.sysFresh {
		return nil
	}
	if err := b.s.refreshCatalog(b.ctx); err != nil {
		return err
	}
	b.sysFresh = true
	return nil
}

// lookupSystem resolves schema.name as a system relation. handled is false
// when schema is not a system schema and name is not a catalog relation.
func (b *binder) lookupSystem(schema, name string) (info *bsql.TableInfo, handled bool, err error) {
	if !pgcatalog.IsSystemSchema(schema) {
		return nil, false, nil
	}
	cols, from, ok := pgcatalog.Lookup(schema, name)
	if !ok {
		return nil, true, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	if name == "pg_authid" && !b.describeOnly {
		// It holds the passwords: superusers only, as in PostgreSQL.
		a, err := b.s.authz(b.ctx)
		if err != nil {
			return nil, true, err
		}
		if !systemTablePrivilege(a, name, acl.Select) {
			return nil, true, errPermission("table", name)
		}
	}
	if !b.sysFresh {
		if err := b.s.ensureCatalog(b.ctx); err != nil {
			return nil, true, err
		}
		if err := b.s.refreshCatalog(b.ctx); err != nil {
			return nil, true, err
		}
		b.sysFresh = true
	}
	info = &bsql.TableInfo{Schema: schema, Name: name, FromSQL: from, OID: pgcatalog.RelationOID(schema, name)}
	for _, c := range cols {
		info.Columns = append(info.Columns, bsql.ColumnInfo{Name: c.Name, TypeOID: c.TypeOID, TypeMod: -1})
	}
	return info, true, nil
}

// refreshCatalog rebuilds the dynamic catalog relations from a snapshot of
// the storage catalog and the server's sessions.
func (s *session) refreshCatalog(ctx context.Context) error {
	snap, err := s.catalogSnapshot(ctx)
	if err != nil {
		return err
	}
	for _, q := range s.pgcat.ref.Statements(snap, s.facts()) {
		if err := s.execDuck(ctx, q); err != nil {
			s.pgcat.ref.Reset()
			return fmt.Errorf("pg_catalog refresh %.80q: %w", q, err)
		}
	}
	return nil
}

func (s *session) catalogSnapshot(ctx context.Context) (*pgcatalog.Snapshot, error) {
	snap := &pgcatalog.Snapshot{Database: s.db, User: s.user, SearchPath: s.set.searchPath()}
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	a, err := s.authz(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.snapshotSecurity(ctx, snap, rs, a); err != nil {
		return nil, err
	}
	ents, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return nil, err
	}
	oids := make(map[catalog.TableID]uint32, len(ents))
	for _, e := range ents {
		oids[e.ID] = e.OID
	}
	for _, e := range ents {
		if e.IsView() {
			snap.Tables = append(snap.Tables, viewTable(&e, rs, a))
			continue
		}
		t, err := s.eng.Table(ctx, e.ID)
		if err != nil {
			continue // dropped meanwhile
		}
		pt := pgcatalog.Table{OID: e.OID, Schema: e.ID.Schema, Name: e.ID.Name, Owner: e.Owner, ACL: e.ACL.Format(rs.name), Comment: e.Comment}
		pt.PrimaryKey, pt.PKName = e.EffectiveKey(t.Schema.PrimaryKey)
		if a != nil && !a.super() {
			pt.Restricted, pt.Privileges = true, a.holds(acl.Table, e.Owner, e.ACL)
		}
		info := tableInfo(t)
		for _, c := range info.Columns {
			pt.Columns = append(pt.Columns, pgcatalog.Column{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod, NotNull: c.NotNull, Default: c.Default, Identity: c.Identity,
				Attnum: c.Attnum, Comment: e.ColumnComments[c.Name]})
		}
		pt.Indexes = pgIndexes(&e, info.Columns) // index.go
		pt.ForeignKeys = pgForeignKeys(&e, oids) // foreignkey.go
		pt.Checks = pgChecks(&e, info.Columns)   // checks.go
		snap.Tables = append(snap.Tables, pt)
	}
	if err := s.snapshotSequences(ctx, snap, rs); err != nil {
		return nil, err
	}
	if len(s.temp.tables) > 0 || len(s.temp.views) > 0 {
		ts := s.tempSchema()
		for _, e := range s.temp.views {
			snap.Tables = append(snap.Tables, viewTable(e, rs, nil))
		}
		snap.Schemas = append(snap.Schemas, ts)
		snap.SchemaACL[ts] = pgcatalog.Object{Owner: s.currentRole}
		snap.SearchPath = append([]string{ts}, snap.SearchPath...)
		for _, t := range s.tempTablesSorted() {
			pt := pgcatalog.Table{OID: t.Entry.OID, Schema: ts, Name: t.ID.Name, Owner: t.Entry.Owner, Comment: t.Entry.Comment}
			info := tableInfo(t)
			for _, c := range info.Columns {
				pt.Columns = append(pt.Columns, pgcatalog.Column{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod, NotNull: c.NotNull, Default: c.Default, Identity: c.Identity,
					Attnum: c.Attnum, Comment: t.Entry.ColumnComments[c.Name]})
			}
			pt.Indexes = pgIndexes(&t.Entry, info.Columns)
			pt.Checks = pgChecks(&t.Entry, info.Columns)
			snap.Tables = append(snap.Tables, pt)
		}
	}
	for k, g := range gucs {
		v, _, err := s.set.get(g.name)
		if err != nil || g.meta == nil {
			continue // pg_settings leaves out is_superuser, role, ... (GUC_NO_SHOW_ALL)
		}
		reset, ok := s.set.base[k]
		if !ok {
			reset = g.def
		}
		snap.Settings = append(snap.Settings, pgSettingsRow(g, v, reset, s.set.source[k]))
	}
	sort.Slice(snap.Settings, func(i, j int) bool { return snap.Settings[i].Name < snap.Settings[j].Name })
	if s.b.Server != nil {
		if srv := s.b.Server(); srv != nil {
			for _, si := range srv.Sessions() {
				ps := pgcatalog.Session{PID: si.PID, Database: si.Database, User: si.User, ApplicationName: si.ApplicationName,
					State: si.State, Query: si.Query, BackendStart: si.BackendStart, QueryStart: si.QueryStart, StateChange: si.StateChange}
				if si.ClientAddr != nil {
					ps.ClientAddr = si.ClientAddr.String()
				}
				snap.Sessions = append(snap.Sessions, ps)
			}
		}
	}
	return snap, nil
}

// snapshotSecurity adds the databases and schemas with their owners and
// ACLs, the roles and the memberships to a catalog snapshot.
func (s *session) snapshotSecurity(ctx context.Context, snap *pgcatalog.Snapshot, rs *roleSnap, a *authz) error {
	for _, r := range rs.stored.Roles {
		snap.Roles = append(snap.Roles, pgcatalog.Role{OID: r.OID, Name: r.Name, Super: r.Super, Inherit: r.Inherit,
			CreateRole: r.CreateRole, CreateDB: r.CreateDB, Login: r.Login, Replication: r.Replication, BypassRLS: r.BypassRLS,
			ConnLimit: r.ConnLimit, Password: r.Password, ValidUntil: r.ValidUntil})
	}
	for _, m := range rs.stored.Members {
		snap.Members = append(snap.Members, pgcatalog.Member{Role: m.Role, Member: m.Member, Grantor: m.Grantor, Admin: m.Admin})
	}
	cat := s.eng.Catalog()
	dbs, err := cat.DatabaseRecords(ctx)
	if err != nil {
		return err
	}
	snap.DatabaseACL = map[string]pgcatalog.Object{}
	for _, d := range dbs {
		snap.Databases = append(snap.Databases, d.Name)
		snap.DatabaseACL[d.Name] = pgcatalog.Object{Owner: d.Owner, ACL: d.ACL.Format(rs.name)}
	}
	schemas, err := cat.SchemaRecords(ctx, s.db)
	if err != nil {
		return err
	}
	snap.SchemaACL = map[string]pgcatalog.Object{}
	for _, sc := range schemas {
		snap.Schemas = append(snap.Schemas, sc.Name)
		o := pgcatalog.Object{Owner: sc.Owner, ACL: sc.ACL.Format(rs.name)}
		if !a.super() {
			o.Restricted, o.Privileges = true, a.holds(acl.Schema, sc.Owner, sc.ACL)
		}
		snap.SchemaACL[sc.Name] = o
	}
	return nil
}

// holds is what the role of a holds on an object, for the
// information_schema views: every privilege when it has the owner's
// privileges (pg_has_role(owner, 'USAGE')).
func (a *authz) holds(t acl.ObjectType, owner uint32, list acl.ACL) acl.Mode {
	if a.owns(owner) {
		return t.AllRights()
	}
	return acl.ObjectMask(t, list, owner, a.role, t.AllRights(), a.m)
}

// viewTable is a view as the catalog relations show it.
func viewTable(e *catalog.Entry, rs *roleSnap, a *authz) pgcatalog.Table {
	pt := pgcatalog.Table{OID: e.OID, Schema: e.ID.Schema, Name: e.ID.Name, Owner: e.Owner, ACL: e.ACL.Format(rs.name), View: true, Comment: e.Comment}
	if a != nil && !a.super() {
		pt.Restricted, pt.Privileges = true, a.holds(acl.Table, e.Owner, e.ACL)
	}
	if e.View != nil {
		pt.ViewDef = viewDefinition(e.View.Query)
		for _, c := range e.View.Columns {
			pt.Columns = append(pt.Columns, pgcatalog.Column{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod, Comment: e.ColumnComments[c.Name]})
		}
	}
	return pt
}

// viewDefinition is the text pg_get_viewdef and pg_views show: the stored
// query, led by a space and ended by ";" as PostgreSQL prints it.
func viewDefinition(q string) string { return " " + q + ";" }
