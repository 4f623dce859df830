package crashtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestRecoveryAtStart: rows acknowledged before a SIGKILL reach the
// table's Parquet files after the restart without any client touching the
// table (what Spark or Trino read), because the server recovers every
// table that has a WAL when it starts, not when a statement first opens it.
func TestRecoveryAtStart(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	// First life: nothing is flushed (no age flush, a large buffer).
	s := testserver.Start(t, testserver.Options{Env: serverEnv(3600_000, "BSDB_CACHE_GB=4")})
	c := connect(ctx, t, s.URL)
	if _, err := c.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO ct SELECT g, 0, 'p' FROM generate_series(1, 1000) g"); err != nil {
		t.Fatalf("insert: %v", err)
	}
	c.Close(ctx)
	s.Kill()
	table := filepath.Join(s.DataDir, "warehouse", "postgres", "public", tableName)
	if n := countFiles(t, filepath.Join(table, "_wal"), "log_", ".arrow"); n == 0 {
		t.Fatal("no WAL segment after the SIGKILL: the test would prove nothing")
	}
	if n := countFiles(t, filepath.Join(table, "data"), "", ".parquet"); n != 0 {
		t.Fatalf("%d data files before the restart: the rows were flushed already", n)
	}
	// Second life, with an age flush; no client connects until the rows
	// are in Parquet files.
	s2 := testserver.Start(t, testserver.Options{DataDir: s.DataDir, Env: serverEnv(100)})
	deadline := time.Now().Add(30 * time.Second)
	for countFiles(t, filepath.Join(table, "data"), "", ".parquet") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("30 s after the restart the recovered rows are still not in a Parquet file")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c = connect(ctx, t, s2.URL)
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(id) FROM ct").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Fatalf("%d rows after recovery, want 1000", n)
	}
}

// countFiles counts the files under dir (recursively) named prefix*suffix.
func countFiles(t *testing.T, dir, prefix, suffix string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), prefix) && strings.HasSuffix(d.Name(), suffix) {
			n++
		}
		return nil
	})
	return n
}
