package pgcatalog

import (
	"slices"
	"strings"

	"github.com/bsdb/bsdb-pg/acl"
)

// ForeignKey is a FOREIGN KEY constraint of a table (recorded, not
// enforced): pg_constraint (contype 'f'), pg_get_constraintdef,
// information_schema's table_constraints, key_column_usage,
// referential_constraints and constraint_column_usage.
type ForeignKey struct {
	OID  uint32
	Name string
	// Columns of the table reference RefColumns of the table RefOID
	// (RefSchema.RefName).
	Columns    []string
	RefOID     uint32
	RefSchema  string
	RefName    string
	RefColumns []string
	// OnUpdate, OnDelete, Match: pg_constraint's codes.
	OnUpdate, OnDelete, Match string
	Deferrable, Deferred      bool
	NotValid                  bool
}

func init() {
	register("information_schema", "referential_constraints", false, `constraint_catalog:name constraint_schema:name
		constraint_name:name unique_constraint_catalog:name unique_constraint_schema:name unique_constraint_name:name
		match_option:text update_rule:text delete_rule:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, acl.Table.AllRights()&^acl.Select) {
			for _, fk := range t.ForeignKeys {
				var uname any
				if ref := tableByOID(s, fk.RefOID); ref != nil && len(ref.PrimaryKey) > 0 {
					uname = pkName(*ref)
				}
				rows = append(rows, []any{s.Database, t.Schema, fk.Name, s.Database, fk.RefSchema, uname,
					matchOption(fk.Match), fkRule(fk.OnUpdate), fkRule(fk.OnDelete)})
			}
		}
		return rows
	})
}

// tableByOID is the snapshot's table of that OID, or nil.
func tableByOID(s *Snapshot, oid uint32) *Table {
	for i := range s.Tables {
		if s.Tables[i].OID == oid {
			return &s.Tables[i]
		}
	}
	return nil
}

// columnNums are the attnums of the named columns of t (0 for a name
// that is not one).
func columnNums(t *Table, names []string) []int64 {
	out := make([]int64, len(names))
	for j, n := range names {
		for i, c := range t.Columns {
			if c.Name == n {
				out[j] = int64(c.Num(i))
			}
		}
	}
	return out
}

func matchOption(m string) string {
	switch m {
	case "f":
		return "FULL"
	case "p":
		return "PARTIAL"
	}
	return "NONE"
}

func fkRule(a string) string {
	switch a {
	case "r":
		return "RESTRICT"
	case "c":
		return "CASCADE"
	case "n":
		return "SET NULL"
	case "d":
		return "SET DEFAULT"
	}
	return "NO ACTION"
}

// foreignKeyDef is pg_get_constraintdef's text of fk, the referenced table
// named as regclass output names it in the snapshot's search path.
func foreignKeyDef(s *Snapshot, fk ForeignKey) string {
	var b strings.Builder
	b.WriteString("FOREIGN KEY (" + quoteList(fk.Columns) + ") REFERENCES ")
	if !slices.Contains(s.SearchPath, fk.RefSchema) || hiddenBy(s, fk.RefSchema, fk.RefName) {
		b.WriteString(quoteIdent(fk.RefSchema) + ".")
	}
	b.WriteString(quoteIdent(fk.RefName) + "(" + quoteList(fk.RefColumns) + ")")
	switch fk.Match {
	case "f":
		b.WriteString(" MATCH FULL")
	case "p":
		b.WriteString(" MATCH PARTIAL")
	}
	if fk.OnUpdate != "a" && fk.OnUpdate != "" {
		b.WriteString(" ON UPDATE " + fkRule(fk.OnUpdate))
	}
	if fk.OnDelete != "a" && fk.OnDelete != "" {
		b.WriteString(" ON DELETE " + fkRule(fk.OnDelete))
	}
	if fk.Deferrable {
		b.WriteString(" DEFERRABLE")
	}
	if fk.Deferred {
		b.WriteString(" INITIALLY DEFERRED")
	}
	if fk.NotValid {
		b.WriteString(" NOT VALID")
	}
	return b.String()
}

// hiddenBy reports whether a relation of that name in a schema earlier in
// the search path than schema hides schema.name.
func hiddenBy(s *Snapshot, schema, name string) bool {
	for _, sc := range s.SearchPath {
		if sc == schema {
			return false
		}
		for _, t := range s.Tables {
			if t.Schema == sc && t.Name == name {
				return true
			}
		}
	}
	return false
}

// foreignKeyConstraintRows are pg_constraint's rows of t's foreign keys.
func foreignKeyConstraintRows(s *Snapshot, t Table) [][]any {
	var rows [][]any
	for _, fk := range t.ForeignKeys {
		var confkey []int64
		var conindid int64
		if ref := tableByOID(s, fk.RefOID); ref != nil {
			confkey = columnNums(ref, fk.RefColumns)
			if len(ref.PrimaryKey) > 0 {
				conindid = int64(PKIndexOID(ref.OID))
			}
		}
		rows = append(rows, []any{int64(fk.OID), fk.Name, int64(SchemaOID(t.Schema)), "f", fk.Deferrable,
			fk.Deferred, !fk.NotValid, int64(t.OID), int64(0), conindid, int64(0), int64(fk.RefOID), fk.OnUpdate, fk.OnDelete, fk.Match, true,
			int32(0), true, columnNums(&t, fk.Columns), confkey, nil, nil, nil, nil, nil})
	}
	return rows
}
