package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// attempt is one way a client could try to reach what PostgreSQL would
// never let it: server files, the network, the engine's settings, its
// logging, other databases, internal relations and functions. Each expects
// PostgreSQL's refusal: the SQLSTATE, and a message fragment.
type attempt struct {
	name string
	sql  string
	args []any // sent with the extended protocol when set
	code string
	msg  string
}

// securityAttempts: secret and outside are a file and a directory outside
// the server's data directory; dataDir is the server's own.
func securityAttempts(secret, outside, dataDir string) []attempt {
	const nofn = "42883"
	return []attempt{
		// Reading files, in every clause and through every path.
		{"read_text", "SELECT content FROM read_text('" + secret + "')", nil, nofn, "function read_text(unknown) does not exist"},
		{"read_text in the select list", "SELECT read_text('" + secret + "')", nil, nofn, "function read_text(unknown) does not exist"},
		{"read_blob", "SELECT * FROM read_blob('" + secret + "')", nil, nofn, "function read_blob(unknown)"},
		{"read_csv", "SELECT * FROM read_csv('" + secret + "')", nil, nofn, "function read_csv(unknown)"},
		{"read_csv_auto", "SELECT * FROM read_csv_auto('" + secret + "')", nil, nofn, "function read_csv_auto(unknown)"},
		{"read_json", "SELECT * FROM read_json('" + secret + "')", nil, nofn, "function read_json(unknown)"},
		{"read_json_objects", "SELECT * FROM read_json_objects('" + secret + "')", nil, nofn, "read_json_objects"},
		{"read_ndjson", "SELECT * FROM read_ndjson_auto('" + secret + "')", nil, nofn, "read_ndjson_auto"},
		{"read_parquet of the warehouse", "SELECT * FROM read_parquet('" + dataDir + "/warehouse/**/*.parquet')", nil, nofn, "function read_parquet(unknown)"},
		{"parquet_scan", "SELECT * FROM parquet_scan('" + dataDir + "/warehouse/**/*.parquet')", nil, nofn, "parquet_scan"},
		{"parquet_schema", "SELECT * FROM parquet_schema('" + dataDir + "/warehouse/**/*.parquet')", nil, nofn, "parquet_schema"},
		{"parquet_metadata", "SELECT * FROM parquet_metadata('" + dataDir + "/warehouse/**/*.parquet')", nil, nofn, "parquet_metadata"},
		{"glob", "SELECT * FROM glob('/etc/*')", nil, nofn, "function glob(unknown)"},
		{"sniff_csv", "SELECT * FROM sniff_csv('" + secret + "')", nil, nofn, "sniff_csv"},
		{"qualified pg_catalog", "SELECT pg_catalog.read_text('" + secret + "')", nil, nofn, "function pg_catalog.read_text(unknown)"},
		{"qualified main", "SELECT main.read_text('" + secret + "')", nil, "3F000", `schema "main" does not exist`},
		{"qualified memory.main", "SELECT memory.main.read_text('" + secret + "')", nil, "0A000", "cross-database references are not implemented"},
		{"quoted name", `SELECT "read_text"('` + secret + `')`, nil, nofn, "read_text"},
		{"upper case, folded", "SELECT * FROM READ_TEXT('" + secret + "')", nil, nofn, "read_text"},
		{"quoted upper case", `SELECT * FROM "READ_TEXT"('` + secret + `')`, nil, nofn, `"READ_TEXT"`},
		{"a comment inside the call", "SELECT * FROM read_text/* x */('" + secret + "')", nil, nofn, "read_text"},
		{"in a subquery", "SELECT (SELECT content FROM read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"in a CTE", "WITH c AS (SELECT * FROM read_text('" + secret + "')) SELECT * FROM c", nil, nofn, "read_text"},
		{"in a LATERAL join", "SELECT * FROM (SELECT 1) a, LATERAL read_text('" + secret + "') b", nil, nofn, "read_text"},
		{"in WHERE ... IN", "SELECT 1 WHERE 'x' IN (SELECT content FROM read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"in ORDER BY", "SELECT 1 ORDER BY read_text('" + secret + "')", nil, nofn, "read_text"},
		{"in GROUP BY", "SELECT 1 GROUP BY read_text('" + secret + "')", nil, nofn, "read_text"},
		{"in CASE", "SELECT CASE WHEN true THEN read_text('" + secret + "') END", nil, nofn, "read_text"},
		{"in VALUES", "VALUES (read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"in a window", "SELECT count(*) OVER (ORDER BY read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"in a UNION", "SELECT 'a' UNION SELECT content FROM read_text('" + secret + "')", nil, nofn, "read_text"},
		{"INSERT ... SELECT", "INSERT INTO sec_t SELECT content FROM read_text('" + secret + "')", nil, nofn, "read_text"},
		{"INSERT ... VALUES", "INSERT INTO sec_t VALUES (read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"a column default", "CREATE TABLE sec_d (a text DEFAULT read_text('" + secret + "'))", nil, nofn, "read_text"},
		{"COPY (query) TO STDOUT", "COPY (SELECT * FROM read_text('" + secret + "')) TO STDOUT", nil, nofn, "read_text"},
		{"EXPLAIN", "EXPLAIN SELECT * FROM read_text('" + secret + "')", nil, nofn, "read_text"},
		{"EXPLAIN ANALYZE", "EXPLAIN ANALYZE SELECT * FROM read_text('" + secret + "')", nil, nofn, "read_text"},
		{"PREPARE", "PREPARE sec_p AS SELECT * FROM read_text($1)", nil, nofn, "read_text"},
		{"a bound parameter", "SELECT * FROM read_text($1)", []any{secret}, nofn, "read_text"},
		{"a bound parameter in the select list", "SELECT read_blob($1::text)", []any{secret}, nofn, "function read_blob(text)"},
		{"a file name as a table", `SELECT * FROM "` + secret + `"`, nil, "42P01", "does not exist"},
		// Server-side COPY of files and programs.
		{"COPY FROM a file", "COPY sec_t FROM '" + secret + "'", nil, "42501", "COPY"},
		{"COPY TO a file", "COPY sec_t TO '" + filepath.Join(outside, "out.csv") + "'", nil, "42501", "COPY"},
		{"COPY (query) TO a file", "COPY (SELECT 1) TO '" + filepath.Join(outside, "out2.csv") + "'", nil, "42501", "COPY"},
		{"COPY FROM PROGRAM", "COPY sec_t FROM PROGRAM 'id'", nil, "42501", "COPY"},
		// Writing files and logging.
		{"enable_logging to a file", "SELECT * FROM enable_logging(storage => 'file', storage_config => struct_pack(path => '" + filepath.Join(outside, "log.csv") + "', \"normalize\" => false))", nil, nofn, "function struct_pack(path => unknown, normalize => boolean) does not exist"},
		{"enable_logging", "SELECT * FROM enable_logging()", nil, nofn, "function enable_logging() does not exist"},
		{"write_log", "SELECT write_log('x', level => 'error')", nil, nofn, "write_log"},
		{"duckdb_logs", "SELECT message FROM duckdb_logs()", nil, nofn, "duckdb_logs"},
		{"disable_logging", "SELECT * FROM disable_logging()", nil, nofn, "disable_logging"},
		{"CALL enable_logging", "CALL enable_logging()", nil, "0A000", "CALL"},
		// Settings.
		{"duckdb_settings()", "SELECT * FROM duckdb_settings()", nil, nofn, "duckdb_settings"},
		{"current_setting of an engine setting", "SELECT current_setting('temp_directory')", nil, "42704", `unrecognized configuration parameter "temp_directory"`},
		{"current_setting of the lock", "SELECT current_setting('lock_configuration')", nil, "42704", "lock_configuration"},
		{"SET an engine setting", "SET enable_external_access = true", nil, "42704", "enable_external_access"},
		{"SET the lock", "SET lock_configuration = false", nil, "42704", "lock_configuration"},
		{"set_config of an engine setting", "SELECT set_config('allowed_directories', '/', false)", nil, "42704", "allowed_directories"},
		{"RESET an engine setting", "RESET memory_limit", nil, "42704", "memory_limit"},
		{"PRAGMA", "PRAGMA enable_logging", nil, "42601", "syntax error"},
		// Internals.
		{"query()", "SELECT * FROM query('SELECT 1')", nil, nofn, "function query(unknown)"},
		{"query_table()", "SELECT * FROM query_table('memory.main.__bsdb_buf_16385')", nil, nofn, "query_table"},
		{"duckdb_databases()", "SELECT * FROM duckdb_databases()", nil, nofn, "duckdb_databases"},
		{"duckdb_tables()", "SELECT * FROM duckdb_tables()", nil, nofn, "duckdb_tables"},
		{"duckdb_functions()", "SELECT * FROM duckdb_functions()", nil, nofn, "duckdb_functions"},
		{"duckdb_extensions()", "SELECT * FROM duckdb_extensions()", nil, nofn, "duckdb_extensions"},
		{"checkpoint()", "SELECT checkpoint()", nil, nofn, "checkpoint"},
		{"force_checkpoint()", "SELECT force_checkpoint('bsdb_cache')", nil, nofn, "force_checkpoint"},
		{"pragma_version()", "SELECT * FROM pragma_version()", nil, nofn, "pragma_version"},
		{"an internal buffer relation", "SELECT * FROM __bsdb_buf_16385", nil, "42P01", `relation "__bsdb_buf_16385" does not exist`},
		{"an internal relation of the engine's catalog", "SELECT * FROM memory.main.__bsdb_buf_16385", nil, "0A000", "cross-database references are not implemented"},
		{"the cache database", "SELECT * FROM bsdb_cache.main.__bsdb_cache_files", nil, "0A000", "cross-database references are not implemented"},
		{"the cache database, two parts", "SELECT * FROM bsdb_cache.__bsdb_cache_files", nil, "42P01", "does not exist"},
		{"a table placeholder", `SELECT * FROM "__bsdb_rel_0__"`, nil, "42P01", "does not exist"},
		{"an internal macro", "SELECT __bsdb_div(1, 0)", nil, nofn, "__bsdb_div"},
		{"a session function's internal name", "SELECT __bsdb_s_current_setting('TimeZone')", nil, nofn, "__bsdb_s_current_setting"},
		{"a catalog macro's internal name", "SELECT __bsdb_f_version()", nil, nofn, "__bsdb_f_version"},
		{"an engine UDF", "SELECT bsdb_interval('x'::bytea)", nil, nofn, "bsdb_interval"},
		{"DuckDB's type", "SELECT 1::hugeint", nil, "42704", `type "hugeint" does not exist`},
		{"DuckDB's varint", "SELECT '1'::varint", nil, "42704", `type "varint" does not exist`},
		// The network and extensions.
		{"read_csv over http", "SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')", nil, nofn, "read_csv"},
		{"sqlite_scan", "SELECT * FROM sqlite_scan('/tmp/x.db', 't')", nil, nofn, "sqlite_scan"},
		{"read_xlsx", "SELECT * FROM read_xlsx('/tmp/x.xlsx')", nil, nofn, "read_xlsx"},
		{"postgres_scan", "SELECT * FROM postgres_scan('host=127.0.0.1', 'public', 't')", nil, nofn, "postgres_scan"},
		{"iceberg_scan", "SELECT * FROM iceberg_scan('s3://bucket/t')", nil, nofn, "iceberg_scan"},
		{"INSTALL", "INSTALL httpfs", nil, "42601", "syntax error"},
		{"LOAD", "LOAD 'httpfs'", nil, "0A000", "LOAD"},
		{"ATTACH", "ATTACH '/tmp/x.duckdb' AS x", nil, "42601", "syntax error"},
		// Other databases.
		{"another database's table", "SELECT * FROM otherdb.public.t", nil, "0A000", "cross-database references are not implemented"},
		// Code.
		{"DO", "DO $$ BEGIN END $$", nil, "0A000", "DO"},
		{"CREATE FUNCTION in C", "CREATE FUNCTION f() RETURNS int AS '/lib/x.so', 'f' LANGUAGE c", nil, "0A000", "CREATE FUNCTION"},
		// current_query() is the client's text, not the engine's
		// (checked in TestCurrentQueryIsTheClientsText).
	}
}

// TestSecurityAttempts runs every attempt and expects PostgreSQL's refusal,
// then checks that nothing was written outside the data directory and that
// the server still answers.
func TestSecurityAttempts(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	outside := t.TempDir()
	secret := filepath.Join(outside, "shadow")
	if err := os.WriteFile(secret, []byte("root:secret-hash:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setup := ts.conn(t)
	if _, err := setup.Exec(ctx, "CREATE TABLE sec_t (a text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec(ctx, "INSERT INTO sec_t VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	// alice is an ordinary role with what a BI user gets: the table, and
	// CREATE on the schema (so that CREATE TABLE reaches its default).
	for _, q := range []string{"CREATE ROLE alice LOGIN", "GRANT ALL ON sec_t TO alice", "GRANT CREATE ON SCHEMA public TO alice"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	attempts := securityAttempts(secret, outside, ts.dir)
	if len(attempts) < 60 {
		t.Fatalf("only %d attempts", len(attempts))
	}
	for _, role := range []string{"postgres", "alice"} {
		t.Run(role, func(t *testing.T) { runAttempts(t, ts, role, attempts) })
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files appeared outside the data directory: %v", entries)
	}
	// Every session still works, and the table holds only its row.
	c := ts.conn(t)
	if got := queryStrings(t, c, "SELECT a FROM sec_t"); len(got) != 1 || got[0] != "x" {
		t.Errorf("sec_t after the attempts: %v", got)
	}
	ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx2); err != nil {
		t.Fatal(err)
	}
}

// runAttempts makes every attempt as role, each on its own connection.
func runAttempts(t *testing.T, ts *testServer, role string, attempts []attempt) {
	ctx := context.Background()
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			c, err := pgx.Connect(ctx, "postgres://"+role+"@"+ts.addr+"/postgres?sslmode=disable")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if a.args != nil {
				_, err = c.Exec(ctx, a.sql, a.args...)
			} else {
				_, err = c.Exec(ctx, a.sql, pgx.QueryExecModeSimpleProtocol)
			}
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %v, want %s", a.sql, err, a.code)
			}
			if pe.Code != a.code || !strings.Contains(pe.Message, a.msg) {
				t.Errorf("%s:\n got %s %s\nwant %s ...%s...", a.sql, pe.Code, pe.Message, a.code, a.msg)
			}
			if pe.Severity == "FATAL" {
				t.Errorf("%s: FATAL: %s", a.sql, pe.Message)
			}
			for _, leak := range []string{ts.dir, "__bsdb_buf", "duckdb", "DuckDB", "Catalog Error", "Binder Error"} {
				if strings.Contains(pe.Message+pe.Detail+pe.Hint, leak) && !strings.Contains(a.sql, leak) {
					t.Errorf("%s: the error shows %q: %s", a.sql, leak, pe.Message)
				}
			}
			if strings.Contains(pe.Message+pe.Detail, "secret-hash") {
				t.Errorf("%s: the error shows the file's content", a.sql)
			}
		})
	}
}

func TestCurrentQueryIsTheClientsText(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE cq (a int)"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		q := "SELECT current_query() FROM cq RIGHT JOIN (SELECT 1) x ON true"
		var got string
		if err := c.QueryRow(ctx, q, mode).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != q {
			t.Errorf("mode %v: current_query() = %q, want the client's text", mode, got)
		}
	}
}

// EXPLAIN shows a plan in PostgreSQL's shape that names the client's
// tables, never the engine's relations, functions or files.
func TestExplainShowsNoInternals(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE ex (a int, b text)", "INSERT INTO ex SELECT g, 'x' || g FROM generate_series(1, 100) g"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.eng.FlushAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO ex VALUES (101, 'y')"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"EXPLAIN SELECT * FROM ex WHERE a > 3",
		"EXPLAIN SELECT b, count(*) FROM ex GROUP BY b ORDER BY 2 DESC LIMIT 3",
		"EXPLAIN ANALYZE SELECT count(*) FROM ex x JOIN ex y ON x.a = y.a",
		"EXPLAIN SELECT * FROM ex x JOIN ex y USING (a)",
		"EXPLAIN SELECT * FROM generate_series(1, 3)",
		"EXPLAIN SELECT sum(a) OVER (PARTITION BY b) FROM ex",
	} {
		lines := queryStrings(t, c, q)
		plan := strings.Join(lines, "\n")
		if len(lines) == 0 {
			t.Errorf("%s: no plan", q)
		}
		for _, leak := range []string{"__bsdb", "memory", "bsdb_cache", "read_parquet", "READ_PARQUET", ts.dir, "#", "┌", "__internal"} {
			if strings.Contains(plan, leak) {
				t.Errorf("%s: the plan shows %q:\n%s", q, leak, plan)
			}
		}
		if strings.HasPrefix(q, "EXPLAIN SELECT * FROM ex WHERE") && !strings.Contains(plan, "Seq Scan on ex") {
			t.Errorf("%s: no 'Seq Scan on ex':\n%s", q, plan)
		}
		if strings.HasPrefix(q, "EXPLAIN ANALYZE") && !strings.Contains(plan, "Execution Time:") {
			t.Errorf("%s: no execution time:\n%s", q, plan)
		}
	}
}

// The statements that killed the server process (pg_query's or the
// deparser's C code overflowing a stack or following a NULL) or ended the
// session with a Go panic: each gets PostgreSQL's answer, and the server
// and the session go on.
func TestStatementsThatKilledTheServer(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	for _, s := range []struct {
		sql, code, msg, value string
	}{
		{"SELECT ~5", "", "", "-6"},
		{"SELECT 1" + strings.Repeat("+1", 40000), "54001", "stack depth limit exceeded", ""},
		{"SELECT 1" + strings.Repeat(" UNION SELECT 1", 40000), "54001", "stack depth limit exceeded", ""},
		{"SELECT '" + strings.Repeat("{", 4500) + "1" + strings.Repeat("}", 4500) + "'::int[]", "54000", "number of array dimensions (7) exceeds the maximum allowed (6)", ""},
		{"SELECT format('%*0$s', 'Hello')", "22023", "format specifies argument 0, but arguments are numbered from 1", ""},
	} {
		rows, err := c.Query(ctx, s.sql, pgx.QueryExecModeSimpleProtocol)
		var got []string
		if err == nil {
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			err = rows.Err()
		}
		short := s.sql
		if len(short) > 40 {
			short = short[:40] + "..."
		}
		var pe *pgconn.PgError
		switch {
		case s.code == "" && (err != nil || len(got) != 1 || got[0] != s.value):
			t.Errorf("%s: %v %v, want %s", short, got, err, s.value)
		case s.code != "" && (!errors.As(err, &pe) || pe.Code != s.code || pe.Message != s.msg || pe.Severity != "ERROR"):
			t.Errorf("%s: %v, want ERROR %s %s", short, err, s.code, s.msg)
		}
		if got := queryStrings(t, c, "SELECT 1"); len(got) != 1 {
			t.Fatalf("the session after %s: %v", short, got)
		}
	}
}
