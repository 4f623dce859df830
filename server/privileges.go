package server

import (
	"context"
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// Privilege checks. Every statement that turns a table name into a table
// goes through lookupTable / accessTable: the translator's binder for
// every table a query reads (FROM, joins, subqueries, CTE bodies, COPY
// (query) TO, COPY t TO, EXPLAIN, cursors, prepared statements and portals
// at each execution), INSERT's target, COPY FROM's target, TRUNCATE and
// DROP. Schema USAGE is checked at the name lookup (a qualified name in a
// schema without USAGE is 42501 at the reference; an unqualified name
// never resolves into such a schema, as PostgreSQL leaves those out of the
// search path), table privileges once the table is found. Superusers pass
// every check without reading ACLs.

// authz is the session's current role and the membership graph, for one
// check.
type authz struct {
	rs   *roleSnap
	m    acl.Context
	role uint32
}

func (a *authz) super() bool { return a.rs.superuser(a.role) }

// authz returns the session's role view. The current database's owner
// (implicitly a member of pg_database_owner) is read only for a role that
// is no superuser.
func (s *session) authz(ctx context.Context) (*authz, error) {
	return s.authzRole(ctx, s.currentRole)
}

// authzRole is authz for another role: a view's owner, whose privileges
// the relations read by the view's query are checked with.
func (s *session) authzRole(ctx context.Context, role uint32) (*authz, error) {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	a := &authz{rs: rs, role: role}
	if a.super() {
		a.m = rs.graph.In(0)
		return a, nil
	}
	var dba uint32
	if d, err := s.b.sec.database(ctx, s.db); err == nil {
		dba = d.owner
	} else if !errors.Is(err, catalog.ErrNotFound) {
		return nil, err
	}
	a.m = rs.graph.In(dba)
	return a, nil
}

// errPermission is PostgreSQL's aclcheck_error for ACLCHECK_NO_PRIV:
// "permission denied for table t". A table's is raised at execution in
// PostgreSQL, without a position: NoPosition keeps the translator from
// pointing at the reference.
func errPermission(kind, name string) *pgerr.Error {
	e := pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", kind, name)
	if kind == "table" || kind == "view" {
		e.NoPosition = true
	}
	return e
}

// errNotOwner is aclcheck_error for ACLCHECK_NOT_OWNER.
func errNotOwner(kind, name string) *pgerr.Error {
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", kind, name)
}

// owns is pg_*_ownercheck: a superuser, or a role with the owner's
// privileges.
func (a *authz) owns(owner uint32) bool { return a.m.HasPrivsOf(a.role, owner) }

// schemaMask is what the session holds among want on schema sc of the
// current database (ErrNotFound if there is no such schema).
func (s *session) schemaMask(ctx context.Context, a *authz, sc string, want acl.Mode) (acl.Mode, error) {
	if a.super() || sc == "pg_catalog" || sc == "information_schema" {
		return want & acl.Schema.AllRights(), nil
	}
	o, err := s.b.sec.schema(ctx, s.db, sc)
	if err != nil {
		return 0, err
	}
	return acl.ObjectMask(acl.Schema, o.acl, o.owner, a.role, want, a.m), nil
}

// usableSchema reports whether the session may look names up in schema sc
// (USAGE); a schema that does not exist is not usable.
func (s *session) usableSchema(ctx context.Context, a *authz, sc string) (bool, error) {
	m, err := s.schemaMask(ctx, a, sc, acl.Usage)
	if errors.Is(err, catalog.ErrNotFound) {
		return false, nil
	}
	return m != 0, err
}

// requireSchema checks want on an existing schema: 42501 "permission
// denied for schema s". A missing schema passes (the lookup that follows
// reports it).
func (s *session) requireSchema(ctx context.Context, a *authz, sc string, want acl.Mode) error {
	m, err := s.schemaMask(ctx, a, sc, want)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if m != want {
		return errPermission("schema", sc)
	}
	return nil
}

// tableMask is what the session holds among want on table id.
func (s *session) tableMask(ctx context.Context, a *authz, id catalog.TableID, want acl.Mode) (acl.Mode, error) {
	if a.super() {
		return want, nil
	}
	o, err := s.b.sec.table(ctx, id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return 0, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", id.Name)
		}
		return 0, err
	}
	return acl.ObjectMask(acl.Table, o.acl, o.owner, a.role, want, a.m), nil
}

// lookupTable resolves a table name as PostgreSQL's RangeVarGetRelid does
// for the session's role: a qualified name needs USAGE on its schema
// (42501, which the translator gives the reference's position); an
// unqualified one is searched in the schemas of the search path the role
// may use. It does not say whether the table exists.
func (s *session) lookupTable(ctx context.Context, schemaName, name string) (catalog.TableID, *authz, error) {
	return s.lookupTableAs(ctx, s.currentRole, schemaName, name)
}

// lookupTableAs is lookupTable for the privileges of role.
func (s *session) lookupTableAs(ctx context.Context, role uint32, schemaName, name string) (catalog.TableID, *authz, error) {
	a, err := s.authzRole(ctx, role)
	if err != nil {
		return catalog.TableID{}, nil, err
	}
	if schemaName != "" && !a.super() {
		if err := s.requireSchema(ctx, a, schemaName, acl.Usage); err != nil {
			return catalog.TableID{}, nil, err
		}
	}
	id, err := s.resolveAs(ctx, a, schemaName, name)
	return id, a, err
}

// lookupExisting is lookupTable for a relation that must exist: its
// security snapshot too, and PostgreSQL's 42P01 when there is none.
func (s *session) lookupExisting(ctx context.Context, rv *pg_query.RangeVar) (catalog.TableID, *authz, *objSnap, error) {
	id, a, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
	var o *objSnap
	if err == nil {
		o, err = s.b.sec.table(ctx, id)
	}
	if errors.Is(err, catalog.ErrNotFound) {
		err = pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
	}
	return id, a, o, err
}

// accessTable opens a table for an access that needs want (SELECT for a
// read, INSERT for a write, TRUNCATE): the one place where a statement's
// table references get their privilege check.
func (s *session) accessTable(ctx context.Context, schemaName, name string, want acl.Mode) (*planner.Table, error) {
	return s.accessTableAs(ctx, s.currentRole, schemaName, name, want)
}

// accessTableAs is accessTable for the privileges of role (a view's owner).
func (s *session) accessTableAs(ctx context.Context, role uint32, schemaName, name string, want acl.Mode) (*planner.Table, error) {
	if t := s.tempTable(schemaName, name); t != nil {
		return t, nil // the session's own (temp.go)
	}
	if s.tempView(schemaName, name) != nil {
		return nil, errViewTarget(name, want)
	}
	id, a, err := s.lookupTableAs(ctx, role, schemaName, name)
	if err != nil {
		return nil, err
	}
	if want&(acl.Insert|acl.Truncate) != 0 {
		if o, err := s.b.sec.table(ctx, id); err == nil && o.view != nil {
			return nil, errViewTarget(id.Name, want)
		}
	}
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable && schemaName == "" {
			// An unqualified name is reported as written, whatever
			// schema of the search path it was last looked for in.
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
		}
		return nil, err
	}
	if err := s.requireTable(ctx, a, t.ID, want); err != nil {
		return nil, err
	}
	return t, nil
}

// requireTable checks want on table id: 42501 "permission denied for
// table t".
func (s *session) requireTable(ctx context.Context, a *authz, id catalog.TableID, want acl.Mode) error {
	if a.super() {
		return nil
	}
	m, err := s.tableMask(ctx, a, id, want)
	if err != nil {
		return err
	}
	if m != want {
		return errPermission("table", id.Name)
	}
	return nil
}

// requireTableOwner allows DROP TABLE and ALTER TABLE: the owner of the
// table or of its schema (RangeVarCallbackForDropRelation).
func (s *session) requireTableOwner(ctx context.Context, a *authz, id catalog.TableID, orSchemaOwner bool) error {
	if a.super() {
		return nil
	}
	o, err := s.b.sec.table(ctx, id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return pgerr.New(pgerr.UndefinedTable, "table \"%s\" does not exist", id.Name)
		}
		return err
	}
	if a.owns(o.owner) {
		return nil
	}
	if orSchemaOwner {
		if so, err := s.b.sec.schema(ctx, id.Database, id.Schema); err == nil && a.owns(so.owner) {
			return nil
		}
	}
	return errNotOwner("table", id.Name)
}

// requireDatabase checks want on database db: 42501 "permission denied
// for database d".
func (s *session) requireDatabase(ctx context.Context, a *authz, db string, want acl.Mode) error {
	if a.super() {
		return nil
	}
	o, err := s.b.sec.database(ctx, db)
	if err != nil {
		return err
	}
	if acl.ObjectMask(acl.Database, o.acl, o.owner, a.role, want, a.m) != want {
		return errPermission("database", db)
	}
	return nil
}

// resolveAs is resolve for the role of a: schemas of the search path the
// role has no USAGE on are skipped (PostgreSQL's fetch_search_path).
func (s *session) resolveAs(ctx context.Context, a *authz, schemaName, name string) (catalog.TableID, error) {
	if schemaName != "" {
		return catalog.TableID{Database: s.db, Schema: schemaName, Name: name}, nil
	}
	path, err := s.searchPathFor(ctx, a)
	if err != nil {
		return catalog.TableID{}, err
	}
	for _, sc := range path {
		id := catalog.TableID{Database: s.db, Schema: sc, Name: name}
		if s.eng.IsOpen(id) {
			return id, nil // open tables are in the catalog: no read
		}
		if _, err := s.eng.Catalog().Table(ctx, id); err == nil {
			return id, nil
		}
	}
	first := "public"
	if len(path) > 0 {
		first = path[0]
	}
	return catalog.TableID{Database: s.db, Schema: first, Name: name}, nil
}

// searchPathFor is the search path as the role of a uses it: "$user" is
// the current role's name, kept only when such a schema exists, and a role
// that is no superuser leaves out the schemas it has no USAGE on.
func (s *session) searchPathFor(ctx context.Context, a *authz) ([]string, error) {
	var out []string
	for _, e := range s.set.searchPathEntries() {
		name := e.name
		if e.user {
			name = s.currentRoleName(a.rs)
		}
		switch {
		case a.super() && !e.user:
			out = append(out, name)
			continue
		case a.super():
			if _, err := s.b.sec.schema(ctx, s.db, name); err != nil {
				if errors.Is(err, catalog.ErrNotFound) {
					continue
				}
				return nil, err
			}
		default:
			if ok, err := s.usableSchema(ctx, a, name); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
		}
		out = append(out, name)
	}
	return out, nil
}

// currentRoleName is current_user.
func (s *session) currentRoleName(rs *roleSnap) string {
	if n, ok := rs.name(s.currentRole); ok {
		return n
	}
	return s.user
}

// sessionRoleName is session_user.
func (s *session) sessionRoleName(rs *roleSnap) string {
	if n, ok := rs.name(s.sessionRole); ok {
		return n
	}
	return s.user
}
