package sql

import "testing"

// BenchmarkTranslate measures Parse + TranslateQuery of a typical query
// (no DuckDB involved): go test -tags duckdb_arrow -run - -bench Translate ./sql/
func BenchmarkTranslate(b *testing.B) {
	const q = "SELECT g, count(*), sum(i), avg(n) FROM nums n JOIN tags t ON t.id = n.id WHERE n.i > $1 AND t.tag = $2 GROUP BY g ORDER BY 2 DESC LIMIT 10"
	cat := testCatalog{}
	for _, f := range fixtures {
		cat[f.name] = &TableInfo{Name: f.name, Columns: f.cols, FromSQL: "duck_" + f.name}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		st, err := Parse(q)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := TranslateQuery(st[0].Tree, cat, nil); err != nil {
			b.Fatal(err)
		}
	}
}
