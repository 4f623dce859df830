package sql

import "testing"

// countedCatalog binds every table with a known row count.
type countedCatalog struct{ testCatalog }

func (c countedCatalog) LookupTableRows(schema, name string) (*TableInfo, error) {
	ti, err := c.LookupTable(schema, name)
	if err != nil {
		return nil, err
	}
	cp := *ti
	cp.FromSQL, cp.NoColumnsFromSQL = "", "rows_"+name
	cp.Rows, cp.RowsKnown = 42, true
	return &cp, nil
}

// TestCountStarFromRowCount: a bare count(*) of one table is its row
// count; anything that could change the count (a filter, grouping, a
// second table, DISTINCT, FILTER, a window, a limit, count of a column or
// of NULL) goes to DuckDB.
func TestCountStarFromRowCount(t *testing.T) {
	cat := countedCatalog{testCatalog{
		"t": {Name: "t", FromSQL: "full_t", NoColumnsFromSQL: "none_t", Columns: []ColumnInfo{
			{Name: "a", TypeOID: OIDInt4, TypeMod: -1}}},
		"u": {Name: "u", FromSQL: "full_u", NoColumnsFromSQL: "none_u", Columns: []ColumnInfo{
			{Name: "a", TypeOID: OIDInt4, TypeMod: -1}}},
	}}
	cases := []struct{ q, want string }{
		{"SELECT count(*) FROM t", `SELECT CAST(42 AS BIGINT) AS "count"`},
		{"select COUNT(*) as n, count(1) c1, pg_catalog.count('x') from public.t as x", `SELECT CAST(42 AS BIGINT) AS "n", CAST(42 AS BIGINT) AS "c1", CAST(42 AS BIGINT) AS "count"`},
		// Not bare: DuckDB counts.
		{"SELECT count(*) FROM t WHERE true", "SELECT count(*) AS count FROM rows_t t WHERE true"},
		{"SELECT count(*) FROM t, u", "SELECT count(*) AS count FROM rows_t t, rows_u u"},
		{"SELECT count(*) FROM t GROUP BY 1 = 1", "SELECT count(*) AS count FROM rows_t t GROUP BY 1::\"integer\" = 1::\"integer\""},
		{"SELECT count(*) FROM t HAVING count(*) > 100", "SELECT count(*) AS count FROM rows_t t HAVING count(*) > 100::\"integer\""},
		{"SELECT count(*) FROM t LIMIT 0", "SELECT count(*) AS count FROM rows_t t LIMIT 0::\"integer\""},
		{"SELECT count(*) FROM t OFFSET 1", "SELECT count(*) AS count FROM rows_t t OFFSET 1::\"integer\""},
		{"SELECT count(NULL) FROM t", "SELECT count(NULL) AS count FROM rows_t t"},
		{"SELECT count(DISTINCT 1) FROM t", "SELECT count(DISTINCT 1::\"integer\") AS count FROM rows_t t"},
		{"SELECT count(*) FILTER (WHERE false) FROM t", "SELECT count(*) FILTER (WHERE false) AS count FROM rows_t t"},
		{"SELECT count(*) OVER () FROM t", "SELECT count(*) OVER () AS count FROM rows_t t"},
		{"SELECT count(*) + 1 FROM t", "SELECT count(*) + 1::\"integer\" AS \"?column?\" FROM rows_t t"},
		{"SELECT DISTINCT count(*) FROM t", "SELECT DISTINCT count(*) AS count FROM rows_t t"},
		{"SELECT count(*) FROM (SELECT 1 FROM t) s", "SELECT count(*) AS count FROM (SELECT 1::\"integer\" AS \"?column?\" FROM rows_t t) s"},
		{"SELECT count(*) FROM t UNION ALL SELECT count(*) FROM u", "SELECT count(*) AS count FROM rows_t t UNION ALL SELECT count(*) AS count FROM rows_u u"},
		{"SELECT count(a) FROM t", "SELECT count(a) AS count FROM full_t t"},
	}
	for _, c := range cases {
		if got := translate(t, cat, c.q).SQL; got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.q, got, c.want)
		}
	}
	// A table whose row count is unknown (a system relation) is counted.
	plain := testCatalog{"t": cat.testCatalog["t"]}
	if got, want := translate(t, plain, "SELECT count(*) FROM t").SQL, "SELECT count(*) AS count FROM none_t t"; got != want {
		t.Errorf("unknown row count:\n got: %s\nwant: %s", got, want)
	}
}
