package server

import (
	"context"
	"fmt"
	"testing"
)

// TestRowValueInSelectList: a row value as a result column is refused with
// a PostgreSQL error (it reached the client as a Go driver error, "API
// error: empty name"); row values in comparisons still work.
func TestRowValueInSelectList(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE rv (a int, b text)")
	mustExec(t, c, "INSERT INTO rv VALUES (1, 'x'), (2, 'y')")
	for _, q := range []string{"SELECT (a, b) FROM rv", "SELECT ROW(1, 2)",
		// Through VALUES, a subquery or a set operation.
		"SELECT x FROM (VALUES (ROW(1, 2)), (ROW(1, 3))) _(x)",
		"SELECT ROW(1, 2) UNION SELECT ROW(1, 3)",
		"SELECT r FROM (SELECT ROW(a, b) AS r FROM rv) s"} {
		_, err := c.Exec(context.Background(), q)
		wantErr(t, q, err, "0A000", "row values in the select list are not supported")
	}
	if got := fmt.Sprint(queryStrings(t, c, "SELECT a FROM rv WHERE (a, b) = (2, 'y')")); got != "[2]" {
		t.Errorf("row comparison: %s", got)
	}
}
