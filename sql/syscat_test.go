package sql

import (
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// sysCat serves pg_catalog.pg_class like the server does (through
// LookupTable) on top of unitCat.
type sysCat struct{ testCatalog }

func (c sysCat) LookupTable(schema, name string) (*TableInfo, error) {
	if schema == "pg_catalog" && name == "pg_class" {
		return &TableInfo{Schema: schema, Name: name, FromSQL: "temp.__pgc_class", Columns: []ColumnInfo{
			{Name: "oid", TypeOID: 26, TypeMod: -1}, {Name: "relname", TypeOID: 19, TypeMod: -1}}}, nil
	}
	if schema == "pg_catalog" && name == "pg_index" {
		return &TableInfo{Schema: schema, Name: name, FromSQL: "temp.__pgc_index", Columns: []ColumnInfo{
			{Name: "indexrelid", TypeOID: 26, TypeMod: -1}, {Name: "indkey", TypeOID: 22, TypeMod: -1}}}, nil
	}
	if schema == "pg_catalog" && name == "pg_attribute" {
		return &TableInfo{Schema: schema, Name: name, FromSQL: "temp.__pgc_attribute", Columns: []ColumnInfo{
			{Name: "attrelid", TypeOID: 26, TypeMod: -1}, {Name: "attnum", TypeOID: 21, TypeMod: -1}}}, nil
	}
	if schema == "pg_catalog" || schema == "information_schema" {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	return c.testCatalog.LookupTable(schema, name)
}

func TestSystemRelationRouting(t *testing.T) {
	cat := sysCat{unitCat}
	for _, q := range []string{"SELECT relname FROM pg_catalog.pg_class c", "SELECT relname FROM pg_class"} {
		tq := translate(t, cat, q)
		if !strings.Contains(tq.SQL, "temp.__pgc_class") {
			t.Errorf("%s: not routed through LookupTable: %s", q, tq.SQL)
		}
		if len(tq.Columns) != 1 || tq.Columns[0].TypeOID != 19 {
			t.Errorf("%s: columns %v, want relname of type name", q, tq.Columns)
		}
	}
	// An unqualified pg_* name that is no system relation is a user table.
	if _, err := TranslateQuery(mustParse1(t, "SELECT * FROM pg_nosuch").Tree, cat, nil); err == nil || !strings.Contains(err.Error(), `relation "pg_nosuch" does not exist`) {
		t.Errorf("pg_nosuch: %v", err)
	}
	// A qualified unknown system relation is 42P01 with its position.
	_, err := TranslateQuery(mustParse1(t, "SELECT * FROM pg_catalog.pg_nosuch").Tree, cat, nil)
	if e, ok := pgerr.As(err); !ok || e.Code != pgerr.UndefinedTable || e.Position != 15 {
		t.Errorf("pg_catalog.pg_nosuch: %#v", err)
	}
}

func TestSystemRewrites(t *testing.T) {
	cat := sysCat{unitCat}
	cases := []struct{ q, want, col string }{
		{"SELECT pg_catalog.format_type(23, -1)", "__bsdb_f_format_type(", "format_type"},
		{"SELECT version()", "__bsdb_f_version()", "version"},
		{"SELECT current_user", "__bsdb_s_current_user()", "current_user"},
		{"SELECT session_user", "__bsdb_s_session_user()", "session_user"},
		{"SELECT has_table_privilege('t', 'select')", "__bsdb_s_has_table_privilege('t', 'select')", "has_table_privilege"},
		{"SELECT 't'::regclass", "__bsdb_f_regclass_in('t')", "regclass"},
		{"SELECT c.oid::pg_catalog.regclass FROM pg_class c", "__bsdb_f_regclass_out(c.oid)", "oid"},
		{"SELECT 't'::regclass::text AS n", "__bsdb_f_regclass_out(__bsdb_f_regclass_in('t'))", "n"},
		{"SELECT '16384'::oid", `'16384'::"bigint"`, "oid"},
		{"SELECT relname FROM pg_class WHERE relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default", "__bsdb_regexp_like(relname::", "relname"},
		{"SELECT relname FROM pg_class WHERE relname !~ '^pg_'", "NOT __bsdb_regexp_like(relname::", "relname"},
		{"SELECT i.indkey[a.attnum - 1] FROM pg_index i, pg_attribute a", `indkey[(a.attnum - 1::"integer") + 1::"integer"]`, "indkey"},
		{"SELECT 1 = ANY(ARRAY[1,2])", "list_contains(ARRAY[", "?column?"},
	}
	for _, c := range cases {
		tq := translate(t, cat, c.q)
		if !strings.Contains(tq.SQL, c.want) {
			t.Errorf("%s\n got %s\nwant it to contain %s", c.q, tq.SQL, c.want)
		}
		if len(tq.Columns) != 1 || tq.Columns[0].Name != c.col {
			t.Errorf("%s: columns %v, want one named %q", c.q, tq.Columns, c.col)
		}
		if strings.Contains(tq.SQL, "COLLATE") {
			t.Errorf("%s: COLLATE kept: %s", c.q, tq.SQL)
		}
	}
}
