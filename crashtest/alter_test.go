package crashtest

import (
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestAlterCrash: a server killed in ALTER TABLE right after the manifest
// with the new schema is durable (before its Iceberg metadata and the WAL
// pruning) restarts with the table in the new schema and every row
// acknowledged before, each once: the rows still buffered at the ALTER
// were committed before the schema changed, so recovery finds no WAL
// record of the old schema to replay.
func TestAlterCrash(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	// No flush by age: the rows are buffered (in the WAL only) at the ALTER.
	s := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(600_000, "BSDB_CRASH_AT="+crash.AlterAfterManifest)})
	c := connect(ctx, t, s.URL)
	for _, q := range []string{createTable,
		"INSERT INTO ct SELECT g, 1, 'x' FROM generate_series(1, 1000) g",
		"INSERT INTO ct VALUES (1001, 2, 'y')"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := c.Exec(ctx, "ALTER TABLE ct ADD COLUMN extra int DEFAULT 7"); err == nil {
		t.Fatal("ALTER TABLE succeeded through the crash point")
	}
	ws, err := waitExit(s, 60*time.Second)
	if err != nil {
		t.Fatalf("crash point never fired: %v", err)
	}
	if !diedAt(ws, s.Output(), crash.AlterAfterManifest) {
		t.Fatalf("server exited with %v, want death by SIGKILL at %s:\n%s", ws, crash.AlterAfterManifest, s.Output())
	}

	r := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	c = connect(ctx, t, r.URL)
	var n, extra, distinct int64
	if err := c.QueryRow(ctx, "SELECT count(*), sum(extra), count(DISTINCT id) FROM ct").Scan(&n, &extra, &distinct); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if n != 1001 || distinct != 1001 || extra != 7*1001 {
		t.Fatalf("after the restart: %d rows (%d distinct ids), sum(extra) %d; want 1001 rows once each, extra 7 in each", n, distinct, extra)
	}
	if _, err := c.Exec(ctx, "INSERT INTO ct (id, w, payload) VALUES (1002, 3, 'z')"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT extra FROM ct WHERE id = 1002").Scan(&extra); err != nil || extra != 7 {
		t.Fatalf("a new row's default: %d %v", extra, err)
	}
}
