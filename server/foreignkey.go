package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bsdb/bsdb-pg/pgcatalog"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// FOREIGN KEY constraints are recorded in the referencing table's catalog
// entry (catalog.ForeignKeyDef), checked as PostgreSQL checks them when
// they are declared (the referenced table and its primary key, column
// counts and types), shown by the catalogs, psql, drivers and pg_dump, and
// kept through DROP (2BP01 / CASCADE) and renames. They are not enforced:
// rows are not checked against the referenced table, and ON DELETE / ON
// UPDATE actions do not run (as in most lakehouse tables).

// fkTable is what a foreign key is checked against: a table's columns and
// primary key.
type fkTable struct {
	id  catalog.TableID
	oid uint32
	sch *schema.Schema
	key []string
}

// resolveForeignKey checks spec, a foreign key of table self, and returns
// its definition (OID not yet allocated). taken are the table's constraint
// names in use; the new name is added.
func (s *session) resolveForeignKey(ctx context.Context, self fkTable, spec bsql.ForeignKeySpec, taken map[string]bool) (catalog.ForeignKeyDef, error) {
	fk := catalog.ForeignKeyDef{Name: spec.Name, Columns: spec.Columns, OnUpdate: spec.OnUpdate, OnDelete: spec.OnDelete,
		Match: spec.Match, Deferrable: spec.Deferrable, Deferred: spec.Deferred, NotValid: spec.NotValid}
	for _, c := range spec.Columns {
		if self.sch.Index(c) < 0 {
			return fk, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", c)
		}
	}
	ref := self
	if !(spec.RefTable == self.id.Name && (spec.RefSchema == "" || spec.RefSchema == self.id.Schema)) {
		id, _, err := s.lookupTable(ctx, spec.RefSchema, spec.RefTable)
		var ent *catalog.Entry
		if err == nil {
			ent, err = s.eng.Catalog().Table(ctx, id)
		}
		if err != nil {
			if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.UndefinedTable || errors.Is(err, catalog.ErrNotFound) {
				return fk, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualifiedName(spec.RefSchema, spec.RefTable))
			}
			return fk, err
		}
		if ent.IsView() {
			return fk, pgerr.New("42809", "referenced relation \"%s\" is not a table", id.Name)
		}
		t, err := s.eng.Table(ctx, id)
		if err != nil {
			return fk, err
		}
		key, _ := ent.EffectiveKey(t.Schema.PrimaryKey)
		ref = fkTable{id: id, oid: ent.OID, sch: t.Schema, key: key}
	}
	fk.RefTable = ref.id
	if len(spec.RefColumns) == 0 {
		if len(ref.key) == 0 {
			return fk, pgerr.New("42830", "there is no primary key for referenced table \"%s\"", ref.id.Name)
		}
		fk.RefColumns = append([]string(nil), ref.key...)
	} else {
		for _, c := range spec.RefColumns {
			if ref.sch.Index(c) < 0 {
				return fk, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", c)
			}
		}
		if !sameSet(spec.RefColumns, ref.key) {
			return fk, pgerr.New("42830", "there is no unique constraint matching given keys for referenced table \"%s\"", ref.id.Name)
		}
		fk.RefColumns = spec.RefColumns
	}
	if len(fk.Columns) != len(fk.RefColumns) {
		return fk, pgerr.New("42830", "number of referencing and referenced columns for foreign key disagree")
	}
	if fk.Name == "" {
		// Generated names avoid every constraint name of the schema, as
		// PostgreSQL's ChooseConstraintName does.
		used := maps.Clone(taken)
		rels, err := s.eng.ListRelations(ctx, s.db)
		if err != nil {
			return fk, err
		}
		for _, e := range rels {
			if e.ID.Schema != self.id.Schema {
				continue
			}
			for _, f := range e.ForeignKeys {
				used[f.Name] = true
			}
			if len(e.PrimaryKey) > 0 {
				used[e.PrimaryKeyName] = true
			}
		}
		fk.Name = chooseConstraintName(self.id.Name, fk.Columns, "fkey", used)
	} else if taken[fk.Name] {
		return fk, pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", fk.Name, self.id.Name)
	}
	for i, c := range fk.Columns {
		a := self.sch.Columns[self.sch.Index(c)]
		b := ref.sch.Columns[ref.sch.Index(fk.RefColumns[i])]
		ta, _, _ := pgtypes.TypeOfColumn(a)
		tb, _, _ := pgtypes.TypeOfColumn(b)
		if fkCategory(ta) != fkCategory(tb) {
			return fk, pgerr.New("42804", "foreign key constraint \"%s\" cannot be implemented", fk.Name).
				WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", c, fk.RefColumns[i],
					pgtypes.FormatType(ta, -1), pgtypes.FormatType(tb, -1))
		}
	}
	taken[fk.Name] = true
	return fk, nil
}

// fkCategory groups the types a foreign key may pair (PostgreSQL's btree
// operator families with cross-type equality: integers and numeric,
// floats, text types, dates and timestamps); others pair only with
// themselves.
func fkCategory(oid uint32) string {
	switch oid {
	case pgtypes.OIDInt2, pgtypes.OIDInt4, pgtypes.OIDInt8, pgtypes.OIDNumeric:
		return "integer"
	case pgtypes.OIDFloat4, pgtypes.OIDFloat8:
		return "float"
	case pgtypes.OIDText, pgtypes.OIDVarchar, pgtypes.OIDBPChar, pgtypes.OIDName:
		return "text"
	case pgtypes.OIDDate, pgtypes.OIDTimestamp, pgtypes.OIDTimestampTZ:
		return "datetime"
	}
	return fmt.Sprint(oid)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// chooseConstraintName is PostgreSQL's ChooseConstraintName for a table's
// constraint on cols: table_col1_col2_label, shortened to fit 63 bytes
// (makeObjectName, sequence.go), numbered (1, 2, ...) when taken.
func chooseConstraintName(table string, cols []string, label string, taken map[string]bool) string {
	add := strings.Join(cols, "_")
	for n := 0; ; n++ {
		suffix := label
		if n > 0 {
			suffix = fmt.Sprintf("%s%d", label, n)
		}
		name := makeObjectName(table, add, suffix)
		if !taken[name] {
			return name
		}
	}
}

// constraintNames are the names of e's constraints (primary key, foreign
// keys) and indexes: a new constraint takes none of them.
func constraintNames(e *catalog.Entry, schemaKey []string) map[string]bool {
	taken := map[string]bool{}
	if key, name := e.EffectiveKey(schemaKey); len(key) > 0 {
		if name == "" {
			name = e.ID.Name + "_pkey"
		}
		taken[name] = true
	}
	for _, fk := range e.ForeignKeys {
		taken[fk.Name] = true
	}
	for _, ix := range e.Indexes {
		taken[ix.Name] = true
	}
	for _, c := range e.Checks {
		taken[c.Name] = true
	}
	return taken
}

// createForeignKeys resolves CREATE TABLE's foreign keys of table id
// (columns sch) and allocates their OIDs.
func (s *session) createForeignKeys(ctx context.Context, id catalog.TableID, sch *schema.Schema, specs []bsql.ForeignKeySpec) ([]catalog.ForeignKeyDef, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	taken := map[string]bool{}
	if len(sch.PrimaryKey) > 0 {
		taken[id.Name+"_pkey"] = true
	}
	self := fkTable{id: id, sch: sch, key: sch.PrimaryKey}
	var out []catalog.ForeignKeyDef
	for _, spec := range specs {
		fk, err := s.resolveForeignKey(ctx, self, spec, taken)
		if err != nil {
			return nil, err
		}
		if fk.OID, err = s.eng.Catalog().AllocOID(ctx); err != nil {
			return nil, err
		}
		out = append(out, fk)
	}
	return out, nil
}

// addForeignKey is ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY.
func (s *session) addForeignKey(ctx context.Context, id catalog.TableID, spec bsql.ForeignKeySpec) error {
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	ent, err := s.eng.Catalog().Table(ctx, id)
	if err != nil {
		return err
	}
	key, _ := ent.EffectiveKey(t.Schema.PrimaryKey)
	fk, err := s.resolveForeignKey(ctx, fkTable{id: id, oid: ent.OID, sch: t.Schema, key: key}, spec, constraintNames(ent, t.Schema.PrimaryKey))
	if err != nil {
		return err
	}
	if fk.OID, err = s.eng.Catalog().AllocOID(ctx); err != nil {
		return err
	}
	return s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
		for _, f := range e.ForeignKeys {
			if f.Name == fk.Name {
				return pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", fk.Name, id.Name)
			}
		}
		e.ForeignKeys = append(e.ForeignKeys, fk)
		return nil
	})
}

// dropForeignKey removes e's foreign key named name; false if it has none.
func (s *session) dropForeignKey(ctx context.Context, id catalog.TableID, name string) (bool, error) {
	found := false
	err := s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
		found = false
		kept := e.ForeignKeys[:0]
		for _, fk := range e.ForeignKeys {
			if fk.Name == name {
				found = true
				continue
			}
			kept = append(kept, fk)
		}
		if !found {
			return errSkip
		}
		e.ForeignKeys = kept
		return nil
	})
	if errors.Is(err, errSkip) {
		return false, nil
	}
	return found, err
}

// fkDependent is a foreign key of another table that references one of a
// set of tables (DROP TABLE's dependents).
type fkDependent struct {
	table catalog.TableID
	name  string
	ref   catalog.TableID
}

// foreignKeyDependents are the foreign keys of tables other than targets
// that reference one of them.
func (s *session) foreignKeyDependents(ctx context.Context, targets []*catalog.Entry) ([]fkDependent, error) {
	in := map[catalog.TableID]bool{}
	for _, t := range targets {
		in[t.ID] = true
	}
	all, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var out []fkDependent
	for _, e := range all {
		if in[e.ID] {
			continue
		}
		for _, fk := range e.ForeignKeys {
			if in[fk.RefTable] {
				out = append(out, fkDependent{table: e.ID, name: fk.Name, ref: fk.RefTable})
			}
		}
	}
	return out, nil
}

// describeFKDependent is a DETAIL line of DROP's 2BP01.
func (s *session) describeFKDependent(d fkDependent) string {
	return fmt.Sprintf("constraint %s on table %s depends on table %s", d.name, s.shownName(d.table), s.shownName(d.ref))
}

// shownName is a relation's name as getObjectDescription shows it:
// qualified unless its schema is in the search path.
func (s *session) shownName(id catalog.TableID) string {
	if slices.Contains(s.set.searchPath(), id.Schema) {
		return id.Name
	}
	return id.Schema + "." + id.Name
}

// pgForeignKeys converts e's foreign keys for the catalogs; oids are the
// OIDs of the database's relations.
func pgForeignKeys(e *catalog.Entry, oids map[catalog.TableID]uint32) []pgcatalog.ForeignKey {
	var out []pgcatalog.ForeignKey
	for _, fk := range e.ForeignKeys {
		out = append(out, pgcatalog.ForeignKey{OID: fk.OID, Name: fk.Name, Columns: fk.Columns, RefOID: oids[fk.RefTable],
			RefSchema: fk.RefTable.Schema, RefName: fk.RefTable.Name, RefColumns: fk.RefColumns, OnUpdate: fk.OnUpdate,
			OnDelete: fk.OnDelete, Match: fk.Match, Deferrable: fk.Deferrable, Deferred: fk.Deferred, NotValid: fk.NotValid})
	}
	return out
}

// updateForeignKeys applies fn to every foreign key of the database's
// tables and stores the entries where it reports a change.
func (s *session) updateForeignKeys(ctx context.Context, fn func(*catalog.ForeignKeyDef) bool) error {
	rels, err := s.eng.ListRelations(ctx, s.db)
	if err != nil {
		return err
	}
	for _, e := range rels {
		changed := false
		for i := range e.ForeignKeys {
			fk := e.ForeignKeys[i]
			fk.RefColumns = slices.Clone(fk.RefColumns)
			changed = changed || fn(&fk)
		}
		if !changed {
			continue
		}
		if err := s.b.sec.updateTable(ctx, e.ID, func(e *catalog.Entry) error {
			for i := range e.ForeignKeys {
				fn(&e.ForeignKeys[i])
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
