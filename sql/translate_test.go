package sql

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func mustParse1(t *testing.T, q string) *Statement {
	t.Helper()
	st, err := Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(st) != 1 {
		t.Fatalf("%s: %d statements", q, len(st))
	}
	return st[0]
}

func translate(t *testing.T, cat Catalog, q string, declared ...uint32) *Query {
	t.Helper()
	tq, err := TranslateQuery(mustParse1(t, q).Tree, cat, declared)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return tq
}

var unitCat = testCatalog{
	"t": {Name: "t", FromSQL: "(SELECT 1 AS a, 'x' AS b)", Columns: []ColumnInfo{
		{Name: "a", TypeOID: OIDInt4, TypeMod: -1}, {Name: "b", TypeOID: OIDText, TypeMod: -1}}},
	"s.u": {Schema: "s", Name: "u", FromSQL: "duck_u", Columns: []ColumnInfo{
		{Name: "id", TypeOID: OIDInt8, TypeMod: -1}, {Name: "ts", TypeOID: OIDTimestamptz, TypeMod: -1}}},
}

func TestTableSubstitution(t *testing.T) {
	cases := []struct{ q, want string }{
		{"SELECT a FROM t", "SELECT a FROM (SELECT 1 AS a, 'x' AS b) t"},
		{"SELECT x.a FROM t AS x", "SELECT x.a FROM (SELECT 1 AS a, 'x' AS b) x"},
		{"SELECT id FROM s.u", "SELECT id FROM duck_u u"},
		{"SELECT * FROM t JOIN s.u ON u.id = t.a", "SELECT * FROM (SELECT 1 AS a, 'x' AS b) t JOIN duck_u u ON u.id = t.a"},
		// A CTE named like a table hides the table.
		{"WITH t AS (SELECT 2 AS a) SELECT a FROM t", `WITH t AS (SELECT 2::"integer" AS a) SELECT a FROM t`},
		// Subqueries at any depth are substituted.
		{"SELECT (SELECT max(a) FROM t) AS m", "SELECT (SELECT max(a) AS max FROM (SELECT 1 AS a, 'x' AS b) t) AS m"},
		{"SELECT 1 AS one WHERE EXISTS (SELECT 1 AS x FROM s.u)", `SELECT 1::"integer" AS one WHERE EXISTS (SELECT 1::"integer" AS x FROM duck_u u)`},
	}
	for _, c := range cases {
		if got := translate(t, unitCat, c.q).SQL; got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.q, got, c.want)
		}
	}
	// The placeholder never leaks, even with many tables.
	q := translate(t, unitCat, "SELECT 1 AS x FROM t a1, t a2, t a3, t a4, t a5, t a6, t a7, t a8, t a9, t a10, t a11").SQL
	if strings.Contains(q, "__bsdb_rel") {
		t.Errorf("placeholder left in %s", q)
	}
	// The caller's tree is not modified.
	st := mustParse1(t, "SELECT a FROM t")
	before := st.Tree.String()
	translate(t, unitCat, "SELECT a FROM t")
	if _, err := TranslateQuery(st.Tree, unitCat, nil); err != nil {
		t.Fatal(err)
	}
	if st.Tree.String() != before {
		t.Error("TranslateQuery modified its input tree")
	}
}

func TestUnknownTable(t *testing.T) {
	_, err := TranslateQuery(mustParse1(t, "SELECT * FROM t, nosuch").Tree, unitCat, nil)
	e, ok := pgerr.As(err)
	if !ok || e.Code != pgerr.UndefinedTable || e.Message != `relation "nosuch" does not exist` || e.Position != 18 {
		t.Fatalf("got %v", err)
	}
}

func TestParamInference(t *testing.T) {
	cases := []struct {
		q        string
		declared []uint32
		want     []uint32
	}{
		{"SELECT a FROM t WHERE a = $1", nil, []uint32{OIDInt4}},
		{"SELECT a FROM t WHERE $1 = a AND b = $2", nil, []uint32{OIDInt4, OIDText}},
		{"SELECT id FROM s.u WHERE id IN ($1, $2) LIMIT $3", nil, []uint32{OIDInt8, OIDInt8, OIDInt8}},
		{"SELECT $1::date AS d", nil, []uint32{OIDDate}},
		{"SELECT $1 AS x", nil, []uint32{OIDText}},
		{"SELECT a + $1 AS x FROM t", nil, []uint32{OIDInt4}},
		{"SELECT ts FROM s.u WHERE ts > $1", nil, []uint32{OIDTimestamptz}},
		{"SELECT a FROM t WHERE a = $2", []uint32{OIDText}, []uint32{OIDText, OIDInt4}}, // $1 unused but declared (undeclared: 42P18)
		{"SELECT a FROM t WHERE a = $1", []uint32{OIDInt8}, []uint32{OIDInt8}},          // declared wins
		{"SELECT a FROM t WHERE a = $1", []uint32{0}, []uint32{OIDInt4}},                // 0 = infer
		{"SELECT 1 AS x", []uint32{OIDInt4, OIDText}, []uint32{OIDInt4, OIDText}},       // declared but unused
		{"SELECT coalesce($1, a) AS c FROM t", nil, []uint32{OIDInt4}},
		{"SELECT CASE WHEN a > 0 THEN $1 ELSE b END AS c FROM t", nil, []uint32{OIDText}},
		// The first coercion decides (PostgreSQL's parse order).
		{"SELECT $1, $1::text", nil, []uint32{OIDText}},
		{"SELECT $1::int, $1::text", nil, []uint32{OIDInt4}},
		{"SELECT $1 + 1, $1", nil, []uint32{OIDInt4}},
		{"SELECT $1 IN (1, 2), $1::text", nil, []uint32{OIDInt4}},
		{"SELECT CASE WHEN a > 0 THEN $1 ELSE 1 END AS c FROM t", nil, []uint32{OIDInt4}},
		{"SELECT $1 = 'a', $1 || 'b'", nil, []uint32{OIDText}},
		{"SELECT $1::int, $2 || $1", nil, []uint32{OIDInt4, OIDText}},
		{"SELECT $1 UNION ALL SELECT 'x'", nil, []uint32{OIDText}},
	}
	for _, c := range cases {
		q := translate(t, unitCat, c.q, c.declared...)
		if !reflect.DeepEqual(q.ParamOIDs, c.want) {
			t.Errorf("%s (declared %v): got %v want %v; sql %s", c.q, c.declared, q.ParamOIDs, c.want, q.SQL)
		}
	}
	// Parameters are cast to their final type in the DuckDB text.
	q := translate(t, unitCat, "SELECT a FROM t WHERE a = $1", OIDInt8)
	if !strings.Contains(q.SQL, `$1::"bigint"`) {
		t.Errorf("declared type not cast: %s", q.SQL)
	}
}

// TestParamConflict: a bare $n of a select list is text at the end of its
// SELECT; a type deduced for it after the reference is 42P08 there.
func TestParamConflict(t *testing.T) {
	for _, c := range []struct {
		q, detail string
		pos       int
	}{
		{"SELECT $1, $1 + 1", "integer versus text", 8},
		{"SELECT $1 FROM t WHERE a = $1", "integer versus text", 8},
		{"SELECT $1 LIMIT $1", "bigint versus text", 8},
		{"SELECT a, $1 FROM t ORDER BY $1::date", "date versus text", 11},
		{"SELECT * FROM (SELECT $1 WHERE $1 > 0) s", "integer versus text", 23},
	} {
		_, err := TranslateQuery(mustParse1(t, c.q).Tree, unitCat, nil)
		e, ok := pgerr.As(err)
		if !ok || e.Code != pgerr.AmbiguousParameter || e.Message != "inconsistent types deduced for parameter $1" || e.Detail != c.detail || e.Position != c.pos {
			t.Errorf("%s: %#v, want 42P08 %q at %d", c.q, err, c.detail, c.pos)
		}
	}
	// Not in a set operation's branch nor in INSERT's SELECT: there the
	// other branch or the target column decides.
	for _, q := range []string{"SELECT $1 UNION ALL SELECT $1 + 1", "SELECT $1, $1 + 1 UNION SELECT 1, 2"} {
		if _, err := TranslateQuery(mustParse1(t, q).Tree, unitCat, nil); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := TranslateInsert(mustParse1(t, "INSERT INTO t SELECT $1, $1 || 'x'").Tree, unitCat, nil); err != nil {
		t.Errorf("INSERT ... SELECT: %v", err)
	}
	// A parameter nothing references and nobody declared: 42P18.
	for _, q := range []string{"SELECT a FROM t WHERE a = $2", "INSERT INTO t VALUES ($2, 'x')"} {
		st := mustParse1(t, q)
		var err error
		if st.Kind == KindInsert {
			_, err = TranslateInsert(st.Tree, unitCat, nil)
		} else {
			_, err = TranslateQuery(st.Tree, unitCat, nil)
		}
		if e, ok := pgerr.As(err); !ok || e.Code != pgerr.IndeterminateDatatype || e.Message != "could not determine data type of parameter $1" {
			t.Errorf("%s: %v, want 42P18", q, err)
		}
	}
}

func TestResultColumns(t *testing.T) {
	q := translate(t, unitCat, "SELECT a, b AS bee, count(*), 1, a::text, sum(a), avg(a), now(), t.* FROM t GROUP BY a, b")
	want := []ResultColumn{
		{"a", OIDInt4, -1}, {"bee", OIDText, -1}, {"count", OIDInt8, -1}, {"?column?", OIDInt4, -1},
		{"a", OIDText, -1}, {"sum", OIDInt8, -1}, {"avg", OIDNumeric, -1}, {"now", OIDTimestamptz, -1},
		{"a", OIDInt4, -1}, {"b", OIDText, -1},
	}
	if !reflect.DeepEqual(q.Columns, want) {
		t.Errorf("got  %v\nwant %v", q.Columns, want)
	}
	// SELECT * over something we cannot see into (without a Catalog, a
	// system relation is left to DuckDB): no column list.
	if q := translate(t, nil, "SELECT * FROM pg_catalog.pg_class"); q.Columns != nil {
		t.Errorf("expected unknown columns, got %v", q.Columns)
	}
}

func TestReservedPlaceholder(t *testing.T) {
	_, err := TranslateQuery(mustParse1(t, "SELECT '__bsdb_rel_0__' AS x FROM t").Tree, unitCat, nil)
	if pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("got %v", err)
	}
	// Without a table reference the text is harmless and kept.
	q := translate(t, unitCat, "SELECT '__bsdb_rel_0__' AS x")
	if !strings.Contains(q.SQL, "'__bsdb_rel_0__'") {
		t.Fatal(q.SQL)
	}
}
