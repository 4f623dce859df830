package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/seq"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// ALTER TABLE as Iceberg schema evolution.
//
// A table's schema lives in its manifest; a change is one manifest
// version with the new schema (txn.Table.Alter, after everything buffered
// is committed), published to Iceberg as a new current schema. Columns
// keep their field ids, so the data files already written stay valid:
//
//   - ADD COLUMN: a new field id. Rows written before read the column's
//     initial default: NULL, or the value of a constant default computed
//     once at ALTER time (PostgreSQL 11+ does the same: "fast default").
//     The value is Iceberg's initial-default of the field; readers that
//     do not implement it (Iceberg format v2) see NULL in those rows.
//   - DROP COLUMN: the field leaves the schema; its data stays in old files,
//     unread (Iceberg never reuses the id).
//   - RENAME COLUMN, SET/DROP DEFAULT, DROP NOT NULL: the schema only.
//   - SET NOT NULL: checked against every row first (23502).
//   - ALTER COLUMN TYPE: the promotions Iceberg allows (integer widening,
//     real to double precision, a larger numeric precision at the same
//     scale) and any change between text types that cannot fail (a longer
//     or no length limit); others are refused (0A000), as they would
//     rewrite every data file.
//
// Several subcommands of one statement are one schema change.

// alterCmd is one subcommand applied to a schema.
type alterCmd struct {
	// apply changes sch (the head's schema, a copy); notices it queues.
	// nil: the subcommand changes no schema (a constraint).
	apply func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error
	// entry, if set, updates the catalog entry after the schema change.
	entry func(e *catalog.Entry)
	// after, if set, runs after the schema change (sequences).
	after func(ctx context.Context) error
	// after2, if set, runs after the schema change with the table's id
	// (constraints).
	after2 func(ctx context.Context, id catalog.TableID) error
	// undo, if set, runs when the schema change failed (what apply made
	// outside the schema: an identity's sequence).
	undo func(ctx context.Context)
	// check: apply only checks (it changes no schema): no schema change is
	// made for it.
	check bool
}

// planAlterTable plans the ALTER TABLE forms that change a table's
// columns, and RENAME COLUMN. ok false: not one of them.
func (s *session) planAlterTable(ctx context.Context, st *bsql.Statement) (p plan, ok bool, err error) {
	if rn := st.Tree.GetRenameStmt(); rn != nil {
		if rn.RenameType != pg_query.ObjectType_OBJECT_COLUMN || rn.RelationType != pg_query.ObjectType_OBJECT_TABLE || rn.Relation == nil {
			return nil, false, nil
		}
		if err := s.ddlAllowed("ALTER TABLE"); err != nil {
			return nil, true, err
		}
		cmd := s.renameColumnCmd(rn.Relation.Relname, rn.Subname, rn.Newname)
		return tagOnly("ALTER TABLE", func(ctx context.Context) error {
			return s.alterTable(ctx, rn.Relation, rn.MissingOk, []alterCmd{cmd})
		}), true, nil
	}
	at := st.Tree.GetAlterTableStmt()
	if at == nil || at.Objtype != pg_query.ObjectType_OBJECT_TABLE || at.Relation == nil || len(at.Cmds) == 0 {
		return nil, false, nil
	}
	var cmds []alterCmd
	for _, n := range at.Cmds {
		c := n.GetAlterTableCmd()
		if c == nil {
			return nil, false, nil
		}
		cmd, handled, err := s.alterTableCmd(at.Relation.Relname, c)
		if !handled {
			if len(at.Cmds) == 1 {
				return nil, false, nil // planAlterKey's, or unsupported
			}
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE %s cannot be combined with other subcommands here", alterCmdName(c))
		}
		if err != nil {
			return nil, true, err
		}
		cmds = append(cmds, cmd)
	}
	if err := s.ddlAllowed("ALTER TABLE"); err != nil {
		return nil, true, err
	}
	return tagOnly("ALTER TABLE", func(ctx context.Context) error {
		return s.alterTable(ctx, at.Relation, at.MissingOk, cmds)
	}), true, nil
}

// alterCmdName names a subcommand in an error.
func alterCmdName(c *pg_query.AlterTableCmd) string {
	return strings.ReplaceAll(strings.TrimPrefix(c.Subtype.String(), "AT_"), "_", " ")
}

// alterTarget resolves the relation an ALTER names: its id, the session's
// authorization and its catalog entry; nil entry (and the NOTICE queued)
// when it does not exist and missingOK (IF EXISTS), else 42P01.
func (s *session) alterTarget(ctx context.Context, rv *pg_query.RangeVar, missingOK bool) (catalog.TableID, *authz, *catalog.Entry, error) {
	id, a, err := s.lookupTable(ctx, rv.Schemaname, rv.Relname)
	var ent *catalog.Entry
	if err == nil {
		ent, err = s.eng.Catalog().Table(ctx, id)
	}
	if err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable || errors.Is(err, catalog.ErrNotFound) {
			if missingOK {
				return id, a, nil, s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
					Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
			}
			return id, a, nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
		}
		return id, a, nil, err
	}
	return id, a, ent, nil
}

// alterTable applies cmds to the table rv names, as one schema change.
func (s *session) alterTable(ctx context.Context, rv *pg_query.RangeVar, missingOK bool, cmds []alterCmd) error {
	if rv.Catalogname != "" && rv.Catalogname != s.db {
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	if s.isTempSchema(rv.Schemaname) || rv.Schemaname == "" && s.tempTable("", rv.Relname) != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE of a temporary table is not supported")
	}
	id, a, ent, err := s.alterTarget(ctx, rv, missingOK)
	if err != nil || ent == nil {
		return err
	}
	if ent.IsView() {
		return pgerr.New("42809", "\"%s\" is not a table", id.Name).WithHint("Use ALTER VIEW instead.")
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	var notices []*pgerr.Error
	sctx := context.WithValue(ctx, alterNoticesKey{}, &notices)
	changes := false
	for _, c := range cmds {
		changes = changes || c.apply != nil && !c.check
	}
	if !changes {
		// Checks only (SET STORAGE ...): against the current schema.
		t, err := s.eng.Table(ctx, id)
		if err != nil {
			return err
		}
		for _, c := range cmds {
			if c.apply != nil {
				if err := c.apply(ctx, t, nil, t.Schema.Clone()); err != nil {
					return err
				}
			}
		}
	}
	s.releaseSchemaLock(id) // a write only planned (ddlAllowed: none done)
	if changes {
		_, err = s.eng.AlterTable(ctx, id, func(t *planner.Table, m *manifest.Manifest) (*schema.Schema, error) {
			notices = notices[:0]
			sch := m.Schema.Clone()
			for _, c := range cmds {
				if c.apply == nil {
					continue
				}
				if err := c.apply(sctx, t, m, sch); err != nil {
					return nil, err
				}
			}
			return sch, nil
		})
		s.b.sec.forget(tableKey(id))
		if err != nil {
			for _, c := range cmds {
				if c.undo != nil {
					c.undo(context.WithoutCancel(ctx))
				}
			}
			return err
		}
	}
	for _, n := range notices {
		if err := s.pendingNotice(n); err != nil {
			return err
		}
	}
	var entryFns []func(*catalog.Entry)
	for _, c := range cmds {
		if c.entry != nil {
			entryFns = append(entryFns, c.entry)
		}
	}
	if len(entryFns) > 0 {
		if err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
			for _, fn := range entryFns {
				fn(e)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := s.refreshKeys(ctx, id); err != nil { // keys.go: renamed or dropped key columns
			return err
		}
	}
	for _, c := range cmds {
		if c.after != nil {
			if err := c.after(ctx); err != nil {
				return err
			}
		}
		if c.after2 != nil {
			if err := c.after2(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

type alterNoticesKey struct{}

// alterNotice queues a notice of the statement (sent when it succeeds).
func alterNotice(ctx context.Context, format string, args ...any) {
	if p, ok := ctx.Value(alterNoticesKey{}).(*[]*pgerr.Error); ok {
		*p = append(*p, &pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf(format, args...)})
	}
}

// alterTableCmd translates one subcommand. handled false: not one of the
// forms planAlterTable runs.
func (s *session) alterTableCmd(table string, c *pg_query.AlterTableCmd) (cmd alterCmd, handled bool, err error) {
	switch c.Subtype {
	case pg_query.AlterTableType_AT_AddColumn:
		cd := c.GetDef().GetColumnDef()
		if cd == nil {
			return cmd, false, nil
		}
		cmd, err = s.addColumnCmd(table, cd, c.MissingOk)
		return cmd, true, err
	case pg_query.AlterTableType_AT_DropColumn:
		return s.dropColumnCmd(table, c.Name, c.MissingOk, c.Behavior == pg_query.DropBehavior_DROP_CASCADE), true, nil
	case pg_query.AlterTableType_AT_ColumnDefault:
		cmd, err = s.columnDefaultCmd(table, c.Name, c.Def)
		return cmd, true, err
	case pg_query.AlterTableType_AT_SetNotNull, pg_query.AlterTableType_AT_DropNotNull:
		return s.notNullCmd(table, c.Name, c.Subtype == pg_query.AlterTableType_AT_SetNotNull), true, nil
	case pg_query.AlterTableType_AT_SetRelOptions, pg_query.AlterTableType_AT_ResetRelOptions:
		// Storage parameters tune PostgreSQL's heap and its vacuum: they
		// are checked as PostgreSQL checks their names and kept nowhere.
		for _, n := range c.GetDef().GetList().GetItems() {
			d := n.GetDefElem()
			if d == nil {
				continue
			}
			name := d.Defname
			if d.Defnamespace != "" {
				name = d.Defnamespace + "." + d.Defname
			}
			if !relOptions[name] {
				return cmd, true, pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter \"%s\"", name)
			}
		}
		return alterCmd{}, true, nil
	case pg_query.AlterTableType_AT_SetStorage, pg_query.AlterTableType_AT_SetStatistics, pg_query.AlterTableType_AT_SetCompression:
		// How PostgreSQL stores, samples or compresses a column: checked,
		// kept nowhere (Parquet's encodings are the storage's own).
		storage := ""
		if c.Subtype == pg_query.AlterTableType_AT_SetStorage {
			storage = strings.ToLower(c.GetDef().GetString_().GetSval())
		}
		return alterCmd{apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
			i, err := findColumn(sch, table, c.Name)
			if err != nil {
				return err
			}
			if storage != "" && storage != "plain" && fixedWidth(sch.Columns[i].Kind) {
				typ, mod, _ := pgtypes.TypeOfColumn(sch.Columns[i])
				return pgerr.New(pgerr.FeatureNotSupported, "column data type %s can only have storage PLAIN", pgtypes.FormatType(typ, mod))
			}
			return nil
		}, check: true}, true, nil
	case pg_query.AlterTableType_AT_AddIdentity:
		con := c.GetDef().GetConstraint()
		if con == nil {
			return cmd, false, nil
		}
		cmd, err = s.addIdentityCmd(table, c.Name, con)
		return cmd, true, err
	case pg_query.AlterTableType_AT_SetIdentity:
		cmd, err = s.setIdentityCmd(table, c.Name, c.GetDef().GetList().GetItems())
		return cmd, true, err
	case pg_query.AlterTableType_AT_DropIdentity:
		return s.dropIdentityCmd(table, c.Name, c.MissingOk), true, nil
	case pg_query.AlterTableType_AT_AddConstraint:
		con := c.GetDef().GetConstraint()
		switch {
		case con == nil:
			return cmd, false, nil
		case con.Contype == pg_query.ConstrType_CONSTR_CHECK:
			spec, err := bsql.TranslateCheck(con)
			if err != nil {
				return cmd, true, err
			}
			return alterCmd{after2: func(ctx context.Context, id catalog.TableID) error { return s.addCheckTo(ctx, id, spec) }}, true, nil
		case con.Contype == pg_query.ConstrType_CONSTR_UNIQUE:
			spec, err := bsql.TranslateUnique(con, "")
			if err != nil {
				return cmd, true, err
			}
			return alterCmd{after2: func(ctx context.Context, id catalog.TableID) error { return s.addUniqueTo(ctx, id, spec) }}, true, nil
		case con.Contype != pg_query.ConstrType_CONSTR_FOREIGN:
			return cmd, false, nil
		}
		spec, err := bsql.TranslateForeignKey(con, "")
		if err != nil {
			return cmd, true, err
		}
		return s.addForeignKeyCmd(table, spec), true, nil
	case pg_query.AlterTableType_AT_AlterColumnType:
		cd := c.GetDef().GetColumnDef()
		if cd == nil {
			return cmd, false, nil
		}
		cmd, err = s.columnTypeCmd(table, c.Name, cd)
		return cmd, true, err
	}
	return cmd, false, nil
}

// addForeignKeyCmd adds a foreign key once the schema change, if any, is
// done (it may name a column the same statement adds).
func (s *session) addForeignKeyCmd(table string, spec bsql.ForeignKeySpec) alterCmd {
	return alterCmd{after2: func(ctx context.Context, id catalog.TableID) error {
		return s.addForeignKey(ctx, id, spec) // foreignkey.go
	}}
}

// findColumn returns the named column of sch or PostgreSQL's 42703.
func findColumn(sch *schema.Schema, table, name string) (int, error) {
	i := sch.Index(name)
	if i < 0 {
		return -1, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, table)
	}
	return i, nil
}

// tableRows counts the rows of the table (no write runs: see txn.Alter).
func tableRows(m *manifest.Manifest) int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Rows
	}
	for _, d := range m.Deletes {
		n -= d.Rows
	}
	return n
}

// volatileDefault reports whether a default calls a volatile function,
// whose value PostgreSQL computes per row when it adds the column.
func volatileDefault(def string) bool {
	d := strings.ToLower(def)
	for _, f := range []string{"nextval(", "random(", "gen_random_uuid(", "clock_timestamp(", "timeofday(", "uuid_generate", "setseed("} {
		if strings.Contains(d, f) {
			return true
		}
	}
	return false
}

func (s *session) addColumnCmd(table string, c *pg_query.ColumnDef, ifNotExists bool) (alterCmd, error) {
	cd, err := bsql.TranslateColumnDef(c, table)
	if err != nil {
		return alterCmd{}, err
	}
	switch {
	case cd.Serial || cd.Identity != "":
		return alterCmd{}, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of a serial or identity column is not supported")
	case cd.PrimaryKey:
		return alterCmd{}, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN ... PRIMARY KEY is not supported")
	}
	// ADD COLUMN c type CHECK (...) / UNIQUE: the constraints once the
	// column is there (checks.go, keys.go).
	var checks []bsql.CheckSpec
	var uniques []bsql.UniqueSpec
	for _, cn := range c.Constraints {
		k := cn.GetConstraint()
		switch {
		case k == nil:
		case k.Contype == pg_query.ConstrType_CONSTR_CHECK:
			spec, err := bsql.TranslateCheck(k)
			if err != nil {
				return alterCmd{}, err
			}
			checks = append(checks, spec)
		case k.Contype == pg_query.ConstrType_CONSTR_UNIQUE:
			spec, err := bsql.TranslateUnique(k, cd.Name)
			if err != nil {
				return alterCmd{}, err
			}
			uniques = append(uniques, spec)
		}
	}
	col, err := pgtypes.ColumnType(cd.TypeOID, cd.TypeMod)
	if err != nil {
		return alterCmd{}, err
	}
	col.Name, col.NotNull, col.Default = cd.Name, cd.NotNull, cd.Default
	// ADD COLUMN c type REFERENCES t: the foreign key once the column is there.
	var fks []bsql.ForeignKeySpec
	for _, cn := range c.Constraints {
		if k := cn.GetConstraint(); k != nil && k.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
			spec, err := bsql.TranslateForeignKey(k, cd.Name)
			if err != nil {
				return alterCmd{}, err
			}
			fks = append(fks, spec)
		}
	}
	apply := func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		if sch.Index(col.Name) >= 0 {
			if ifNotExists {
				alterNotice(ctx, "column \"%s\" of relation \"%s\" already exists, skipping", col.Name, table)
				return nil
			}
			return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", col.Name, table)
		}
		nc := col
		rows := tableRows(m)
		if nc.Default != "" {
			if rows > 0 && volatileDefault(nc.Default) {
				return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN with a volatile default on a table with rows is not supported")
			}
			// Computed once, for every row that exists (and that a
			// concurrent writer in the old schema may still write).
			text, null, err := s.initialDefault(ctx, nc.Default, cd.TypeOID, cd.TypeMod)
			if err != nil {
				return err
			}
			if !null {
				if nc.Kind == schema.KindInterval && rows > 0 {
					return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of type interval with a default on a table with rows is not supported")
				}
				nc.InitialDefault, nc.HasInitialDefault = text, true
			}
		}
		if nc.NotNull && !nc.HasInitialDefault && rows > 0 {
			return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", nc.Name, table)
		}
		sch.AddColumn(nc)
		return nil
	}
	after2 := func(ctx context.Context, id catalog.TableID) error {
		for _, spec := range fks {
			if err := s.addForeignKey(ctx, id, spec); err != nil {
				return err
			}
		}
		var err error
		for _, spec := range checks {
			if err == nil {
				err = s.addCheckTo(ctx, id, spec)
			}
		}
		for _, spec := range uniques {
			if err == nil {
				err = s.addUniqueTo(ctx, id, spec)
			}
		}
		if err != nil {
			// The rows break a constraint of the new column: the column
			// goes again, as if it had never been added.
			rv := &pg_query.RangeVar{Schemaname: id.Schema, Relname: id.Name, Inh: true, Relpersistence: "p"}
			if derr := s.alterTable(context.WithoutCancel(ctx), rv, false, []alterCmd{s.dropColumnCmd(table, col.Name, false, true)}); derr != nil {
				s.b.Log.Warn("ALTER TABLE ... ADD COLUMN: dropping the column again failed", "table", table, "column", col.Name, "err", derr)
			}
			return err
		}
		return nil
	}
	return alterCmd{apply: apply, after2: after2}, nil
}

// initialDefault computes a constant default once: DuckDB's text of the
// value (which DuckDB casts back to the column's type).
func (s *session) initialDefault(ctx context.Context, def string, oid uint32, mod int32) (string, bool, error) {
	stmts, err := bsql.Parse("SELECT (" + def + ")::" + pgtypes.FormatType(oid, mod))
	if err != nil || len(stmts) != 1 {
		return "", false, fmt.Errorf("bad default %q: %v", def, err)
	}
	b := &binder{s: s, ctx: ctx}
	defer b.release()
	q, err := bsql.TranslateQuery(stmts[0].Tree, b, nil)
	if err != nil {
		return "", false, noPosition(err)
	}
	var v *string
	s.detachStream(ctx)
	if err := s.conn.QueryRowContext(ctx, "SELECT CAST(__v AS VARCHAR) FROM ("+q.SQL+") AS __t(__v)").Scan(&v); err != nil {
		return "", false, noPosition(bsql.MapError(err, ""))
	}
	if v == nil {
		return "", true, nil
	}
	return *v, false, nil
}

// noPosition drops the position of an error in a statement of ours (the
// user's text has no such position; PostgreSQL reports none either).
func noPosition(err error) error {
	if pe, ok := pgerr.As(err); ok && pe.Position != 0 {
		c := *pe
		c.Position = 0
		return &c
	}
	return err
}

func (s *session) dropColumnCmd(table, name string, ifExists, cascade bool) alterCmd {
	var dropped bool
	var owned []catalog.TableID
	var fkDeps []fkDependent
	var viewDeps []*catalog.Entry
	return alterCmd{
		apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
			dropped = false
			if sch.Index(name) < 0 {
				if ifExists {
					alterNotice(ctx, "column \"%s\" of relation \"%s\" does not exist, skipping", name, table)
					return nil
				}
				return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, table)
			}
			if len(sch.Columns) == 1 {
				return pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
			}
			// Foreign keys of other tables that reference the column.
			fkDeps = fkDeps[:0]
			rels, err := s.eng.ListRelations(ctx, s.db)
			if err != nil {
				return err
			}
			for _, e := range rels {
				for _, fk := range e.ForeignKeys {
					if fk.RefTable == t.ID && slices.Contains(fk.RefColumns, name) && !(e.ID == t.ID && slices.Contains(fk.Columns, name)) {
						fkDeps = append(fkDeps, fkDependent{table: e.ID, name: fk.Name, ref: t.ID})
					}
				}
			}
			// Views that read the column (PostgreSQL's reference it by
			// number; ours by name: they would fail when read).
			viewDeps = viewDeps[:0]
			for i := range rels {
				v := &rels[i]
				if !v.IsView() || v.View == nil || !slices.Contains(v.View.Deps, t.ID) {
					continue
				}
				if reads, err := bsql.QueryReadsColumn(v.View.Query, name); err != nil {
					return err
				} else if reads {
					viewDeps = append(viewDeps, v)
				}
			}
			if len(viewDeps) > 0 && cascade {
				more, _, err := s.dependents(ctx, viewDeps) // views.go
				if err != nil {
					return err
				}
				viewDeps = append(viewDeps, more...)
				var drops []string
				for _, v := range viewDeps {
					drops = append(drops, "drop cascades to "+s.describeRelation(v))
				}
				n := &pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion, Message: drops[0]}
				if len(drops) > 1 {
					n.Message, n.Detail = fmt.Sprintf("drop cascades to %d other objects", len(drops)), strings.Join(drops, "\n")
				}
				if p, ok := ctx.Value(alterNoticesKey{}).(*[]*pgerr.Error); ok {
					*p = append(*p, n)
				}
			}
			if len(viewDeps) > 0 && !cascade {
				var lines []string
				for _, v := range viewDeps {
					lines = append(lines, fmt.Sprintf("%s depends on column %s of table %s", s.describeRelation(v), name, s.shownName(t.ID)))
					_, more, err := s.dependents(ctx, []*catalog.Entry{v}) // views of it, depth first
					if err != nil {
						return err
					}
					lines = append(lines, more...)
				}
				return pgerr.New("2BP01", "cannot drop column %s of table %s because other objects depend on it", name, s.shownName(t.ID)).
					WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if len(fkDeps) > 0 && !cascade {
				var lines []string
				for _, d := range fkDeps {
					lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on column %s of table %s", d.name, s.shownName(d.table), name, s.shownName(t.ID)))
				}
				return pgerr.New("2BP01", "cannot drop column %s of table %s because other objects depend on it", name, s.shownName(t.ID)).
					WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			sch.DropColumn(name)
			for _, k := range sch.PrimaryKey {
				if k == name {
					sch.PrimaryKey = nil // its key (and index) goes with it
				}
			}
			dropped = true
			recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
			if err != nil {
				return err
			}
			owned = owned[:0]
			for _, r := range recs {
				if r.OwnedBy == t.ID && r.OwnedByColumn == name {
					owned = append(owned, r.ID)
				}
			}
			return nil
		},
		entry: func(e *catalog.Entry) {
			if !dropped {
				return
			}
			for _, k := range e.PrimaryKey {
				if k == name {
					e.PrimaryKey, e.PrimaryKeyName = nil, ""
				}
			}
			kept := e.Indexes[:0]
			for _, ix := range e.Indexes {
				uses := false
				for _, k := range ix.Keys {
					uses = uses || k.Column == name || k.Expr != "" && strings.Contains(k.Expr, name)
				}
				for _, c := range ix.Include {
					uses = uses || c == name
				}
				if !uses {
					kept = append(kept, ix)
				}
			}
			e.Indexes = kept
			delete(e.ColumnComments, name)
			// Its CHECK constraints go with it, as in PostgreSQL.
			checks := e.Checks[:0]
			for _, c := range e.Checks {
				cols, err := bsql.ExprColumns(c.Expr)
				if err != nil || !slices.Contains(cols, name) {
					checks = append(checks, c)
				}
			}
			e.Checks = checks
			// Its foreign keys go with it.
			fks := e.ForeignKeys[:0]
			for _, fk := range e.ForeignKeys {
				if !slices.Contains(fk.Columns, name) {
					fks = append(fks, fk)
				}
			}
			e.ForeignKeys = fks
		},
		after: func(ctx context.Context) error {
			// CASCADE: the views that read the column go, with the views
			// that read them.
			for i := len(viewDeps) - 1; i >= 0; i-- {
				if err := s.dropRelation(ctx, viewDeps[i]); err != nil {
					return err
				}
			}
			for _, d := range fkDeps {
				if _, err := s.dropForeignKey(ctx, d.table, d.name); err != nil {
					return err
				}
			}
			// The column's own sequences (serial) go with it.
			for _, id := range owned {
				sq, err := s.b.seqs().Lookup(ctx, id)
				if err != nil {
					return err
				}
				if sq != nil {
					if err := s.b.seqs().Drop(ctx, sq); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
}

func (s *session) renameColumnCmd(table, from, to string) alterCmd {
	return alterCmd{
		apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
			i := sch.Index(from)
			if i < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", from)
			}
			if sch.Index(to) >= 0 {
				return pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", to, table)
			}
			sch.Columns[i].Name = to
			for j, k := range sch.PrimaryKey {
				if k == from {
					sch.PrimaryKey[j] = to
				}
			}
			return nil
		},
		entry: func(e *catalog.Entry) {
			for j, k := range e.PrimaryKey {
				if k == from {
					e.PrimaryKey[j] = to
				}
			}
			for i := range e.Indexes {
				ix := &e.Indexes[i]
				for j := range ix.Keys {
					if ix.Keys[j].Column == from {
						ix.Keys[j].Column = to
					}
				}
				for j, c := range ix.Include {
					if c == from {
						ix.Include[j] = to
					}
				}
			}
			if c, ok := e.ColumnComments[from]; ok {
				delete(e.ColumnComments, from)
				e.ColumnComments[to] = c
			}
			for i := range e.ForeignKeys {
				renameIn(e.ForeignKeys[i].Columns, from, to)
			}
			for i := range e.Checks {
				if x, err := bsql.RenameColumnInExpr(e.Checks[i].Expr, from, to); err == nil {
					e.Checks[i].Expr = x
				}
			}
		},
		after2: func(ctx context.Context, id catalog.TableID) error {
			if err := s.renameOwnedColumn(ctx, id, from, to); err != nil {
				return err
			}
			// Foreign keys that reference the column (this table's too).
			return s.updateForeignKeys(ctx, func(fk *catalog.ForeignKeyDef) bool {
				if fk.RefTable != id || !slices.Contains(fk.RefColumns, from) {
					return false
				}
				renameIn(fk.RefColumns, from, to)
				return true
			})
		},
	}
}

// renameIn replaces from by to in names.
func renameIn(names []string, from, to string) {
	for i, n := range names {
		if n == from {
			names[i] = to
		}
	}
}

// renameOwnedColumn follows a column rename in the sequences it owns.
func (s *session) renameOwnedColumn(ctx context.Context, id catalog.TableID, from, to string) error {
	recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.OwnedBy != id || r.OwnedByColumn != from {
			continue
		}
		sq, err := s.b.seqs().Lookup(ctx, r.ID)
		if err != nil || sq == nil {
			return err
		}
		if err := sq.Alter(ctx, nil, func(rec *catalog.Sequence) error {
			if rec.OwnedBy == id && rec.OwnedByColumn == from {
				rec.OwnedByColumn = to
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) columnDefaultCmd(table, name string, def *pg_query.Node) (alterCmd, error) {
	text := ""
	if def != nil {
		if err := bsql.CheckExpression(def); err != nil {
			return alterCmd{}, err
		}
		d, err := bsql.DeparseExpr(def)
		if err != nil {
			return alterCmd{}, err
		}
		text = d
	}
	return alterCmd{apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		i, err := findColumn(sch, table, name)
		if err != nil {
			return err
		}
		c := &sch.Columns[i]
		if c.Identity != "" {
			return pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", name, table).
				WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		if text != "" {
			// The default must be valid for the column now, as PostgreSQL
			// checks when it stores it (its value is not kept).
			oid, mod, err := pgtypes.TypeOfColumn(*c)
			if err != nil {
				return err
			}
			if !volatileDefault(text) {
				if _, _, err := s.initialDefault(ctx, text, oid, mod); err != nil {
					return err
				}
			}
		}
		c.Default = text
		return nil
	}}, nil
}

func (s *session) notNullCmd(table, name string, set bool) alterCmd {
	return alterCmd{apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		i, err := findColumn(sch, table, name)
		if err != nil {
			return err
		}
		c := &sch.Columns[i]
		if !set {
			for _, k := range sch.PrimaryKey {
				if k == name {
					return pgerr.New("42P16", "column \"%s\" is in a primary key", name)
				}
			}
			if key, _ := t.Entry.EffectiveKey(sch.PrimaryKey); len(key) > 0 {
				for _, k := range key {
					if k == name {
						return pgerr.New("42P16", "column \"%s\" is in a primary key", name)
					}
				}
			}
			if c.Identity != "" {
				return pgerr.New(pgerr.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", name, table)
			}
			c.NotNull = false
			return nil
		}
		if !c.NotNull {
			n, err := t.CountWhere(ctx, quoteIdentPG(name)+" IS NULL")
			if err != nil {
				return err
			}
			if n > 0 {
				return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", name, table)
			}
		}
		c.NotNull = true
		return nil
	}}
}

func (s *session) columnTypeCmd(table, name string, def *pg_query.ColumnDef) (alterCmd, error) {
	if def.RawDefault != nil {
		return alterCmd{}, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... TYPE ... USING is not supported")
	}
	if def.CollClause != nil {
		return alterCmd{}, pgerr.New(pgerr.FeatureNotSupported, "COLLATE is not supported")
	}
	oid, mod, err := bsql.ResolveTypeName(def.TypeName)
	if err != nil {
		return alterCmd{}, err
	}
	want, err := pgtypes.ColumnType(oid, mod)
	if err != nil {
		return alterCmd{}, err
	}
	return alterCmd{apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		i, err := findColumn(sch, table, name)
		if err != nil {
			return err
		}
		c := &sch.Columns[i]
		from, fromMod, err := pgtypes.TypeOfColumn(*c)
		if err != nil {
			return err
		}
		if limited := narrowedText(c, from, want, oid); limited {
			// Every stored value must fit the new length limit.
			n, err := t.CountWhere(ctx, fmt.Sprintf("length(%s) > %d", quoteIdentPG(name), want.Length))
			if err != nil {
				return err
			}
			if n > 0 {
				return pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s", pgtypes.FormatType(oid, mod))
			}
		} else if !promotable(c, from, want, oid) {
			return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... TYPE from %s to %s is not supported",
				pgtypes.FormatType(from, fromMod), pgtypes.FormatType(oid, mod)).
				WithHint("A column's type can change where every stored value keeps its representation: smallint to integer to bigint, real to double precision, numeric(p,s) to a larger p, and text types to a longer or no length limit.")
		}
		if c.Default != "" && !volatileDefault(c.Default) {
			if _, _, err := s.initialDefault(ctx, c.Default, oid, mod); err != nil {
				return err
			}
		}
		c.Kind, c.Precision, c.Scale, c.Length, c.Annotation = want.Kind, want.Precision, want.Scale, want.Length, want.Annotation
		return nil
	}}, nil
}

// promotable reports whether column c (of type from) can become want (of
// type to) without rewriting data: an Iceberg type promotion, or the same
// storage with a check that cannot fail.
func promotable(c *schema.Column, from uint32, want schema.Column, to uint32) bool {
	switch {
	case c.Kind == schema.KindInt16 && (want.Kind == schema.KindInt32 || want.Kind == schema.KindInt64),
		c.Kind == schema.KindInt32 && want.Kind == schema.KindInt64,
		c.Kind == schema.KindFloat32 && want.Kind == schema.KindFloat64:
		return true
	case c.Kind == schema.KindDecimal && want.Kind == schema.KindDecimal:
		return want.Scale == c.Scale && want.Precision >= c.Precision
	case c.Kind == schema.KindString && want.Kind == schema.KindString:
		text := func(o uint32) bool { return o == pgtypes.OIDText || o == pgtypes.OIDVarchar }
		if from == to && from == pgtypes.OIDBPChar {
			return want.Length == c.Length
		}
		return text(from) && text(to) && (want.Length == 0 || c.Length != 0 && want.Length >= c.Length)
	}
	return c.Kind == want.Kind && from == to && c.Precision == want.Precision && c.Scale == want.Scale && c.Length == want.Length
}

// narrowedText reports whether column c (text or varchar) becomes a
// varchar of a length limit some stored value may exceed: allowed after a
// check of the values (PostgreSQL rewrites, failing on a value too long).
func narrowedText(c *schema.Column, from uint32, want schema.Column, to uint32) bool {
	text := func(o uint32) bool { return o == pgtypes.OIDText || o == pgtypes.OIDVarchar }
	return c.Kind == schema.KindString && want.Kind == schema.KindString && text(from) && to == pgtypes.OIDVarchar &&
		want.Length > 0 && (c.Length == 0 || want.Length < c.Length)
}

// planRenameRelation plans ALTER TABLE / ALTER VIEW ... RENAME TO and
// ... SET SCHEMA of a table or view (a sequence's are planSequence's).
// ok false: not one of them.
func (s *session) planRenameRelation(st *bsql.Statement) (p plan, ok bool, err error) {
	var rv *pg_query.RangeVar
	var kind pg_query.ObjectType
	var newSchema, newName string
	var missingOK bool
	switch {
	case st.Tree.GetRenameStmt() != nil:
		rn := st.Tree.GetRenameStmt()
		if rn.RenameType != pg_query.ObjectType_OBJECT_TABLE && rn.RenameType != pg_query.ObjectType_OBJECT_VIEW || rn.Relation == nil {
			return nil, false, nil
		}
		rv, kind, newName, missingOK = rn.Relation, rn.RenameType, rn.Newname, rn.MissingOk
	case st.Tree.GetAlterObjectSchemaStmt() != nil:
		as := st.Tree.GetAlterObjectSchemaStmt()
		if as.ObjectType != pg_query.ObjectType_OBJECT_TABLE && as.ObjectType != pg_query.ObjectType_OBJECT_VIEW || as.Relation == nil {
			return nil, false, nil
		}
		rv, kind, newSchema, missingOK = as.Relation, as.ObjectType, as.Newschema, as.MissingOk
	default:
		return nil, false, nil
	}
	tag := "ALTER TABLE"
	if kind == pg_query.ObjectType_OBJECT_VIEW {
		tag = "ALTER VIEW"
	}
	if err := s.ddlAllowed(tag); err != nil {
		return nil, true, err
	}
	return tagOnly(tag, func(ctx context.Context) error {
		return s.renameRelation(ctx, rv, kind == pg_query.ObjectType_OBJECT_VIEW, missingOK, newSchema, newName)
	}), true, nil
}

// renameRelation moves the relation rv names to newSchema ("" = its own)
// under newName ("" = its own).
func (s *session) renameRelation(ctx context.Context, rv *pg_query.RangeVar, view, missingOK bool, newSchema, newName string) error {
	if rv.Catalogname != "" && rv.Catalogname != s.db {
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	if s.isTempSchema(rv.Schemaname) || rv.Schemaname == "" && (s.tempTable("", rv.Relname) != nil || s.temp.views[rv.Relname] != nil) {
		return pgerr.New(pgerr.FeatureNotSupported, "renaming a temporary table or view is not supported")
	}
	id, a, ent, err := s.alterTarget(ctx, rv, missingOK)
	if err != nil || ent == nil {
		return err
	}
	if view && !ent.IsView() {
		return pgerr.New("42809", "\"%s\" is not a view", id.Name)
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	to := id
	if newName != "" {
		to.Name = newName
	}
	if newSchema != "" {
		if s.isTempSchema(newSchema) || newSchema == "pg_catalog" || newSchema == "information_schema" {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot move objects into or out of system or temporary schemas")
		}
		to.Schema = newSchema
		if err := s.requireSchema(ctx, a, newSchema, acl.Create); err != nil {
			return err
		}
	}
	if to == id {
		return nil // PostgreSQL: SET SCHEMA to its own schema does nothing
	}
	taken := func() error {
		if newSchema != "" {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", to.Name, to.Schema)
		}
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", to.Name)
	}
	if ix, err := s.indexHasName(ctx, to); err != nil {
		return err
	} else if ix {
		return taken()
	}
	if sq, err := s.b.seqs().Lookup(ctx, to); err != nil {
		return err
	} else if sq != nil {
		return taken()
	}
	if _, err := s.eng.Catalog().Table(ctx, to); err == nil {
		return taken()
	}
	s.releaseSchemaLock(id) // a write only planned (ddlAllowed: none done)
	err = s.eng.RenameTable(ctx, id, to)
	s.b.sec.forget(tableKey(id))
	s.b.sec.forget(tableKey(to))
	if err != nil {
		if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.DuplicateTable {
			return taken()
		}
		return err
	}
	// The views that read it: their stored query names it (PostgreSQL's
	// refer to its OID, so they follow a rename).
	rels, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return err
	}
	for _, v := range rels {
		if !v.IsView() || v.View == nil || !slices.Contains(v.View.Deps, id) {
			continue
		}
		q, err := bsql.RenameRelationInQuery(v.View.Query, id.Schema, id.Name, to.Schema, to.Name)
		if err != nil {
			return err
		}
		if err := s.b.sec.updateTable(ctx, v.ID, func(e *catalog.Entry) error {
			if e.View == nil {
				return nil
			}
			e.View.Query = q
			for i, d := range e.View.Deps {
				if d == id {
					e.View.Deps[i] = to
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// Foreign keys that reference it (its own too).
	if err := s.updateForeignKeys(ctx, func(fk *catalog.ForeignKeyDef) bool {
		if fk.RefTable != id {
			return false
		}
		fk.RefTable = to
		return true
	}); err != nil {
		return err
	}
	// A primary key keeps its name (table_pkey of the old name).
	if !ent.IsView() {
		if t, err := s.eng.Table(ctx, to); err == nil {
			if key, name := ent.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 && name == "" {
				if err := s.b.sec.updateTable(ctx, to, func(e *catalog.Entry) error {
					if e.PrimaryKeyName == "" {
						e.PrimaryKeyName = id.Name + "_pkey"
					}
					return nil
				}); err != nil {
					return err
				}
			}
		}
	}
	// The sequences it owns follow it.
	recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.OwnedBy != id {
			continue
		}
		sq, err := s.b.seqs().Lookup(ctx, r.ID)
		if err != nil || sq == nil {
			return err
		}
		if err := sq.Alter(ctx, nil, func(rec *catalog.Sequence) error {
			if rec.OwnedBy == id {
				rec.OwnedBy = to
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// addIdentityCmd is ALTER COLUMN c ADD GENERATED {ALWAYS | BY DEFAULT} AS
// IDENTITY [(sequence options, SEQUENCE NAME)] (pg_dump writes it for
// every identity column): the column's sequence is created, owned by it,
// and the column becomes its identity (PostgreSQL's ATExecAddIdentity
// checks).
func (s *session) addIdentityCmd(table, name string, con *pg_query.Constraint) (alterCmd, error) {
	opts, seqSchema, seqName, err := splitSequenceName(con.Options)
	if err != nil {
		return alterCmd{}, err
	}
	o, owned, _, err := seqOptions(opts)
	if err != nil {
		return alterCmd{}, err
	}
	if owned != nil {
		return alterCmd{}, pgerr.New(pgerr.SyntaxError, "invalid sequence option OWNED BY")
	}
	var made *seq.Seq
	cmd := alterCmd{undo: func(ctx context.Context) {
		if made != nil {
			_ = s.b.seqs().Drop(ctx, made)
		}
	}}
	cmd.apply = func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		i, err := findColumn(sch, table, name)
		if err != nil {
			return err
		}
		c := &sch.Columns[i]
		switch {
		case c.Kind != schema.KindInt16 && c.Kind != schema.KindInt32 && c.Kind != schema.KindInt64:
			return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
		case !c.NotNull:
			return pgerr.New("55000", "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", name, table)
		case c.Identity != "":
			return pgerr.New("55000", "column \"%s\" of relation \"%s\" is already an identity column", name, table)
		case c.Default != "":
			return pgerr.New("55000", "column \"%s\" of relation \"%s\" already has a default value", name, table)
		}
		if made == nil {
			typ, _, err := pgtypes.TypeOfColumn(*c)
			if err != nil {
				return err
			}
			oo := o
			oo.As = &typ
			sid := catalog.TableID{Database: t.ID.Database, Schema: t.ID.Schema, Name: seqName}
			if seqSchema != "" {
				sid.Schema = seqSchema
			}
			if seqName == "" {
				if sid.Name, err = s.chooseSequenceName(ctx, t.ID, name); err != nil {
					return err
				}
			}
			rec := &catalog.Sequence{ID: sid, Owner: s.currentRole, OwnedBy: t.ID, OwnedByColumn: name, Identity: true}
			if err := seq.ApplyOptions(rec, &oo, true, true); err != nil {
				return err
			}
			if made, err = s.newSequence(ctx, rec, false); err != nil {
				return err
			}
		}
		info := made.Info()
		c.Identity, c.Default = con.GeneratedWhen, nextvalDefault(info.ID.Schema, info.ID.Name)
		return nil
	}
	return cmd, nil
}

// splitSequenceName takes SEQUENCE NAME out of an identity's sequence
// options (pg_dump names the sequence it restores).
func splitSequenceName(opts []*pg_query.Node) (rest []*pg_query.Node, schemaName, name string, err error) {
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil || d.Defname != "sequence_name" {
			rest = append(rest, n)
			continue
		}
		var parts []string
		for _, p := range d.Arg.GetList().GetItems() {
			parts = append(parts, p.GetString_().GetSval())
		}
		switch len(parts) {
		case 1:
			name = parts[0]
		case 2:
			schemaName, name = parts[0], parts[1]
		default:
			return nil, "", "", pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
		}
	}
	return rest, schemaName, name, nil
}

// setIdentityCmd is ALTER COLUMN c SET GENERATED {ALWAYS | BY DEFAULT}.
func (s *session) setIdentityCmd(table, name string, opts []*pg_query.Node) (alterCmd, error) {
	gen := ""
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil || d.Defname != "generated" {
			return alterCmd{}, pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... SET sequence options is not supported")
		}
		if iv := d.Arg.GetInteger(); iv != nil {
			gen = string(rune(iv.Ival))
		}
	}
	return alterCmd{apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
		i, err := findColumn(sch, table, name)
		if err != nil {
			return err
		}
		c := &sch.Columns[i]
		if c.Identity == "" {
			return pgerr.New("55000", "column \"%s\" of relation \"%s\" is not an identity column", name, table)
		}
		if gen != "" {
			c.Identity = gen
		}
		return nil
	}}, nil
}

// dropIdentityCmd is ALTER COLUMN c DROP IDENTITY [IF EXISTS]: the column
// loses its default and its sequence.
func (s *session) dropIdentityCmd(table, name string, ifExists bool) alterCmd {
	var owner catalog.TableID
	dropped := false
	return alterCmd{
		apply: func(ctx context.Context, t *planner.Table, m *manifest.Manifest, sch *schema.Schema) error {
			dropped = false
			i, err := findColumn(sch, table, name)
			if err != nil {
				return err
			}
			c := &sch.Columns[i]
			if c.Identity == "" {
				if ifExists {
					alterNotice(ctx, "column \"%s\" of relation \"%s\" is not an identity column, skipping", name, table)
					return nil
				}
				return pgerr.New("55000", "column \"%s\" of relation \"%s\" is not an identity column", name, table)
			}
			c.Identity, c.Default = "", ""
			owner, dropped = t.ID, true
			return nil
		},
		after: func(ctx context.Context) error {
			if !dropped {
				return nil
			}
			recs, err := s.eng.Catalog().ListSequences(ctx, s.db)
			if err != nil {
				return err
			}
			for _, r := range recs {
				if r.OwnedBy == owner && r.OwnedByColumn == name && r.Identity {
					if sq, err := s.b.seqs().Lookup(ctx, r.ID); err != nil {
						return err
					} else if sq != nil {
						if err := s.b.seqs().Drop(ctx, sq); err != nil {
							return err
						}
					}
				}
			}
			return nil
		},
	}
}

// relOptions are PostgreSQL 15's table storage parameters (reloptions.c).
var relOptions = map[string]bool{
	"fillfactor": true, "toast_tuple_target": true, "parallel_workers": true, "autovacuum_enabled": true,
	"vacuum_index_cleanup": true, "vacuum_truncate": true, "user_catalog_table": true, "log_autovacuum_min_duration": true,
	"autovacuum_vacuum_threshold": true, "autovacuum_vacuum_insert_threshold": true, "autovacuum_analyze_threshold": true,
	"autovacuum_vacuum_cost_delay": true, "autovacuum_vacuum_cost_limit": true, "autovacuum_freeze_min_age": true,
	"autovacuum_multixact_freeze_min_age": true, "autovacuum_freeze_max_age": true, "autovacuum_multixact_freeze_max_age": true,
	"autovacuum_freeze_table_age": true, "autovacuum_multixact_freeze_table_age": true, "autovacuum_vacuum_scale_factor": true,
	"autovacuum_vacuum_insert_scale_factor": true, "autovacuum_analyze_scale_factor": true,
	"toast.autovacuum_enabled": true, "toast.vacuum_index_cleanup": true, "toast.vacuum_truncate": true,
	"toast.log_autovacuum_min_duration": true, "toast.autovacuum_vacuum_threshold": true,
	"toast.autovacuum_vacuum_insert_threshold": true, "toast.autovacuum_vacuum_cost_delay": true,
	"toast.autovacuum_vacuum_cost_limit": true, "toast.autovacuum_freeze_min_age": true,
	"toast.autovacuum_multixact_freeze_min_age": true, "toast.autovacuum_freeze_max_age": true,
	"toast.autovacuum_multixact_freeze_max_age": true, "toast.autovacuum_freeze_table_age": true,
	"toast.autovacuum_multixact_freeze_table_age": true, "toast.autovacuum_vacuum_scale_factor": true,
	"toast.autovacuum_vacuum_insert_scale_factor": true,
}

// fixedWidth reports whether a column kind is stored at a fixed width in
// PostgreSQL (its storage can only be PLAIN).
func fixedWidth(k schema.Kind) bool {
	switch k {
	case schema.KindBool, schema.KindInt16, schema.KindInt32, schema.KindInt64, schema.KindFloat32, schema.KindFloat64,
		schema.KindDate, schema.KindTime, schema.KindTimestamp, schema.KindTimestampTZ, schema.KindInterval, schema.KindUUID:
		return true
	}
	return false
}

// planRenameIndexOrConstraint plans ALTER INDEX [IF EXISTS] i RENAME TO j
// and ALTER TABLE t RENAME CONSTRAINT a TO b (the primary key's or a
// foreign key's name). ok false: not one of them.
func (s *session) planRenameIndexOrConstraint(st *bsql.Statement) (p plan, ok bool, err error) {
	rn := st.Tree.GetRenameStmt()
	if rn == nil || rn.Relation == nil {
		return nil, false, nil
	}
	switch rn.RenameType {
	case pg_query.ObjectType_OBJECT_INDEX:
		if err := s.ddlAllowed("ALTER INDEX"); err != nil {
			return nil, true, err
		}
		return tagOnly("ALTER INDEX", func(ctx context.Context) error { return s.renameIndex(ctx, rn) }), true, nil
	case pg_query.ObjectType_OBJECT_TABCONSTRAINT:
		if err := s.ddlAllowed("ALTER TABLE"); err != nil {
			return nil, true, err
		}
		return tagOnly("ALTER TABLE", func(ctx context.Context) error { return s.renameConstraint(ctx, rn) }), true, nil
	}
	return nil, false, nil
}

func (s *session) renameIndex(ctx context.Context, rn *pg_query.RenameStmt) error {
	rv := rn.Relation
	ref, err := s.lookupIndex(ctx, rv) // index.go
	if err != nil {
		return err
	}
	if ref == nil {
		if rn.MissingOk {
			return s.pendingNotice(&pgerr.Error{Severity: pgerr.SeverityNotice, Code: pgerr.SuccessfulCompletion,
				Message: fmt.Sprintf("relation \"%s\" does not exist, skipping", rv.Relname)})
		}
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(rv.Schemaname, rv.Relname))
	}
	if ref.temp != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "renaming an index of a temporary table is not supported")
	}
	if err := s.requireTableOwner(ctx, ref.a, ref.id, false); err != nil {
		return err
	}
	to := catalog.TableID{Database: ref.id.Database, Schema: ref.id.Schema, Name: rn.Newname}
	if taken, err := s.relationNameTaken(ctx, to); err != nil {
		return err
	} else if taken {
		return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rn.Newname)
	}
	t, err := s.eng.Table(ctx, ref.id)
	if err != nil {
		return err
	}
	err = s.b.sec.updateTable(ctx, ref.id, func(e *catalog.Entry) error {
		if ref.pkey {
			// The primary key's index: its constraint has its name.
			if key, _ := e.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 {
				e.PrimaryKeyName = rn.Newname
			}
			return nil
		}
		if x := e.IndexNamed(rv.Relname); x != nil {
			x.Name = rn.Newname
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.refreshKeys(ctx, ref.id)
}

// relationNameTaken reports whether a relation, index or sequence of the
// schema has the name.
func (s *session) relationNameTaken(ctx context.Context, id catalog.TableID) (bool, error) {
	if ix, err := s.indexHasName(ctx, id); err != nil || ix {
		return ix, err
	}
	if sq, err := s.b.seqs().Lookup(ctx, id); err != nil || sq != nil {
		return sq != nil, err
	}
	return s.relationExists(ctx, id)
}

func (s *session) renameConstraint(ctx context.Context, rn *pg_query.RenameStmt) error {
	id, a, ent, err := s.alterTarget(ctx, rn.Relation, rn.MissingOk)
	if err != nil || ent == nil {
		return err
	}
	if err := s.requireTableOwner(ctx, a, id, false); err != nil {
		return err
	}
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	taken := constraintNames(ent, t.Schema.PrimaryKey) // foreignkey.go
	exists := false
	for _, fk := range ent.ForeignKeys {
		exists = exists || fk.Name == rn.Subname
	}
	if key, name := ent.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 {
		exists = exists || name == rn.Subname || name == "" && id.Name+"_pkey" == rn.Subname
	}
	if x := ent.IndexNamed(rn.Subname); x != nil && x.Constraint {
		exists = true
	}
	for _, c := range ent.Checks {
		exists = exists || c.Name == rn.Subname
	}
	if !exists {
		return pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", rn.Subname, id.Name)
	}
	if taken[rn.Newname] {
		return pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", rn.Newname, id.Name)
	}
	err = s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
		for i := range e.ForeignKeys {
			if e.ForeignKeys[i].Name == rn.Subname {
				e.ForeignKeys[i].Name = rn.Newname
				return nil
			}
		}
		if key, name := e.EffectiveKey(t.Schema.PrimaryKey); len(key) > 0 && (name == rn.Subname || name == "" && id.Name+"_pkey" == rn.Subname) {
			e.PrimaryKeyName = rn.Newname
			return nil
		}
		if x := e.IndexNamed(rn.Subname); x != nil && x.Constraint {
			x.Name = rn.Newname // a UNIQUE constraint and its index share the name
			return nil
		}
		for i := range e.Checks {
			if e.Checks[i].Name == rn.Subname {
				e.Checks[i].Name = rn.Newname
				return nil
			}
		}
		return pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", rn.Subname, id.Name)
	})
	if err != nil {
		return err
	}
	return s.refreshKeys(ctx, id)
}
