package server

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The transcripts of clients/session_diff_test.go compare cursors, PREPARE
// and the session functions with PostgreSQL over the simple protocol; these
// tests cover what only the extended protocol (pgx) shows.

// TestCursorsExtendedProtocol: DECLARE with a parameter, FETCH described
// by Describe (its columns come from the cursor), and 25P01 for DECLARE
// in the implicit transaction of the extended protocol.
func TestCursorsExtendedProtocol(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE cx (id integer, name text)")
	mustExec(t, c, "INSERT INTO cx VALUES (1, 'a'), (2, 'b'), (3, 'c')")

	_, err := c.Exec(ctx, "DECLARE nope CURSOR FOR SELECT id FROM cx")
	if pgCode(err) != "25P01" {
		t.Fatalf("DECLARE outside a block: %v, want 25P01", err)
	}

	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "DECLARE cur CURSOR FOR SELECT id * $1::int AS x, name FROM cx WHERE id >= $2 ORDER BY id", 10, 2); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "FETCH 1 FROM cur")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var x int32
		var name string
		if err := rows.Scan(&x, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+":"+strconv.Itoa(int(x)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if fds := rows.FieldDescriptions(); len(fds) != 2 || fds[0].Name != "x" || fds[0].DataTypeOID != 23 {
		t.Errorf("FETCH columns %+v", fds)
	}
	if tag := rows.CommandTag().String(); tag != "FETCH 1" {
		t.Errorf("tag %q", tag)
	}
	rest := queryStrings(t, tx.Conn(), "FETCH ALL FROM cur")
	got = append(got, rest...)
	if want := "b:20 30|c"; strings.Join(got, " ") != want {
		t.Errorf("fetched %q, want %q", strings.Join(got, " "), want)
	}
	tag, err := tx.Exec(ctx, "MOVE BACKWARD 1 IN cur")
	if pgCode(err) != "55000" {
		t.Errorf("MOVE BACKWARD on a forward-only cursor: %v %v, want 55000", tag, err)
	}
}

// TestDeallocateProtocolStatement: SQL DEALLOCATE drops a statement made by
// Parse (one namespace, as in PostgreSQL), after which the name can be
// prepared again; EXECUTE runs a Parse-made statement; Parse of a name SQL
// PREPARE took fails 42P05.
func TestDeallocateProtocolStatement(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	if _, err := c.Prepare(ctx, "ps1", "SELECT $1::int + 1 AS n"); err != nil {
		t.Fatal(err)
	}
	simple := pgx.QueryExecModeSimpleProtocol
	var n int32
	if err := c.QueryRow(ctx, "EXECUTE ps1(41)", simple).Scan(&n); err != nil || n != 42 {
		t.Fatalf("EXECUTE of a Parse-made statement: %v %d", err, n)
	}
	if _, err := c.Exec(ctx, "DEALLOCATE ps1", simple); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "EXECUTE ps1(1)", simple); pgCode(err) != "26000" {
		t.Fatalf("EXECUTE after DEALLOCATE: %v, want 26000", err)
	}
	// pgx's own cache still knows ps1: prepare it again through the wire.
	if _, err := c.PgConn().Prepare(ctx, "ps1", "SELECT 2 AS two", nil); err != nil {
		t.Fatalf("Parse of a deallocated name: %v", err)
	}
	if _, err := c.Exec(ctx, "PREPARE sqlp AS SELECT 1", simple); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PgConn().Prepare(ctx, "sqlp", "SELECT 1", nil); pgCode(err) != "42P05" {
		t.Fatalf("Parse of a name SQL PREPARE took: %v, want 42P05", err)
	}
	if _, err := c.Exec(ctx, "DEALLOCATE ALL", simple); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PgConn().Prepare(ctx, "sqlp", "SELECT 1", nil); err != nil {
		t.Fatalf("Parse after DEALLOCATE ALL: %v", err)
	}
}

// TestSessionFunctions: set_config with parameters and its
// ParameterStatus, errors with their SQLSTATE over the extended protocol,
// TimeZone through set_config, txid_current per transaction,
// pg_postmaster_start_time.
func TestSessionFunctions(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	var v string
	if err := c.QueryRow(ctx, "SELECT set_config($1, $2, false)", "application_name", "from pgx").Scan(&v); err != nil || v != "from pgx" {
		t.Fatalf("set_config: %v %q", err, v)
	}
	if got := c.PgConn().ParameterStatus("application_name"); got != "from pgx" {
		t.Errorf("ParameterStatus application_name = %q after set_config", got)
	}
	if err := c.QueryRow(ctx, "SELECT current_setting($1)", "application_name").Scan(&v); err != nil || v != "from pgx" {
		t.Errorf("current_setting: %v %q", err, v)
	}
	if _, err := c.Exec(ctx, "SELECT set_config('server_version', '1', false)"); pgCode(err) != "55P02" {
		t.Errorf("set_config of a read-only parameter: %v, want 55P02", err)
	}
	if _, err := c.Exec(ctx, "SELECT current_setting($1)", "no_such_thing"); pgCode(err) != "42704" {
		t.Errorf("current_setting of an unknown parameter: %v, want 42704", err)
	}
	if err := c.QueryRow(ctx, "SELECT set_config('TimeZone', 'Asia/Tokyo', false)").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT timestamptz '2024-01-01 00:00:00+00'::text").Scan(&v); err != nil || v != "2024-01-01 09:00:00+09" {
		t.Errorf("timestamptz after set_config TimeZone: %v %q", err, v)
	}

	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var a, b, a2 int64
	if err := tx.QueryRow(ctx, "SELECT txid_current()").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "SELECT pg_current_xact_id()::text::int8").Scan(&a2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT txid_current()").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if a <= 0 || a2 != a || b <= a {
		t.Errorf("txid_current: %d, %d in one transaction, then %d", a, a2, b)
	}
	other := ts.conn(t)
	var o int64
	if err := other.QueryRow(ctx, "SELECT txid_current()").Scan(&o); err != nil || o <= b {
		t.Errorf("txid_current of another session: %v %d after %d", err, o, b)
	}

	var start time.Time
	if err := c.QueryRow(ctx, "SELECT pg_postmaster_start_time()").Scan(&start); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 0 || d > 10*time.Minute {
		t.Errorf("pg_postmaster_start_time %v is %v ago", start, d)
	}
}

// pgCode is the SQLSTATE of a (possibly wrapped) server error.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
