package clients

import (
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// startLoggingServer is startServer (which logs every error it sends).
func startLoggingServer(t *testing.T) *server { t.Helper(); return startServer(t) }

// TestAsyncpg: asyncpg with its default connect: typed parameters (arrays
// too, which need its type introspection: $1::oid[]), executemany,
// prepared statements, copy_records_to_table, copy_from_query,
// transactions and a pool whose connection reset sends
// pg_advisory_unlock_all() and UNLISTEN *. The output is PostgreSQL's.
func TestAsyncpg(t *testing.T) {
	py := debianPython(t, "asyncpg")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	refHost, refDB := hostAndDB(t, refURL)
	refH, refP, _ := strings.Cut(refHost, ":")
	want := runCmdOut(t, true, nil, "", py, "testdata/asyncpg_check.py", refH, refP, refDB)
	s := startLoggingServer(t)
	got := runCmdOut(t, true, nil, "", py, "testdata/asyncpg_check.py", s.host, s.port, "postgres")
	if got != want {
		t.Errorf("asyncpg (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg:\n%s", lineDiff(got, want), got)
	}
	checkServerErrors(t, s)
}

// TestSQLAlchemyPandas: SQLAlchemy Core and an ORM session (explicit
// keys), reflection, pandas to_sql (index=False, append, chunksize) and
// read_sql (parameters, chunks), reflection (get_columns,
// read_sql_table: pg_get_serial_sequence), through psycopg2; the output
// is PostgreSQL's.
func TestSQLAlchemyPandas(t *testing.T) {
	py := debianPython(t, "sqlalchemy")
	debianPython(t, "pandas")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	refHost, refDB := hostAndDB(t, refURL)
	want := runCmdOut(t, true, nil, "", py, "testdata/sqlalchemy_check.py", "postgresql://postgres@"+refHost+"/"+refDB)
	s := startLoggingServer(t)
	got := runCmdOut(t, true, nil, "", py, "testdata/sqlalchemy_check.py", "postgresql://postgres@"+s.Addr()+"/postgres")
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(gl) != len(wl) {
		t.Fatalf("sqlalchemy/pandas (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg:\n%s", lineDiff(got, want), got)
	}
	for i := range gl {
		if gl[i] == wl[i] {
			continue
		}
		t.Errorf("line %d:\n  bsdb-pg:  %q\n  postgres: %q", i+1, gl[i], wl[i])
	}
	checkServerErrors(t, s)
}

// TestAlembicMigrations: Alembic's operations, as a project's migration
// scripts run them (create_table with a serial key and a foreign key,
// add_column with a server default, alter_column renaming, retyping,
// dropping NOT NULL and setting a default, create_index, drop_constraint
// and create_foreign_key, drop_column, rename_table), then SQLAlchemy's
// reflection of the result (columns, keys, foreign keys, indexes) and the
// rows, through psycopg2; the output is PostgreSQL's.
func TestAlembicMigrations(t *testing.T) {
	py := debianPython(t, "alembic")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	refHost, refDB := hostAndDB(t, refURL)
	want := runCmdOut(t, true, nil, "", py, "testdata/alembic_check.py", "postgresql://postgres@"+refHost+"/"+refDB)
	s := startLoggingServer(t)
	got := runCmdOut(t, true, nil, "", py, "testdata/alembic_check.py", "postgresql://postgres@"+s.Addr()+"/postgres")
	if got != want {
		t.Errorf("alembic (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg:\n%s", lineDiff(got, want), got)
	}
	checkServerErrors(t, s)
}

// TestPgcli: pgcli --list, and \dt, \d t and a query typed into pgcli
// (its completion refresher runs its catalog queries in the background:
// their errors reach only the server log, which is checked too).
func TestPgcli(t *testing.T) {
	pgcli := need(t, "pgcli")
	s := startLoggingServer(t)
	execSQL(t, s.url("postgres"), "CREATE TABLE pc (id integer NOT NULL, name text)", "INSERT INTO pc VALUES (1, 'x')")
	env := []string{"HOME=" + t.TempDir(), "TERM=dumb", "PAGER=cat"}
	list := runCmdOut(t, true, env, "", pgcli, "-h", s.host, "-p", s.port, "-U", "postgres", "--list")
	if !strings.Contains(list, "postgres") || strings.Contains(list, "Traceback") {
		t.Errorf("pgcli --list:\n%s", list)
	}
	out := runCmdOut(t, true, env, "\\dt\n\\d pc\nSELECT name FROM pc WHERE id = 1;\n", pgcli,
		"-h", s.host, "-p", s.port, "-U", "postgres", "--less-chatty", "postgres")
	for _, want := range []string{"| public | pc   | table | postgres |", "| id     | integer |  not null |", "| x    |"} {
		if !strings.Contains(out, want) {
			t.Errorf("pgcli: no %q in\n%s", want, out)
		}
	}
	// No error at all: the completion refresher's catalog queries (tables
	// with relkind = ANY(%s), functions with proargtypes::regtype[]) run.
	for _, e := range serverErrors(s) {
		t.Errorf("pgcli got an error: %s %s", e.Code, e.Message)
	}
}
