package server

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A bare count(*) is answered from the snapshot's row count: it must agree
// with a count that reads the rows, for buffered rows, flushed files, rows
// a COPY wrote straight into files, and a transaction's own rows (which
// other sessions do not see).
func TestCountStarMatchesRows(t *testing.T) {
	ts := startCopyServer(t, "", 4<<10)
	c := ts.conn(t)
	other := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE events (id bigint NOT NULL, ts timestamptz, user_id int, kind text, value double precision, payload text)")
	check := func(c *pgx.Conn, step string) int64 {
		t.Helper()
		var star, rows int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM events", pgx.QueryExecModeSimpleProtocol).Scan(&star); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(ctx, "SELECT count(id) FROM events", pgx.QueryExecModeSimpleProtocol).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if star != rows {
			t.Fatalf("%s: count(*) = %d, count(id) = %d", step, star, rows)
		}
		return star
	}
	check(c, "empty")
	mustExec(t, c, "INSERT INTO events (id) SELECT * FROM generate_series(1, 100)")
	if n := check(c, "buffered"); n != 100 {
		t.Fatalf("buffered: %d rows, want 100", n)
	}
	if err := ts.eng.FlushAll(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO events (id) VALUES (101), (102)")
	if n := check(c, "files and buffer"); n != 102 {
		t.Fatalf("files and buffer: %d rows, want 102", n)
	}
	before := parquetFiles(t, ts.dir)
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"events"}, eventCols, &eventRows{i: 1000, n: 3000}); err != nil {
		t.Fatal(err)
	}
	if parquetFiles(t, ts.dir) == before {
		t.Fatal("the COPY did not write files directly (threshold not crossed)")
	}
	if n := check(c, "direct COPY"); n != 2102 {
		t.Fatalf("direct COPY: %d rows, want 2102", n)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO events (id) VALUES (1), (2), (3)")
	if n := check(c, "own uncommitted rows"); n != 2105 {
		t.Fatalf("own uncommitted rows: %d rows, want 2105", n)
	}
	if n := check(other, "another session during the transaction"); n != 2102 {
		t.Fatalf("another session: %d rows, want 2102", n)
	}
	mustExec(t, c, "ROLLBACK")
	if n := check(c, "after ROLLBACK"); n != 2102 {
		t.Fatalf("after ROLLBACK: %d rows, want 2102", n)
	}
}

// The row of a bare count(*) is sent without DuckDB (sql.Query.Row): it
// must behave as a one-row result in every protocol path: a prepared
// statement executed again after a write, a cursor fetched past its end,
// two count columns, EXPLAIN (which still runs the DuckDB form).
func TestCountStarRowProtocols(t *testing.T) {
	ts := startServer(t, t.TempDir())
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE t (i int)")
	mustExec(t, c, "INSERT INTO t SELECT * FROM generate_series(1, 5)")
	for want := int64(5); want <= 6; want++ {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != want {
			t.Fatalf("prepared count(*) = %d, %v; want %d", n, err, want)
		}
		mustExec(t, c, "INSERT INTO t VALUES (6)")
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "DECLARE cur CURSOR FOR SELECT count(*) AS a, count(1) AS b FROM t")
	if got := queryStrings(t, c, "FETCH 5 FROM cur"); len(got) != 1 || got[0] != "7|7" {
		t.Errorf("FETCH 5: %v, want [7|7]", got)
	}
	if got := queryStrings(t, c, "FETCH 5 FROM cur"); len(got) != 0 {
		t.Errorf("FETCH past the end: %v, want none", got)
	}
	mustExec(t, c, "COMMIT")
	if got := queryStrings(t, c, "EXPLAIN SELECT count(*) FROM t"); len(got) == 0 {
		t.Error("EXPLAIN: no plan")
	}
}
