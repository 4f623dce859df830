package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
)

// connectAs opens a connection as user (trust on loopback).
func (ts *testServer) connectAs(t testing.TB, user, password string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/postgres?sslmode=disable", user, ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = password
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

func (ts *testServer) connAs(t testing.TB, user string) *pgx.Conn {
	t.Helper()
	c, err := ts.connectAs(t, user, "")
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	return c
}

// wantDenied checks err is PostgreSQL's 42501 with that message and no
// position.
func wantDenied(t *testing.T, what string, err error, msg string) {
	t.Helper()
	pe := pgErr(err)
	if pe == nil || pe.Code != "42501" || pe.Message != msg || pe.Position != 0 {
		t.Errorf("%s: got %v (position %d), want 42501 %q", what, err, positionOf(pe), msg)
	}
}

func positionOf(pe *pgconn.PgError) int32 {
	if pe == nil {
		return 0
	}
	return pe.Position
}

// TestRolesTwoUsers: a role without SUPERUSER cannot read, write, truncate
// or drop another role's table by any path, until the owner grants it; a
// REVOKE takes effect at the next execution of statements prepared before
// it; superusers read everything.
func TestRolesTwoUsers(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	admin := ts.conn(t)
	for _, q := range []string{
		"CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN",
		// PostgreSQL 15: PUBLIC may not create in schema public.
		"GRANT CREATE ON SCHEMA public TO alice, bob",
	} {
		mustExec(t, admin, q)
	}
	bob := ts.connAs(t, "bob")
	mustExec(t, bob, "CREATE TABLE secret (x int)")
	mustExec(t, bob, "INSERT INTO secret VALUES (1), (2)")
	alice := ts.connAs(t, "alice")
	mustExec(t, alice, "CREATE TABLE mine (x int)")

	denied := "permission denied for table secret"
	simple := pgx.QueryExecModeSimpleProtocol
	for _, q := range []string{
		"SELECT * FROM secret",
		"SELECT count(*) FROM secret",
		"SELECT 1 FROM mine WHERE EXISTS (SELECT 1 FROM secret)",
		"SELECT (SELECT max(x) FROM secret)",
		"WITH c AS (SELECT * FROM secret) SELECT * FROM c",
		"SELECT * FROM mine JOIN public.secret s ON s.x = mine.x",
		"SELECT * FROM mine UNION ALL SELECT * FROM secret",
		"EXPLAIN SELECT * FROM secret",
		"INSERT INTO mine SELECT * FROM secret",
		"INSERT INTO secret VALUES (3)",
		"TRUNCATE secret",
	} {
		_, err := alice.Exec(ctx, q, simple)
		wantDenied(t, q+" (simple)", err, denied)
		_, err = alice.Exec(ctx, q) // extended protocol
		wantDenied(t, q+" (extended)", err, denied)
	}
	for _, q := range []string{"COPY secret TO STDOUT", "COPY (SELECT x FROM secret) TO STDOUT"} {
		_, err := alice.PgConn().CopyTo(ctx, &strings.Builder{}, q)
		wantDenied(t, q, err, denied)
	}
	_, err := alice.CopyFrom(ctx, pgx.Identifier{"secret"}, []string{"x"}, pgx.CopyFromRows([][]any{{int32(9)}}))
	wantDenied(t, "COPY secret FROM STDIN", err, denied)
	_, err = alice.Exec(ctx, "PREPARE p AS SELECT * FROM secret", simple)
	if err != nil {
		t.Fatalf("PREPARE needs no privilege (PostgreSQL checks at EXECUTE): %v", err)
	}
	_, err = alice.Exec(ctx, "EXECUTE p", simple)
	wantDenied(t, "EXECUTE", err, denied)
	tx, err := alice.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "DECLARE c CURSOR FOR SELECT * FROM secret")
	wantDenied(t, "DECLARE CURSOR", err, denied)
	tx.Rollback(ctx)
	_, err = alice.Exec(ctx, "DROP TABLE secret")
	wantDenied(t, "DROP TABLE", err, "must be owner of table secret")
	_, err = alice.Exec(ctx, "GRANT SELECT ON secret TO alice")
	wantDenied(t, "GRANT by a stranger", err, denied)
	// The catalog still shows the table, as PostgreSQL's does.
	if got := queryStrings(t, alice, "SELECT relname, pg_get_userbyid(relowner), has_table_privilege('secret', 'select') FROM pg_class WHERE relname = 'secret'"); fmt.Sprint(got) != "[secret|bob|false]" {
		t.Errorf("pg_class as alice: %v", got)
	}
	// A superuser reads everything.
	if got := queryStrings(t, admin, "SELECT sum(x) FROM secret"); fmt.Sprint(got) != "[3]" {
		t.Errorf("superuser read: %v", got)
	}

	// GRANT lets alice in: statements prepared earlier work now.
	mustExec(t, bob, "GRANT SELECT, INSERT ON secret TO alice")
	if got := queryStrings(t, alice, "SELECT sum(x) FROM secret"); fmt.Sprint(got) != "[3]" {
		t.Errorf("after GRANT: %v", got)
	}
	if _, err := alice.Exec(ctx, "EXECUTE p", simple); err != nil {
		t.Errorf("EXECUTE after GRANT: %v", err)
	}
	for i := 0; i < 3; i++ { // a prepared INSERT, cached after its first runs
		mustExec(t, alice, "INSERT INTO secret VALUES ($1)", int32(10+i))
	}
	mustExec(t, alice, "INSERT INTO mine SELECT x FROM secret WHERE x < 3")

	// REVOKE: the next execution of the same prepared statements fails.
	mustExec(t, bob, "REVOKE SELECT, INSERT ON secret FROM alice")
	_, err = alice.Exec(ctx, "SELECT sum(x) FROM secret")
	wantDenied(t, "prepared SELECT after REVOKE", err, denied)
	_, err = alice.Exec(ctx, "INSERT INTO secret VALUES ($1)", int32(20))
	wantDenied(t, "prepared INSERT after REVOKE", err, denied)
	_, err = alice.Exec(ctx, "EXECUTE p", simple)
	wantDenied(t, "EXECUTE after REVOKE", err, denied)
	if got := queryStrings(t, admin, "SELECT count(*), sum(x) FROM secret"); fmt.Sprint(got) != "[5|36]" {
		t.Errorf("secret after the test: %v", got)
	}

	// A schema without USAGE: 42501 at the reference, with its position.
	mustExec(t, admin, "CREATE SCHEMA hidden")
	mustExec(t, admin, "CREATE TABLE hidden.h (x int)")
	_, err = alice.Exec(ctx, "SELECT * FROM hidden.h", simple)
	if pe := pgErr(err); pe == nil || pe.Code != "42501" || pe.Message != "permission denied for schema hidden" || pe.Position != 15 {
		t.Errorf("schema without USAGE: %v (position %d)", err, positionOf(pe))
	}
	// ... and is left out of the search path: the name is unknown.
	mustExec(t, alice, "SET search_path = hidden, public")
	_, err = alice.Exec(ctx, "SELECT * FROM h", simple)
	if pgCode(err) != "42P01" {
		t.Errorf("table in a schema without USAGE on the search path: %v", err)
	}
}

// TestRolesStartup: a user name that is no role, a NOLOGIN role and a
// role without CONNECT on the database are refused at startup with
// PostgreSQL's FATAL errors, also under trust authentication.
func TestRolesStartup(t *testing.T) {
	ts := startServer(t, "")
	admin := ts.conn(t)
	mustExec(t, admin, "CREATE ROLE nologin")
	mustExec(t, admin, "CREATE ROLE alice LOGIN")
	mustExec(t, admin, "CREATE ROLE bob LOGIN")
	for _, c := range []struct{ user, code, msg, detail string }{
		{"nobody", "28000", `role "nobody" does not exist`, ""},
		{"nologin", "28000", `role "nologin" is not permitted to log in`, ""},
		{"pg_monitor", "28000", `role "pg_monitor" is not permitted to log in`, ""},
	} {
		_, err := ts.connectAs(t, c.user, "")
		if pe := pgErr(err); pe == nil || pe.Severity != "FATAL" || pe.Code != c.code || pe.Message != c.msg {
			t.Errorf("connect as %s: %v, want FATAL %s %s", c.user, err, c.code, c.msg)
		}
	}
	mustExec(t, admin, "REVOKE CONNECT ON DATABASE postgres FROM PUBLIC")
	mustExec(t, admin, "GRANT CONNECT ON DATABASE postgres TO bob")
	_, err := ts.connectAs(t, "alice", "")
	if pe := pgErr(err); pe == nil || pe.Severity != "FATAL" || pe.Code != "42501" || pe.Message != `permission denied for database "postgres"` ||
		pe.Detail != "User does not have CONNECT privilege." {
		t.Errorf("connect without CONNECT: %v", err)
	}
	ts.connAs(t, "bob")
	ts.connAs(t, "postgres") // the owner, and a superuser
}

// TestRolesPersist: roles, memberships, owners and grants are in the
// catalog: they survive a restart.
func TestRolesPersist(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	admin := ts.conn(t)
	for _, q := range []string{
		"CREATE ROLE alice LOGIN PASSWORD 'pw'", "CREATE ROLE readers", "GRANT readers TO alice",
		"CREATE SCHEMA app AUTHORIZATION alice", "CREATE TABLE app.t (x int)", "ALTER TABLE app.t OWNER TO alice",
		"CREATE TABLE pub (x int)", "GRANT SELECT ON pub TO readers",
	} {
		mustExec(t, admin, q)
	}
	ts.stop()
	ts = startServer(t, dir)
	admin = ts.conn(t)
	got := queryStrings(t, admin, `SELECT r.rolname, r.rolcanlogin, left(a.rolpassword, 14), coalesce((SELECT string_agg(g.rolname, ',') FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid), '')
		FROM pg_roles r JOIN pg_authid a ON a.oid = r.oid WHERE r.rolname IN ('alice', 'readers') ORDER BY 1`)
	if fmt.Sprint(got) != "[alice|true|SCRAM-SHA-256$|readers readers|false|<nil>|]" {
		t.Errorf("roles after restart: %v", got)
	}
	got = queryStrings(t, admin, `SELECT c.relname, pg_get_userbyid(c.relowner), array_to_string(c.relacl, ','), pg_get_userbyid(n.nspowner)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname IN ('t', 'pub') ORDER BY 1`)
	if fmt.Sprint(got) != "[pub|postgres|postgres=arwdDxt/postgres,readers=r/postgres|pg_database_owner t|alice|<nil>|alice]" {
		t.Errorf("owners and ACLs after restart: %v", got)
	}
	alice := ts.connAs(t, "alice")
	if got := queryStrings(t, alice, "SELECT count(*) FROM pub"); fmt.Sprint(got) != "[0]" {
		t.Errorf("alice reads through readers: %v", got)
	}
}

// TestPasswordAuthFromCatalog: the password methods check the roles of the
// catalog: BSDB_USERS's bootstrap role, a role created and re-passworded
// over SQL, an MD5 hash given as the password, VALID UNTIL, NOLOGIN.
func TestPasswordAuthFromCatalog(t *testing.T) {
	for _, method := range []pgwire.AuthMethod{pgwire.AuthSCRAM, pgwire.AuthMD5, pgwire.AuthPassword} {
		t.Run(string(method), func(t *testing.T) {
			ts := startServerAuth(t, planner.Config{FlushInterval: time.Second}, func(b *Backend) {
				if err := b.BootstrapUsers(context.Background(), map[string]string{"admin": "adminpw"}); err != nil {
					t.Fatal(err)
				}
			}, func(b *Backend) pgwire.AuthConfig { return pgwire.AuthConfig{Method: method, Roles: b} })
			ok := func(user, pw string) {
				t.Helper()
				if _, err := ts.connectAs(t, user, pw); err != nil {
					t.Errorf("%s/%s: %v", user, pw, err)
				}
			}
			fails := func(user, pw, code, msg string) {
				t.Helper()
				_, err := ts.connectAs(t, user, pw)
				if pe := pgErr(err); pe == nil || pe.Code != code || pe.Message != msg {
					t.Errorf("%s/%s: %v, want %s %s", user, pw, err, code, msg)
				}
			}
			ok("admin", "adminpw")
			fails("admin", "nope", "28P01", `password authentication failed for user "admin"`)
			fails("postgres", "", "28P01", `password authentication failed for user "postgres"`) // no password
			fails("nobody", "x", "28P01", `password authentication failed for user "nobody"`)
			admin, err := ts.connectAs(t, "admin", "adminpw")
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, admin, "CREATE ROLE carol LOGIN PASSWORD 'c1'")
			ok("carol", "c1")
			mustExec(t, admin, "ALTER ROLE carol PASSWORD 'c2'")
			fails("carol", "c1", "28P01", `password authentication failed for user "carol"`)
			ok("carol", "c2")
			// A role changes its own password (psql's \password).
			carol, err := ts.connectAs(t, "carol", "c2")
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, carol, "ALTER ROLE carol PASSWORD 'c3'")
			ok("carol", "c3")
			// An MD5 hash is stored as given: md5 || md5("m1" || "dan").
			mustExec(t, admin, "CREATE ROLE dan LOGIN PASSWORD '"+pgwire.EncryptPasswordMD5("dan", "m1")+"'")
			if method == pgwire.AuthSCRAM {
				fails("dan", "m1", "28P01", `password authentication failed for user "dan"`)
			} else {
				ok("dan", "m1")
			}
			mustExec(t, admin, "ALTER ROLE carol VALID UNTIL '2001-01-01'")
			fails("carol", "c3", "28P01", `password authentication failed for user "carol"`)
			mustExec(t, admin, "ALTER ROLE carol VALID UNTIL 'infinity' NOLOGIN")
			fails("carol", "c3", "28000", `role "carol" is not permitted to log in`)
		})
	}
}

// TestRolesConcurrentGrants: sessions reading while the owner grants and
// revokes, and roles are created, see either privilege state, never
// anything else (run under the race detector by make test).
func TestRolesConcurrentGrants(t *testing.T) {
	ts := startServer(t, "")
	admin := ts.conn(t)
	mustExec(t, admin, "CREATE ROLE alice LOGIN")
	mustExec(t, admin, "CREATE TABLE t (x int)")
	mustExec(t, admin, "INSERT INTO t VALUES (1)")
	ctx := context.Background()
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var reads, denials [4]int
	for i := 0; i < 4; i++ {
		c := ts.connAs(t, "alice")
		go func(i int) {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				var n int
				err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
				switch {
				case err == nil && n == 1:
					reads[i]++
				case pgCode(err) == "42501":
					denials[i]++
				default:
					errs <- fmt.Errorf("reader %d: %d %v", i, n, err)
					return
				}
			}
		}(i)
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	for k := 0; time.Now().Before(deadline); k++ {
		mustExec(t, admin, "GRANT SELECT ON t TO alice")
		mustExec(t, admin, fmt.Sprintf("CREATE ROLE r%d", k))
		mustExec(t, admin, "REVOKE SELECT ON t FROM alice")
	}
	close(stop)
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if reads == [4]int{} || denials == [4]int{} {
		t.Errorf("reads %v denials %v: both states should have been seen", reads, denials)
	}
}
