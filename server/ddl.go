package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// noDDLInBlock: DDL is not transactional here; refuse it inside a block
// that has writes, so a ROLLBACK never pretends to undo it.
func (s *session) ddlAllowed(what string) error {
	if s.tx.hasWrites() {
		return pgerr.New(pgerr.FeatureNotSupported, "%s cannot run inside a transaction block that has written data", what)
	}
	return nil
}

func (s *session) planCreateTable(ctx context.Context, st *bsql.Statement) (plan, error) {
	ct, err := bsql.TranslateCreateTable(st.Tree)
	if err != nil {
		return nil, err
	}
	if err := s.ddlAllowed("CREATE TABLE"); err != nil {
		return nil, err
	}
	serial := false
	for _, cd := range ct.Columns {
		serial = serial || cd.Serial || cd.Identity != ""
	}
	sch := &schema.Schema{}
	for _, cd := range ct.Columns {
		col, err := pgtypes.ColumnType(cd.TypeOID, cd.TypeMod)
		if err != nil {
			return nil, err
		}
		col.Name = cd.Name
		col.NotNull = cd.NotNull || cd.PrimaryKey
		col.Default, col.Identity = cd.Default, cd.Identity
		if sch.Index(cd.Name) >= 0 {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Name)
		}
		sch.Columns = append(sch.Columns, col)
		if cd.PrimaryKey {
			sch.PrimaryKey = append(sch.PrimaryKey, cd.Name)
		}
	}
	if len(sch.Columns) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	loc := 0
	if rv := st.Tree.GetCreateStmt().GetRelation(); rv != nil {
		loc = int(rv.Location) + 1
	}
	if ct.Temp && len(ct.ForeignKeys) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FOREIGN KEY constraints on temporary tables are not supported")
	}
	if ct.Temp {
		return tagOnly("CREATE TABLE", func(ctx context.Context) error {
			if len(ct.Uniques) > 0 && s.temp.tables[ct.Name] == nil {
				// The constraints' names first: nothing is created if one
				// is taken.
				taken := s.tempNames()
				taken[ct.Name] = true
				if _, err := uniqueIndexes(ct.Name, sch, sch.PrimaryKey, ct.Uniques, true, func(n string) (bool, error) { return taken[n], nil }, func() (uint32, error) { return 0, nil }); err != nil {
					return err
				}
			}
			t, created, err := s.createTempTable(ctx, ct.Schema, ct.Name, sch, ct.IfNotExists)
			if err == nil && !created {
				return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", ct.Name)})
			}
			if err == nil && created && len(ct.Checks) > 0 {
				var checks []catalog.CheckDef
				checks, err = s.newChecks(ctx, ct.Name, schemaColumns(sch), ct.Checks, func(string) bool { return false }, func() (uint32, error) { return planner.TempOID(), nil })
				if err == nil {
					t.Entry.Checks = checks
					t.SetChecks(checks)
				} else {
					s.dropTempTable(ctx, t)
				}
			}
			if err == nil && len(ct.Uniques) > 0 {
				taken := s.tempNames()
				var defs []catalog.IndexDef
				defs, err = uniqueIndexes(ct.Name, sch, sch.PrimaryKey, ct.Uniques, true, func(n string) (bool, error) { return taken[n], nil }, func() (uint32, error) { return planner.TempOID(), nil })
				if err == nil {
					t.Entry.Indexes = append(t.Entry.Indexes, defs...)
					err = t.SetKeys(planner.EntryKeys(t.ID, &t.Entry, t.Schema))
				}
			}
			return err
		}), nil
	}
	return tagOnly("CREATE TABLE", func(ctx context.Context) error {
		id, a, err := s.lookupTable(ctx, ct.Schema, ct.Name)
		if err != nil {
			return pgerr.WithPositionIfNone(err, loc)
		}
		// CREATE on the schema, before looking at what exists there.
		if err := s.requireSchema(ctx, a, id.Schema, acl.Create); err != nil {
			return pgerr.WithPositionIfNone(err, loc)
		}
		if ix, err := s.indexHasName(ctx, id); err != nil {
			return err
		} else if ix {
			// An index has the name (index.go): relations share it.
			if ct.IfNotExists {
				return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", ct.Name)})
			}
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", ct.Name)
		}
		if sq, err := s.b.seqs().Lookup(ctx, id); err != nil {
			return err
		} else if sq != nil {
			// A sequence has the name (sequence.go): relations share it.
			if ct.IfNotExists {
				return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", ct.Name)})
			}
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", ct.Name)
		}
		// Foreign keys are checked before anything is created (not for a
		// table that exists: IF NOT EXISTS then only notices).
		var fks []catalog.ForeignKeyDef
		if exists, err := s.relationExists(ctx, id); err != nil {
			return err
		} else if !exists {
			if fks, err = s.createForeignKeys(ctx, id, sch, ct.ForeignKeys); err != nil { // foreignkey.go
				return err
			}
		}
		// UNIQUE constraints: their indexes (keys.go), named before the
		// table exists.
		var uniques []catalog.IndexDef
		if len(ct.Uniques) > 0 {
			if exists, err := s.relationExists(ctx, id); err != nil {
				return err
			} else if !exists {
				names, err := s.relationNames(ctx, id.Schema)
				if err != nil {
					return err
				}
				names[id.Name] = true
				uniques, err = uniqueIndexes(id.Name, sch, sch.PrimaryKey, ct.Uniques, true,
					func(n string) (bool, error) { return s.nameTaken(ctx, id.Schema, n, names) },
					func() (uint32, error) { return s.eng.Catalog().AllocOID(ctx) })
				if err != nil {
					return err
				}
			}
		}
		// CHECK constraints (checks.go), translated once to refuse what
		// does not compile.
		var checks []catalog.CheckDef
		if len(ct.Checks) > 0 {
			if exists, err := s.relationExists(ctx, id); err != nil {
				return err
			} else if !exists {
				if checks, err = s.newChecks(ctx, id.Name, schemaColumns(sch), ct.Checks, func(string) bool { return false },
					func() (uint32, error) { return s.eng.Catalog().AllocOID(ctx) }); err != nil {
					return err
				}
			}
		}
		withFKs := catalog.WithEntry(func(e *catalog.Entry) { e.ForeignKeys, e.Indexes, e.Checks = fks, uniques, checks })
		if serial {
			// The columns' sequences first (sequence.go), as PostgreSQL
			// creates them, unless the table exists.
			if exists, err := s.relationExists(ctx, id); err != nil {
				return err
			} else if exists {
				if ct.IfNotExists {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", ct.Name)})
				}
				return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", ct.Name)
			}
			made, err := s.serialSequences(ctx, id, ct)
			if err != nil {
				return err
			}
			for i, cd := range ct.Columns {
				sch.Columns[i].Default = cd.Default
			}
			created, err := s.eng.CreateTable(ctx, id, sch, false, catalog.OwnedBy(s.currentRole), withFKs)
			s.b.sec.forget(tableKey(id))
			if err != nil || !created {
				for _, sq := range made {
					_ = s.b.seqs().Drop(context.WithoutCancel(ctx), sq)
				}
			}
			return err
		}
		created, err := s.eng.CreateTable(ctx, id, sch, ct.IfNotExists, catalog.OwnedBy(s.currentRole), withFKs)
		if err != nil {
			return err
		}
		s.b.sec.forget(tableKey(id))
		if !created {
			return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", ct.Name)})
		}
		return nil
	}), nil
}

// pendingNotice queues a notice sent before the command's completion.
func (s *session) pendingNotice(n *pgerr.Error) error {
	s.notices = append(s.notices, n)
	return nil
}

func rangeVarName(rv *pg_query.RangeVar) (string, string) {
	return rv.Schemaname, rv.Relname
}

func (s *session) planDropTable(ctx context.Context, st *bsql.Statement) (plan, error) {
	ds := st.Tree.GetDropStmt()
	if ds == nil || ds.RemoveType != pg_query.ObjectType_OBJECT_TABLE {
		return nil, st.Unsupported()
	}
	return s.planDropRelations(ctx, ds, false) // views.go
}

func (s *session) planTruncate(ctx context.Context, st *bsql.Statement) (plan, error) {
	ts := st.Tree.GetTruncateStmt()
	if ts == nil {
		return nil, st.Unsupported()
	}
	// In a transaction the truncation waits for its commit (savepoint.go).
	return tagOnly("TRUNCATE TABLE", func(ctx context.Context) error {
		return s.truncateTables(ctx, ts)
	}), nil
}

func (s *session) planNamespace(ctx context.Context, st *bsql.Statement) (plan, error) {
	if err := s.ddlAllowed(st.Tag); err != nil {
		return nil, err
	}
	cat := s.eng.Catalog()
	switch {
	case st.Tree.GetCreateSchemaStmt() != nil:
		cs := st.Tree.GetCreateSchemaStmt()
		if len(cs.SchemaElts) > 0 {
			return nil, errUnsupported("CREATE SCHEMA with schema elements")
		}
		return tagOnly("CREATE SCHEMA", func(ctx context.Context) error {
			a, err := s.authz(ctx)
			if err != nil {
				return err
			}
			if err := s.requireDatabase(ctx, a, s.db, acl.Create); err != nil {
				return err
			}
			owner, name := s.currentRole, cs.Schemaname
			if cs.Authrole != nil {
				r, err := s.specRole(a.rs, cs.Authrole)
				if err != nil {
					return err
				}
				if !a.m.IsMemberOf(a.role, r.OID) {
					return pgerr.New(pgerr.InsufficientPrivilege, "must be member of role \"%s\"", r.Name)
				}
				owner = r.OID
				if name == "" {
					name = r.Name
				}
			}
			err = cat.CreateSchema(ctx, s.db, name, catalog.OwnedBy(owner))
			s.b.sec.forget(schemaKey(s.db, name))
			if errors.Is(err, catalog.ErrExists) {
				if cs.IfNotExists {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.DuplicateSchema, Message: fmt.Sprintf("schema \"%s\" already exists, skipping", name)})
				}
				return pgerr.New(pgerr.DuplicateSchema, "schema \"%s\" already exists", name)
			}
			return err
		}), nil
	case st.Tree.GetDropStmt() != nil && st.Tree.GetDropStmt().RemoveType == pg_query.ObjectType_OBJECT_SCHEMA:
		ds := st.Tree.GetDropStmt()
		cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
		return tagOnly("DROP SCHEMA", func(ctx context.Context) error {
			for _, obj := range ds.Objects {
				name := nodeString(obj)
				if name == "" {
					if items := obj.GetList().GetItems(); len(items) > 0 {
						name = nodeString(items[len(items)-1])
					}
				}
				a, err := s.authz(ctx)
				if err != nil {
					return err
				}
				if o, err := s.b.sec.schema(ctx, s.db, name); err == nil && !a.owns(o.owner) {
					return errNotOwner("schema", name)
				}
				tables, err := s.eng.ListRelations(ctx, s.db)
				if err != nil {
					return err
				}
				var inSchema []catalog.Entry
				for _, e := range tables {
					if e.ID.Schema == name {
						inSchema = append(inSchema, e)
					}
				}
				seqs, err := s.schemaSequences(ctx, name) // sequence.go
				if err != nil {
					return err
				}
				if (len(inSchema) > 0 || len(seqs) > 0) && !cascade {
					deps := make([]string, len(inSchema))
					for i, e := range inSchema {
						kind := "table"
						if e.IsView() {
							kind = "view"
						}
						deps[i] = fmt.Sprintf("%s %s.%s depends on schema %s", kind, e.ID.Schema, e.ID.Name, name)
					}
					for _, q := range seqs {
						deps = append(deps, fmt.Sprintf("sequence %s.%s depends on schema %s", q.ID.Schema, q.ID.Name, name))
					}
					return pgerr.New("2BP01", "cannot drop schema %s because other objects depend on it", name).
						WithDetail("%s", strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
				}
				// Views elsewhere that read the schema's relations go too.
				targets := make([]*catalog.Entry, len(inSchema))
				for i := range inSchema {
					targets[i] = &inSchema[i]
				}
				outside, _, err := s.dependents(ctx, targets)
				if err != nil {
					return err
				}
				for i := len(outside) - 1; i >= 0; i-- {
					if err := s.dropRelation(ctx, outside[i]); err != nil {
						return err
					}
				}
				for i := range inSchema {
					if err := s.dropRelation(ctx, &inSchema[i]); err != nil {
						return err
					}
				}
				if err := s.dropSequenceRecords(ctx, seqs); err != nil {
					return err
				}
				err = cat.DropSchema(ctx, s.db, name, cascade)
				s.b.sec.forget(schemaKey(s.db, name))
				if errors.Is(err, catalog.ErrNotFound) {
					if ds.MissingOk {
						s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Message: fmt.Sprintf("schema \"%s\" does not exist, skipping", name), Code: pgerr.SuccessfulCompletion})
						continue
					}
					return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}), nil
	case st.Tree.GetCreatedbStmt() != nil:
		cd := st.Tree.GetCreatedbStmt()
		if s.tx != nil && !s.tx.implicit {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "CREATE DATABASE cannot run inside a transaction block")
		}
		return tagOnly("CREATE DATABASE", func(ctx context.Context) error {
			a, err := s.authz(ctx)
			if err != nil {
				return err
			}
			if !a.haveCreateDB() {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create database")
			}
			owner := s.currentRole
			for _, o := range cd.Options {
				d := o.GetDefElem()
				if d == nil || d.Defname != "owner" {
					continue
				}
				r, err := s.specRole(a.rs, &pg_query.RoleSpec{Roletype: pg_query.RoleSpecType_ROLESPEC_CSTRING, Rolename: nodeString(d.Arg)})
				if err != nil {
					return err
				}
				if !a.m.IsMemberOf(a.role, r.OID) {
					return pgerr.New(pgerr.InsufficientPrivilege, "must be member of role \"%s\"", r.Name)
				}
				owner = r.OID
			}
			err = cat.CreateDatabase(ctx, cd.Dbname, catalog.OwnedBy(owner))
			s.b.sec.forget(dbKey(cd.Dbname))
			s.b.sec.forget(schemaKey(cd.Dbname, catalog.DefaultSchema))
			if errors.Is(err, catalog.ErrExists) {
				return pgerr.New(pgerr.DuplicateDatabase, "database \"%s\" already exists", cd.Dbname)
			}
			if err != nil {
				return err
			}
			if err := cat.CreateSchema(ctx, cd.Dbname, "public"); err != nil && !errors.Is(err, catalog.ErrExists) {
				return err
			}
			return nil
		}), nil
	case st.Tree.GetDropdbStmt() != nil:
		dd := st.Tree.GetDropdbStmt()
		if s.tx != nil && !s.tx.implicit {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "DROP DATABASE cannot run inside a transaction block")
		}
		return tagOnly("DROP DATABASE", func(ctx context.Context) error {
			a, err := s.authz(ctx)
			if err != nil {
				return err
			}
			o, err := s.b.sec.database(ctx, dd.Dbname)
			if errors.Is(err, catalog.ErrNotFound) {
				if dd.MissingOk {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("database \"%s\" does not exist, skipping", dd.Dbname)})
				}
				return pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", dd.Dbname)
			}
			if err != nil {
				return err
			}
			if !a.owns(o.owner) {
				return errNotOwner("database", dd.Dbname)
			}
			if dd.Dbname == s.db {
				return pgerr.New(pgerr.ObjectInUse, "cannot drop the currently open database")
			}
			defer s.b.sec.forget(dbKey(dd.Dbname))
			tables, err := s.eng.ListRelations(ctx, dd.Dbname)
			if err != nil && !errors.Is(err, catalog.ErrNotFound) {
				return err
			}
			for i := range tables {
				if err := s.dropRelation(ctx, &tables[i]); err != nil {
					return err
				}
			}
			if seqs, err := cat.ListSequences(ctx, dd.Dbname); err != nil {
				return err
			} else if err := s.dropSequenceRecords(ctx, seqs); err != nil {
				return err
			}
			err = cat.DropDatabase(ctx, dd.Dbname)
			if errors.Is(err, catalog.ErrNotFound) {
				if dd.MissingOk {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("database \"%s\" does not exist, skipping", dd.Dbname)})
				}
				return pgerr.New(pgerr.UndefinedDatabase, "database \"%s\" does not exist", dd.Dbname)
			}
			return err
		}), nil
	}
	return nil, st.Unsupported()
}

var _ = pgwire.Column{}
