package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/planner"
)

// mergeCase is one statement and its outcome as runCapture gives it (tag
// and rows, or "ERROR <SQLSTATE> <message>"); PostgreSQL 15's outcomes.
type mergeCase struct{ q, want string }

func runMergeCases(t *testing.T, c *pgx.Conn, cases []mergeCase) {
	t.Helper()
	for _, tc := range cases {
		if got := mergeCapture(c, tc.q); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.q, got, tc.want)
		}
	}
}

// mergeCapture runs q and returns its tag and rows ("tag: a b; c d") or
// "ERROR <SQLSTATE> <message>".
func mergeCapture(c *pgx.Conn, q string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return errCode(err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return errCode(err)
		}
		var f []string
		for _, v := range vals {
			f = append(f, fmt.Sprint(v))
		}
		out = append(out, strings.Join(f, " "))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return errCode(err)
	}
	if len(out) == 0 {
		return rows.CommandTag().String()
	}
	return rows.CommandTag().String() + ": " + strings.Join(out, "; ")
}

// TestMergeClauses runs each kind of WHEN clause and each error of MERGE,
// outside and inside a transaction (where the target rows are the
// transaction's own, committed, and buffered ones).
// The cases run on the reference PostgreSQL too (subtest PostgreSQL).
func TestMergeClauses(t *testing.T) {
	ts := startServerConfig(t, planner.Config{FlushInterval: 50 * time.Millisecond}, func(*Backend) {})
	run := func(t *testing.T, c *pgx.Conn) {
		for _, q := range []string{
			"CREATE TABLE mt (id int, v text, n numeric(10,2))",
			"CREATE TABLE ms (id int, w text)",
			"INSERT INTO mt VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5)",
			"INSERT INTO ms VALUES (1, 'x'), (2, 'y'), (4, 'z')",
		} {
			mustExec(t, c, q)
		}
		runMergeCases(t, c, mergeClauseCases)
	}
	run(t, ts.conn(t))
	t.Run("PostgreSQL", func(t *testing.T) {
		c, err := pgx.Connect(context.Background(), pgref.NewDatabase(t, pgref.Start(t)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		run(t, c)
	})
}

const mergeAll = "SELECT id, v, n::text FROM mt ORDER BY id, v"

var mergeClauseCases = []mergeCase{
	// UPDATE, DELETE and INSERT in one statement; the first clause
	// whose condition holds wins.
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED AND s.w = 'x' THEN UPDATE SET v = s.w, n = n + 1 " +
		"WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.w, 9.99)", "MERGE 3"},
	{mergeAll, "SELECT 3: 1 x 2.50; 3 c 3.50; 4 z 9.99"},
	// DO NOTHING counts nothing; no clause applies: nothing.
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN DO NOTHING WHEN NOT MATCHED THEN DO NOTHING", "MERGE 0"},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED AND false THEN DELETE", "MERGE 0"},
	// INSERT with a column list (unqualified names are the
	// source's), DEFAULT VALUES; a VALUES source.
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (id, w)", "MERGE 1"},
	{"MERGE INTO mt USING (VALUES (7, 'new'), (1, 'vv')) AS s(a, b) ON mt.id = s.a " +
		"WHEN MATCHED THEN UPDATE SET v = b WHEN NOT MATCHED THEN INSERT DEFAULT VALUES", "MERGE 2"},
	{mergeAll, "SELECT 5: 1 vv 2.50; 2 y <nil>; 3 c 3.50; 4 z 9.99; <nil> <nil> <nil>"},
	// A subquery source and a WITH clause.
	{"WITH src AS (SELECT id, w FROM ms WHERE id = 4) MERGE INTO mt USING (SELECT * FROM src) s ON mt.id = s.id " +
		"WHEN MATCHED THEN UPDATE SET n = DEFAULT, v = upper(s.w)", "MERGE 1"},
	{"SELECT v, n::text FROM mt WHERE id = 4", "SELECT 1: Z <nil>"},
	// A target row two source rows change: 21000, nothing changed.
	{"INSERT INTO ms VALUES (1, 'dup')", "INSERT 0 1"},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.w", "ERROR 21000 MERGE command cannot affect row a second time"},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN DELETE", "ERROR 21000 MERGE command cannot affect row a second time"},
	// ... unless one of them does nothing.
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED AND s.w = 'dup' THEN DO NOTHING WHEN MATCHED THEN UPDATE SET v = s.w || '!'", "MERGE 3"},
	{mergeAll, "SELECT 5: 1 x! 2.50; 2 y! <nil>; 3 c 3.50; 4 z! <nil>; <nil> <nil> <nil>"},
	// PostgreSQL 15's errors.
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (t.id, s.w)",
		`ERROR 42P01 invalid reference to FROM-clause entry for table "t"`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, v)", `ERROR 42703 column "v" does not exist`},
	{"MERGE INTO mt t USING ms t ON t.id = t.id WHEN MATCHED THEN DELETE", `ERROR 42712 name "t" specified more than once`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN DELETE WHEN MATCHED AND s.id = 1 THEN DELETE",
		"ERROR 42601 unreachable WHEN clause specified after unconditional WHEN clause"},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE", `ERROR 42601 syntax error at or near "BY"`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN DELETE RETURNING *", `ERROR 42601 syntax error at or near "RETURNING"`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED THEN UPDATE SET nope = 1", `ERROR 42703 column "nope" of relation "mt" does not exist`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, id) VALUES (1, 2)", `ERROR 42701 column "id" specified more than once`},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id) VALUES (1, 2)", "ERROR 42601 INSERT has more expressions than target columns"},
	{"MERGE INTO nosuch t USING ms s ON t.id = s.id WHEN MATCHED THEN DELETE", `ERROR 42P01 relation "nosuch" does not exist`},
	{"WITH RECURSIVE r AS (SELECT 1) MERGE INTO mt USING r ON true WHEN MATCHED THEN DELETE", "ERROR 42601 WITH RECURSIVE is not supported for MERGE statement"},
	{mergeAll, "SELECT 5: 1 x! 2.50; 2 y! <nil>; 3 c 3.50; 4 z! <nil>; <nil> <nil> <nil>"},
	{"MERGE INTO mt t USING ms s ON t.id = s.id WHEN MATCHED AND 1 THEN DELETE", "ERROR 42804 argument of WHEN must be type boolean, not type integer"},
	{"CREATE VIEW mv AS SELECT * FROM mt", "CREATE VIEW"},
	{"MERGE INTO mv t USING ms s ON t.id = s.id WHEN MATCHED THEN DELETE", `ERROR 0A000 cannot execute MERGE on relation "mv"`},
	// In a transaction: its own rows, then rolled back; then
	// committed.
	{"BEGIN", "BEGIN"},
	{"INSERT INTO mt VALUES (10, 'own', 1)", "INSERT 0 1"},
	{"MERGE INTO mt USING (VALUES (10), (3), (11)) s(id) ON mt.id = s.id " +
		"WHEN MATCHED AND mt.id = 10 THEN UPDATE SET v = 'own2' WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)", "MERGE 3"},
	{"SELECT id, v FROM mt WHERE id >= 3 ORDER BY id", "SELECT 3: 4 z!; 10 own2; 11 <nil>"},
	{"ROLLBACK", "ROLLBACK"},
	{"SELECT id, v FROM mt WHERE id >= 3 ORDER BY id", "SELECT 2: 3 c; 4 z!"},
	{"BEGIN", "BEGIN"},
	{"MERGE INTO mt USING (VALUES (3), (12)) s(id) ON mt.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'c12')", "MERGE 2"},
	{"COMMIT", "COMMIT"},
	{"SELECT id, v FROM mt WHERE id >= 3 ORDER BY id", "SELECT 2: 4 z!; 12 c12"},
}

// TestMergeUpsert: a dbt-style incremental model (upsert from a staging
// table, its quoting and aliases), a serial key taking one sequence value
// per inserted row, parameters through the extended protocol, and the
// privileges each clause needs.
func TestMergeUpsert(t *testing.T) {
	ts := startServerConfig(t, planner.Config{FlushInterval: 50 * time.Millisecond}, func(*Backend) {})
	c := ts.conn(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE dim (sk serial, key text NOT NULL, val numeric(12,3), updated_at date)",
		"CREATE TABLE stg (key text, val numeric, updated_at date)",
		"INSERT INTO dim (key, val, updated_at) VALUES ('a', 1.5, '2024-01-01'), ('b', 2, '2024-01-01')",
		"INSERT INTO stg VALUES ('a', 10.125, '2024-02-01'), ('c', 3.3333, '2024-02-01'), ('d', NULL, NULL)",
	} {
		mustExec(t, c, q)
	}
	dbt := `merge into "postgres"."public"."dim" as DBT_INTERNAL_DEST
using (select * from "stg") as DBT_INTERNAL_SOURCE
on (DBT_INTERNAL_SOURCE.key = DBT_INTERNAL_DEST.key)
when matched then update set
    "key" = DBT_INTERNAL_SOURCE."key","val" = DBT_INTERNAL_SOURCE."val","updated_at" = DBT_INTERNAL_SOURCE."updated_at"
when not matched then insert
    ("key", "val", "updated_at")
values
    ("key", "val", "updated_at")`
	runMergeCases(t, c, []mergeCase{
		{dbt, "MERGE 3"},
		{"SELECT key, val::text, updated_at::text FROM dim ORDER BY key", "SELECT 4: a 10.125 2024-02-01; b 2.000 2024-01-01; c 3.333 2024-02-01; d <nil> <nil>"},
		{"SELECT sk FROM dim WHERE key IN ('a', 'b') ORDER BY key", "SELECT 2: 1; 2"},
		// Run again: the same rows, no new sequence values.
		{dbt, "MERGE 3"},
		{"SELECT count(*), max(sk), count(DISTINCT sk) FROM dim", "SELECT 1: 4 4 4"},
		{"SELECT nextval('dim_sk_seq')", "SELECT 1: 5"},
		{"MERGE INTO dim d USING (VALUES (NULL::text, 1)) s(k, v) ON d.key = s.k WHEN NOT MATCHED THEN INSERT (val) VALUES (s.v)",
			`ERROR 23502 null value in column "key" of relation "dim" violates not-null constraint`},
	})
	// Parameters (the extended protocol: pgx prepares the statement),
	// typed as PostgreSQL types them (an assigned $n takes its column's
	// type, one in a condition boolean's operand's).
	sd, err := c.Prepare(ctx, "m", "MERGE INTO dim d USING (VALUES ($1::text)) s(k) ON d.key = s.k "+
		"WHEN MATCHED AND d.val > $2 THEN UPDATE SET val = $3, updated_at = $4 WHEN NOT MATCHED THEN INSERT (key, sk) VALUES ($5, $6)")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sd.ParamOIDs); got != "[25 1700 1700 1082 25 23]" {
		t.Errorf("parameter types %s, want [25 1700 1700 1082 25 23]", got)
	}
	tag, err := c.Exec(ctx, "MERGE INTO dim d USING (VALUES ($1::text, $2::numeric)) s(k, v) ON d.key = s.k "+
		"WHEN MATCHED THEN UPDATE SET val = $3 WHEN NOT MATCHED THEN INSERT (key, val) VALUES (s.k, s.v)", "e", "7.5", "8.25")
	if err != nil || tag.String() != "MERGE 1" {
		t.Fatalf("MERGE with parameters: %v %v", tag, err)
	}
	tag, err = c.Exec(ctx, "MERGE INTO dim d USING (VALUES ($1::text)) s(k) ON d.key = s.k WHEN MATCHED THEN UPDATE SET val = $2", "e", 9.5)
	if err != nil || tag.String() != "MERGE 1" {
		t.Fatalf("MERGE with parameters: %v %v", tag, err)
	}
	runMergeCases(t, c, []mergeCase{{"SELECT val::text FROM dim WHERE key = 'e'", "SELECT 1: 9.500"}})

	// Privileges: each action's on the target, SELECT on the source.
	for _, q := range []string{
		"CREATE ROLE alice LOGIN",
		"GRANT SELECT, INSERT ON dim TO alice",
		"GRANT SELECT ON stg TO alice",
	} {
		mustExec(t, c, q)
	}
	a := ts.connAs(t, "alice")
	runMergeCases(t, a, []mergeCase{
		{"MERGE INTO dim d USING stg s ON d.key = s.key WHEN NOT MATCHED THEN INSERT (key) VALUES (s.key)", "MERGE 0"},
		{"MERGE INTO dim d USING stg s ON d.key = s.key WHEN MATCHED THEN UPDATE SET val = 1", "ERROR 42501 permission denied for table dim"},
		{"MERGE INTO dim d USING stg s ON d.key = s.key WHEN MATCHED THEN DELETE", "ERROR 42501 permission denied for table dim"},
	})
	mustExec(t, c, "REVOKE SELECT ON stg FROM alice")
	runMergeCases(t, a, []mergeCase{
		{"MERGE INTO dim d USING stg s ON d.key = s.key WHEN NOT MATCHED THEN INSERT (key) VALUES (s.key)", "ERROR 42501 permission denied for table stg"},
	})
}
