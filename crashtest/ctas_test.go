package crashtest

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestCTASCrash: a server that dies in CREATE TABLE AS after the table was
// created and its rows committed, but before the statement finished,
// leaves no table: after a restart the name does not exist (42P01), is in
// no catalog relation, and a new CREATE TABLE AS of that name works.
func TestCTASCrash(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	s := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100, "BSDB_CRASH_AT="+crash.CTASAfterFill)})
	c := connect(ctx, t, s.URL)
	for _, q := range []string{createTable, "INSERT INTO ct SELECT g, 1, 'x' FROM generate_series(1, 1000) g"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := c.Exec(ctx, "CREATE TABLE copy AS SELECT id, payload FROM ct"); err == nil {
		t.Fatal("CREATE TABLE AS succeeded through the crash point")
	}
	ws, err := waitExit(s, 60*time.Second)
	if err != nil {
		t.Fatalf("crash point never fired: %v", err)
	}
	if !diedAt(ws, s.Output(), crash.CTASAfterFill) {
		t.Fatalf("server exited with %v, want death by SIGKILL at %s:\n%s", ws, crash.CTASAfterFill, s.Output())
	}

	r := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	c = connect(ctx, t, r.URL)
	_, err = c.Exec(ctx, "SELECT * FROM copy")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("the interrupted CREATE TABLE AS left a table: %v", err)
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'copy'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("pg_class shows the interrupted table: %d %v", n, err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE copy AS SELECT id FROM ct WHERE id <= 10"); err != nil {
		t.Fatalf("CREATE TABLE AS of the name again: %v", err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM copy").Scan(&n); err != nil || n != 10 {
		t.Fatalf("the new table: %d rows, %v", n, err)
	}
}
