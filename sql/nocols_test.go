package sql

import "testing"

// TestNoColumnsSubstitution: a statement that reads no column gets the
// tables' column-less FROM items (DuckDB then counts Parquet rows from
// metadata); any column reference, *, NATURAL join, USING list or alias
// column list keeps the full relation.
func TestNoColumnsSubstitution(t *testing.T) {
	cat := testCatalog{
		"t": {Name: "t", FromSQL: "full_t", NoColumnsFromSQL: "none_t", Columns: []ColumnInfo{
			{Name: "a", TypeOID: OIDInt4, TypeMod: -1}, {Name: "b", TypeOID: OIDText, TypeMod: -1}}},
		"u": {Name: "u", FromSQL: "full_u", Columns: []ColumnInfo{
			{Name: "a", TypeOID: OIDInt4, TypeMod: -1}}},
	}
	cases := []struct{ q, want string }{
		{"SELECT count(*) FROM t", "SELECT count(*) AS count FROM none_t t"},
		{"SELECT count(1) AS n FROM t x", `SELECT count(1::"integer") AS n FROM none_t x`},
		{"SELECT 1 AS one FROM t LIMIT 1", `SELECT 1::"integer" AS one FROM none_t t LIMIT 1::"integer"`},
		// A table without a column-less form keeps its relation; others
		// in the statement still use theirs.
		{"SELECT count(*) FROM t, u", "SELECT count(*) AS count FROM none_t t, full_u u"},
		// Columns read anywhere in the statement: full relations.
		{"SELECT count(a) FROM t", "SELECT count(a) AS count FROM full_t t"},
		{"SELECT count(*) FROM t WHERE a > 1", `SELECT count(*) AS count FROM full_t t WHERE a > 1::"integer"`},
		{"SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = 1)", `SELECT count(*) AS count FROM full_t t WHERE EXISTS (SELECT 1::"integer" AS "?column?" FROM full_u u WHERE u.a = 1::"integer")`},
		{"SELECT * FROM t", "SELECT * FROM full_t t"},
		{"SELECT count(t.*) FROM t", "SELECT count(t.*) AS count FROM full_t t"},
		{"SELECT count(*) FROM t NATURAL JOIN u", "SELECT count(*) AS count FROM full_t t NATURAL JOIN full_u u"},
		{"SELECT count(*) FROM t JOIN u USING (a)", "SELECT count(*) AS count FROM full_t t JOIN full_u u USING (a)"},
		{"SELECT count(*) FROM t AS x(c, d)", "SELECT count(*) AS count FROM full_t x(c, d)"},
	}
	for _, c := range cases {
		if got := translate(t, cat, c.q).SQL; got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.q, got, c.want)
		}
	}
}

// rowsCatalog binds tables without columns through LookupTableRows.
type rowsCatalog struct {
	testCatalog
	rows []string // tables looked up without columns
}

func (c *rowsCatalog) LookupTableRows(schema, name string) (*TableInfo, error) {
	ti, err := c.LookupTable(schema, name)
	if err != nil {
		return nil, err
	}
	c.rows = append(c.rows, name)
	cp := *ti
	cp.FromSQL, cp.NoColumnsFromSQL = "", "rows_"+name
	return &cp, nil
}

// TestRowsCatalog: a statement that reads no column (decided before the
// tables are looked up) binds them with LookupTableRows; any other
// statement with LookupTable.
func TestRowsCatalog(t *testing.T) {
	cases := []struct {
		q, want string
		rows    int
	}{
		{"SELECT count(*) FROM t", "SELECT count(*) AS count FROM rows_t t", 1},
		{"SELECT count(*) FROM t, t x", "SELECT count(*) AS count FROM rows_t t, rows_t x", 2},
		{"SELECT count(a) FROM t", "SELECT count(a) AS count FROM full_t t", 0},
		{"SELECT count(*) FROM t AS x(c, d)", "SELECT count(*) AS count FROM full_t x(c, d)", 0},
		{"SELECT * FROM t", "SELECT * FROM full_t t", 0},
	}
	for _, c := range cases {
		cat := &rowsCatalog{testCatalog: testCatalog{
			"t": {Name: "t", FromSQL: "full_t", NoColumnsFromSQL: "none_t", Columns: []ColumnInfo{
				{Name: "a", TypeOID: OIDInt4, TypeMod: -1}, {Name: "b", TypeOID: OIDText, TypeMod: -1}}},
		}}
		if got := translate(t, cat, c.q).SQL; got != c.want || len(cat.rows) != c.rows {
			t.Errorf("%s\n got: %s (%d tables without columns)\nwant: %s (%d)", c.q, got, len(cat.rows), c.want, c.rows)
		}
	}
}
