// Package regress is bsdb-pg's pg_regress-style suite: SQL scripts run
// through psql against our server and compared byte for byte with the
// output a real PostgreSQL produced for the same scripts. The package has no
// code of its own; everything is in its tests.
//
// # Layout
//
//	sql/NAME.sql        the scripts, one concern each (ddl, types, insert, copy,
//	                    select, nulls, numeric, datetime, errors, transactions,
//	                    truncate, table_functions, prepare, ...)
//	expected/NAME.out   PostgreSQL's output for sql/NAME.sql (generated, never
//	                    edited by hand)
//	results/NAME.out    our server's output from the last run (gitignored)
//	results/postgres/   the reference's output, when it no longer matches
//
// # Running
//
//	go test ./regress -run TestRegress                 # against bsdb-pg
//	go test ./regress -run TestRegress/copy            # one script
//	go test ./regress -run TestRegressAgainstPostgres  # the oracle still agrees
//	go test ./regress -update [-pgurl URL]             # regenerate expected/
//	make regress-update                                # the same
//
// The reference PostgreSQL is -pgurl, else BSDB_PG_URL, else one started by
// internal/pgref (Debian's postgresql 15 or newer). Regeneration and the
// oracle test run each script in a fresh database created with the C
// collation (bytewise text order, as our engine sorts), so the expected
// files do not depend on the cluster's locale.
//
// # How psql is run (mirrors pg_regress's psql_start_test)
//
//	psql -X -a -q -d URL -v HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on < NAME.sql > NAME.out 2>&1
//
// The script comes on standard input, so errors print as "ERROR:  ..."
// without a file:line prefix, and inline COPY data follows its COPY
// statement. The environment is cleaned of PG* variables and pinned:
// PGAPPNAME=pg_regress, PGCLIENTENCODING=UTF8, LC_ALL=C.UTF-8 (psql's column
// widths for non-ASCII text). Settings that change output (TimeZone,
// DateStyle, extra_float_digits, client_min_messages) are SET at the top of
// every script rather than passed through PGOPTIONS/PGTZ, so a script's
// output depends on nothing but the script.
//
// # Writing a script
//
// Deterministic only: ORDER BY on every multi-row SELECT, no now() or
// random(), no OIDs, no timings. Create what you use and drop it at the end
// (the oracle database is fresh, our server's data dir is fresh per run, but
// scripts share one server). Use only statements bsdb-pg means to support.
// Where PostgreSQL's message text is incidental, switch to
// \set VERBOSITY sqlstate so only the SQLSTATE is compared. A difference
// between results/ and expected/ is a bsdb-pg bug, never a reason to edit
// expected/.
//
// # PostgreSQL 15's own suite (pg15/)
//
// pg15/ holds 25 core files of PostgreSQL 15.18's src/test/regress (boolean
// ... with), the setup files they read (test_setup, create_misc,
// create_index, create_aggregate), their data and parallel_schedule, copied
// unchanged (pg15/README.md: source commit, licence). The runner
// (pg15_run_test.go) reproduces pg_regress: database "regression" created
// with its statements, psql -X -a -q -d regression -v HIDE_TABLEAM=on -v
// HIDE_TOAST_COMPRESSION=on < NAME.sql in pg_regress's environment (PGTZ,
// PGDATESTYLE, PGOPTIONS, LC_MESSAGES, PG_ABS_SRCDIR ...), the files in
// schedule order, output compared byte for byte with expected/NAME.out or
// an alternative NAME_N.out. Core files run unmodified; setup files get
// the listed substitutions of pg15Adaptations only (server-side COPY as
// psql \copy, the C functions of regress.so not created).
//
//	go test ./regress -run 'TestPG15Regress$' -v                  # against bsdb-pg, the gate
//	go test ./regress -run 'TestPG15Regress$' -args -report       # also writes pg15/REPORT.md (make pgregress)
//	go test ./regress -run 'TestPG15Regress$' -args -update       # record the gate (make pgregress-update)
//	go test ./regress -run TestPG15RegressAgainstPostgres         # the runner on PostgreSQL: all exact
//
// Per file it measures: exact or not, the expected lines and how many of
// them the output produces (longest common subsequence), the same over the
// result lines (not psql's echo of the input), and the first difference.
// TestPG15Regress fails only on a regression: a file of pg15/passing.txt
// that stops matching, or fewer matched lines than pg15/floor.txt (floors
// are recorded 2 lines below the measured run: bsdb-pg varies the order of
// some unordered results between runs). bsdb-pg runs with one query engine
// thread here, for the same reason. A file gets -pg15-timeout (30 s); a
// timeout, or a server that dies or stops answering, fails that file, and
// the server is restarted on its data for the next one. Outputs, diffs,
// regression.diffs and server logs: results/pg15/<server>/.
// TestPG15RegressAgainstPostgres drops and creates the database
// "regression" (as pg_regress does) in the reference server, which must run
// on this machine: aggregates and copy read and write server-side files in
// a staged directory under os.TempDir().
//
// # psql availability
//
// Without psql the tests skip, unless BSDB_REQUIRE_CLIENTS=1 (CI), where a
// missing psql fails them.
//
// # End-to-end pgx tests
//
// pgx_test.go: extended protocol with binary parameters and results of every
// column type, prepared statements in every pgx exec mode, CopyFrom (binary
// COPY), batches (one implicit transaction), CancelRequest, context
// deadlines, statement_timeout, concurrent sessions (an acknowledged row is
// visible to another session at once). TestPgx runs them against bsdb-pg;
// TestPgxAgainstPostgres runs the very same checks against PostgreSQL, so
// every expectation in them is PostgreSQL's behaviour.
//
// startup_options_test.go: psql with PGOPTIONS (-c name=value, --name=value,
// and the values PostgreSQL refuses with FATAL) against both servers; psql's
// output must be the same.
//
// pgx_durability_test.go: rows survive SIGTERM + restart exactly once, and
// with sync durability every acknowledged row survives SIGKILL during
// concurrent INSERT and COPY, exactly once, over several kill/restart rounds.
package regress
