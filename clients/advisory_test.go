package clients

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// advisoryTranscript runs the advisory lock scenario on url with two
// sessions and renders what they see.
func advisoryTranscript(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	b, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var errs []*pgconn.PgError
	run := func(who string, c *pgx.Conn, q string, args ...any) {
		rows, err := c.Query(ctx, q, args...)
		if err == nil {
			for rows.Next() {
				vals, _ := rows.Values()
				fmt.Fprintf(&out, "%s %s: %v\n", who, q, vals)
			}
			rows.Close()
			err = rows.Err()
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			errs = append(errs, pe)
			fmt.Fprintf(&out, "%s %s: ERROR %s %s\n", who, q, pe.Code, pe.Message)
		} else if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	run("A", a, "SELECT pg_advisory_lock(1)::text")
	run("A", a, "SELECT pg_advisory_lock($1)::text", int64(1)) // counted: twice
	run("A", a, "SELECT pg_try_advisory_lock(1, 2)")
	run("B", b, "SELECT pg_try_advisory_lock(1), pg_try_advisory_lock(1, 2), pg_try_advisory_lock(2, 1)")
	run("B", b, "SELECT pg_try_advisory_lock_shared(1)")
	run("B", b, "SET statement_timeout = 300")
	run("B", b, "SELECT pg_advisory_lock(1)::text") // waits, canceled
	run("B", b, "SET statement_timeout = 0")
	run("A", a, "SELECT pg_advisory_unlock(1)")
	run("B", b, "SELECT pg_try_advisory_lock(1)") // still held once
	run("A", a, "SELECT pg_advisory_unlock(1), pg_advisory_unlock(1)")
	run("A", a, "SELECT pg_advisory_lock_shared(7)::text")
	run("B", b, "SELECT pg_try_advisory_lock_shared(7), pg_try_advisory_lock(7)")
	run("B", b, "BEGIN")
	run("B", b, "SELECT pg_try_advisory_xact_lock(9)")
	run("A", a, "SELECT pg_try_advisory_lock(9)")
	run("B", b, "COMMIT")
	run("A", a, "SELECT pg_try_advisory_lock(9)")
	run("A", a, "SELECT pg_advisory_unlock_all()::text")
	run("B", b, "SELECT pg_try_advisory_lock(9), pg_try_advisory_lock(1, 2)")
	// A lock of a session that ends is released.
	b.Close(ctx)
	time.Sleep(200 * time.Millisecond)
	run("A", a, "SELECT pg_try_advisory_lock(9), pg_try_advisory_lock(1, 2)")
	run("A", a, "UNLISTEN *")
	run("A", a, "LISTEN ch")
	run("A", a, "UNLISTEN ch")
	checkErrorTexts(t, "advisory", errs)
	return out.String()
}

// TestAdvisoryLocksMatchPostgres: the advisory lock functions share one
// lock table between sessions, count session-level locks, end
// transaction-level ones with the transaction and a session's with the
// session, and a blocked pg_advisory_lock is canceled by statement_timeout,
// as in PostgreSQL. LISTEN / UNLISTEN are accepted (asyncpg's pool reset
// sends pg_advisory_unlock_all() and UNLISTEN *).
func TestAdvisoryLocksMatchPostgres(t *testing.T) {
	want := advisoryTranscript(t, pgref.NewDatabase(t, pgref.Start(t)))
	s := startServer(t)
	got := advisoryTranscript(t, s.url("postgres"))
	if got != want {
		t.Errorf("advisory locks differ (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg:\n%s", lineDiff(got, want), got)
	}
}
