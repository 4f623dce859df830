package server

import (
	"context"
	"fmt"
	"testing"
)

// TestUniqueIndexRefused: uniqueness is not enforced yet, so a UNIQUE
// index is refused (0A000) rather than recorded as a promise that inserts
// would not keep; nothing of it is left in the catalogs. (The plain
// CREATE INDEX / DROP INDEX transcript is regress/sql/indexes.sql,
// compared with PostgreSQL's.)
func TestUniqueIndexRefused(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE ux (a int, b text)")
	for _, q := range []string{"CREATE UNIQUE INDEX ux_a ON ux (a)", "CREATE UNIQUE INDEX ON ux (b)"} {
		_, err := c.Exec(context.Background(), q)
		wantErr(t, q, err, "0A000", "unique indexes are not supported")
	}
	mustExec(t, c, "CREATE INDEX ux_b ON ux (b)")
	if got := fmt.Sprint(queryStrings(t, c, "SELECT indexname FROM pg_indexes WHERE tablename = 'ux' ORDER BY 1")); got != "[ux_b]" {
		t.Errorf("pg_indexes: %s, want [ux_b]", got)
	}
	// Writes and reads are unchanged by the index.
	mustExec(t, c, "INSERT INTO ux VALUES (1, 'x'), (1, 'x')")
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*) FROM ux WHERE b = 'x'")); got != "[2]" {
		t.Errorf("count: %s", got)
	}
}
