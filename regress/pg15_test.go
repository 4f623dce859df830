package regress

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

var (
	pg15ReportFlag = flag.Bool("report", false, "TestPG15Regress: write regress/pg15/REPORT.md")
	pg15Timeout    = flag.Duration("pg15-timeout", 30*time.Second, "TestPG15Regress*: time one file may take before it counts as hung")
)

// TestPG15Regress runs PostgreSQL 15's own regression files (pg15/) against
// bsdb-pg, reports per file how much of PostgreSQL's output it reproduces,
// and fails only on a regression: a file of pg15/passing.txt that stops
// matching, or a file whose matched lines fall below pg15/floor.txt. With
// -update it rewrites both from this run; with -report it writes
// pg15/REPORT.md. Outputs and diffs: results/pg15/bsdb-pg/.
func TestPG15Regress(t *testing.T) {
	psql := findPsql(t)
	// One query engine thread: PostgreSQL's expected outputs print many
	// results in an order no ORDER BY fixes (the order of its plans), which
	// DuckDB's parallel joins, aggregates and window partitions vary from
	// run to run; single-threaded, bsdb-pg's order is the same on every run,
	// so a matched-line count is a fact about bsdb-pg, not about the run.
	srv := testserver.Start(t, testserver.Options{Env: []string{"BSDB_MAX_CONCURRENCY=1"}})
	conn, err := pg15ConnFromURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	target := pg15Target{
		Name: "bsdb-pg",
		Conn: conn,
		// A hung statement may still run in the server (a runaway query
		// holds CPU and memory): every failure restarts the process.
		Restart: func() { srv.Kill(); srv.Restart() },
		Log:     srv.Output,
	}
	ms, db := runPG15(t, psql, target)
	if *pg15ReportFlag {
		if err := os.WriteFile(filepath.Join(pg15Dir, "REPORT.md"), []byte(reportPG15(target.Name, ms, db)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", filepath.Join("regress", pg15Dir, "REPORT.md"))
	}
	if *update {
		if err := writePG15Gate(pg15PassingFile, pg15FloorFile, ms); err != nil {
			t.Fatal(err)
		}
		t.Logf("-update: rewrote %s and %s from this run", pg15PassingFile, pg15FloorFile)
		return
	}
	gate, err := readPG15Gate(pg15PassingFile, pg15FloorFile)
	if err != nil {
		t.Fatal(err)
	}
	regressions, improvements := gate.check(ms)
	for _, s := range improvements {
		t.Logf("IMPROVED: %s (raise the gate: go test ./regress -run 'TestPG15Regress$' -args -update)", s)
	}
	for _, s := range regressions {
		t.Errorf("REGRESSION: %s (diff in %s)", s, filepath.Join("regress", resultsDir, "pg15", target.Name))
	}
}

// TestPG15RegressAgainstPostgres runs the same runner against a real
// PostgreSQL 15: every file, setup files included, must reproduce its
// expected output exactly. It proves the harness (environment, database,
// adaptations), not bsdb-pg.
func TestPG15RegressAgainstPostgres(t *testing.T) {
	psql := findPsql(t)
	base := *pgURL
	if base == "" {
		base = pgref.Start(t) // BSDB_PG_URL, or a private cluster; skips unless BSDB_REQUIRE_PG=1
	}
	conn, err := pg15ConnFromURL(base)
	if err != nil {
		t.Fatal(err)
	}
	ms, db := runPG15(t, psql, pg15Target{Name: "postgres", Conn: conn})
	if notes := db.notes(); len(notes) > 0 {
		t.Errorf("the regression database differs from pg_regress's:\n%s", strings.Join(notes, "\n"))
	}
	for _, m := range ms {
		if !m.Exact {
			t.Errorf("%s: PostgreSQL's output differs from expected/%s (%d of %d lines; a harness bug):\n%s",
				m.Name, m.Expected, m.Matched, m.Lines, m.FirstDiff)
		}
		if m.Failure != "" {
			t.Errorf("%s: %s", m.Name, m.Failure)
		}
	}
}

// runPG15 runs the schedule against target, saves outputs and diffs, logs
// the table and returns the measures in schedule order, and how the
// regression database differs from pg_regress's.
func runPG15(t *testing.T, psql string, target pg15Target) ([]pg15Measure, pg15DB) {
	t.Helper()
	stage, err := os.MkdirTemp("", "bsdb-pg15-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stage) })
	r, err := newPG15Runner(psql, target, stage, *pg15Timeout)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	files, db, err := r.runAll(t.Logf)
	if err != nil {
		t.Fatalf("%s: %v", target.Name, err)
	}
	ms := make([]pg15Measure, len(files))
	for i, f := range files {
		ms[i] = measurePG15(f)
		if err := r.save(f, &ms[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.writeDiffs(); err != nil {
		t.Fatal(err)
	}
	for _, n := range db.notes() {
		t.Logf("database: %s", n)
	}
	t.Logf("PostgreSQL 15 regression files against %s (%.0fs; outputs and diffs in %s):\n%s",
		target.Name, time.Since(start).Seconds(), filepath.Join("regress", r.outDir), tablePG15(ms))
	return ms, db
}

// newTestPG15Runner is a runner against srv that restarts it like
// TestPG15Regress does, with the regression database created; it counts
// the restarts.
func newTestPG15Runner(t *testing.T, psql string, srv *testserver.Server, timeout time.Duration) (*pg15Runner, *int) {
	t.Helper()
	conn, err := pg15ConnFromURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	restarts := new(int)
	target := pg15Target{
		Name:    "runner-" + t.Name(),
		Conn:    conn,
		Restart: func() { *restarts++; srv.Kill(); srv.Restart() },
		Log:     srv.Output,
	}
	r, err := newPG15Runner(psql, target, t.TempDir(), timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(r.outDir) })
	if _, err := r.createDatabase(); err != nil {
		t.Fatal(err)
	}
	return r, restarts
}

// A statement that never ends costs its file, not the run: psql is
// interrupted (it sends a CancelRequest and stops), the server is
// restarted, and the next file runs on the same data.
func TestPG15RunnerHungStatement(t *testing.T) {
	psql := findPsql(t)
	srv := testserver.Start(t, testserver.Options{})
	r, restarts := newTestPG15Runner(t, psql, srv, 3*time.Second)
	f := &pg15File{Name: "hang", Input: []byte("CREATE TABLE kept (a int);\nINSERT INTO kept VALUES (42);\n" +
		"SELECT count(*) FROM generate_series(1, 100000000000);\nSELECT 'not reached';\n")}
	r.run(f)
	if !strings.Contains(f.Failure, "timed out after 3s") || !strings.HasSuffix(f.Failure, "server restarted") || *restarts != 1 {
		t.Fatalf("failure %q after %d restarts", f.Failure, *restarts)
	}
	if f.Elapsed > 20*time.Second || strings.Contains(string(f.Output), "not reached\n") {
		t.Fatalf("psql was not stopped at the hung statement (%v):\n%s", f.Elapsed, f.Output)
	}
	next := &pg15File{Name: "next", Input: []byte("SELECT a FROM kept;\n")}
	r.run(next)
	if next.Failure != "" || !strings.Contains(string(next.Output), "\n 42\n") {
		t.Fatalf("the file after the restart: %q\n%s", next.Failure, next.Output)
	}
}

// A server that dies during a file is that file's failure, with the
// server's log; it is restarted for the next file.
func TestPG15RunnerServerDies(t *testing.T) {
	psql := findPsql(t)
	srv := testserver.Start(t, testserver.Options{})
	r, restarts := newTestPG15Runner(t, psql, srv, time.Minute)
	f := &pg15File{Name: "dies", Input: []byte("SELECT count(*) FROM generate_series(1, 100000000000);\n")}
	killed := time.AfterFunc(2*time.Second, srv.Kill)
	defer killed.Stop()
	r.run(f)
	if !strings.Contains(f.Failure, "psql lost the connection") || !strings.Contains(f.Failure, "server log: ") || *restarts != 1 {
		t.Fatalf("failure %q after %d restarts", f.Failure, *restarts)
	}
	if log, err := os.ReadFile(filepath.Join(r.outDir, "dies.server.log")); err != nil || !strings.Contains(string(log), "SIGKILL") {
		t.Fatalf("server log of the file: %v\n%s", err, log)
	}
	next := &pg15File{Name: "next", Input: []byte("SELECT 1 AS one;\n")}
	r.run(next)
	if next.Failure != "" || !strings.Contains(string(next.Output), "\n   1\n") {
		t.Fatalf("the file after the restart: %q\n%s", next.Failure, next.Output)
	}
}
