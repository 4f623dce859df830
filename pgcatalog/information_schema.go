package pgcatalog

import (
	"fmt"
	"slices"

	"github.com/bsdb/bsdb-pg/acl"
)

// information_schema views, SQL-standard column names; values as
// PostgreSQL 15 gives them for the same objects.

func init() {
	register("information_schema", "schemata", false, `catalog_name:name schema_name:name schema_owner:name
		default_character_set_catalog:name default_character_set_schema:name default_character_set_name:name
		sql_path:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		names := append([]string{"pg_catalog", "information_schema"}, s.Schemas...)
		for _, n := range names {
			if o, ok := s.SchemaACL[n]; ok && o.Restricted && o.Privileges&(acl.Create|acl.Usage) == 0 {
				continue
			}
			owner := "postgres"
			if n != "pg_catalog" && n != "information_schema" {
				owner = roleName(s, schemaObject(s, n).Owner)
			}
			rows = append(rows, []any{s.Database, n, owner, nil, nil, nil, nil})
		}
		return rows
	})
	register("information_schema", "tables", false, `table_catalog:name table_schema:name table_name:name
		table_type:text self_referencing_column_name:name reference_generation:text user_defined_type_catalog:name
		user_defined_type_schema:name user_defined_type_name:name is_insertable_into:text is_typed:text
		commit_action:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, acl.Table.AllRights()) {
			if t.View {
				rows = append(rows, []any{s.Database, t.Schema, t.Name, "VIEW", nil, nil, nil, nil, nil, "NO", "NO", nil})
				continue
			}
			rows = append(rows, []any{s.Database, t.Schema, t.Name, "BASE TABLE", nil, nil, nil, nil, nil, "YES", "NO", nil})
		}
		return rows
	})
	register("information_schema", "columns", false, `table_catalog:name table_schema:name table_name:name
		column_name:name ordinal_position:int4 column_default:text is_nullable:text data_type:text
		character_maximum_length:int4 character_octet_length:int4 numeric_precision:int4 numeric_precision_radix:int4
		numeric_scale:int4 datetime_precision:int4 interval_type:text interval_precision:int4
		character_set_catalog:name character_set_schema:name character_set_name:name collation_catalog:name
		collation_schema:name collation_name:name domain_catalog:name domain_schema:name domain_name:name
		udt_catalog:name udt_schema:name udt_name:name scope_catalog:name scope_schema:name scope_name:name
		maximum_cardinality:int4 dtd_identifier:name is_self_referencing:text is_identity:text
		identity_generation:text identity_start:text identity_increment:text identity_maximum:text
		identity_minimum:text identity_cycle:text is_generated:text generation_expression:text is_updatable:text`,
		columnsRows)
	register("information_schema", "table_constraints", false, `constraint_catalog:name constraint_schema:name
		constraint_name:name table_catalog:name table_schema:name table_name:name constraint_type:text
		is_deferrable:text initially_deferred:text enforced:text nulls_distinct:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, acl.Table.AllRights()&^acl.Select) {
			if len(t.PrimaryKey) > 0 {
				rows = append(rows, []any{s.Database, t.Schema, pkName(t), s.Database, t.Schema, t.Name, "PRIMARY KEY", "NO", "NO", "YES", nil})
			}
			for _, x := range t.Indexes {
				if x.ConstraintOID != 0 {
					rows = append(rows, []any{s.Database, t.Schema, x.Name, s.Database, t.Schema, t.Name, "UNIQUE", "NO", "NO", "YES", "YES"})
				}
			}
			for _, fk := range t.ForeignKeys {
				rows = append(rows, []any{s.Database, t.Schema, fk.Name, s.Database, t.Schema, t.Name, "FOREIGN KEY",
					yesNo(fk.Deferrable), yesNo(fk.Deferred), "YES", nil})
			}
			for _, c := range t.Checks {
				rows = append(rows, []any{s.Database, t.Schema, c.Name, s.Database, t.Schema, t.Name, "CHECK", "NO", "NO", "YES", nil})
			}
			for i, c := range t.Columns {
				if c.NotNull {
					name := fmt.Sprintf("%d_%d_%d_not_null", SchemaOID(t.Schema), t.OID, c.Num(i))
					rows = append(rows, []any{s.Database, t.Schema, name, s.Database, t.Schema, t.Name, "CHECK", "NO", "NO", "YES", nil})
				}
			}
		}
		return rows
	})
	// check_constraints: the CHECK constraints and, as PostgreSQL 15
	// lists them, the NOT NULL columns (named as table_constraints names
	// them).
	register("information_schema", "check_constraints", false, `constraint_catalog:name constraint_schema:name
		constraint_name:name check_clause:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, acl.Table.AllRights()&^acl.Select) {
			for _, c := range t.Checks {
				rows = append(rows, []any{s.Database, t.Schema, c.Name, "((" + c.Expr + "))"})
			}
			for i, c := range t.Columns {
				if c.NotNull {
					name := fmt.Sprintf("%d_%d_%d_not_null", SchemaOID(t.Schema), t.OID, c.Num(i))
					rows = append(rows, []any{s.Database, t.Schema, name, quoteIdent(c.Name) + " IS NOT NULL"})
				}
			}
		}
		return rows
	})
	register("information_schema", "key_column_usage", false, `constraint_catalog:name constraint_schema:name
		constraint_name:name table_catalog:name table_schema:name table_name:name column_name:name
		ordinal_position:int4 position_in_unique_constraint:int4`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, columnPrivileges) {
			for i, k := range t.PrimaryKey {
				rows = append(rows, []any{s.Database, t.Schema, pkName(t), s.Database, t.Schema, t.Name, k, int32(i + 1), nil})
			}
			for _, x := range t.Indexes {
				if x.ConstraintOID != 0 {
					for i, k := range x.KeyNames[:x.NKeys] {
						rows = append(rows, []any{s.Database, t.Schema, x.Name, s.Database, t.Schema, t.Name, k, int32(i + 1), nil})
					}
				}
			}
			for _, fk := range t.ForeignKeys {
				ref := tableByOID(s, fk.RefOID)
				for i, c := range fk.Columns {
					var pos any
					if ref != nil && i < len(fk.RefColumns) {
						if j := slices.Index(ref.PrimaryKey, fk.RefColumns[i]); j >= 0 {
							pos = int32(j + 1)
						}
					}
					rows = append(rows, []any{s.Database, t.Schema, fk.Name, s.Database, t.Schema, t.Name, c, int32(i + 1), pos})
				}
			}
		}
		return rows
	})
	// constraint_column_usage: the columns of the primary keys (NOT NULL
	// is no pg_constraint row in PostgreSQL 15, so it is not here), for
	// the tables owned by the session's roles. GORM's Migrator reads it.
	register("information_schema", "constraint_column_usage", false, `table_catalog:name table_schema:name
		table_name:name column_name:name constraint_catalog:name constraint_schema:name constraint_name:name`,
		func(s *Snapshot, _ *Facts) [][]any {
			var rows [][]any
			for _, t := range shownTables(s, 0) {
				for _, k := range t.PrimaryKey {
					rows = append(rows, []any{s.Database, t.Schema, t.Name, k, s.Database, t.Schema, pkName(t)})
				}
				for _, x := range t.Indexes {
					if x.ConstraintOID != 0 {
						for _, k := range x.KeyNames[:x.NKeys] {
							rows = append(rows, []any{s.Database, t.Schema, t.Name, k, s.Database, t.Schema, x.Name})
						}
					}
				}
			}
			// A foreign key uses the columns it references.
			for _, t := range sortedTables(s.Tables) {
				for _, fk := range t.ForeignKeys {
					if ref := tableByOID(s, fk.RefOID); ref != nil && (!ref.Restricted || ref.Privileges != 0) {
						for _, c := range fk.RefColumns {
							rows = append(rows, []any{s.Database, ref.Schema, ref.Name, c, s.Database, t.Schema, fk.Name})
						}
					}
				}
			}
			return rows
		})
	register("information_schema", "views", false, `table_catalog:name table_schema:name table_name:name
		view_definition:text check_option:text is_updatable:text is_insertable_into:text is_trigger_updatable:text
		is_trigger_deletable:text is_trigger_insertable_into:text`, func(s *Snapshot, _ *Facts) [][]any {
		var rows [][]any
		for _, t := range shownTables(s, acl.Table.AllRights()) {
			if t.View {
				var def any
				if !t.Restricted || t.Privileges != 0 && t.Privileges == acl.Table.AllRights() {
					def = t.ViewDef // PostgreSQL shows it to the owner only
				}
				rows = append(rows, []any{s.Database, t.Schema, t.Name, def, "NONE", "NO", "NO", "NO", "NO", "NO"})
			}
		}
		return rows
	})
	register("information_schema", "routines", true, `specific_catalog:name specific_schema:name specific_name:name
		routine_catalog:name routine_schema:name routine_name:name routine_type:text data_type:text
		type_udt_catalog:name type_udt_schema:name type_udt_name:name routine_body:text routine_definition:text
		external_language:text is_deterministic:text security_type:text`, none)
}

// columnPrivileges are the privileges that show a column.
const columnPrivileges = acl.Select | acl.Insert | acl.Update | acl.References

// shownTables are the tables the information_schema views show: those on
// which the session's role holds one of any (PostgreSQL's views test
// pg_has_role(relowner, 'USAGE') OR has_table_privilege(...)).
func shownTables(s *Snapshot, any acl.Mode) []Table {
	var out []Table
	for _, t := range sortedTables(s.Tables) {
		if !t.Restricted || t.Privileges&any != 0 {
			out = append(out, t)
		}
	}
	return out
}

func columnsRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, t := range shownTables(s, columnPrivileges) {
		for i, c := range t.Columns {
			it := infoSchemaType(c.TypeOID, c.TypeMod)
			_, _, _, _, coll, udt := typeFacts(c.TypeOID)
			var def any
			if c.Default != "" && c.Identity == "" {
				def = shownDefault(s, t, c)
			}
			isIdentity, idGen, idStart, idIncr, idMax, idMin, idCycle := "NO", any(nil), any(nil), any(nil), any(nil), any(nil), "NO"
			if q := identitySequence(s, t, c.Num(i)); q != nil && c.Identity != "" {
				isIdentity, idGen = "YES", "BY DEFAULT"
				if c.Identity == "a" {
					idGen = "ALWAYS"
				}
				idStart, idIncr, idMax, idMin = fmt.Sprint(q.Start), fmt.Sprint(q.Increment), fmt.Sprint(q.Max), fmt.Sprint(q.Min)
				if q.Cycle {
					idCycle = "YES"
				}
			}
			nullable := "YES"
			if c.NotNull {
				nullable = "NO"
			}
			var collName any
			_ = coll
			rows = append(rows, []any{s.Database, t.Schema, t.Name, c.Name, int32(c.Num(i)), def, nullable, it.dataType,
				it.charMax, it.charOctet, it.numPrec, it.numRadix, it.numScl, it.dtPrec, it.intervalType, it.intervalPre,
				nil, nil, nil, nil, nil, collName, nil, nil, nil,
				s.Database, "pg_catalog", udt, nil, nil, nil, nil, fmt.Sprint(c.Num(i)), "NO", isIdentity,
				idGen, idStart, idIncr, idMax, idMin, idCycle, "NEVER", nil, "YES"})
		}
	}
	return rows
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}
