package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestCopyChecksConstraints: COPY checks every row against the table's
// CHECK constraints and unique keys, over many batches: a row that breaks
// one fails the COPY with PostgreSQL's error and line, and nothing of the
// COPY is kept.
func TestCopyChecksConstraints(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE cc (id int PRIMARY KEY, qty int CHECK (qty >= 0))")
	mustExec(t, c, "INSERT INTO cc VALUES (1, 1)")
	_, err := c.PgConn().CopyFrom(ctx, strings.NewReader("2\t1\n3\t-1\n"), "COPY cc FROM STDIN")
	wantErr(t, "COPY of a row breaking the CHECK", err, "23514", `new row for relation "cc" violates check constraint "cc_qty_check"`)
	if pe, ok := err.(*pgconn.PgError); !ok || pe.Detail != "Failing row contains (3, -1)." || pe.Where != "COPY cc, line 2" {
		t.Errorf("detail/context: %#v", err)
	}
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader("2\t1\n1\t5\n"), "COPY cc FROM STDIN")
	wantErr(t, "COPY of a row repeating a key", err, "23505", `duplicate key value violates unique constraint "cc_pkey"`)
	// A large COPY (many batches): the bad row is the last one.
	var b strings.Builder
	for i := 10; i < 200_010; i++ {
		fmt.Fprintf(&b, "%d\t%d\n", i, i%7)
	}
	b.WriteString("5\t-5\n")
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader(b.String()), "COPY cc FROM STDIN")
	wantErr(t, "large COPY ending with a bad row", err, "23514", `new row for relation "cc" violates check constraint "cc_qty_check"`)
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*) FROM cc")); got != "[1]" {
		t.Errorf("rows after the failed COPYs: %s, want [1]", got)
	}
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(b.String()[:len(b.String())-len("5\t-5\n")]), "COPY cc FROM STDIN")
	if err != nil || tag.RowsAffected() != 200_000 {
		t.Fatalf("a large valid COPY: %v %v", tag, err)
	}
}
