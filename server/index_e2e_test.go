package server

import (
	"context"
	"fmt"
	"testing"
)

// TestUniqueIndexForms: the unique indexes whose key the key index cannot
// keep (on expressions, partial, NULLS NOT DISTINCT) are refused (0A000)
// rather than recorded as a promise that inserts would not keep, and
// nothing of them is left in the catalogs; a plain index enforces
// nothing. (Unique indexes that are enforced: regress/sql/unique_keys.sql,
// compared with PostgreSQL's output.)
func TestUniqueIndexForms(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE ux (a int, b text)")
	for q, msg := range map[string]string{
		"CREATE UNIQUE INDEX ux_a ON ux (lower(b))":                     "unique indexes on expressions are not supported",
		"CREATE UNIQUE INDEX ON ux (b) WHERE a > 0":                     "partial unique indexes are not supported",
		"CREATE UNIQUE INDEX ON ux (b) NULLS NOT DISTINCT":              "unique indexes NULLS NOT DISTINCT are not supported",
		"ALTER TABLE ux ADD CONSTRAINT c UNIQUE NULLS NOT DISTINCT (a)": "UNIQUE NULLS NOT DISTINCT is not supported",
	} {
		_, err := c.Exec(context.Background(), q)
		wantErr(t, q, err, "0A000", msg)
	}
	mustExec(t, c, "CREATE INDEX ux_b ON ux (b)")
	if got := fmt.Sprint(queryStrings(t, c, "SELECT indexname FROM pg_indexes WHERE tablename = 'ux' ORDER BY 1")); got != "[ux_b]" {
		t.Errorf("pg_indexes: %s, want [ux_b]", got)
	}
	// Writes and reads are unchanged by a plain index.
	mustExec(t, c, "INSERT INTO ux VALUES (1, 'x'), (1, 'x')")
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*) FROM ux WHERE b = 'x'")); got != "[2]" {
		t.Errorf("count: %s", got)
	}
}
