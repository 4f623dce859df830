package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A repeated query runs from the session's statement cache and still sees
// every write acknowledged before it: buffered rows, committed files and
// the native cache all change the text of the query DuckDB runs.
func TestStatementCacheSeesEveryWrite(t *testing.T) {
	// Commits only where the test makes them: a background commit between
	// two reads of a round changes their snapshot (a cache miss), which a
	// loaded machine made often enough to fail the hit count.
	ts := startServerWith(t, "", -1, func(*Backend) {})
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE sc (id int, v bigint)")
	q := "SELECT count(*), coalesce(sum(v), 0) FROM sc"
	simple := func() string {
		var n, sum int64
		if err := c.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d/%d", n, sum)
	}
	var rows, total int64
	before := ts.b.stmtHits.Load()
	for i := 1; i <= 12; i++ {
		for r := 0; r < 3; r++ {
			if got, want := simple(), fmt.Sprintf("%d/%d", rows, total); got != want {
				t.Fatalf("round %d.%d: %s, want %s", i, r, got, want)
			}
		}
		mustExec(t, c, fmt.Sprintf("INSERT INTO sc VALUES (%d, %d)", i, i*10))
		rows, total = rows+1, total+int64(i*10)
		if i%4 == 0 {
			if err := ts.eng.FlushAll(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, want := simple(), fmt.Sprintf("%d/%d", rows, total); got != want {
		t.Fatalf("last: %s, want %s", got, want)
	}
	if hits := ts.b.stmtHits.Load() - before; hits < 12 {
		t.Fatalf("%d queries ran from the statement cache, want at least 12 (one per round)", hits)
	}
}

// A plan DuckDB folded under one time zone is not reused under another.
func TestStatementCacheTimeZone(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	q := "SELECT extract(hour FROM timestamptz '2024-01-01 12:00:00+00')::int"
	hour := func() int {
		var h int
		if err := c.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	mustExec(t, c, "SET TimeZone = 'UTC'")
	before := ts.b.stmtHits.Load()
	for i := 0; i < 3; i++ {
		if h := hour(); h != 12 {
			t.Fatalf("UTC: hour %d, want 12", h)
		}
	}
	if ts.b.stmtHits.Load() == before {
		t.Fatal("the query never ran from the statement cache")
	}
	mustExec(t, c, "SET TimeZone = 'Asia/Tokyo'")
	for i := 0; i < 3; i++ {
		if h := hour(); h != 21 {
			t.Fatalf("Asia/Tokyo, run %d: hour %d, want 21", i, h)
		}
	}
	if _, err := c.Exec(ctx, "SELECT set_config('TimeZone', 'America/New_York', false)"); err != nil {
		t.Fatal(err)
	}
	if h := hour(); h != 7 {
		t.Fatalf("America/New_York: hour %d, want 7", h)
	}
}

// Two cursors over the same query are open at once: the second runs
// unprepared while the first holds the cached statement.
func TestStatementCacheOpenCursors(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE cur (i int)")
	mustExec(t, c, "INSERT INTO cur SELECT * FROM generate_series(1, 10)")
	q := "SELECT i FROM cur ORDER BY i"
	for i := 0; i < 2; i++ {
		if got := queryStrings(t, c, q); len(got) != 10 {
			t.Fatalf("%d rows, want 10", len(got))
		}
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "DECLARE a CURSOR FOR "+q)
	mustExec(t, c, "DECLARE b CURSOR FOR "+q)
	for i := 1; i <= 5; i++ {
		for k, name := range []string{"a", "b", "b"} {
			want := fmt.Sprint(i)
			if k > 0 {
				want = fmt.Sprint(2*i - 2 + k)
			}
			if got := queryStrings(t, c, "FETCH 1 FROM "+name); len(got) != 1 || got[0] != want {
				t.Fatalf("FETCH 1 FROM %s (round %d): %v, want %s", name, i, got, want)
			}
		}
	}
	// a has fetched 5 rows, b 10.
	if got := queryStrings(t, c, "FETCH ALL FROM a"); len(got) != 5 || got[0] != "6" {
		t.Fatalf("a: %v, want 6..10", got)
	}
	if got := queryStrings(t, c, "FETCH ALL FROM b"); len(got) != 0 {
		t.Fatalf("b: %v, want nothing left", got)
	}
	mustExec(t, c, "COMMIT")
	if got := queryStrings(t, c, q); len(got) != 10 || got[9] != "10" {
		t.Fatalf("after the cursors: %v", got)
	}
}

// DuckDB (1.5) keeps in a prepared plan what the table statistics proved
// when it was prepared: a filter that no row matched then becomes an
// empty result for good (duckdb/duckdb#23704). The cache is safe because
// the text pins the rows: a write makes a new text. Session a's cached
// query matches nothing; b's uncommitted row is in the mirror but not in
// a's snapshot; once committed, a sees it.
func TestStatementCacheAfterEmptyResult(t *testing.T) {
	ts := startServer(t, "")
	a, b := ts.conn(t), ts.conn(t)
	ctx := context.Background()
	mustExec(t, a, "CREATE TABLE se (id int)")
	mustExec(t, a, "INSERT INTO se SELECT * FROM generate_series(1, 100)")
	q := "SELECT count(*) FROM se WHERE id = 200"
	count := func() int64 {
		var n int64
		if err := a.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := ts.b.stmtHits.Load()
	for i := 0; i < 3; i++ {
		if n := count(); n != 0 {
			t.Fatalf("before: %d, want 0", n)
		}
	}
	if ts.b.stmtHits.Load() == before {
		t.Fatal("the query never ran from the statement cache")
	}
	mustExec(t, b, "BEGIN")
	mustExec(t, b, "INSERT INTO se VALUES (200)")
	if got := queryStrings(t, b, q); len(got) != 1 || got[0] != "1" {
		t.Fatalf("b's own row: %v", got)
	}
	if n := count(); n != 0 {
		t.Fatalf("a sees b's uncommitted row: %d", n)
	}
	mustExec(t, b, "COMMIT")
	for i := 0; i < 3; i++ {
		if n := count(); n != 1 {
			t.Fatalf("after b's commit, run %d: %d, want 1", i, n)
		}
	}
}
