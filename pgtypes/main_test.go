package pgtypes

import (
	"context"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { pgref.Main(m) }

// refConn connects to the reference PostgreSQL (skips/fails per pgref).
func refConn(t *testing.T) *pgconn.PgConn {
	t.Helper()
	url := pgref.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect reference: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func refExec(t *testing.T, c *pgconn.PgConn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql).ReadAll(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// refValue runs `SELECT <expr>` and returns the value in the given format
// (0 text, 1 binary), or the server error.
func refValue(c *pgconn.PgConn, expr string, format int16) ([]byte, bool, error) {
	rr := c.ExecParams(context.Background(), "SELECT "+expr, nil, nil, nil, []int16{format})
	var val []byte
	isNull := true
	for rr.NextRow() {
		v := rr.Values()[0]
		if v != nil {
			val = append([]byte{}, v...)
			isNull = false
		}
	}
	_, err := rr.Close()
	return val, isNull, err
}
