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
