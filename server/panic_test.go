package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A statement that panics ends its session with FATAL XX000, as
// PostgreSQL ends a backend that crashed: what the session held (its
// DuckDB connection's lock, if the panic came from inside a driver call)
// is unknown, and its next statement could wait forever. The server and
// the other sessions go on.
func TestPanicEndsTheSession(t *testing.T) {
	ts := startServerWith(t, "", 200*time.Millisecond, func(b *Backend) {
		b.testQueryHook = func(q string) {
			if q == "SELECT 'boom'" {
				panic("boom")
			}
		}
	})
	ctx := context.Background()
	other := ts.conn(t)
	c := ts.conn(t)
	_, err := c.Exec(ctx, "SELECT 'boom'", pgx.QueryExecModeSimpleProtocol)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX000" || pe.Severity != "FATAL" {
		t.Fatalf("panicking statement: %v, want FATAL XX000", err)
	}
	if _, err := c.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol); err == nil {
		t.Fatal("the session went on after the panic")
	}
	for _, cc := range []*pgx.Conn{other, ts.conn(t)} {
		if got := queryStrings(t, cc, "SELECT 1"); len(got) != 1 || got[0] != "1" {
			t.Fatalf("another session after the panic: %v", got)
		}
	}
}
