package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/seq"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// GRANT / REVOKE of privileges on tables, schemas and databases, and
// ALTER ... OWNER TO, as PostgreSQL 15's aclchk.c: the grantor is the
// object's owner when the current role has the owner's privileges, else
// the role (or one whose privileges it has) holding the most of the
// needed grant options; privileges it cannot grant give a warning, and a
// role with no privilege at all on the object gets 42501. Each object's
// ACL changes in one compare-and-swap of its catalog record.

// privilegeBits maps GRANT's privilege names to bits.
var privilegeBits = map[string]acl.Mode{
	"select": acl.Select, "insert": acl.Insert, "update": acl.Update, "delete": acl.Delete,
	"truncate": acl.Truncate, "references": acl.References, "trigger": acl.Trigger, "execute": acl.Execute,
	"usage": acl.Usage, "create": acl.Create, "temporary": acl.Temp, "temp": acl.Temp, "connect": acl.Connect,
}

// privilegeName spells one privilege bit in PostgreSQL's messages.
func privilegeName(m acl.Mode) string {
	switch m {
	case acl.Temp:
		return "TEMP"
	}
	for n, b := range privilegeBits {
		if b == m && n != "temporary" {
			return strings.ToUpper(n)
		}
	}
	return "?"
}

// grantClass is what GRANT accepts for an object type before it looks at
// the objects (ExecuteGrantStmt's all_privileges and errormsg).
func grantClass(t pg_query.ObjectType) (acl.ObjectType, acl.Mode, string, bool) {
	switch t {
	case pg_query.ObjectType_OBJECT_TABLE:
		// Relations include sequences: USAGE passes here and fails later.
		return acl.Table, acl.Table.AllRights() | acl.Usage, "relation", true
	case pg_query.ObjectType_OBJECT_SCHEMA:
		return acl.Schema, acl.Schema.AllRights(), "schema", true
	case pg_query.ObjectType_OBJECT_DATABASE:
		return acl.Database, acl.Database.AllRights(), "database", true
	}
	return 0, 0, "", false
}

// firstBit is the lowest privilege of m (PostgreSQL names the first
// invalid one).
func firstBit(m acl.Mode) acl.Mode { return m & -m }

func (s *session) planGrant(st *bsql.Statement) (plan, error) {
	gs := st.Tree.GetGrantStmt()
	tag := "GRANT"
	if !gs.IsGrant {
		tag = "REVOKE"
	}
	kind, classRights, className, ok := grantClass(gs.Objtype)
	if !ok || (gs.Targtype != pg_query.GrantTargetType_ACL_TARGET_OBJECT && !(gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA && kind == acl.Table)) {
		what := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(gs.Objtype.String(), "OBJECT_"), "_", " "))
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s on %ss is not supported", tag, what)
	}
	return tagOnly(tag, func(ctx context.Context) error {
		// PostgreSQL's order (ExecuteGrantStmt): the grantor, the objects,
		// the grantees, the privileges; then each object.
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		if gs.Grantor != nil {
			r, err := s.specRole(a.rs, gs.Grantor)
			if err != nil {
				return err
			}
			if r.OID != a.role {
				return pgerr.New(pgerr.FeatureNotSupported, "grantor must be current user")
			}
		}
		var ids []catalog.TableID
		var names []string
		switch kind {
		case acl.Table:
			if ids, err = s.grantTables(ctx, gs); err != nil {
				return err
			}
		case acl.Schema:
			for _, n := range gs.Objects {
				name := nodeString(n)
				if _, err := s.b.sec.schema(ctx, s.db, name); errors.Is(err, catalog.ErrNotFound) {
					return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
				} else if err != nil {
					return err
				}
				names = append(names, name)
			}
		case acl.Database:
			for _, n := range gs.Objects {
				name := nodeString(n)
				if _, err := s.b.sec.database(ctx, name); errors.Is(err, catalog.ErrNotFound) {
					return pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", name)
				} else if err != nil {
					return err
				}
				names = append(names, name)
			}
		}
		var grantees []uint32
		for _, n := range gs.Grantees {
			spec := n.GetRoleSpec()
			if spec.Roletype == pg_query.RoleSpecType_ROLESPEC_PUBLIC {
				grantees = append(grantees, acl.Public)
				continue
			}
			r, err := s.specRole(a.rs, spec)
			if err != nil {
				return err
			}
			grantees = append(grantees, r.OID)
		}
		var privs acl.Mode
		all := len(gs.Privileges) == 0
		for _, n := range gs.Privileges {
			ap := n.GetAccessPriv()
			if len(ap.Cols) > 0 {
				return pgerr.New(pgerr.FeatureNotSupported, "column privileges are not supported")
			}
			bit, ok := privilegeBits[ap.PrivName]
			if !ok {
				return pgerr.New(pgerr.SyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
			}
			privs |= bit
		}
		if all {
			privs = kind.AllRights()
		} else if bad := privs &^ classRights; bad != 0 {
			return pgerr.New("0LP01", "invalid privilege type %s for %s", privilegeName(firstBit(bad)), className)
		}
		g := &grantRun{s: s, a: a, gs: gs, privs: privs, all: all, grantees: grantees}
		switch kind {
		case acl.Table:
			for _, id := range ids {
				if privs&^acl.Table.AllRights() != 0 {
					return pgerr.New("0LP01", "invalid privilege type %s for table", privilegeName(firstBit(privs&^acl.Table.AllRights())))
				}
				err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
					na, err := g.apply(acl.Table, id.Name, e.Owner, e.ACL)
					e.ACL = na
					return err
				})
				if errors.Is(err, catalog.ErrNotFound) {
					return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", id.Name)
				}
				if err != nil {
					return err
				}
				g.flush()
			}
		case acl.Schema:
			for _, name := range names {
				err := s.b.sec.updateSchema(ctx, s.db, name, func(r *catalog.Container) error {
					na, err := g.apply(acl.Schema, name, r.Owner, r.ACL)
					r.ACL = na
					return err
				})
				if errors.Is(err, catalog.ErrNotFound) {
					return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
				}
				if err != nil {
					return err
				}
				g.flush()
			}
		case acl.Database:
			for _, name := range names {
				err := s.b.sec.updateDatabase(ctx, name, func(r *catalog.Container) error {
					na, err := g.apply(acl.Database, name, r.Owner, r.ACL)
					r.ACL = na
					return err
				})
				if errors.Is(err, catalog.ErrNotFound) {
					return pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", name)
				}
				if err != nil {
					return err
				}
				g.flush()
			}
		}
		return nil
	}), nil
}

// grantTables resolves the tables of a GRANT: named ones (42P01 if
// missing; USAGE on a named schema needed), or ALL TABLES IN SCHEMA s in
// creation order.
func (s *session) grantTables(ctx context.Context, gs *pg_query.GrantStmt) ([]catalog.TableID, error) {
	var ids []catalog.TableID
	if gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		ents, err := s.eng.ListTables(ctx, s.db)
		if err != nil {
			return nil, err
		}
		a, err := s.authz(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range gs.Objects {
			sc := nodeString(n)
			if _, err := s.b.sec.schema(ctx, s.db, sc); err != nil {
				if errors.Is(err, catalog.ErrNotFound) {
					return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", sc)
				}
				return nil, err
			}
			if err := s.requireSchema(ctx, a, sc, acl.Usage); err != nil {
				return nil, err
			}
			var in []catalog.Entry
			for _, e := range ents {
				if e.ID.Schema == sc {
					in = append(in, e)
				}
			}
			sort.Slice(in, func(i, j int) bool { return in[i].OID < in[j].OID })
			for _, e := range in {
				ids = append(ids, e.ID)
			}
		}
		return ids, nil
	}
	for _, n := range gs.Objects {
		rv := n.GetRangeVar()
		if rv == nil {
			continue
		}
		id, _, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
		if err != nil {
			return nil, err
		}
		if _, err := s.b.sec.table(ctx, id); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
			}
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func qualifiedName(sc, name string) string {
	if sc == "" {
		return name
	}
	return sc + "." + name
}

// grantRun is one GRANT / REVOKE statement over its objects.
type grantRun struct {
	s        *session
	a        *authz
	gs       *pg_query.GrantStmt
	privs    acl.Mode
	all      bool
	grantees []uint32
	// warning of the object being changed, sent once its change is in
	// (apply may run again when another process changed the record).
	warning *pgerr.Error
}

func (g *grantRun) flush() {
	if g.warning != nil {
		g.s.pendingNotice(g.warning)
		g.warning = nil
	}
}

// apply computes an object's new ACL (restrict_and_check_grant and
// merge_acl_with_grant).
func (g *grantRun) apply(kind acl.ObjectType, name string, owner uint32, cur acl.ACL) (acl.ACL, error) {
	g.warning = nil
	a := g.a
	eff := acl.Effective(cur, kind, owner)
	grantor, avail := bestGrantor(a, eff, owner, g.privs)
	if avail == 0 {
		whole := kind.AllRights()
		if acl.ObjectMask(kind, cur, owner, grantor, whole|acl.GrantOption(whole), a.m) == 0 {
			return nil, errPermission(kind.Noun(), name)
		}
	}
	this := g.privs & avail.Options()
	warn := func(code, format string) {
		g.warning = &pgerr.Error{Severity: pgerr.SeverityWarn, Code: code, Message: fmt.Sprintf(format, name)}
	}
	switch {
	case g.gs.IsGrant && this == 0:
		warn("01007", "no privileges were granted for \"%s\"")
	case g.gs.IsGrant && !g.all && this != g.privs:
		warn("01007", "not all privileges were granted for \"%s\"")
	case !g.gs.IsGrant && this == 0:
		warn("01006", "no privileges could be revoked for \"%s\"")
	case !g.gs.IsGrant && !g.all && this != g.privs:
		warn("01006", "not all privileges could be revoked for \"%s\"")
	}
	out := eff
	for _, grantee := range g.grantees {
		if g.gs.IsGrant && g.gs.GrantOption && grantee == acl.Public {
			return nil, pgerr.New("0LP01", "grant options can only be granted to roles")
		}
		if g.gs.IsGrant {
			mode := this
			if g.gs.GrantOption {
				mode |= acl.GrantOption(this)
			}
			out = acl.Grant(out, grantee, grantor, mode)
			continue
		}
		mode := this | acl.GrantOption(this)
		if g.gs.GrantOption {
			mode = acl.GrantOption(this)
		}
		var err error
		out, err = acl.Revoke(out, grantee, grantor, mode, owner, g.gs.Behavior == pg_query.DropBehavior_DROP_CASCADE, a.m)
		if errors.Is(err, acl.ErrDependentPrivileges) {
			return nil, pgerr.New("2BP01", "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bestGrantor is select_best_grantor: the owner when the current role has
// the owner's privileges (with every grant option), else the role among
// itself and those whose privileges it has that holds the most of the
// needed grant options directly.
func bestGrantor(a *authz, eff acl.ACL, owner uint32, privs acl.Mode) (uint32, acl.Mode) {
	need := acl.GrantOption(privs)
	if a.super() || a.m.HasPrivsOf(a.role, owner) {
		return owner, need
	}
	grantor, best, n := a.role, acl.None, 0
	for _, r := range append([]uint32{a.role}, a.m.MembersOf(a.role, true)...) {
		got := acl.DirectMask(eff, owner, r, need)
		if got == need {
			return r, got
		}
		if c := got.Count(); c > n {
			grantor, best, n = r, got, c
		}
	}
	return grantor, best
}

// alterSequenceOwner gives sequence sq to the new owner of at's command.
func (s *session) alterSequenceOwner(ctx context.Context, a *authz, sq *seq.Seq, at *pg_query.AlterTableStmt, checkNew func(*catalog.Role) error) error {
	for _, c := range at.Cmds {
		newOwner, err := s.specRole(a.rs, c.GetAlterTableCmd().GetNewowner())
		if err != nil {
			return err
		}
		info := sq.Info()
		if newOwner.OID == info.Owner {
			continue
		}
		if !a.super() {
			if !a.owns(info.Owner) {
				return errNotOwner("sequence", info.ID.Name)
			}
			if err := checkNew(newOwner); err != nil {
				return err
			}
		}
		if err := sq.Alter(ctx, nil, func(rec *catalog.Sequence) error {
			rec.ACL = acl.NewOwner(rec.ACL, rec.Owner, newOwner.OID)
			rec.Owner = newOwner.OID
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// planAlterOwner is ALTER TABLE / SCHEMA / DATABASE ... OWNER TO.
func (s *session) planAlterOwner(st *bsql.Statement) (plan, error) {
	return tagOnly(st.Tag, func(ctx context.Context) error {
		a, err := s.authz(ctx)
		if err != nil {
			return err
		}
		// checkNew: may the current role give an object to newOwner?
		checkNew := func(newOwner *catalog.Role) error {
			if a.super() || a.m.IsMemberOf(a.role, newOwner.OID) {
				return nil
			}
			return pgerr.New(pgerr.InsufficientPrivilege, "must be member of role \"%s\"", newOwner.Name)
		}
		if at := st.Tree.GetAlterTableStmt(); at != nil {
			rv := at.Relation
			if at.Objtype == pg_query.ObjectType_OBJECT_SEQUENCE {
				sq, err := s.findSequence(ctx, rv.Schemaname, rv.Relname, !at.MissingOk)
				if err != nil {
					return err
				}
				if sq == nil {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
						Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
				}
				return s.alterSequenceOwner(ctx, a, sq, at, checkNew)
			}
			id, _, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return err
			}
			o, err := s.b.sec.table(ctx, id)
			if errors.Is(err, catalog.ErrNotFound) {
				// ALTER TABLE ... OWNER TO of a sequence (pg_dump writes it so).
				if sq, serr := s.findSequence(ctx, rv.Schemaname, rv.Relname, false); serr == nil && sq != nil {
					return s.alterSequenceOwner(ctx, a, sq, at, checkNew)
				}
				if at.MissingOk {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
						Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
				}
				return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
			}
			if err != nil {
				return err
			}
			for _, c := range at.Cmds {
				newOwner, err := s.specRole(a.rs, c.GetAlterTableCmd().GetNewowner())
				if err != nil {
					return err
				}
				if newOwner.OID == o.owner {
					continue
				}
				if !a.super() {
					if !a.owns(o.owner) {
						return errNotOwner("table", id.Name)
					}
					if err := checkNew(newOwner); err != nil {
						return err
					}
					if m, err := s.schemaMask(ctx, &authz{rs: a.rs, m: a.m, role: newOwner.OID}, id.Schema, acl.Create); err != nil {
						return err
					} else if m == 0 {
						return errPermission("schema", id.Schema)
					}
				}
				if err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
					e.ACL = acl.NewOwner(e.ACL, e.Owner, newOwner.OID)
					e.Owner = newOwner.OID
					return nil
				}); err != nil {
					return err
				}
				o = &objSnap{owner: newOwner.OID}
			}
			return nil
		}
		ao := st.Tree.GetAlterOwnerStmt()
		name := nodeString(ao.Object)
		newOwner, err := s.specRole(a.rs, ao.Newowner)
		if err != nil {
			return err
		}
		if ao.ObjectType == pg_query.ObjectType_OBJECT_SCHEMA {
			o, err := s.b.sec.schema(ctx, s.db, name)
			if errors.Is(err, catalog.ErrNotFound) {
				return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if err != nil || o.owner == newOwner.OID {
				return err
			}
			if !a.super() {
				if !a.owns(o.owner) {
					return errNotOwner("schema", name)
				}
				if err := checkNew(newOwner); err != nil {
					return err
				}
				if err := s.requireDatabase(ctx, &authz{rs: a.rs, m: a.m, role: newOwner.OID}, s.db, acl.Create); err != nil {
					return err
				}
			}
			return s.b.sec.updateSchema(ctx, s.db, name, func(r *catalog.Container) error {
				r.ACL = acl.NewOwner(r.ACL, r.Owner, newOwner.OID)
				r.Owner = newOwner.OID
				return nil
			})
		}
		o, err := s.b.sec.database(ctx, name)
		if errors.Is(err, catalog.ErrNotFound) {
			return pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", name)
		}
		if err != nil || o.owner == newOwner.OID {
			return err
		}
		if !a.super() {
			if !a.owns(o.owner) {
				return errNotOwner("database", name)
			}
			if err := checkNew(newOwner); err != nil {
				return err
			}
			if !a.haveCreateDB() {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to change owner of database")
			}
		}
		return s.b.sec.updateDatabase(ctx, name, func(r *catalog.Container) error {
			r.ACL = acl.NewOwner(r.ACL, r.Owner, newOwner.OID)
			r.Owner = newOwner.OID
			return nil
		})
	}), nil
}
