package clients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// jdbcJar is Debian's libpostgresql-jdbc-java.
const jdbcJar = "/usr/share/java/postgresql.jar"

// jdbcProgram compiles testdata/JdbcCheck.java and returns a runner.
func jdbcProgram(t *testing.T) func(url, part string) string {
	t.Helper()
	javac, java := need(t, "javac"), need(t, "java")
	if _, err := os.Stat(jdbcJar); err != nil {
		missing(t, "pgjdbc ("+jdbcJar+")", err)
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/JdbcCheck.java")
	if err != nil {
		t.Fatal(err)
	}
	runCmd(t, nil, "", javac, "-d", dir, "-cp", jdbcJar, src)
	return func(url, part string) string {
		return runCmd(t, nil, "", java, "-cp", dir+string(os.PathListSeparator)+jdbcJar, "JdbcCheck", url, part)
	}
}

func jdbcURL(addr, db string) string {
	return "jdbc:postgresql://" + addr + "/" + db + "?user=postgres&prepareThreshold=1"
}

// TestJDBC: pgjdbc's DatabaseMetaData answers exactly as against
// PostgreSQL, and prepared statements (every common type and NULL, reused
// server-side), executeBatch, commit/rollback and CopyManager.copyIn work.
func TestJDBC(t *testing.T) {
	run := jdbcProgram(t)
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	execSQL(t, s.url("postgres"), fixture...)
	execSQL(t, refURL, fixture...)
	refAddr, refDB := hostAndDB(t, refURL)

	got := run(jdbcURL(s.Addr(), "postgres"), "meta")
	want := run(jdbcURL(refAddr, refDB), "meta")
	want = strings.ReplaceAll(want, "TABLE_CAT="+refDB, "TABLE_CAT=postgres")
	if d := lineDiff(got, want); d != "" {
		t.Errorf("DatabaseMetaData differs from PostgreSQL's:\n%s\n--- bsdb-pg:\n%s", d, got)
	}
	for _, line := range []string{
		"tables: TABLE_SCHEM=public TABLE_NAME=t TABLE_TYPE=TABLE REMARKS=null",
		"columns: COLUMN_NAME=name DATA_TYPE=12 TYPE_NAME=varchar COLUMN_SIZE=20 DECIMAL_DIGITS=0 NULLABLE=0 COLUMN_DEF='x'::character varying ORDINAL_POSITION=2 IS_NULLABLE=NO IS_AUTOINCREMENT=NO",
		"columns: COLUMN_NAME=v DATA_TYPE=2 TYPE_NAME=numeric COLUMN_SIZE=10 DECIMAL_DIGITS=2 NULLABLE=1",
		"pk: TABLE_NAME=t COLUMN_NAME=id KEY_SEQ=1 PK_NAME=t_pkey",
		"schemas: TABLE_SCHEM=s2",
		"typeinfo missing: []",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("DatabaseMetaData output lacks %q:\n%s", line, got)
		}
	}

	got = run(jdbcURL(s.Addr(), "postgres"), "dml")
	wantDML := `row: 1|label 1|false|2024-02-21|1.5|0.25|-1|ab |[0, 1, -1]|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|{"k": 1}
row: 2|label 2|true|2024-02-22|3.0|0.25|-2|ab |[0, 1, -1]|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12|{"k": 2}
row: 3|label 3|false|2024-02-23|4.5|0.25|-3|ab |[0, 1, -1]|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a13|{"k": 3}
row: 4|null|null|null|null|null|null|null|null|null|null
batch: [1, 1, 1]
copyin: 2
t: count=8 sum=118
`
	if got != wantDML {
		t.Errorf("statements:\n got:\n%s\nwant:\n%s", got, wantDML)
	}

	t.Run("portal", func(t *testing.T) {
		if got := run(jdbcURL(s.Addr(), "postgres"), "portal"); got != "fetch: 1,2,10,11,12,21,30,31,\n" {
			t.Errorf("setFetchSize: %q", got)
		}
	})
}

// hostAndDB splits a postgres:// URL into host:port and database.
func hostAndDB(t *testing.T, url string) (string, string) {
	t.Helper()
	rest := url[strings.Index(url, "@")+1:]
	addr, path, _ := strings.Cut(rest, "/")
	db, _, _ := strings.Cut(path, "?")
	return addr, db
}
