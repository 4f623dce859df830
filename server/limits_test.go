package server

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
)

// startServerPG starts a server whose pgwire configuration is pcfg (the
// listener and trust authentication are set here), with Backend.Server
// set as cmd/bsdb-pg sets it.
func startServerPG(t testing.TB, pcfg pgwire.Config) *testServer {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := planner.Open(ctx, planner.Config{DataDir: dir, FlushInterval: 200 * time.Millisecond, MaxConcurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBackend(eng, nil)
	pcfg.ServerVersion = ServerVersion
	pcfg.Auth = pgwire.AuthConfig{Method: "trust", TrustLoopback: true}
	srv := pgwire.NewServer(pcfg, b)
	b.Server = func() *pgwire.Server { return srv }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	ts := &testServer{t: t, dir: dir, eng: eng, b: b, srv: srv, addr: ln.Addr().String()}
	t.Cleanup(ts.stop)
	return ts
}

// max_connections is what the server enforces, and what SHOW and
// pg_settings say: with 7, the eighth client gets FATAL 53300.
func TestMaxConnectionsSetting(t *testing.T) {
	ts := startServerPG(t, pgwire.Config{MaxConnections: 7})
	ctx := context.Background()
	var conns []*pgx.Conn
	for i := 0; i < 7; i++ {
		conns = append(conns, ts.conn(t))
	}
	for _, q := range []string{"SHOW max_connections", "SELECT setting FROM pg_settings WHERE name = 'max_connections'"} {
		var v string
		if err := conns[0].QueryRow(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if v != "7" {
			t.Fatalf("%s = %s, want 7", q, v)
		}
	}
	var reserved string
	if err := conns[0].QueryRow(ctx, "SHOW superuser_reserved_connections").Scan(&reserved); err != nil || reserved != "3" {
		t.Fatalf("superuser_reserved_connections = %q (%v), want 3", reserved, err)
	}
	_, err := pgx.Connect(ctx, ts.url())
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" || pe.Severity != "FATAL" || pe.Message != "sorry, too many clients already" {
		t.Fatalf("eighth connection: %v, want FATAL 53300 sorry, too many clients already", err)
	}
	conns[6].Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := pgx.Connect(ctx, ts.url())
		if err == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a client left: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The last superuser_reserved_connections slots admit superusers only:
// with max_connections 5 and 3 reserved, a role without SUPERUSER gets two
// connections and then PostgreSQL's FATAL, while postgres still connects.
func TestReservedConnectionsForSuperusers(t *testing.T) {
	ts := startServerPG(t, pgwire.Config{MaxConnections: 5, ReservedConnections: 3})
	ctx := context.Background()
	admin := ts.conn(t)
	if _, err := admin.Exec(ctx, "CREATE ROLE alice LOGIN"); err != nil {
		t.Fatal(err)
	}
	aliceURL := "postgres://alice@" + ts.addr + "/postgres?sslmode=disable"
	for i := 0; i < 1; i++ { // admin holds one slot: alice gets the other non-reserved one
		c, err := pgx.Connect(ctx, aliceURL)
		if err != nil {
			t.Fatalf("alice's connection %d: %v", i+1, err)
		}
		defer c.Close(ctx)
	}
	_, err := pgx.Connect(ctx, aliceURL)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" || pe.Message != "remaining connection slots are reserved for non-replication superuser connections" {
		t.Fatalf("alice in a reserved slot: %v, want FATAL 53300", err)
	}
	for i := 0; i < 3; i++ {
		ts.conn(t) // superusers take the reserved slots (alice's refused one was freed before her FATAL)
	}
}

// Settings that pg_dump's preamble, drivers and PostgreSQL's regression
// scripts send are accepted and shown as PostgreSQL shows them, and a
// client_encoding is read as PostgreSQL reads encoding names (asyncpg
// sends the quoted 'utf-8').
func TestToolSettings(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, ts.url()+"&client_encoding='utf-8'")
	if err != nil {
		t.Fatalf("client_encoding 'utf-8' with its quotes: %v", err)
	}
	defer c.Close(ctx)
	for _, s := range []struct{ set, show, want string }{
		{"SET check_function_bodies = false", "SHOW check_function_bodies", "off"},
		{"SET default_tablespace = ''", "SHOW default_tablespace", ""},
		{"SET default_table_access_method = heap", "SHOW default_table_access_method", "heap"},
		{"SET enable_seqscan = 'of'", "SHOW enable_seqscan", "off"},
		{"SET enable_hashjoin TO true", "SHOW enable_hashjoin", "on"},
		{"SET idle_session_timeout = 0", "SHOW idle_session_timeout", "0"},
		{"SET client_encoding = 'unicode'", "SHOW client_encoding", "UTF8"},
	} {
		if _, err := c.Exec(ctx, s.set); err != nil {
			t.Fatalf("%s: %v", s.set, err)
		}
		if got := queryStrings(t, c, s.show); len(got) != 1 || got[0] != s.want {
			t.Errorf("%s after %s: %v, want %q", s.show, s.set, got, s.want)
		}
	}
	_, err = c.Exec(ctx, "SET enable_seqscan = 'maybe'")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22023" || pe.Message != `parameter "enable_seqscan" requires a Boolean value` {
		t.Errorf("a bad boolean: %v", err)
	}
}

// VACUUM and ANALYZE (what pg_restore, ORMs and PostgreSQL's regression
// scripts run) are accepted: there is nothing to reclaim or measure, but a
// table that does not exist and VACUUM inside a block are PostgreSQL's
// errors.
func TestVacuumAnalyze(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE va (a int)", "VACUUM va", "VACUUM", "ANALYZE va", "VACUUM ANALYZE va", "VACUUM (VERBOSE false) va"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, s := range []struct{ q, code, msg string }{
		{"VACUUM nosuch", "42P01", `relation "nosuch" does not exist`},
		{"ANALYZE nosuch", "42P01", `relation "nosuch" does not exist`},
		{"BEGIN; VACUUM va", "25001", "VACUUM cannot run inside a transaction block"},
	} {
		_, err := c.Exec(ctx, s.q, pgx.QueryExecModeSimpleProtocol)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != s.code || pe.Message != s.msg {
			t.Errorf("%s: %v, want %s %s", s.q, err, s.code, s.msg)
		}
		_, _ = c.Exec(ctx, "ROLLBACK")
	}
}
