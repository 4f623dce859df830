package sql

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

var insTable = &TableInfo{Name: "ins", FromSQL: "duck_ins", Columns: []ColumnInfo{
	{Name: "id", TypeOID: OIDInt4, TypeMod: -1, NotNull: true},
	{Name: "name", TypeOID: OIDVarchar, TypeMod: 5 + 4},
	{Name: "amount", TypeOID: OIDNumeric, TypeMod: TypeModNumeric(6, 2), Default: "1.50"},
	{Name: "created", TypeOID: OIDDate, TypeMod: -1, Default: "'2024-01-01'::date"},
	{Name: "flag", TypeOID: OIDBool, TypeMod: -1},
}}

const insPGDDL = "CREATE TABLE ins (id integer NOT NULL, name varchar(5), amount numeric(6,2) DEFAULT 1.50, created date DEFAULT '2024-01-01'::date, flag boolean)"

func insCatalog(e *env) testCatalog {
	cat := testCatalog{"ins": insTable}
	for k, v := range e.cat {
		cat[k] = v
	}
	return cat
}

// TestInsertDifferential runs each INSERT on PostgreSQL (then reads the
// table back) and runs our Insert.Source on DuckDB; the rows (or errors)
// must match.
func TestInsertDifferential(t *testing.T) {
	pg := newPG(t)
	duck := newDuck(t)
	cat := insCatalog(duck)
	cases := []string{
		"INSERT INTO ins VALUES (1, 'abc', 2.5, '2024-05-06', true)",
		"INSERT INTO ins (id) VALUES (1), (2)",
		"INSERT INTO ins (name, id) VALUES ('x', 7)",
		"INSERT INTO ins VALUES (1, 'a', DEFAULT, DEFAULT, NULL)",
		"INSERT INTO ins (id, amount) VALUES ('42', '3.14159')",
		"INSERT INTO ins (id, amount) VALUES (2.5, 1)", // numeric -> int rounds half away from zero
		"INSERT INTO ins (id, name) SELECT id, g FROM nums WHERE id < 4",
		"INSERT INTO ins (id, name) SELECT i, t FROM nums WHERE id = 1", // 'apple' fits 5
		"INSERT INTO ins DEFAULT VALUES",                                // NOT NULL id
		"INSERT INTO ins (id, name) VALUES (1, 'toolong')",
		"INSERT INTO ins (id) VALUES (NULL)",
		"INSERT INTO ins (id) VALUES ('abc')",
		"INSERT INTO ins (id, amount) VALUES (1, 12345.67)",
		"INSERT INTO ins (id) VALUES (3000000000)",
		"INSERT INTO ins (id, name) VALUES (1)",
		"INSERT INTO ins (id) VALUES (1, 'x')",
		"INSERT INTO ins (nosuch) VALUES (1)",
		"INSERT INTO ins (id, id) VALUES (1, 2)",
		"INSERT INTO nosuch VALUES (1)",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, q := range cases {
		t.Run(q, func(t *testing.T) {
			// PostgreSQL.
			if _, err := pg.Exec(ctx, "DROP TABLE IF EXISTS ins; "+insPGDDL).ReadAll(); err != nil {
				t.Fatal(err)
			}
			p := runPG(t, pg, q)
			if p.code == "" {
				p = runPG(t, pg, "SELECT * FROM ins")
			}
			// Ours.
			d := runInsert(t, duck, cat, q)
			if msg := compare(p, d, true); msg != "" {
				src := ""
				if d.query != nil {
					src = d.query.SQL
				}
				t.Errorf("%s\n  source: %s\n  pg:   %v\n  duck: %v", msg, src, p, d)
			}
		})
	}
}

func runInsert(t *testing.T, e *env, cat Catalog, q string) result {
	t.Helper()
	st := mustParse1(t, q)
	ins, err := TranslateInsert(st.Tree, cat, nil)
	if err != nil {
		return errResult(err)
	}
	r := runSQL(t, e, ins.Source, q)
	r.query = ins.Source
	return r
}

// runSQL runs a translated query on DuckDB and normalises the result.
func runSQL(t *testing.T, e *env, tq *Query, orig string) result {
	t.Helper()
	return runSQLArgs(t, e, tq, orig, nil)
}

func runSQLArgs(t *testing.T, e *env, tq *Query, orig string, args []any) result {
	t.Helper()
	rows, err := e.db.Query(tq.SQL, args...)
	if err != nil {
		return errResult(MapError(err, orig))
	}
	defer rows.Close()
	var r result
	cts, _ := rows.ColumnTypes()
	for i, ct := range cts {
		r.cols = append(r.cols, ct.Name())
		actual, _ := PGTypeOfDuckDB(ct.DatabaseTypeName())
		r.oids = append(r.oids, actual)
		inferred := uint32(0)
		if i < len(tq.Columns) {
			inferred = tq.Columns[i].TypeOID
		}
		r.inferred = append(r.inferred, inferred)
	}
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var row []string
		for i, v := range vals {
			row = append(row, normDuckTyped(v, r.oids[i]))
		}
		r.rows = append(r.rows, row)
	}
	if err := rows.Err(); err != nil {
		return errResult(MapError(err, orig))
	}
	return r
}

func TestInsertShape(t *testing.T) {
	cat := testCatalog{"ins": insTable}
	ins, err := TranslateInsert(mustParse1(t, "INSERT INTO ins (flag, id) VALUES ($1, $2) RETURNING id, amount * 2 AS twice").Tree, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ins.Columns, []int{4, 0}) {
		t.Errorf("Columns = %v", ins.Columns)
	}
	if !reflect.DeepEqual(ins.Source.ParamOIDs, []uint32{OIDBool, OIDInt4}) {
		t.Errorf("ParamOIDs = %v", ins.Source.ParamOIDs)
	}
	if len(ins.Source.Columns) != 5 || ins.Source.Columns[2].Name != "amount" {
		t.Errorf("Source.Columns = %v", ins.Source.Columns)
	}
	if ins.Returning == nil || !strings.Contains(ins.Returning.SQL, "FROM "+ReturningRelation+" ins") {
		t.Fatalf("Returning = %+v", ins.Returning)
	}
	want := []ResultColumn{{"id", OIDInt4, -1}, {"twice", OIDNumeric, -1}}
	if !reflect.DeepEqual(ins.Returning.Columns, want) {
		t.Errorf("Returning.Columns = %v", ins.Returning.Columns)
	}
	ins, err = TranslateInsert(mustParse1(t, "INSERT INTO ins (id) VALUES (1) ON CONFLICT DO NOTHING").Tree, cat, nil)
	if err != nil || !ins.OnConflict {
		t.Errorf("ON CONFLICT: %v %v", ins, err)
	}
}

// TestInsertReturningRuns checks the RETURNING query against a relation
// holding the inserted rows.
func TestInsertReturningRuns(t *testing.T) {
	e := newDuck(t)
	cat := testCatalog{"ins": insTable}
	ins, err := TranslateInsert(mustParse1(t, "INSERT INTO ins AS x (id, name) VALUES (1, 'a'), (2, 'b') RETURNING x.id * 10 AS k, upper(name)").Tree, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, e.db, fmt.Sprintf("CREATE TEMP TABLE %s AS %s", ReturningRelation, ins.Source.SQL))
	r := runSQL(t, e, ins.Returning, "")
	if r.code != "" || fmt.Sprint(r.cols, r.rows) != "[k upper] [[10 A] [20 B]]" {
		t.Errorf("got %v", r)
	}
	// An unknown column is 42703 when the statement is translated (at
	// Parse), as in PostgreSQL.
	if e, ok := pgerr.As(errFrom(TranslateInsert(mustParse1(t, "INSERT INTO ins (id) VALUES (1) RETURNING nosuch").Tree, cat, nil))); !ok || e.Code != pgerr.UndefinedColumn || e.Message != `column "nosuch" does not exist` {
		t.Errorf("RETURNING nosuch: %v, want 42703", e)
	}
}

func errFrom(_ any, err error) error { return err }

// TestInsertDirect checks which VALUES sources the planner may evaluate
// without DuckDB (Insert.Direct) and what they hold. Whether the values are
// PostgreSQL's is regress.TestInsertValuesDifferential's job.
func TestInsertDirect(t *testing.T) {
	plain := &TableInfo{Name: "p", FromSQL: "duck_p", Columns: []ColumnInfo{
		{Name: "id", TypeOID: OIDInt4, TypeMod: -1},
		{Name: "name", TypeOID: OIDVarchar, TypeMod: 5 + 4},
		{Name: "x", TypeOID: OIDFloat8, TypeMod: -1},
	}}
	cat := testCatalog{"ins": insTable, "p": plain}
	cases := []struct {
		sql    string
		direct bool
	}{
		{"INSERT INTO p VALUES (1, 'ab', 2.5), (2, NULL, DEFAULT)", true},
		{"INSERT INTO p (name, id) VALUES ($1, $2)", true},
		{"INSERT INTO p VALUES ($1, $2, $3)", true},
		{"INSERT INTO p (id, x) VALUES (3000000000, 1)", false}, // int8 constant into integer
		{"INSERT INTO p (id) VALUES (1 + 1)", false},
		{"INSERT INTO p (id, name) VALUES ($1, $1::text)", false},
		{"INSERT INTO p (id) VALUES ('abc')", false}, // the regular path reports the error
		{"INSERT INTO p (id) SELECT 1", false},
		{"INSERT INTO p (id) VALUES (now())", false},
		{"INSERT INTO ins (id) VALUES (1)", false}, // columns with defaults left out
		{"WITH c AS (SELECT 1) INSERT INTO p (id) VALUES (1)", false},
		{"INSERT INTO p (name) VALUES ('abcdefgh')", false}, // too long: regular path's error
	}
	for _, c := range cases {
		ins, err := TranslateInsert(mustParse1(t, c.sql).Tree, cat, nil)
		if err != nil {
			if c.direct {
				t.Errorf("%s: %v", c.sql, err)
			}
			continue
		}
		if got := ins.Direct != nil; got != c.direct {
			t.Errorf("%s: direct = %v, want %v", c.sql, got, c.direct)
		}
	}
	ins, err := TranslateInsert(mustParse1(t, "INSERT INTO p (name, id) VALUES ($2, 7), (NULL, $1)").Tree, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]DirectValue{{{Value: int32(7)}, {Param: 2}, {}}, {{Param: 1}, {}, {}}}
	if !reflect.DeepEqual(ins.Direct, want) {
		t.Errorf("Direct = %#v, want %#v", ins.Direct, want)
	}
}
