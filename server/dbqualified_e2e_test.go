package server

import (
	"context"
	"fmt"
	"testing"
)

// TestDatabaseQualifiedNames: a relation named database.schema.table
// with the session's database (as dbt and BI tools write every name) is
// the table, in SELECT, INSERT, UPDATE, DELETE and subqueries, as in
// PostgreSQL; another database is PostgreSQL's 0A000. (UPDATE and DELETE
// failed with a syntax error the engine raised; SELECT said
// cross-database for the session's own database.)
func TestDatabaseQualifiedNames(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	var db string
	if err := c.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	q := db + ".public.dq"
	mustExec(t, c, "CREATE TABLE dq (a int)")
	mustExec(t, c, "INSERT INTO "+q+" VALUES (1), (2)")
	mustExec(t, c, "INSERT INTO "+q+" SELECT a + 10 FROM "+q)
	if tag := mustExec(t, c, "UPDATE "+q+" SET a = a + 1 WHERE a > 10"); tag.String() != "UPDATE 2" {
		t.Errorf("UPDATE: %s", tag)
	}
	if tag := mustExec(t, c, "DELETE FROM "+q+" WHERE a = 1"); tag.String() != "DELETE 1" {
		t.Errorf("DELETE: %s", tag)
	}
	got := fmt.Sprint(queryStrings(t, c, "SELECT dq.a FROM "+q+" WHERE EXISTS (SELECT 1 FROM "+q+" x WHERE x.a = dq.a) ORDER BY 1"))
	if got != "[2 12 13]" {
		t.Errorf("rows: %s, want [2 12 13]", got)
	}
	for _, stmt := range []string{"SELECT * FROM otherdb.public.dq", "UPDATE otherdb.public.dq SET a = 1", "DELETE FROM otherdb.public.dq", "INSERT INTO otherdb.public.dq VALUES (1)"} {
		_, err := c.Exec(context.Background(), stmt)
		wantErr(t, stmt, err, "0A000", `cross-database references are not implemented: "otherdb.public.dq"`)
	}
}
