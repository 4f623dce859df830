package server

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// The privilege inquiry functions (has_table_privilege,
// has_schema_privilege, has_database_privilege, has_column_privilege,
// has_any_column_privilege, pg_has_role) and current_user /
// session_user, answered from the roles and ACLs of the catalog for the
// calling session (session functions, sessionfuncs.go). Arguments name
// objects and roles by name (text) or OID, as in PostgreSQL; a name that
// does not exist is an error (42P01, 3F000, 3D000, 42704), an OID that
// does not exist gives NULL. Privilege lists are PostgreSQL's: comma
// separated, case-insensitive, "WITH GRANT OPTION" (pg_has_role: "WITH
// ADMIN OPTION") allowed; the answer is true when any listed privilege is
// held. Column privileges do not exist here: the column functions answer
// for the table.

// privFuncSets are the DuckDB overloads of each function: every mix of a
// name (VARCHAR) or an OID (BIGINT) for the role and object arguments.
func privFuncSets() (map[string][]duckdb.ScalarFunc, error) {
	vc, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if err != nil {
		return nil, err
	}
	bi, _ := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	bo, _ := duckdb.NewTypeInfo(duckdb.TYPE_BOOLEAN)
	in, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTEGER)
	ref := []duckdb.TypeInfo{vc, bi}
	sets := map[string][]duckdb.ScalarFunc{}
	add := func(name string, fn func(context.Context, *session, []driver.Value) (any, error), extra ...[]duckdb.TypeInfo) {
		// (object, priv) and (role, object, priv), extra arguments (a
		// column) after the object.
		var shapes [][]duckdb.TypeInfo
		for _, obj := range ref {
			shapes = append(shapes, []duckdb.TypeInfo{obj})
			for _, role := range ref {
				shapes = append(shapes, []duckdb.TypeInfo{role, obj})
			}
		}
		for _, sh := range shapes {
			variants := [][]duckdb.TypeInfo{sh}
			for _, ex := range extra {
				variants = nil
				for _, e := range ex {
					variants = append(variants, append(append([]duckdb.TypeInfo{}, sh...), e))
				}
			}
			for _, v := range variants {
				sets[name] = append(sets[name], &sessionFunc{in: append(v, vc), out: bo, fn: fn})
			}
		}
	}
	add("has_table_privilege", fnHasTablePrivilege)
	add("has_any_column_privilege", fnHasTablePrivilege)
	add("has_column_privilege", fnHasColumnPrivilege, []duckdb.TypeInfo{vc, in})
	add("has_schema_privilege", fnHasSchemaPrivilege)
	add("has_database_privilege", fnHasDatabasePrivilege)
	add("pg_has_role", fnPgHasRole)
	sets["current_user"] = []duckdb.ScalarFunc{&sessionFunc{out: vc, fn: fnCurrentUser}}
	sets["session_user"] = []duckdb.ScalarFunc{&sessionFunc{out: vc, fn: fnSessionUser}}
	return sets, nil
}

func fnCurrentUser(ctx context.Context, s *session, _ []driver.Value) (any, error) {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return s.currentRoleName(rs), nil
}

func fnSessionUser(ctx context.Context, s *session, _ []driver.Value) (any, error) {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return s.sessionRoleName(rs), nil
}

// privArgs splits a call's arguments into (role, object, extra..., priv);
// nil role = the current role. ok is false when an argument is NULL.
func privArgs(args []driver.Value, width int) (role driver.Value, obj driver.Value, priv string, ok bool) {
	for _, a := range args {
		if a == nil {
			return nil, nil, "", false
		}
	}
	priv, _ = args[len(args)-1].(string)
	if len(args) == width+1 {
		return args[0], args[1], priv, true
	}
	return nil, args[0], priv, true
}

// authzFor is the role view for role (nil: the session's current role).
func (s *session) authzFor(ctx context.Context, role driver.Value) (*authz, error) {
	a, err := s.authz(ctx)
	if err != nil || role == nil {
		return a, err
	}
	var oid uint32
	switch v := role.(type) {
	case string:
		r := a.rs.byName[v]
		if r == nil {
			return nil, errNoRole(v)
		}
		oid = r.OID
	case int64:
		oid = uint32(v)
	default:
		return nil, fmt.Errorf("BUG: role argument %T", role)
	}
	if oid == a.role {
		return a, nil
	}
	out := &authz{rs: a.rs, role: oid}
	var dba uint32
	if d, err := s.b.sec.database(ctx, s.db); err == nil {
		dba = d.owner
	}
	out.m = a.rs.graph.In(dba)
	return out, nil
}

// parsePrivs reads a privilege list against the names valid for one kind
// of object: 22023 "unrecognized privilege type" otherwise.
func parsePrivs(list string, valid map[string]acl.Mode, option string) (acl.Mode, error) {
	var m acl.Mode
	for _, item := range strings.Split(list, ",") {
		p := strings.ToLower(strings.Join(strings.Fields(item), " "))
		grant := false
		if base, ok := strings.CutSuffix(p, " "+option); ok {
			p, grant = base, true
		}
		bit, ok := valid[p]
		if !ok {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(item))
		}
		if grant {
			m |= acl.GrantOption(bit)
		} else {
			m |= bit
		}
	}
	return m, nil
}

var (
	tablePrivNames = map[string]acl.Mode{"select": acl.Select, "insert": acl.Insert, "update": acl.Update, "delete": acl.Delete,
		"truncate": acl.Truncate, "references": acl.References, "trigger": acl.Trigger}
	columnPrivNames   = map[string]acl.Mode{"select": acl.Select, "insert": acl.Insert, "update": acl.Update, "references": acl.References}
	schemaPrivNames   = map[string]acl.Mode{"create": acl.Create, "usage": acl.Usage}
	databasePrivNames = map[string]acl.Mode{"create": acl.Create, "connect": acl.Connect, "temporary": acl.Temp, "temp": acl.Temp}
	// pg_has_role's "privileges": USAGE is the role's privileges, MEMBER
	// membership (SET ROLE).
	rolePrivNames = map[string]acl.Mode{"usage": acl.Usage, "member": acl.Connect}
)

func fnHasTablePrivilege(ctx context.Context, s *session, args []driver.Value) (any, error) {
	role, obj, priv, ok := privArgs(args, 2)
	if !ok {
		return nil, nil
	}
	return s.hasTablePrivilege(ctx, role, obj, priv, tablePrivNames)
}

func fnHasColumnPrivilege(ctx context.Context, s *session, args []driver.Value) (any, error) {
	if len(args) == 4 {
		args = append(args[:2:2], args[3])
	} else {
		args = append(args[:1:1], args[2])
	}
	role, obj, priv, ok := privArgs(args, 2)
	if !ok {
		return nil, nil
	}
	return s.hasTablePrivilege(ctx, role, obj, priv, columnPrivNames)
}

func (s *session) hasTablePrivilege(ctx context.Context, role, obj driver.Value, priv string, valid map[string]acl.Mode) (any, error) {
	a, err := s.authzFor(ctx, role)
	if err != nil {
		return nil, err
	}
	// The object is looked up first, then the privilege list is read.
	wantFn := func() (acl.Mode, error) { return parsePrivs(priv, valid, "with grant option") }
	var id catalog.TableID
	switch v := obj.(type) {
	case string:
		parts, err := splitQualifiedName(v)
		if err != nil {
			return nil, err
		}
		sc, name := "", parts[len(parts)-1]
		if len(parts) > 1 {
			sc = parts[len(parts)-2]
		}
		if pgcatalog.IsSystemSchema(sc) || sc == "" && strings.HasPrefix(name, "pg_") {
			if _, _, ok := pgcatalog.Lookup(sc, name); ok {
				want, err := wantFn()
				if err != nil {
					return nil, err
				}
				return systemTablePrivilege(a, name, want), nil
			}
		}
		if id, _, err = s.lookupTable(ctx, sc, name); err != nil {
			return nil, err
		}
		if _, err := s.b.sec.table(ctx, id); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", v)
			}
			return nil, err
		}
	case int64:
		found, ok, err := s.b.sec.tableByOID(ctx, s.eng, s.db, uint32(v))
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, name, ok := pgcatalog.SystemRelation(uint32(v)); ok {
				want, err := wantFn()
				if err != nil {
					return nil, err
				}
				return systemTablePrivilege(a, name, want), nil
			}
			return nil, nil
		}
		id = found
	}
	want, err := wantFn()
	if err != nil {
		return nil, err
	}
	m, err := s.tableMask(ctx, a, id, want)
	if err != nil {
		return nil, err
	}
	return m != 0, nil
}

// systemTablePrivilege: PUBLIC may read the system catalogs but
// pg_authid (which holds the passwords: superusers and pg_read_all_data
// only); nobody but a superuser may write them.
func systemTablePrivilege(a *authz, name string, want acl.Mode) bool {
	if a.super() {
		return true
	}
	if name == "pg_authid" {
		return want&acl.Select != 0 && a.m.HasPrivsOf(a.role, acl.RoleReadAllData)
	}
	return want&acl.Select != 0
}

func fnHasSchemaPrivilege(ctx context.Context, s *session, args []driver.Value) (any, error) {
	role, obj, priv, ok := privArgs(args, 2)
	if !ok {
		return nil, nil
	}
	a, err := s.authzFor(ctx, role)
	if err != nil {
		return nil, err
	}
	var name string
	switch v := obj.(type) {
	case string:
		name = v
		if !pgcatalog.IsSystemSchema(name) {
			if _, err := s.b.sec.schema(ctx, s.db, name); errors.Is(err, catalog.ErrNotFound) {
				return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			} else if err != nil {
				return nil, err
			}
		}
	case int64:
		var found bool
		for _, sc := range append([]string{"pg_catalog", "information_schema"}, s.schemaNames(ctx)...) {
			if pgcatalog.SchemaOID(sc) == uint32(v) {
				name, found = sc, true
			}
		}
		if !found {
			return nil, nil
		}
	}
	want, err := parsePrivs(priv, schemaPrivNames, "with grant option")
	if err != nil {
		return nil, err
	}
	if pgcatalog.IsSystemSchema(name) {
		return a.super() || want&acl.Usage != 0, nil
	}
	m, err := s.schemaMask(ctx, a, name, want)
	if err != nil {
		return nil, err
	}
	return m != 0, nil
}

func (s *session) schemaNames(ctx context.Context) []string {
	names, _ := s.eng.Catalog().ListSchemas(ctx, s.db)
	return names
}

func fnHasDatabasePrivilege(ctx context.Context, s *session, args []driver.Value) (any, error) {
	role, obj, priv, ok := privArgs(args, 2)
	if !ok {
		return nil, nil
	}
	a, err := s.authzFor(ctx, role)
	if err != nil {
		return nil, err
	}
	var name string
	switch v := obj.(type) {
	case string:
		name = v
	case int64:
		dbs, err := s.eng.Catalog().ListDatabases(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range dbs {
			if pgcatalog.DatabaseOID(d) == uint32(v) {
				name = d
			}
		}
		if name == "" {
			return nil, nil
		}
	}
	o, err := s.b.sec.database(ctx, name)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", name)
	}
	if err != nil {
		return nil, err
	}
	want, err := parsePrivs(priv, databasePrivNames, "with grant option")
	if err != nil {
		return nil, err
	}
	return acl.ObjectMask(acl.Database, o.acl, o.owner, a.role, want, a.m) != 0, nil
}

func fnPgHasRole(ctx context.Context, s *session, args []driver.Value) (any, error) {
	role, obj, priv, ok := privArgs(args, 2)
	if !ok {
		return nil, nil
	}
	a, err := s.authzFor(ctx, role)
	if err != nil {
		return nil, err
	}
	var target uint32
	switch v := obj.(type) {
	case string:
		r := a.rs.byName[v]
		if r == nil {
			return nil, errNoRole(v)
		}
		target = r.OID
	case int64:
		target = uint32(v)
	}
	// "WITH GRANT OPTION" is accepted for "WITH ADMIN OPTION".
	norm := strings.Join(strings.Fields(strings.ToLower(priv)), " ")
	want, err := parsePrivs(strings.ReplaceAll(norm, "with grant option", "with admin option"), rolePrivNames, "with admin option")
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "%s", strings.Replace(err.Error(), " (SQLSTATE 22023)", "", 1))
	}
	// pg_role_aclcheck: WITH ADMIN OPTION asks for admin rights; USAGE
	// for the role's privileges; MEMBER for membership.
	if want.Options() != 0 && a.m.IsAdminOf(a.role, target) {
		return true, nil
	}
	if want&acl.Usage != 0 && a.m.HasPrivsOf(a.role, target) {
		return true, nil
	}
	if want&acl.Connect != 0 && a.m.IsMemberOf(a.role, target) {
		return true, nil
	}
	return false, nil
}

// splitQualifiedName splits a (possibly quoted, possibly qualified) name
// as PostgreSQL's stringToQualifiedNameList: unquoted parts lower-cased.
func splitQualifiedName(s string) ([]string, error) {
	var parts []string
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var part strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			for {
				if i >= len(s) {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid name syntax")
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						part.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				part.WriteByte(s[i])
				i++
			}
		} else {
			for i < len(s) && s[i] != '.' && s[i] != ' ' {
				part.WriteString(strings.ToLower(s[i : i+1]))
				i++
			}
			if part.Len() == 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid name syntax")
			}
		}
		parts = append(parts, part.String())
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] != '.' {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid name syntax")
		}
		i++
	}
	if len(parts) > 3 {
		return nil, pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", s)
	}
	return parts, nil
}
