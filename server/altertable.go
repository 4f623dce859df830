package server

import (
	"context"
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// planAlterKey runs the two ALTER TABLE forms that pg_dump writes for a
// primary key:
//
//   - ALTER TABLE [IF EXISTS] [ONLY] t ADD [CONSTRAINT name] PRIMARY KEY
//     (col, ...), after the table's data. The key is recorded in the
//     table's catalog entry, like CREATE TABLE's PRIMARY KEY in its schema:
//     pg_constraint, pg_index, information_schema and the drivers'
//     metadata show it; it is not enforced (neither is CREATE TABLE's).
//     Its columns must already be NOT NULL (pg_dump declares them so):
//     making a column NOT NULL afterwards is not supported here, so such a
//     key is refused (0A000) rather than shown with a NOT NULL that inserts
//     would not keep.
//   - ALTER TABLE [IF EXISTS] [ONLY] t DROP CONSTRAINT [IF EXISTS] name
//     (pg_dump --clean), of the primary key or a foreign key
//     (foreignkey.go).
//
// Other ALTER TABLE forms are not handled here (ok false).
func (s *session) planAlterKey(st *bsql.Statement) (p plan, ok bool, err error) {
	at := st.Tree.GetAlterTableStmt()
	if at == nil || at.Objtype != pg_query.ObjectType_OBJECT_TABLE || len(at.Cmds) != 1 || at.Relation == nil {
		return nil, false, nil
	}
	cmd := at.Cmds[0].GetAlterTableCmd()
	con := cmd.GetDef().GetConstraint()
	var keys []string
	switch {
	case cmd.GetSubtype() == pg_query.AlterTableType_AT_AddConstraint && con != nil && con.Contype == pg_query.ConstrType_CONSTR_PRIMARY:
		if len(con.Including) > 0 || len(con.Options) > 0 || con.Indexname != "" || con.Indexspace != "" || con.Deferrable {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD PRIMARY KEY with index options is not supported")
		}
		for _, k := range con.Keys {
			keys = append(keys, k.GetString_().GetSval())
		}
	case cmd.GetSubtype() == pg_query.AlterTableType_AT_ValidateConstraint:
		if err := s.ddlAllowed("ALTER TABLE"); err != nil {
			return nil, true, err
		}
		return tagOnly("ALTER TABLE", func(ctx context.Context) error { return s.validateCheck(ctx, at, cmd.Name) }), true, nil
	case cmd.GetSubtype() == pg_query.AlterTableType_AT_DropConstraint:
		// Nothing depends on a key here: CASCADE drops the same.
	default:
		return nil, false, nil
	}
	if err := s.ddlAllowed("ALTER TABLE"); err != nil {
		return nil, true, err
	}
	rv := at.Relation
	return tagOnly("ALTER TABLE", func(ctx context.Context) error {
		id, a, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
		if err == nil {
			_, err = s.b.sec.table(ctx, id)
		}
		if err != nil {
			if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable || errors.Is(err, catalog.ErrNotFound) {
				if at.MissingOk {
					return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
						Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
				}
				return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
			}
			return err
		}
		if err := s.requireTableOwner(ctx, a, id, false); err != nil {
			return err
		}
		t, err := s.eng.Table(ctx, id)
		if err != nil {
			return err
		}
		schemaKey := t.Schema.PrimaryKey
		if cmd.GetSubtype() == pg_query.AlterTableType_AT_DropConstraint {
			if ok, err := s.dropForeignKey(ctx, id, cmd.Name); err != nil || ok { // foreignkey.go
				return err
			}
			if ok, err := s.dropUnique(ctx, id, cmd.Name); err != nil || ok { // keys.go
				return err
			}
			if ok, err := s.dropCheck(ctx, id, cmd.Name); err != nil || ok { // checks.go
				return err
			}
			missing := false
			err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
				key, name := e.EffectiveKey(schemaKey)
				if name == "" {
					name = id.Name + "_pkey"
				}
				if len(key) == 0 || name != cmd.Name {
					missing = true
					if cmd.MissingOk {
						return errSkip
					}
					return pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", cmd.Name, id.Name)
				}
				e.PrimaryKey, e.PrimaryKeyName, e.SchemaKeyDropped = nil, "", len(schemaKey) > 0
				return nil
			})
			if err == nil {
				err = s.refreshKeys(ctx, id)
			}
			if missing && errors.Is(err, errSkip) {
				return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
					Message: fmt.Sprintf("constraint \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, id.Name)})
			}
			return err
		}
		seen := map[string]bool{}
		for _, k := range keys {
			i := t.Schema.Index(k)
			if i < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", k, id.Name)
			}
			if seen[k] {
				return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in primary key constraint", k)
			}
			seen[k] = true
			if !t.Schema.Columns[i].NotNull {
				return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD PRIMARY KEY on column \"%s\", which is not NOT NULL, is not supported", k)
			}
		}
		name := con.Conname
		if name == "" {
			name = id.Name + "_pkey"
		}
		return s.addKey(ctx, id, planner.KeyDef{Name: name, Columns: keys, Primary: true}, func(e *catalog.Entry) error { // keys.go
			if key, _ := e.EffectiveKey(schemaKey); len(key) > 0 {
				return pgerr.New("42P16", "multiple primary keys for table \"%s\" are not allowed", id.Name)
			}
			e.PrimaryKey, e.PrimaryKeyName = keys, ""
			if con.Conname != "" && con.Conname != id.Name+"_pkey" {
				e.PrimaryKeyName = con.Conname
			}
			return nil
		})
	}), true, nil
}

// errSkip aborts a catalog update without an error to report.
var errSkip = errors.New("skip")
