package server

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// wantErr checks err is PostgreSQL's error code with that message (and,
// when given, that DETAIL and HINT).
func wantErr(t *testing.T, what string, err error, code, msg string, detailHint ...string) {
	t.Helper()
	pe := pgErr(err)
	if pe == nil || pe.Code != code || pe.Message != msg {
		t.Errorf("%s: got %v, want %s %q", what, err, code, msg)
		return
	}
	if len(detailHint) > 0 && pe.Detail != detailHint[0] {
		t.Errorf("%s: DETAIL %q, want %q", what, pe.Detail, detailHint[0])
	}
	if len(detailHint) > 1 && pe.Hint != detailHint[1] {
		t.Errorf("%s: HINT %q, want %q", what, pe.Hint, detailHint[1])
	}
}

// TestViews: a view is queried like a table (joins, subqueries, views of
// views, CTEs around it that do not leak into it, the extended protocol,
// prepared statements), follows PostgreSQL's OR REPLACE and DROP rules,
// and shows in the catalogs as PostgreSQL shows views.
func TestViews(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (a int, b text, c numeric(10,2))")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 2.25), (3, 'z', NULL)")
	if tag := mustExec(t, c, "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1"); tag.String() != "CREATE VIEW" {
		t.Errorf("tag %q", tag)
	}
	mustExec(t, c, "CREATE VIEW v2 (x, y) AS SELECT a * 2, b || '!' FROM v")
	simple := pgx.QueryExecModeSimpleProtocol
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM v ORDER BY a", "[2|y 3|z]"},
		{"SELECT * FROM v2 ORDER BY x", "[4|y! 6|z!]"},
		{"SELECT count(*) FROM v", "[2]"},
		{"SELECT count(*) FROM v2 WHERE x > 4", "[1]"},
		// A CTE named like the view's table does not change the view.
		{"WITH t AS (SELECT 100 AS a) SELECT v.a, t.a FROM v, t ORDER BY 1", "[2|100 3|100]"},
		{"SELECT v.a, t.c::text FROM v JOIN t USING (a) ORDER BY 1", "[2|2.25 3|<nil>]"},
		{"SELECT a FROM t WHERE a IN (SELECT a FROM v) ORDER BY 1", "[2 3]"},
		{"SELECT q.n FROM v AS q (n) ORDER BY 1", "[2 3]"},
		{"SELECT (SELECT max(x) FROM v2)", "[6]"},
		{"SELECT * FROM public.v WHERE b = $1", "[3|z]"},
	} {
		var args []any
		if strings.Contains(tc.q, "$1") {
			args = []any{"z"}
		}
		for _, mode := range []pgx.QueryExecMode{simple, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
			if got := fmt.Sprint(queryStrings(t, c, tc.q, append([]any{mode}, args...)...)); got != tc.want {
				t.Errorf("%s (%v): %s, want %s", tc.q, mode, got, tc.want)
			}
		}
	}
	var err error
	// A view means the relations it named when it was created, whatever
	// the reader's search_path.
	mustExec(t, c, "CREATE SCHEMA s1")
	mustExec(t, c, "CREATE TABLE s1.t (z text)")
	mustExec(t, c, "INSERT INTO s1.t VALUES ('in s1')")
	mustExec(t, c, "SET search_path = s1", simple)
	mustExec(t, c, "CREATE VIEW public.sv AS SELECT z FROM t", simple)
	mustExec(t, c, "RESET search_path", simple)
	if got := queryStrings(t, c, "SELECT z FROM sv", simple); fmt.Sprint(got) != "[in s1]" {
		t.Errorf("view made under another search_path: %v", got)
	}
	mustExec(t, c, "DROP SCHEMA s1 CASCADE") // sv reads s1.t: it goes too
	_, err = c.Exec(ctx, "DROP VIEW sv")
	wantErr(t, "view of a dropped schema", err, "42P01", `view "sv" does not exist`)
	// Result columns carry the view's types.
	rows, err := c.Query(ctx, "SELECT * FROM v2")
	if err != nil {
		t.Fatal(err)
	}
	fds := rows.FieldDescriptions()
	rows.Close()
	if len(fds) != 2 || fds[0].Name != "x" || fds[0].DataTypeOID != 23 || fds[1].Name != "y" || fds[1].DataTypeOID != 25 {
		t.Errorf("v2 columns: %+v", fds)
	}
	mustExec(t, c, "PREPARE p AS SELECT b FROM v WHERE a = $1", simple)
	if got := queryStrings(t, c, "EXECUTE p(3)", simple); fmt.Sprint(got) != "[z]" {
		t.Errorf("EXECUTE: %v", got)
	}

	// OR REPLACE: columns may only be added at the end.
	_, err = c.Exec(ctx, "CREATE VIEW v AS SELECT 1")
	wantErr(t, "CREATE VIEW over a view", err, "42P07", `relation "v" already exists`)
	_, err = c.Exec(ctx, "CREATE VIEW t AS SELECT 1")
	wantErr(t, "CREATE VIEW over a table", err, "42P07", `relation "t" already exists`)
	_, err = c.Exec(ctx, "CREATE TABLE v (x int)")
	wantErr(t, "CREATE TABLE over a view", err, "42P07", `relation "v" already exists`)
	_, err = c.Exec(ctx, "CREATE OR REPLACE VIEW t AS SELECT 1")
	wantErr(t, "OR REPLACE over a table", err, "42809", `"t" is not a view`)
	for _, q := range []string{"DROP VIEW a.b.c.d", "DROP TABLE a.b.c.d", "DROP SEQUENCE a.b.c.d"} {
		_, err = c.Exec(ctx, q)
		wantErr(t, q, err, "42601", "improper relation name (too many dotted names): a.b.c.d")
	}
	_, err = c.Exec(ctx, "CREATE OR REPLACE VIEW v AS SELECT a FROM t")
	wantErr(t, "dropping a column", err, "42P16", "cannot drop columns from view")
	_, err = c.Exec(ctx, "CREATE OR REPLACE VIEW v AS SELECT a, c AS b FROM t")
	wantErr(t, "changing a type", err, "42P16", `cannot change data type of view column "b" from text to numeric(10,2)`)
	_, err = c.Exec(ctx, "CREATE OR REPLACE VIEW v AS SELECT a AS z, b FROM t")
	wantErr(t, "renaming", err, "42P16", `cannot change name of view column "a" to "z"`, "",
		"Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
	mustExec(t, c, "CREATE OR REPLACE VIEW v AS SELECT a, b, c FROM t WHERE a < 3")
	if got := queryStrings(t, c, "SELECT a, b, c::text FROM v ORDER BY a"); fmt.Sprint(got) != "[1|x|1.50 2|y|2.25]" {
		t.Errorf("replaced view: %v", got)
	}
	// A statement prepared before the view got a column must not send
	// rows of another shape than it described (PostgreSQL's error).
	rows, err = c.Query(ctx, "SELECT * FROM v ORDER BY a", pgx.QueryExecModeCacheStatement)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	wantErr(t, "prepared before OR REPLACE", err, "0A000", "cached plan must not change result type")
	_, err = c.Exec(ctx, "CREATE VIEW w (p, q, r) AS SELECT 1, 2")
	wantErr(t, "too many names", err, "42601", "CREATE VIEW specifies more column names than columns")

	// Writes into a view are refused.
	_, err = c.Exec(ctx, "INSERT INTO v VALUES (9, 'q', 1)")
	wantErr(t, "INSERT into a view", err, "0A000", `cannot insert into view "v"`)
	_, err = c.Exec(ctx, "TRUNCATE v")
	wantErr(t, "TRUNCATE a view", err, "42809", `"v" is not a table`)
	_, err = c.PgConn().CopyTo(ctx, &strings.Builder{}, "COPY v TO STDOUT")
	wantErr(t, "COPY a view TO", err, "42809", `cannot copy from view "v"`, "", "Try the COPY (SELECT ...) TO variant.")
	_, err = c.CopyFrom(ctx, pgx.Identifier{"v"}, []string{"a"}, pgx.CopyFromRows([][]any{{int32(1)}}))
	wantErr(t, "COPY a view FROM", err, "42809", `cannot copy to view "v"`)
	var sb strings.Builder
	if _, err := c.PgConn().CopyTo(ctx, &sb, "COPY (SELECT a FROM v ORDER BY a) TO STDOUT"); err != nil || sb.String() != "1\n2\n" {
		t.Errorf("COPY (SELECT ... FROM v): %q %v", sb.String(), err)
	}

	// Catalogs.
	for _, tc := range []struct{ q, want string }{
		{"SELECT relname, relkind::text FROM pg_class WHERE relname IN ('t', 'v', 'v2') ORDER BY 1", "[t|r v|v v2|v]"},
		{"SELECT viewname, viewowner FROM pg_views WHERE schemaname = 'public' ORDER BY 1", "[v|postgres v2|postgres]"},
		{"SELECT table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
			"[t|BASE TABLE|YES v|VIEW|NO v2|VIEW|NO]"},
		{"SELECT table_name FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1", "[v v2]"},
		{"SELECT tablename FROM pg_tables WHERE schemaname = 'public'", "[t]"},
		{"SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'v2'::regclass ORDER BY attnum", "[x|integer y|text]"},
		{"SELECT pg_get_viewdef('v2'::regclass, true) LIKE '%SELECT%public.v%'", "[true]"},
		{"SELECT definition = pg_get_viewdef('v'::regclass) FROM pg_views WHERE viewname = 'v'", "[true]"},
	} {
		if got := fmt.Sprint(queryStrings(t, c, tc.q)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}

	// DROP: kinds, dependencies, CASCADE.
	_, err = c.Exec(ctx, "DROP TABLE v")
	wantErr(t, "DROP TABLE of a view", err, "42809", `"v" is not a table`, "", "Use DROP VIEW to remove a view.")
	_, err = c.Exec(ctx, "DROP VIEW t")
	wantErr(t, "DROP VIEW of a table", err, "42809", `"t" is not a view`, "", "Use DROP TABLE to remove a table.")
	_, err = c.Exec(ctx, "DROP VIEW nope")
	wantErr(t, "DROP VIEW missing", err, "42P01", `view "nope" does not exist`)
	_, err = c.Exec(ctx, "DROP TABLE t")
	wantErr(t, "DROP TABLE with views", err, "2BP01", "cannot drop table t because other objects depend on it",
		"view v depends on table t\nview v2 depends on view v", "Use DROP ... CASCADE to drop the dependent objects too.")
	_, err = c.Exec(ctx, "DROP VIEW v")
	wantErr(t, "DROP VIEW with a view", err, "2BP01", "cannot drop view v because other objects depend on it",
		"view v2 depends on view v", "Use DROP ... CASCADE to drop the dependent objects too.")
	mustExec(t, c, "DROP VIEW v2, v") // both at once: no dependents left
	mustExec(t, c, "CREATE VIEW v AS SELECT * FROM t")
	mustExec(t, c, "CREATE VIEW v2 AS SELECT * FROM v")
	var notices []string
	c2cfg := c.Config().Copy()
	c2cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message+"|"+n.Detail) }
	c2, err := pgx.ConnectConfig(ctx, c2cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	mustExec(t, c2, "DROP TABLE t CASCADE")
	if fmt.Sprint(notices) != "[drop cascades to 2 other objects|drop cascades to view v\ndrop cascades to view v2]" {
		t.Errorf("CASCADE notices: %q", notices)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 'v', 'v2')"); fmt.Sprint(got) != "[0]" {
		t.Errorf("after CASCADE: %v", got)
	}
	mustExec(t, c, "DROP VIEW IF EXISTS v")
}

// TestViewPrivileges: reading a view needs SELECT on the view; the
// relations it reads are checked with its owner's privileges, so a view is
// a way to grant part of a table, as in PostgreSQL.
func TestViewPrivileges(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	admin := ts.conn(t)
	for _, q := range []string{"CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN", "GRANT CREATE ON SCHEMA public TO alice, bob"} {
		mustExec(t, admin, q)
	}
	alice := ts.connAs(t, "alice")
	mustExec(t, alice, "CREATE TABLE secret (x int, note text)")
	mustExec(t, alice, "INSERT INTO secret VALUES (1, 'public'), (2, 'private')")
	mustExec(t, alice, "CREATE VIEW open AS SELECT x FROM secret WHERE note = 'public'")
	bob := ts.connAs(t, "bob")
	simple := pgx.QueryExecModeSimpleProtocol
	for _, mode := range []pgx.QueryExecMode{simple, pgx.QueryExecModeExec} {
		_, err := bob.Exec(ctx, "SELECT * FROM open", mode)
		wantDenied(t, "view without grant", err, "permission denied for view open")
	}
	mustExec(t, alice, "GRANT SELECT ON open TO bob")
	for _, mode := range []pgx.QueryExecMode{simple, pgx.QueryExecModeExec} {
		if got := queryStrings(t, bob, "SELECT * FROM open", mode); fmt.Sprint(got) != "[1]" {
			t.Errorf("bob reads the view (%v): %v", mode, got)
		}
	}
	_, err := bob.Exec(ctx, "SELECT * FROM secret")
	wantDenied(t, "table behind the view", err, "permission denied for table secret")
	// Bob's own view over alice's table: checked with bob's privileges.
	mustExec(t, bob, "CREATE VIEW sneaky AS SELECT * FROM open")
	if got := queryStrings(t, bob, "SELECT * FROM sneaky"); fmt.Sprint(got) != "[1]" {
		t.Errorf("bob's view of the granted view: %v", got)
	}
	_, err = bob.Exec(ctx, "CREATE VIEW sneaky2 AS SELECT * FROM secret")
	wantDenied(t, "view over a table without privilege", err, "permission denied for table secret")
	mustExec(t, alice, "REVOKE SELECT ON open FROM bob")
	_, err = bob.Exec(ctx, "SELECT * FROM sneaky")
	wantDenied(t, "view after REVOKE on the inner view", err, "permission denied for view open")
	_, err = bob.Exec(ctx, "DROP VIEW open")
	wantDenied(t, "DROP VIEW by a stranger", err, "must be owner of view open")
	// The owner of the view loses SELECT on its table: the view fails.
	mustExec(t, admin, "CREATE ROLE carol LOGIN")
	mustExec(t, admin, "GRANT CREATE ON SCHEMA public TO carol")
	mustExec(t, alice, "GRANT SELECT ON secret TO carol")
	carol := ts.connAs(t, "carol")
	mustExec(t, carol, "CREATE VIEW cv AS SELECT count(*) AS n FROM secret")
	mustExec(t, carol, "GRANT SELECT ON cv TO bob")
	if got := queryStrings(t, bob, "SELECT n FROM cv"); fmt.Sprint(got) != "[2]" {
		t.Errorf("bob through carol's view: %v", got)
	}
	mustExec(t, alice, "REVOKE SELECT ON secret FROM carol")
	_, err = bob.Exec(ctx, "SELECT n FROM cv")
	wantDenied(t, "view whose owner lost the table", err, "permission denied for table secret")
}

// TestViewsAndCTASSurviveRestart: views and tables made by CREATE TABLE AS
// are in the warehouse's catalog: a restarted server has them.
func TestViewsAndCTASSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	mustExec(t, c, "CREATE VIEW v (n, label) AS SELECT id, upper(s) FROM t WHERE id > 1")
	if tag := mustExec(t, c, "CREATE TABLE copy AS SELECT id * 10 AS id10, s FROM t"); tag.String() != "SELECT 3" {
		t.Errorf("CTAS tag %q", tag)
	}
	if tag := mustExec(t, c, "SELECT id INTO TABLE ids FROM t WHERE id < 3"); tag.String() != "SELECT 2" {
		t.Errorf("SELECT INTO tag %q", tag)
	}
	c.Close(context.Background())
	ts.stop()
	ts2 := startServer(t, dir)
	c2 := ts2.conn(t)
	for _, tc := range []struct{ q, want string }{
		{"SELECT n, label FROM v ORDER BY n", "[2|TWO 3|THREE]"},
		{"SELECT id10, s FROM copy ORDER BY 1", "[10|one 20|two 30|three]"},
		{"SELECT id FROM ids ORDER BY 1", "[1 2]"},
		{"SELECT relname, relkind::text FROM pg_class WHERE relname IN ('v', 'copy', 'ids') ORDER BY 1", "[copy|r ids|r v|v]"},
	} {
		if got := fmt.Sprint(queryStrings(t, c2, tc.q)); got != tc.want {
			t.Errorf("after restart, %s: %s, want %s", tc.q, got, tc.want)
		}
	}
	_, err := c2.Exec(context.Background(), "DROP TABLE t")
	wantErr(t, "dependency after restart", err, "2BP01", "cannot drop table t because other objects depend on it")
}

// TestCreateTableAs: the table takes the query's columns with PostgreSQL's
// types and names, WITH NO DATA makes it empty, IF NOT EXISTS skips, and a
// query that fails leaves no table.
func TestCreateTableAs(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (a int, b text, c numeric(10,2), d varchar(5), e smallint)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'x', 1.5, 'q', 7), (2, 'y', 2.25, 'r', 8), (3, 'z', NULL, NULL, NULL)")
	mustExec(t, c, "CREATE TABLE t2 AS SELECT a, b, c, d, e, a + 1 AS a1, 'lit' AS f, 1.5 AS g, c * 2 AS h, e + e AS ee, count(*) OVER () AS n FROM t")
	want := "[a|integer b|text c|numeric(10,2) d|character varying(5) e|smallint a1|integer f|text g|numeric h|numeric ee|smallint n|bigint]"
	if got := queryStrings(t, c, "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't2'::regclass ORDER BY attnum"); fmt.Sprint(got) != want {
		t.Errorf("CTAS column types: %v\nwant %s", got, want)
	}
	if got := queryStrings(t, c, "SELECT a, b, c::text, d, e, a1, f, g::text, h::text, ee, n FROM t2 ORDER BY a"); fmt.Sprint(got) !=
		"[1|x|1.50|q|7|2|lit|1.5|3.00|14|3 2|y|2.25|r|8|3|lit|1.5|4.50|16|3 3|z|<nil>|<nil>|<nil>|4|lit|1.5|<nil>|<nil>|3]" {
		t.Errorf("CTAS rows: %v", got)
	}
	_, err := c.Exec(ctx, "CREATE TABLE t2 AS SELECT 1")
	wantErr(t, "CTAS over a table", err, "42P07", `relation "t2" already exists`)
	if tag := mustExec(t, c, "CREATE TABLE IF NOT EXISTS t2 AS SELECT 1"); tag.String() != "CREATE TABLE AS" {
		t.Errorf("IF NOT EXISTS tag %q", tag)
	}
	if tag := mustExec(t, c, "CREATE TABLE t3 (x, y) AS SELECT a, b FROM t WITH NO DATA"); tag.String() != "SELECT 0" {
		t.Errorf("WITH NO DATA tag %q", tag)
	}
	if got := queryStrings(t, c, "SELECT count(*), min(x) FROM t3"); fmt.Sprint(got) != "[0|<nil>]" {
		t.Errorf("WITH NO DATA: %v", got)
	}
	mustExec(t, c, "INSERT INTO t3 VALUES (5, 'five')")
	_, err = c.Exec(ctx, "CREATE TABLE t4 (x, y, z) AS SELECT a, b FROM t")
	wantErr(t, "too many names", err, "42601", "too many column names were specified")
	_, err = c.Exec(ctx, "CREATE TABLE t4 (x, x) AS SELECT a, b FROM t")
	wantErr(t, "duplicate names", err, "42701", `column "x" specified more than once`)
	// A query failing midway (the third row divides by zero) leaves no table.
	for _, q := range []string{
		"CREATE TABLE bad AS SELECT 10 / (a - 3) AS q FROM t",
		"SELECT 10 / (a - 3) AS q INTO bad FROM t",
		"CREATE TABLE bad AS SELECT nope FROM t",
	} {
		if _, err := c.Exec(ctx, q); err == nil {
			t.Errorf("%s: no error", q)
		}
		if got := queryStrings(t, c, "SELECT count(*) FROM pg_class WHERE relname = 'bad'"); fmt.Sprint(got) != "[0]" {
			t.Errorf("%s left a table behind: %v", q, got)
		}
		_, err := c.Exec(ctx, "SELECT * FROM bad")
		wantErr(t, q+": the table", err, "42P01", `relation "bad" does not exist`)
	}
	// CTAS from a view, then the table is independent of it.
	mustExec(t, c, "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1")
	if tag := mustExec(t, c, "CREATE TABLE fromv AS SELECT * FROM v"); tag.String() != "SELECT 2" {
		t.Errorf("CTAS from a view: %q", tag)
	}
	mustExec(t, c, "DROP VIEW v")
	if got := queryStrings(t, c, "SELECT a, b FROM fromv ORDER BY a"); fmt.Sprint(got) != "[2|y 3|z]" {
		t.Errorf("CTAS from a view: %v", got)
	}
}

// TestTempTables: a temporary table is the session's own (another session
// does not see it), hides a table of the same name, lives in pg_temp_N,
// takes INSERT, COPY, CREATE TABLE AS and transaction blocks, is gone when
// the session ends, and never reaches the warehouse.
func TestTempTables(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	ctx := context.Background()
	c := ts.conn(t)
	other := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (a int, b text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'perm')")
	mustExec(t, c, "CREATE TEMP TABLE t (a int, b text)")
	mustExec(t, c, "INSERT INTO t VALUES (2, 'temp'), (3, 'temp')")
	_, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{int32(4), "copy"}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT a, b FROM t ORDER BY a", "[2|temp 3|temp 4|copy]"},
		{"SELECT a FROM pg_temp.t ORDER BY a", "[2 3 4]"},
		{"SELECT a, b FROM public.t", "[1|perm]"},
		{"SELECT n.nspname LIKE 'pg_temp_%' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE relname = 't' AND nspname <> 'public'", "[true]"},
	} {
		if got := fmt.Sprint(queryStrings(t, c, tc.q)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
	if got := fmt.Sprint(queryStrings(t, other, "SELECT a, b FROM t")); got != "[1|perm]" {
		t.Errorf("another session sees %s", got)
	}
	// Blocks: rolled back with the block, committed with the other tables.
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (5, 'tx')")
	tx.Rollback(ctx)
	tx, err = c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (6, 'tx')")
	mustExec(t, c, "INSERT INTO public.t VALUES (7, 'tx')")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*), max(a) FROM t")); got != "[4|6]" {
		t.Errorf("after the blocks: %s", got)
	}
	if tag := mustExec(t, c, "CREATE TEMP TABLE tt AS SELECT a * 10 AS x FROM t"); tag.String() != "SELECT 4" {
		t.Errorf("CREATE TEMP TABLE AS: %q", tag)
	}
	if tag := mustExec(t, c, "SELECT x INTO TEMP tt2 FROM tt WHERE x > 30"); tag.String() != "SELECT 2" {
		t.Errorf("SELECT INTO TEMP: %q", tag)
	}
	// A view of a temporary table is temporary (PostgreSQL's NOTICE).
	mustExec(t, c, "CREATE VIEW vv AS SELECT x FROM tt WHERE x > 20")
	mustExec(t, c, "CREATE TEMP VIEW vv2 (y) AS SELECT x / 10 FROM vv")
	if got := fmt.Sprint(queryStrings(t, c, "SELECT y FROM vv2 ORDER BY 1")); got != "[3 4 6]" {
		t.Errorf("temporary views: %s", got)
	}
	if got := fmt.Sprint(queryStrings(t, c, "SELECT relkind::text, nspname LIKE 'pg_temp_%' FROM pg_class c JOIN pg_namespace n ON n.oid = relnamespace WHERE relname = 'vv2'")); got != "[v|true]" {
		t.Errorf("temporary view in pg_class: %s", got)
	}
	_, err = other.Exec(ctx, "SELECT * FROM vv2")
	wantErr(t, "temporary view from another session", err, "42P01", `relation "vv2" does not exist`)
	_, err = c.Exec(ctx, "DROP TABLE vv2")
	wantErr(t, "DROP TABLE of a temporary view", err, "42809", `"vv2" is not a table`)
	_, err = c.Exec(ctx, "INSERT INTO vv2 VALUES (1)")
	wantErr(t, "INSERT into a temporary view", err, "0A000", `cannot insert into view "vv2"`)
	mustExec(t, c, "DROP VIEW vv2")
	_, err = c.Exec(ctx, "CREATE TEMP TABLE public.x (a int)")
	wantErr(t, "temp in a schema", err, "42P16", "cannot create temporary relation in non-temporary schema")
	_, err = c.Exec(ctx, "CREATE TEMP TABLE t (a int)")
	wantErr(t, "temp twice", err, "42P07", `relation "t" already exists`)
	mustExec(t, c, "DROP TABLE t") // the temporary one
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*) FROM t")); got != "[2]" {
		t.Errorf("after DROP of the temporary table: %s", got)
	}
	// The session's end drops them; a new session has none.
	c.Close(ctx)
	c = ts.conn(t)
	_, err = c.Exec(ctx, "SELECT * FROM tt")
	wantErr(t, "temp table after its session", err, "42P01", `relation "tt" does not exist`)
	ts.stop()
	// Nothing of them in the warehouse.
	out, _ := exec.Command("grep", "-rl", "tt2", dir).CombinedOutput()
	if strings.TrimSpace(string(out)) != "" {
		t.Errorf("temporary table names found in the data directory: %s", out)
	}
}
