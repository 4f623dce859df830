package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// TestNativeCache: committed files loaded into the native cache give the
// same answers as the Parquet files and the buffered rows did, for every
// column type, projections in any order, self-joins, filters and
// aggregates; buffered rows on top of cached files count once; TRUNCATE
// and DROP empty the cache; the cache survives a restart.
func TestNativeCache(t *testing.T) {
	dir := t.TempDir()
	cfg := planner.Config{DataDir: dir, FlushInterval: -1, NativeCacheBytes: 1 << 30}
	ts := startServerConfig(t, cfg, func(*Backend) {})
	c := ts.conn(t)
	mustExec(t, c, `CREATE TABLE nc (id bigint, i2 smallint, i4 int, f4 real, f8 double precision,
		n numeric(12,3), nu numeric, s text, vc varchar(10), b boolean, d date, tm time,
		tsp timestamp, tstz timestamptz, iv interval, by bytea, u uuid, j json)`)
	mustExec(t, c, `INSERT INTO nc SELECT g, g % 100, g * 7, g / 3.0, g * 1.25,
		g * 1.125, g * 0.5, 'row ' || g, 'v' || (g % 7), g % 2 = 0, date '2024-01-01' + g,
		time '10:00' + (g || ' seconds')::interval, timestamp '2024-01-01' + (g || ' minutes')::interval,
		timestamptz '2024-01-01 00:00+00' + (g || ' hours')::interval, (g || ' days')::interval,
		('\x' || lpad(to_hex(g), 4, '0'))::bytea, ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid,
		('{"k": ' || g || '}')::json FROM generate_series(1, 3000) g`)
	mustExec(t, c, "INSERT INTO nc (id, s) VALUES (0, NULL)")
	queries := []string{
		"SELECT * FROM nc ORDER BY id",
		"SELECT j, u, id, iv FROM nc WHERE id % 97 = 1 ORDER BY id",
		"SELECT a.id, b.s, a.tstz FROM nc a JOIN nc b ON b.id = a.id + 1 WHERE a.id < 50 ORDER BY 1",
		"SELECT count(*), sum(f8), sum(n), min(tsp), max(d), count(DISTINCT vc), sum(i2) FROM nc",
		"SELECT b, count(*), avg(i4) FROM nc GROUP BY b ORDER BY b",
		"SELECT id, nu FROM nc WHERE id BETWEEN 1000 AND 1005 ORDER BY id",
	}
	answers := func() []string {
		var out []string
		for _, q := range queries {
			out = append(out, strings.Join(queryStrings(t, c, q), "\n"))
		}
		return out
	}
	want := answers() // from the buffer (the mirror)
	tb := ncTable(t, ts)
	if err := ts.eng.FlushAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitCached(t, tb, 1)
	if from := boundFromSQL(t, tb); !strings.Contains(from, "__bsdb_files_") {
		t.Fatalf("the cached file is not read from the cache:\n%s", from)
	}
	got := answers()
	for i := range queries {
		if got[i] != want[i] {
			t.Errorf("%s\nfrom the cache:\n%s\nfrom the buffer:\n%s", queries[i], head(got[i]), head(want[i]))
		}
	}

	// Cached files plus buffered rows: each row once.
	mustExec(t, c, "INSERT INTO nc (id, s) VALUES (5000, 'buffered')")
	if got := queryStrings(t, c, "SELECT count(*), count(DISTINCT id) FROM nc"); got[0] != "3002|3002" {
		t.Fatalf("cache + buffer: %v", got)
	}

	// A restart keeps the cache: the file is read from it at once.
	c.Close(context.Background())
	ts.stop()
	ts = startServerConfig(t, cfg, func(*Backend) {})
	c = ts.conn(t)
	tb = ncTable(t, ts)
	if n := tb.CachedFiles(); n < 1 {
		t.Fatalf("after a restart the cache holds %d files", n)
	}
	if got := strings.Join(queryStrings(t, c, queries[0]), "\n"); !strings.HasPrefix(got, want[0]) {
		t.Errorf("after a restart: %s", head(got))
	}

	mustExec(t, c, "TRUNCATE nc")
	if got := queryStrings(t, c, "SELECT count(*) FROM nc"); got[0] != "0" {
		t.Fatalf("after TRUNCATE: %v", got)
	}
	waitCached(t, tb, 0)
	mustExec(t, c, "DROP TABLE nc")
	var n int
	if err := ts.eng.DB().QueryRow("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'bsdb_cache' AND table_name LIKE '__bsdb_files_%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("cache tables after DROP: %d (%v)", n, err)
	}
}

func ncTable(t *testing.T, ts *testServer) *planner.Table {
	t.Helper()
	tb, err := ts.eng.Table(context.Background(), catalog.TableID{Database: "postgres", Schema: "public", Name: "nc"})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// boundFromSQL is the engine's FROM item for a statement reading tb now
// (EXPLAIN no longer shows the engine's relations).
func boundFromSQL(t *testing.T, tb *planner.Table) string {
	t.Helper()
	bd, err := tb.Bind(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Release()
	return bd.FromSQL
}

// waitCached waits until the table's cache holds n files.
func waitCached(t *testing.T, tb *planner.Table, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for tb.CachedFiles() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the native cache holds %d files, want %d", tb.CachedFiles(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
