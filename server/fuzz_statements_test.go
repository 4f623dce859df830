package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// FuzzStatements sends random statements to an in-process server: the
// parser (pg_query), the translator and the engine (DuckDB) all run in this
// process, so a crash in C code ends the fuzzer with the input that caused
// it. Each input is a raw string (mutated byte by byte by the fuzzer) and a
// choice string that drives a grammar of PostgreSQL statements (stmtGen):
// mutations of the choices are mutations of the statement's structure.
//
// It fails on: a signal (the process dies); a panic in a session (which
// the server turns into FATAL XX000); a statement calling a function that
// PostgreSQL does not have that does not fail; a server that stops
// answering. Errors are otherwise expected: most random statements are
// wrong. The crashers found are kept under testdata/fuzz/FuzzStatements,
// with the statements that once killed the server.
//
//	go test -run '^$' -fuzz '^FuzzStatements$' -fuzztime 10m ./server
func FuzzStatements(f *testing.F) {
	for _, seed := range []struct {
		raw     string
		choices []byte
	}{
		{"SELECT ~5", nil},
		{"SELECT 1" + strings.Repeat("+1", 40000), nil},
		{"SELECT '" + strings.Repeat("{", 4500) + "1" + strings.Repeat("}", 4500) + "'::int[]", nil},
		{"SELECT format('%*0$s', 'Hello')", nil},
		{"SELECT * FROM read_text('/etc/passwd')", nil},
		{"SELECT a, b FROM ft1 WHERE c > 1 ORDER BY 1", []byte{0, 1, 9, 9, 2, 3, 5, 7, 11, 13}},
		{"", []byte("\x00\x05\x09\x0e\x0f\x10\x11\x12\x13\x14\x15")},
		{"EXPLAIN SELECT count(*) FROM ft1 JOIN ft2 ON a = k", []byte{7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		// Statements of this milestone's features, for the mutator.
		{"CREATE INDEX IF NOT EXISTS ON ft1 USING hash (lower(b), a DESC NULLS LAST) INCLUDE (c) WHERE a > 0", nil},
		{"DROP INDEX IF EXISTS ft1_a_idx, public.nosuch CASCADE", nil},
		{"REINDEX (VERBOSE) TABLE CONCURRENTLY ft1", nil},
		{"SELECT rank(1, 'x') WITHIN GROUP (ORDER BY a DESC, b NULLS FIRST) FILTER (WHERE c > 0) FROM ft1", nil},
		{"SELECT FROM ft1 WHERE EXISTS (SELECT FROM ft2) UNION ALL SELECT FROM ft1", nil},
		{"UPDATE postgres.public.ft1 SET a = NULL WHERE $1 IS NULL RETURNING *", nil},
	} {
		f.Add(seed.raw, seed.choices)
	}
	ts := startServer(f, "")
	ctx := context.Background()
	setup, err := pgx.Connect(ctx, ts.url())
	if err != nil {
		f.Fatal(err)
	}
	if _, err := setup.Exec(ctx, fuzzSetup, pgx.QueryExecModeSimpleProtocol); err != nil {
		f.Fatal(err)
	}
	setup.Close(ctx)
	var conn *pgx.Conn
	f.Fuzz(func(t *testing.T, raw string, choices []byte) {
		if conn == nil || conn.IsClosed() {
			c, err := pgx.Connect(ctx, ts.url()+"&statement_timeout=2000")
			if err != nil {
				t.Fatalf("the server does not accept a connection: %v", err)
			}
			conn = c
		}
		run := func(q string, mustFail bool) {
			cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			_, err := conn.Exec(cctx, q, pgx.QueryExecModeSimpleProtocol)
			var pe *pgconn.PgError
			switch {
			case errors.As(err, &pe) && pe.Severity == "FATAL" && pe.Code == "XX000":
				t.Fatalf("a panic in the session: %s\nstatement: %.2000s", pe.Message, q)
			case err == nil && mustFail:
				t.Fatalf("a call of a function PostgreSQL does not have succeeded: %.2000s", q)
			case err != nil && pe == nil && !conn.IsClosed():
				// A client-side error (a value pgx cannot decode): fine.
			}
			if conn.IsClosed() {
				conn = nil
				return
			}
			if _, err := conn.Exec(cctx, "ROLLBACK; DEALLOCATE ALL; RESET ALL", pgx.QueryExecModeSimpleProtocol); err != nil {
				conn.Close(ctx)
				conn = nil
			}
		}
		if raw != "" && len(raw) <= 100_000 {
			run(raw, false)
		}
		if len(choices) > 0 {
			g := &stmtGen{src: choices}
			q := g.statement()
			if conn == nil {
				c, err := pgx.Connect(ctx, ts.url()+"&statement_timeout=2000")
				if err != nil {
					t.Fatalf("the server does not accept a connection: %v", err)
				}
				conn = c
			}
			run(q, g.forbidden)
		}
		if conn != nil {
			return // it answered the statements' ROLLBACK
		}
		// The session ended (a FATAL, a closed socket): the server still
		// answers a fresh connection.
		check, err := pgx.Connect(ctx, ts.url())
		if err != nil {
			t.Fatalf("the server stopped accepting connections: %v", err)
		}
		var one int
		if err := check.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("the server stopped answering: %v", err)
		}
		check.Close(ctx)
	})
}
