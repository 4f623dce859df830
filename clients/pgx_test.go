package clients

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgx: the extended protocol with typed parameters, CopyFrom, a batch,
// cancellation of a running query, and pg_stat_activity showing the real
// sessions.
func TestPgx(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url := s.url("postgres") + "&application_name=pgxcheck"
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// First statement of the connection calls catalog functions only (no
	// catalog relation): the session must prepare its macros on demand.
	var db, version, cur string
	if err := conn.QueryRow(ctx, "SELECT current_database(), version(), current_user").Scan(&db, &version, &cur); err != nil ||
		db != "postgres" || cur != "postgres" || !strings.HasPrefix(version, "PostgreSQL 15.18 (bsdb-pg) on ") {
		t.Errorf("functions on a fresh connection: %q %q %q %v", db, version, cur, err)
	}
	for _, q := range fixture {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	// Extended protocol: parameters typed by the server, NULL, reuse.
	var name string
	var v *float64
	if err := conn.QueryRow(ctx, "SELECT name, v::float8 FROM t WHERE id = $1", 2).Scan(&name, &v); err != nil || name != "two" || v != nil {
		t.Errorf("select: %q %v %v", name, v, err)
	}

	// CopyFrom (binary COPY).
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "name", "v"}, pgx.CopyFromRows([][]any{{100, "c1", "1.5"}, {101, "c2", nil}}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}

	// Batch.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t (id, name) VALUES ($1, $2)", 200, "batch")
	b.Queue("SELECT count(*) FROM t")
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		t.Fatalf("batch insert: %v", err)
	}
	var count int
	if err := br.QueryRow().Scan(&count); err != nil || count != 5 {
		t.Errorf("batch count: %d %v", count, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

	// pg_stat_activity lists this session (pid = pg_backend_pid(), user,
	// application_name, state active while it runs the query) and another one.
	// Simple protocol: with the extended protocol the catalog is snapshotted
	// when the statement is parsed (state idle, previous query): known gap.
	other, err := pgx.Connect(ctx, s.url("postgres")+"&application_name=idler")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	var pid, me uint32
	var user, app, state, query string
	err = conn.QueryRow(ctx, `SELECT pid, pg_backend_pid(), usename, application_name, state, query
		FROM pg_stat_activity WHERE application_name = 'pgxcheck'`, pgx.QueryExecModeSimpleProtocol).Scan(&pid, &me, &user, &app, &state, &query)
	if err != nil {
		t.Fatal(err)
	}
	if pid != me || pid != conn.PgConn().PID() || user != "postgres" || state != "active" || !strings.Contains(query, "pg_stat_activity") {
		t.Errorf("own row: pid %d (backend %d, conn %d) user %q app %q state %q query %q", pid, me, conn.PgConn().PID(), user, app, state, query)
	}
	var idleState string
	if err := conn.QueryRow(ctx, "SELECT state FROM pg_stat_activity WHERE application_name = 'idler'").Scan(&idleState); err != nil || idleState != "idle" {
		t.Errorf("other session: %q %v", idleState, err)
	}

	// pg_settings shows the session's values.
	var sv, ds string
	if err := conn.QueryRow(ctx, "SELECT (SELECT setting FROM pg_settings WHERE name = 'server_version'), (SELECT setting FROM pg_settings WHERE name = 'DateStyle')").Scan(&sv, &ds); err != nil || sv != "15.18" || ds != "ISO, MDY" {
		t.Errorf("pg_settings: %q %q %v", sv, ds, err)
	}

	// A cast to regclass of an unknown name: PostgreSQL's message. Gaps: the
	// SQLSTATE is XX000, not 42P01 (sql.MapError has no rule for errors
	// raised by pgcatalog's macros), and there is no position.
	_, err = conn.Exec(ctx, "SELECT 'nosuch'::regclass", pgx.QueryExecModeSimpleProtocol)
	if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Message != `relation "nosuch" does not exist` {
		t.Errorf("'nosuch'::regclass: %v", err)
	}

	// Cancel: a long query is interrupted with 57014.
	qctx, qcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer qcancel()
	_, err = conn.Exec(qctx, "SELECT count(*) FROM generate_series(1, 100000000000) a")
	var pe *pgconn.PgError
	if err == nil || (!errors.As(err, &pe) && !pgconn.Timeout(err)) || (pe != nil && pe.Code != "57014") {
		t.Errorf("cancel: %v", err)
	}
}
