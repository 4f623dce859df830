package crashtest

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

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

// TestAlterSeenByAnotherProcess: two servers on one warehouse; one renames
// and adds a column. The other, whose open table handle has the old
// schema, never answers from it (a renamed column would read as NULL in
// the new files): its statement fails with 40001 or 42703 while it learns
// of the change, and from then on it answers in the new schema: the
// renamed column's values, old and new, and the added column.
func TestAlterSeenByAnotherProcess(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	a := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	ca := connect(ctx, t, a.URL)
	for _, q := range []string{createTable, "INSERT INTO ct VALUES (1, 1, 'one'), (2, 2, 'two')"} {
		if _, err := ca.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	b := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	cb := connect(ctx, t, b.URL)
	var got string
	if err := cb.QueryRow(ctx, "SELECT string_agg(payload, ',' ORDER BY id) FROM ct").Scan(&got); err != nil || got != "one,two" {
		t.Fatalf("server b before the ALTER: %q %v", got, err)
	}
	for _, q := range []string{"ALTER TABLE ct RENAME COLUMN payload TO body", "ALTER TABLE ct ADD COLUMN extra int DEFAULT 7",
		"INSERT INTO ct VALUES (3, 3, 'three', 8)"} {
		if _, err := ca.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const want = "1:one:7,2:two:7,3:three:8"
	for attempt := 1; ; attempt++ {
		err := cb.QueryRow(ctx, "SELECT string_agg(id || ':' || body || ':' || extra, ',' ORDER BY id) FROM ct").Scan(&got)
		if err == nil {
			if got != want {
				t.Fatalf("server b after the ALTER: %q, want %q", got, want)
			}
			break
		}
		// Another process's commits are seen within the refresh interval
		// (1 s): until then, the old schema, consistently.
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "40001" && pe.Code != "42703" || attempt == 20 {
			t.Fatalf("server b after the ALTER, attempt %d: %v", attempt, err)
		}
		time.Sleep(200 * time.Millisecond)
		// A statement on the old column: the old schema's answer, or the
		// change noticed; never the old name reading NULL in new rows.
		var old string
		if err := cb.QueryRow(ctx, "SELECT count(*) || ':' || count(payload) FROM ct").Scan(&old); err == nil {
			if old != "2:2" {
				t.Fatalf("server b answered from a stale schema: %s rows:with payload, want 2:2 (its old snapshot) or an error", old)
			}
		} else if !errors.As(err, &pe) || pe.Code != "40001" && pe.Code != "42703" {
			t.Fatal(err)
		}
	}
}
