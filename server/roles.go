package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// Roles: CREATE / ALTER / DROP ROLE (USER, GROUP), ALTER ROLE ... RENAME
// TO, GRANT / REVOKE of role membership, with PostgreSQL 15's permission
// rules (user.c): a superuser may do anything; a role with CREATEROLE may
// create, alter, rename and drop roles that are not superusers (and not
// make them superusers, replication or bypassrls roles) and grant any
// membership in them; any role may change its own password; a member WITH
// ADMIN OPTION may grant and revoke membership in that role. Every change
// is one compare-and-swap of the catalog's role object.

// roleOptions are the options of CREATE ROLE / ALTER ROLE.
type roleOptions struct {
	super, inherit, createRole, createDB, login, replication, bypassRLS *bool
	connLimit                                                           *int32
	password                                                            *string // set: the option was given; "" with passwordNull: PASSWORD NULL
	passwordNull                                                        bool
	validUntil                                                          *string
	inRoles, members, admins                                            []*pg_query.RoleSpec
	givenPassword                                                       bool
}

// roleOptions reads a CreateRoleStmt / AlterRoleStmt option list. A second
// occurrence of an option is 42601 "conflicting or redundant options".
func parseRoleOptions(s *session, opts []*pg_query.Node) (*roleOptions, error) {
	o := &roleOptions{}
	seen := map[string]bool{}
	flag := func(d *pg_query.DefElem, dst **bool) {
		v := true
		if b := d.Arg.GetBoolean(); b != nil {
			v = b.Boolval
		}
		*dst = &v
	}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if seen[d.Defname] {
			return nil, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(int(d.Location) + 1)
		}
		seen[d.Defname] = true
		switch d.Defname {
		case "superuser":
			flag(d, &o.super)
		case "inherit":
			flag(d, &o.inherit)
		case "createrole":
			flag(d, &o.createRole)
		case "createdb":
			flag(d, &o.createDB)
		case "canlogin":
			flag(d, &o.login)
		case "isreplication":
			flag(d, &o.replication)
		case "bypassrls":
			flag(d, &o.bypassRLS)
		case "connectionlimit":
			v := int32(d.Arg.GetInteger().GetIval())
			if v < -1 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid connection limit: %d", v)
			}
			o.connLimit = &v
		case "password":
			o.givenPassword = true
			if sv := d.Arg.GetString_(); sv != nil {
				p := sv.Sval
				o.password = &p
			} else {
				o.passwordNull = true
			}
		case "validUntil":
			v := d.Arg.GetString_().GetSval()
			o.validUntil = &v
		case "addroleto":
			o.inRoles = roleSpecs(d.Arg)
		case "rolemembers":
			o.members = roleSpecs(d.Arg)
		case "adminmembers":
			o.admins = roleSpecs(d.Arg)
		case "sysid":
			s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: "SYSID can no longer be specified"})
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "role option \"%s\" is not supported", d.Defname)
		}
	}
	return o, nil
}

func roleSpecs(n *pg_query.Node) []*pg_query.RoleSpec {
	var out []*pg_query.RoleSpec
	for _, it := range n.GetList().GetItems() {
		if r := it.GetRoleSpec(); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// reservedRoleName: names PostgreSQL keeps for its predefined roles.
func reservedRoleName(name string) bool { return strings.HasPrefix(name, "pg_") }

func errReservedRole(name string) *pgerr.Error {
	return pgerr.New("42939", "role name \"%s\" is reserved", name).WithDetail("Role names starting with \"pg_\" are reserved.")
}

// haveCreateRole is have_createrole_privilege: the current role's own
// attribute (not inherited), or superuser.
func (a *authz) haveCreateRole() bool {
	r := a.rs.byOID[a.role]
	return r != nil && (r.Super || r.CreateRole)
}

func (a *authz) haveCreateDB() bool {
	r := a.rs.byOID[a.role]
	return r != nil && (r.Super || r.CreateDB)
}

// specRole resolves a RoleSpec to a role: CURRENT_USER / CURRENT_ROLE /
// SESSION_USER are the session's; PUBLIC is no role (42704 role "public"
// does not exist, as PostgreSQL says where a role is required).
func (s *session) specRole(rs *roleSnap, spec *pg_query.RoleSpec) (*catalog.Role, error) {
	switch spec.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_USER, pg_query.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		if r := rs.byOID[s.currentRole]; r != nil {
			return r, nil
		}
		return nil, errNoRole(s.user)
	case pg_query.RoleSpecType_ROLESPEC_SESSION_USER:
		if r := rs.byOID[s.sessionRole]; r != nil {
			return r, nil
		}
		return nil, errNoRole(s.user)
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return nil, errNoRole("public")
	}
	if r := rs.byName[spec.Rolename]; r != nil {
		return r, nil
	}
	return nil, errNoRole(spec.Rolename)
}

// encryptPassword is what CREATE / ALTER ROLE store for PASSWORD p: p
// itself when it already is an MD5 hash or a SCRAM verifier, else its
// encryption under the session's password_encryption. An empty password
// clears it (with PostgreSQL's notice).
func (s *session) encryptPassword(user, p string) (string, error) {
	if p == "" {
		s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: "empty string is not a valid password, clearing password"})
		return "", nil
	}
	if pgwire.IsEncryptedPassword(p) {
		return p, nil
	}
	if s.set.vals["password_encryption"] == "md5" {
		return pgwire.EncryptPasswordMD5(user, p), nil
	}
	return pgwire.EncryptPasswordSCRAM(p)
}

// validUntil parses VALID UNTIL's timestamptz in the session's settings.
func (s *session) validUntil(v string) (*int64, error) {
	t, err := pgtypes.ParseTimestampText([]byte(v), -1, true, &s.set.types)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func (s *session) planCreateRole(st *bsql.Statement) (plan, error) {
	cs := st.Tree.GetCreateRoleStmt()
	opts, err := parseRoleOptions(s, cs.Options)
	if err != nil {
		return nil, err
	}
	return tagOnly("CREATE ROLE", func(ctx context.Context) error {
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		switch {
		case opts.super != nil && *opts.super:
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create superusers")
			}
		case opts.replication != nil && *opts.replication:
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create replication users")
			}
		case opts.bypassRLS != nil && *opts.bypassRLS:
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create bypassrls users")
			}
		}
		if !a.haveCreateRole() {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create role")
		}
		name := cs.Role
		if reservedRoleName(name) {
			return errReservedRole(name)
		}
		if a.rs.byName[name] != nil {
			return pgerr.New(pgerr.DuplicateObject, "role \"%s\" already exists", name)
		}
		role := catalog.Role{Name: name, Inherit: true, Login: cs.StmtType == pg_query.RoleStmtType_ROLESTMT_USER, ConnLimit: -1}
		change, err := s.roleChanges(name, opts)
		if err != nil {
			return err
		}
		change(&role)
		oid, err := s.eng.Catalog().AllocOID(ctx)
		if err != nil {
			return err
		}
		role.OID = oid
		_, err = s.b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
			cur := newRoleSnap(r, time.Time{})
			if cur.byName[name] != nil {
				return pgerr.New(pgerr.DuplicateObject, "role \"%s\" already exists", name)
			}
			r.Roles = append(r.Roles, role)
			cur = newRoleSnap(r, time.Time{})
			// IN ROLE g: the new role joins g; ROLE m / ADMIN m: m joins
			// the new role (with ADMIN OPTION).
			for _, spec := range opts.inRoles {
				g, err := s.specRole(cur, spec)
				if err != nil {
					return err
				}
				if err := s.addMember(r, cur, a, g, &role, false); err != nil {
					return err
				}
				cur = newRoleSnap(r, time.Time{})
			}
			for i, list := range [][]*pg_query.RoleSpec{opts.members, opts.admins} {
				for _, spec := range list {
					m, err := s.specRole(cur, spec)
					if err != nil {
						return err
					}
					if err := s.addMember(r, cur, a, &role, m, i == 1); err != nil {
						return err
					}
					cur = newRoleSnap(r, time.Time{})
				}
			}
			return nil
		})
		return err
	}), nil
}

// roleChanges turns opts into a function setting a role's attributes:
// the password is encrypted and VALID UNTIL parsed once, so that the
// function can run again on a fresher copy of the role (a compare-and-swap
// retry) and change only what the statement names.
func (s *session) roleChanges(name string, opts *roleOptions) (func(*catalog.Role), error) {
	var validUntil *int64
	if opts.validUntil != nil {
		v, err := s.validUntil(*opts.validUntil)
		if err != nil {
			return nil, err
		}
		validUntil = v
	}
	var password string
	if opts.password != nil && !opts.passwordNull {
		p, err := s.encryptPassword(name, *opts.password)
		if err != nil {
			return nil, err
		}
		password = p
	}
	return func(role *catalog.Role) {
		set := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		set(&role.Super, opts.super)
		set(&role.Inherit, opts.inherit)
		set(&role.CreateRole, opts.createRole)
		set(&role.CreateDB, opts.createDB)
		set(&role.Login, opts.login)
		set(&role.Replication, opts.replication)
		set(&role.BypassRLS, opts.bypassRLS)
		if opts.connLimit != nil {
			role.ConnLimit = *opts.connLimit
		}
		if validUntil != nil {
			v := *validUntil
			role.ValidUntil = &v
		}
		if opts.givenPassword {
			role.Password = password
		}
	}, nil
}

// addMember makes member a member of role (AddRoleMems) in r, checking
// what PostgreSQL 15 checks; cur is r's view.
func (s *session) addMember(r *catalog.Roles, cur *roleSnap, a *authz, role, member *catalog.Role, admin bool) error {
	if err := checkMembershipAdmin(cur, a, role); err != nil {
		return err
	}
	if role.OID == acl.RoleDatabaseOwner {
		return pgerr.New(pgerr.InternalError, "role \"pg_database_owner\" cannot have explicit members")
	}
	m := cur.graph.In(0)
	if m.IsMemberOfNoSuper(role.OID, member.OID) {
		return pgerr.New("0LP01", "role \"%s\" is a member of role \"%s\"", role.Name, member.Name)
	}
	for i := range r.Members {
		e := &r.Members[i]
		if e.Role == role.OID && e.Member == member.OID {
			if !admin || e.Admin {
				s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
					Message: fmt.Sprintf("role \"%s\" is already a member of role \"%s\"", member.Name, role.Name)})
				return nil
			}
			e.Admin = true
			return nil
		}
	}
	r.Members = append(r.Members, catalog.RoleMember{Role: role.OID, Member: member.OID, Grantor: a.role, Admin: admin})
	return nil
}

// checkMembershipAdmin: who may grant or revoke membership in role.
func checkMembershipAdmin(cur *roleSnap, a *authz, role *catalog.Role) error {
	if role.Super {
		if !a.super() {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superusers")
		}
		return nil
	}
	if a.haveCreateRole() || cur.graph.In(0).IsAdminOf(a.role, role.OID) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must have admin option on role \"%s\"", role.Name)
}

// delMember removes member from role (DelRoleMems); adminOnly keeps the
// membership and drops its ADMIN OPTION.
func (s *session) delMember(r *catalog.Roles, cur *roleSnap, a *authz, role, member *catalog.Role, adminOnly bool) error {
	if err := checkMembershipAdmin(cur, a, role); err != nil {
		return err
	}
	for i := range r.Members {
		e := &r.Members[i]
		if e.Role == role.OID && e.Member == member.OID {
			if adminOnly {
				e.Admin = false
			} else {
				r.Members = append(r.Members[:i], r.Members[i+1:]...)
			}
			return nil
		}
	}
	s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityWarn, Code: "01000",
		Message: fmt.Sprintf("role \"%s\" is not a member of role \"%s\"", member.Name, role.Name)})
	return nil
}

func (s *session) planAlterRole(st *bsql.Statement) (plan, error) {
	if rn := st.Tree.GetRenameStmt(); rn != nil {
		return tagOnly("ALTER ROLE", func(ctx context.Context) error { return s.renameRole(ctx, rn.Subname, rn.Newname) }), nil
	}
	ar := st.Tree.GetAlterRoleStmt()
	opts, err := parseRoleOptions(s, ar.Options)
	if err != nil {
		return nil, err
	}
	return tagOnly("ALTER ROLE", func(ctx context.Context) error {
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		if ar.Role.Roletype == pg_query.RoleSpecType_ROLESPEC_CSTRING && reservedRoleName(ar.Role.Rolename) {
			return pgerr.New("42939", "role name \"%s\" is reserved", ar.Role.Rolename).WithDetail("Cannot alter reserved roles.")
		}
		target, err := s.specRole(a.rs, ar.Role)
		if err != nil {
			return err
		}
		given := func(b *bool) bool { return b != nil }
		switch {
		case target.Super || given(opts.super):
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
			}
		case target.Replication || given(opts.replication):
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter replication roles or change replication attribute")
			}
		case given(opts.bypassRLS):
			if !a.super() {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to change bypassrls attribute")
			}
		case !a.haveCreateRole():
			// Anyone may change their own password, and nothing else.
			if given(opts.inherit) || given(opts.createRole) || given(opts.createDB) || given(opts.login) ||
				opts.connLimit != nil || len(opts.members) > 0 || opts.validUntil != nil || !opts.givenPassword || target.OID != a.role {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied")
			}
		}
		change, err := s.roleChanges(target.Name, opts)
		if err != nil {
			return err
		}
		_, err = s.b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
			stored := r.ByOID(target.OID)
			if stored == nil {
				return errNoRole(target.Name)
			}
			change(stored)
			cur := newRoleSnap(r, time.Time{})
			// ALTER GROUP g ADD / DROP USER m.
			for _, spec := range opts.members {
				m, err := s.specRole(cur, spec)
				if err != nil {
					return err
				}
				g := cur.byOID[target.OID]
				if ar.Action < 0 {
					err = s.delMember(r, cur, a, g, m, false)
				} else {
					err = s.addMember(r, cur, a, g, m, false)
				}
				if err != nil {
					return err
				}
				cur = newRoleSnap(r, time.Time{})
			}
			return nil
		})
		// As in PostgreSQL, is_superuser keeps its value until the next
		// SET ROLE or login; privilege checks read the role live.
		return err
	}), nil
}

// renameRole is ALTER ROLE old RENAME TO new.
func (s *session) renameRole(ctx context.Context, old, newName string) error {
	a, err := s.authz(ctx)
	if err != nil {
		return err
	}
	target := a.rs.byName[old]
	if target == nil {
		return errNoRole(old)
	}
	if target.OID == s.sessionRole {
		return pgerr.New(pgerr.FeatureNotSupported, "session user cannot be renamed")
	}
	if target.OID == s.currentRole {
		return pgerr.New(pgerr.FeatureNotSupported, "current user cannot be renamed")
	}
	if reservedRoleName(old) {
		return errReservedRole(old)
	}
	if reservedRoleName(newName) {
		return errReservedRole(newName)
	}
	if a.rs.byName[newName] != nil {
		return pgerr.New(pgerr.DuplicateObject, "role \"%s\" already exists", newName)
	}
	if target.Super {
		if !a.super() {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to rename superusers")
		}
	} else if !a.haveCreateRole() {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to rename role")
	}
	cleared := false
	_, err = s.b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
		if r.ByName(newName) != nil {
			return pgerr.New(pgerr.DuplicateObject, "role \"%s\" already exists", newName)
		}
		stored := r.ByOID(target.OID)
		if stored == nil {
			return errNoRole(old)
		}
		stored.Name = newName
		// An MD5 hash is salted with the role's name: it no longer matches.
		cleared = strings.HasPrefix(stored.Password, "md5")
		if cleared {
			stored.Password = ""
		}
		return nil
	})
	if err == nil && cleared {
		s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: "MD5 password cleared because of role rename"})
	}
	return err
}

func (s *session) planDropRole(st *bsql.Statement) (plan, error) {
	ds := st.Tree.GetDropRoleStmt()
	return tagOnly("DROP ROLE", func(ctx context.Context) error {
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		if !a.haveCreateRole() {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to drop role")
		}
		for _, n := range ds.Roles {
			spec := n.GetRoleSpec()
			if spec.Roletype != pg_query.RoleSpecType_ROLESPEC_CSTRING {
				return pgerr.New(pgerr.InvalidParameterValue, "cannot use special role specifier in DROP ROLE")
			}
			target := a.rs.byName[spec.Rolename]
			if target == nil {
				if ds.MissingOk {
					s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("role \"%s\" does not exist, skipping", spec.Rolename)})
					continue
				}
				return errNoRole(spec.Rolename)
			}
			switch {
			case target.OID == s.currentRole:
				return pgerr.New(pgerr.ObjectInUse, "current user cannot be dropped")
			case target.OID == s.sessionRole:
				return pgerr.New(pgerr.ObjectInUse, "session user cannot be dropped")
			case target.Super && !a.super():
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to drop superusers")
			case acl.IsPredefined(target.OID) || target.OID == acl.BootstrapSuperuser:
				return pgerr.New("2BP01", "cannot drop role %s because it is required by the database system", target.Name)
			}
			if err := s.checkRoleDependencies(ctx, a.rs, target); err != nil {
				return err
			}
			_, err := s.b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
				kept := r.Roles[:0]
				for _, role := range r.Roles {
					if role.OID != target.OID {
						kept = append(kept, role)
					}
				}
				r.Roles = kept
				members := r.Members[:0]
				for _, m := range r.Members {
					if m.Role != target.OID && m.Member != target.OID {
						members = append(members, m)
					}
				}
				r.Members = members
				return nil
			})
			if err != nil {
				return err
			}
			if a, err = s.authz(ctx); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

// checkRoleDependencies refuses to drop a role that owns objects or holds
// (or granted) privileges, as PostgreSQL's shared dependencies do: 2BP01
// with one DETAIL line per object of the current database and a count per
// other database.
func (s *session) checkRoleDependencies(ctx context.Context, rs *roleSnap, target *catalog.Role) error {
	cat := s.eng.Catalog()
	dbs, err := cat.DatabaseRecords(ctx)
	if err != nil {
		return err
	}
	// PostgreSQL lists the dependencies in the physical order of
	// pg_shdepend; here: tables, schemas, then databases.
	var tables, schemas, databases []string
	others := map[string]int{}
	note := func(lines *[]string, db, what string, owner uint32, a acl.ACL) {
		for _, dep := range []struct {
			hit  bool
			kind string
		}{{owner == target.OID, "owner of "}, {a.Mentions(target.OID), "privileges for "}} {
			if !dep.hit {
				continue
			}
			if db == "" || db == s.db {
				*lines = append(*lines, dep.kind+what)
			} else {
				others[db]++
			}
		}
	}
	for _, d := range dbs {
		note(&databases, "", "database "+d.Name, d.Owner, d.ACL)
	}
	for _, d := range dbs {
		scs, err := cat.SchemaRecords(ctx, d.Name)
		if err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return err
		}
		for _, sc := range scs {
			note(&schemas, d.Name, "schema "+sc.Name, sc.Owner, sc.ACL)
		}
		ents, err := cat.ListTables(ctx, d.Name)
		if err != nil {
			return err
		}
		for _, t := range ents {
			name := t.ID.Name
			if !s.inSearchPath(t.ID.Schema) {
				name = t.ID.Schema + "." + name
			}
			note(&tables, d.Name, "table "+name, t.Owner, t.ACL)
		}
	}
	lines := append(append(tables, schemas...), databases...)
	names := make([]string, 0, len(others))
	for db := range others {
		names = append(names, db)
	}
	sort.Strings(names)
	for _, db := range names {
		n := others[db]
		if n == 1 {
			lines = append(lines, "1 object in database "+db)
		} else {
			lines = append(lines, fmt.Sprintf("%d objects in database %s", n, db))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return pgerr.New("2BP01", "role \"%s\" cannot be dropped because some objects depend on it", target.Name).
		WithDetail("%s", strings.Join(lines, "\n"))
}

// inSearchPath reports whether schema sc is on the session's search path
// (an object there is named without its schema in messages).
func (s *session) inSearchPath(sc string) bool {
	for _, p := range s.set.searchPath() {
		if p == sc {
			return true
		}
	}
	return false
}

func (s *session) planGrantRole(st *bsql.Statement) (plan, error) {
	gs := st.Tree.GetGrantRoleStmt()
	admin := false
	for _, o := range gs.Opt {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defname != "admin" {
			return nil, pgerr.New(pgerr.SyntaxError, "unrecognized role option \"%s\"", d.Defname)
		}
		admin = true
		if b := d.Arg.GetBoolean(); b != nil && gs.IsGrant {
			admin = b.Boolval
		}
	}
	tag := "GRANT ROLE"
	if !gs.IsGrant {
		tag = "REVOKE ROLE"
	}
	return tagOnly(tag, func(ctx context.Context) error {
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		for _, g := range gs.GrantedRoles {
			if len(g.GetAccessPriv().GetCols()) > 0 {
				return pgerr.New("0LP01", "column names cannot be included in GRANT/REVOKE ROLE")
			}
		}
		_, err = s.b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
			cur := newRoleSnap(r, time.Time{})
			for _, gn := range gs.GrantedRoles {
				name := gn.GetAccessPriv().GetPrivName()
				role := cur.byName[name]
				if role == nil {
					return errNoRole(name)
				}
				for _, mn := range gs.GranteeRoles {
					member, err := s.specRole(cur, mn.GetRoleSpec())
					if err != nil {
						return err
					}
					if gs.IsGrant {
						err = s.addMember(r, cur, a, role, member, admin)
					} else {
						err = s.delMember(r, cur, a, role, member, admin)
					}
					if err != nil {
						return err
					}
					cur = newRoleSnap(r, time.Time{})
				}
			}
			return nil
		})
		if err != nil {
			s.notices = nil
		}
		return err
	}), nil
}

// checkConnect is the CONNECT check of a new session (FATAL 42501).
func (s *session) checkConnect(ctx context.Context) error {
	a, err := s.authz(ctx)
	if err != nil {
		return err
	}
	if err := s.requireDatabase(ctx, a, s.db, acl.Connect); err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.InsufficientPrivilege {
			return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InsufficientPrivilege,
				Message: fmt.Sprintf("permission denied for database \"%s\"", s.db), Detail: "User does not have CONNECT privilege."}
		}
		return err
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// reportSuperuser updates is_superuser after the current role changed
// (or changed attributes); it returns the setting when its value changed,
// for the caller to report it (ParameterStatus).
func (s *session) reportSuperuser(ctx context.Context) []*guc {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil
	}
	v := onOff(rs.superuser(s.currentRole))
	if s.set.vals["is_superuser"] == v {
		return nil
	}
	s.set.vals["is_superuser"] = v
	return []*guc{gucs["is_superuser"]}
}

// Password implements pgwire.RoleSource: a role's stored password, ""
// when it has none, cannot log in with one because it expired, or does
// not exist.
func (b *Backend) Password(ctx context.Context, user string) (string, error) {
	rs, err := b.sec.snapshot(ctx)
	if err != nil {
		return "", err
	}
	r := rs.byName[user]
	if r == nil {
		return "", nil
	}
	if r.ValidUntil != nil && pgMicros(time.Now()) > *r.ValidUntil {
		return "", nil // expired (PostgreSQL: "User has an expired password")
	}
	return r.Password, nil
}

// IsSuperuser implements pgwire.SuperuserChecker: the connection slots
// kept for superusers (superuser_reserved_connections) admit only them.
// A role that cannot be read counts as no superuser.
func (b *Backend) IsSuperuser(user string) bool {
	rs, err := b.sec.snapshot(context.Background())
	if err != nil {
		return false
	}
	r := rs.byName[user]
	return r != nil && r.Super
}

var _ pgwire.SuperuserChecker = (*Backend)(nil)

// pgEpoch is where PostgreSQL's timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pgMicros is t as a timestamptz value: microseconds since pgEpoch.
func pgMicros(t time.Time) int64 { return t.Sub(pgEpoch).Microseconds() }

// BootstrapUsers makes sure the roles of BSDB_USERS exist (user ->
// cleartext password, "" = none): a missing one is created LOGIN
// SUPERUSER (as every user was before roles existed), and an existing one
// without a password gets the listed one. Existing roles keep their
// attributes and a password set since (ALTER ROLE ... PASSWORD): the
// catalog is the truth, BSDB_USERS only its bootstrap.
func (b *Backend) BootstrapUsers(ctx context.Context, users map[string]string) error {
	if len(users) == 0 {
		return nil
	}
	names := make([]string, 0, len(users))
	for u := range users {
		names = append(names, u)
	}
	sort.Strings(names)
	verifiers := map[string]string{}
	for _, u := range names {
		if p := users[u]; p != "" {
			v, err := pgwire.EncryptPasswordSCRAM(p)
			if err != nil {
				return err
			}
			verifiers[u] = v
		}
	}
	rs, err := b.sec.snapshot(ctx)
	if err != nil {
		return err
	}
	oids := map[string]uint32{}
	for _, u := range names {
		if rs.byName[u] == nil {
			oid, err := b.Eng.Catalog().AllocOID(ctx)
			if err != nil {
				return err
			}
			oids[u] = oid
		}
	}
	_, err = b.sec.updateRoles(ctx, func(r *catalog.Roles) error {
		for _, u := range names {
			if role := r.ByName(u); role != nil {
				if role.Password == "" {
					role.Password = verifiers[u]
				}
				continue
			}
			if acl.IsPredefined(oids[u]) || reservedRoleName(u) {
				return fmt.Errorf("BSDB_USERS: role name %q is reserved", u)
			}
			oid := oids[u]
			if oid == 0 {
				// Created by another process since our snapshot, then
				// dropped again: take a fresh OID next time.
				return fmt.Errorf("BSDB_USERS: role %q changed concurrently; start again", u)
			}
			r.Roles = append(r.Roles, catalog.Role{OID: oid, Name: u, Super: true, Inherit: true, CreateRole: true,
				CreateDB: true, Login: true, ConnLimit: -1, Password: verifiers[u]})
		}
		return nil
	})
	return err
}
