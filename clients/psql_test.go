package clients

import (
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// fixture is the schema every client test starts from: created identically
// on bsdb-pg and on the reference PostgreSQL.
var fixture = []string{
	`CREATE TABLE t (id integer PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'x', v numeric(10,2))`,
	`CREATE TABLE items (id bigint NOT NULL, label text, flag boolean, d date, ts timestamp, tstz timestamptz,
		f8 double precision, f4 real, i2 smallint, c char(3), b bytea, u uuid, j jsonb)`,
	`CREATE SCHEMA s2`,
	`CREATE TABLE s2.other (k integer PRIMARY KEY, note varchar(5))`,
	`INSERT INTO t VALUES (1, 'one', 1.50), (2, 'two', NULL)`,
}

// psqlCommands are compared byte for byte with PostgreSQL's output
// (stdout and stderr interleaved, so error messages count too).
const psqlCommands = `\dt
\d
\d t
\d+ t
\d items
\d s2.other
\dt s2.*
\dn
\dT
\dT+ int4
\df
\df abs
\df pg_catalog.length
\df+ abs
\df+ pg_catalog.upper
\d nosuch
SELECT * FROM pg_catalog.pg_nosuch;
\x on
SELECT id, name FROM t ORDER BY id;
\x off
`

func psql(t *testing.T, bin, url, input string) string {
	t.Helper()
	return runCmdOut(t, true, []string{"PGCONNECT_TIMEOUT=10"}, input, bin, "-X", "-P", "pager=off", "-v", "ON_ERROR_STOP=0", "-f", "-", url)
}

// TestPsqlBackslashCommands: psql's \d family, \x, \conninfo, \l and \copy
// against bsdb-pg give PostgreSQL's output.
func TestPsqlBackslashCommands(t *testing.T) {
	bin := need(t, "psql")
	ref := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	ours := s.url("postgres")
	execSQL(t, ours, fixture...)
	execSQL(t, ref, fixture...)

	got := psql(t, bin, ours+"&application_name=psqltest", psqlCommands+"\\echo done\n")
	want := psql(t, bin, ref, psqlCommands+"\\echo done\n")
	if d := lineDiff(got, want); d != "" {
		t.Errorf("psql output differs from PostgreSQL's:\n%s\n--- bsdb-pg output:\n%s", d, got)
	}
	if !strings.Contains(got, `"t_pkey" PRIMARY KEY, btree (id)`) || !strings.Contains(got, "'x'::character varying") {
		t.Errorf("\\d t lacks the key or the default:\n%s", got)
	}

	out := psql(t, bin, ours, "\\conninfo\n\\l\n")
	if want := `You are connected to database "postgres" as user "postgres" on host "127.0.0.1" at port "` + s.port + `".`; !strings.Contains(out, want) {
		t.Errorf("\\conninfo: got\n%s\nwant %s", out, want)
	}
	if !strings.Contains(out, " postgres  | postgres | UTF8     | C       | C     |            | libc            | ") {
		t.Errorf("\\l lacks the postgres database row:\n%s", out)
	}
	// The template databases, as PostgreSQL lists them (template0 does not
	// allow connections; both have the default ACL).
	for _, tmpl := range []string{"template0", "template1"} {
		want := " " + tmpl + " | postgres | UTF8     | C       | C     |            | libc            | =c/postgres          +\n" +
			"           |          |          |         |       |            |                 | postgres=CTc/postgres\n"
		if !strings.Contains(out, want) {
			t.Errorf("\\l lacks the %s row %q:\n%s", tmpl, want, out)
		}
	}

	// \copy both directions goes through COPY ... FROM STDIN / TO STDOUT.
	out = psql(t, bin, ours, "\\copy t (id, name, v) from stdin\n3\tthree\t3.25\n\\.\n\\copy (SELECT * FROM t ORDER BY id) to stdout\n")
	if want := "1\tone\t1.50\n2\ttwo\t\\N\n3\tthree\t3.25\n"; !strings.Contains(out, want) {
		t.Errorf("\\copy round trip: got\n%q\nwant it to contain %q", out, want)
	}
}
