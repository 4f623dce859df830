package clients

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// rolesOfScript are the roles testdata/roles.sql creates (dropped from the
// reference cluster before and after the test: roles are cluster-wide).
var rolesOfScript = []string{"rp_alice", "rp_bob", "rp_grp", "rp_e1", "rp_x1", "rp_x2", "rp_md", "rp_md2", "rp_plain", "rp_carol"}

// dropScriptRoles removes what testdata/roles.sql left in the reference
// cluster, whatever state it got to: its databases, then each role's
// objects and grants in the test database, then the roles.
func dropScriptRoles(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer c.Close(context.Background())
	stmts := []string{"DROP DATABASE IF EXISTS rp_dd", "DROP DATABASE IF EXISTS rp_de", "DROP DATABASE IF EXISTS rp_d2"}
	for _, r := range rolesOfScript {
		stmts = append(stmts, "DO $$BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '"+r+"') THEN EXECUTE 'DROP OWNED BY "+r+" CASCADE'; END IF; END$$")
	}
	for _, r := range rolesOfScript {
		stmts = append(stmts, "DROP ROLE IF EXISTS "+r)
	}
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q).ReadAll(); err != nil {
			t.Logf("cleanup %s: %v", q, err)
		}
	}
}

var locationLine = regexp.MustCompile(`(?m)^LOCATION:  .*\n`)

// TestRolesMatchPostgres: role, privilege and ownership statements, run
// through psql as several roles (\c - role), print on bsdb-pg what they
// print on PostgreSQL 15: results, SQLSTATEs and messages (VERBOSITY
// verbose, PostgreSQL's source locations aside), \du, \dp, \dn+, \l, \dt.
func TestRolesMatchPostgres(t *testing.T) {
	bin := need(t, "psql")
	ref := pgref.NewDatabase(t, pgref.Start(t))
	dropScriptRoles(t, ref)
	t.Cleanup(func() { dropScriptRoles(t, ref) })
	db := ref[strings.LastIndex(ref, "/")+1 : strings.Index(ref, "?")]
	s := startServer(t)
	execSQL(t, s.url("postgres"), "CREATE DATABASE "+db)
	script, err := os.ReadFile("testdata/roles.sql")
	if err != nil {
		t.Fatal(err)
	}
	got := locationLine.ReplaceAllString(psql(t, bin, s.url(db), string(script)), "")
	want := locationLine.ReplaceAllString(psql(t, bin, ref, string(script)), "")
	if d := lineDiff(got, want); d != "" {
		t.Errorf("psql output differs from PostgreSQL's:\n%s\n--- bsdb-pg output:\n%s", d, got)
	}
	for _, must := range []string{"permission denied for table rp_t", "rp_alice=r/postgres", "must be owner of table rp_t", `role "rp_nosuch" does not exist`} {
		if !strings.Contains(got, must) {
			t.Errorf("output lacks %q", must)
		}
	}
}

// TestRolesAcrossProcesses: two servers on one data directory (one
// warehouse): a role created, a grant and a revoke made through one are in
// force in the other within a second or so (its catalog cache's TTL).
func TestRolesAcrossProcesses(t *testing.T) {
	a := startServer(t)
	b := testserver.Start(t, testserver.Options{DataDir: a.DataDir})
	url := func(s *testserver.Server, user string) string {
		return "postgres://" + user + "@" + s.Addr() + "/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	execSQL(t, url(a.Server, "postgres"), "CREATE ROLE rx LOGIN", "CREATE TABLE shared_t (x int)", "INSERT INTO shared_t VALUES (1)")
	// eventually retries f until it reports done, for up to 10 s.
	eventually := func(what string, f func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			ok, state := f()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %s after 10 s", what, state)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	var rx *pgx.Conn
	eventually("role created in A logs in on B", func() (bool, string) {
		c, err := pgx.Connect(ctx, url(b, "rx"))
		if err != nil {
			return false, err.Error()
		}
		rx = c
		return true, ""
	})
	defer rx.Close(ctx)
	read := func() (bool, string) {
		var n int
		err := rx.QueryRow(ctx, "SELECT count(*) FROM shared_t").Scan(&n)
		if err != nil {
			return false, err.Error()
		}
		return true, "readable"
	}
	if ok, state := read(); ok || !strings.Contains(state, "permission denied for table shared_t") {
		t.Fatalf("rx reads shared_t before any grant: %s", state)
	}
	execSQL(t, url(a.Server, "postgres"), "GRANT SELECT ON shared_t TO rx")
	eventually("GRANT in A", read)
	execSQL(t, url(a.Server, "postgres"), "REVOKE SELECT ON shared_t FROM rx")
	eventually("REVOKE in A", func() (bool, string) { ok, state := read(); return !ok, state })
	execSQL(t, url(a.Server, "postgres"), "DROP ROLE rx")
	eventually("DROP ROLE in A", func() (bool, string) {
		c, err := pgx.Connect(ctx, url(b, "rx"))
		if err == nil {
			c.Close(ctx)
			return false, "accepted"
		}
		return strings.Contains(err.Error(), `role "rx" does not exist`), err.Error()
	})
}
