package clients

import (
	"os"
	"path/filepath"
	"testing"
)

// TestODBC: psqlODBC (Debian odbc-postgresql, driven through pyodbc) lists
// tables, columns and the primary key, and runs parameterized INSERT and
// SELECT with server-side prepared statements.
func TestODBC(t *testing.T) {
	py := debianPython(t, "pyodbc")
	const driver = "/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so"
	if _, err := os.Stat(driver); err != nil {
		missing(t, "psqlODBC driver", err)
	}
	s := startServer(t)
	execSQL(t, s.url("postgres"), fixture[:len(fixture)-1]...)
	ini := filepath.Join(t.TempDir(), "odbc.ini")
	conf := "[bsdb]\nDriver=" + driver + "\nServername=127.0.0.1\nPort=" + s.port + "\nDatabase=postgres\nUsername=postgres\n"
	if err := os.WriteFile(ini, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	got := runCmd(t, []string{"ODBCINI=" + ini}, "", py, "testdata/odbc_check.py", "bsdb")
	want := `dbms: PostgreSQL
table: public items TABLE
table: public t TABLE
column: id 4 int4 10 0 0 1
column: name -9 varchar 20 None 0 2
column: v 2 numeric 10 2 1 3
pk: id 1 t_pkey
row: (40, 'odbc', Decimal('4.25'))
row: (41, 'null v', None)
`
	if got != want {
		t.Errorf("psqlODBC:\n%s", lineDiff(got, want))
	}
}
