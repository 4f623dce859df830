package clients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// Transactions that go on after a failed statement, as drivers and psql
// run them with savepoints (issue 21). Each test runs the same program
// against the reference PostgreSQL and compares the output.

// savepointFixture is the table the savepoint tests write.
const savepointFixture = `CREATE TABLE sv (id integer, note text)`

// TestODBCTransactions: psqlODBC through pyodbc with autocommit off and
// the driver's default settings (odbc_test.go's DSN): its statement-level
// rollback wraps each statement in an internal SAVEPOINT, so a failed
// statement is undone alone and the transaction commits.
func TestODBCTransactions(t *testing.T) {
	py := debianPython(t, "pyodbc")
	const driver = "/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so"
	if _, err := os.Stat(driver); err != nil {
		missing(t, "psqlODBC driver", err)
	}
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	execSQL(t, s.url("postgres"), savepointFixture)
	execSQL(t, refURL, savepointFixture)
	refAddr, refDB := hostAndDB(t, refURL)
	refHost, refPort, _ := strings.Cut(refAddr, ":")
	ini := filepath.Join(t.TempDir(), "odbc.ini")
	conf := "[bsdb]\nDriver=" + driver + "\nServername=127.0.0.1\nPort=" + s.port + "\nDatabase=postgres\nUsername=postgres\n" +
		"[ref]\nDriver=" + driver + "\nServername=" + refHost + "\nPort=" + refPort + "\nDatabase=" + refDB + "\nUsername=postgres\n"
	if err := os.WriteFile(ini, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	got := runCmd(t, []string{"ODBCINI=" + ini}, "", py, "testdata/odbc_savepoint.py", "bsdb")
	want := runCmd(t, []string{"ODBCINI=" + ini}, "", py, "testdata/odbc_savepoint.py", "ref")
	if d := lineDiff(got, want); d != "" {
		t.Errorf("psqlODBC transaction differs from PostgreSQL's:\n%s\n--- bsdb-pg:\n%s", d, got)
	}
	if !strings.Contains(got, "row: (3, 'after errors')") || strings.Contains(got, "rolled back')") {
		t.Errorf("committed rows:\n%s", got)
	}
}

// TestJDBCAutosave: pgjdbc with autosave=always sets a savepoint before
// each statement of a transaction and rolls back to it when the statement
// fails: the transaction goes on and commits. With autosave=conservative
// it still sets the savepoints but rolls back to them only for a stale
// cached plan: a failure aborts the transaction, as against PostgreSQL.
// The Savepoint API (setSavepoint, rollback(sp), releaseSavepoint) runs
// in both.
func TestJDBCAutosave(t *testing.T) {
	javac, java := need(t, "javac"), need(t, "java")
	if _, err := os.Stat(jdbcJar); err != nil {
		missing(t, "pgjdbc ("+jdbcJar+")", err)
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/JdbcSavepoint.java")
	if err != nil {
		t.Fatal(err)
	}
	runCmd(t, nil, "", javac, "-d", dir, "-cp", jdbcJar, src)
	run := func(url string) string {
		return runCmd(t, nil, "", java, "-cp", dir+string(os.PathListSeparator)+jdbcJar, "JdbcSavepoint", url)
	}
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	refAddr, refDB := hostAndDB(t, refURL)
	for _, mode := range []string{"always", "conservative"} {
		t.Run(mode, func(t *testing.T) {
			reset := []string{"DROP TABLE IF EXISTS sv", savepointFixture}
			execSQL(t, s.url("postgres"), reset...)
			execSQL(t, refURL, reset...)
			opts := "&autosave=" + mode
			got := run(jdbcURL(s.Addr(), "postgres") + opts)
			want := run(jdbcURL(refAddr, refDB) + opts)
			if d := lineDiff(got, want); d != "" {
				t.Errorf("pgjdbc autosave=%s differs from PostgreSQL's:\n%s\n--- bsdb-pg:\n%s", mode, d, got)
			}
			if mode == "always" && !strings.Contains(got, "row: 3|after the error\nrow: 5|kept\n") {
				t.Errorf("autosave=always: the transaction did not go on:\n%s", got)
			}
		})
	}
}

// psqlOnErrorRollback is a psql script with ON_ERROR_ROLLBACK: psql sets
// a savepoint before each statement in a transaction and rolls back to it
// after an error.
const psqlOnErrorRollback = `\set ON_ERROR_ROLLBACK on
BEGIN;
INSERT INTO sv VALUES (1, 'a');
SELECT 1/0;
INSERT INTO sv VALUES (2, 'b');
SELECT nosuch FROM sv;
SAVEPOINT mine;
INSERT INTO sv VALUES (3, 'c');
ROLLBACK TO mine;
TRUNCATE sv;
INSERT INTO sv VALUES (4, 'd');
SELECT * FROM sv ORDER BY id;
ROLLBACK TO mine;
COMMIT;
SELECT * FROM sv ORDER BY id;
\set ON_ERROR_ROLLBACK off
BEGIN;
INSERT INTO sv VALUES (5, 'e');
SELECT 1/0;
INSERT INTO sv VALUES (6, 'f');
COMMIT;
SELECT * FROM sv ORDER BY id;
`

// TestPsqlOnErrorRollback: psql's \set ON_ERROR_ROLLBACK on gives
// PostgreSQL's output, byte for byte.
func TestPsqlOnErrorRollback(t *testing.T) {
	bin := need(t, "psql")
	ref := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	ours := s.url("postgres")
	execSQL(t, ours, savepointFixture)
	execSQL(t, ref, savepointFixture)
	got := psql(t, bin, ours, psqlOnErrorRollback)
	want := psql(t, bin, ref, psqlOnErrorRollback)
	if d := lineDiff(got, want); d != "" {
		t.Errorf("psql output differs from PostgreSQL's:\n%s\n--- bsdb-pg output:\n%s", d, got)
	}
	if !strings.Contains(got, " 1 | a\n  2 | b\n") {
		t.Errorf("ON_ERROR_ROLLBACK: the transaction did not keep its rows:\n%s", got)
	}
}
