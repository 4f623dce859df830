package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMultiTableTransaction: writes to two tables inside BEGIN ... COMMIT
// are invisible to other sessions until COMMIT, then visible in both at
// once: a reader that counts both tables in one statement, while
// transfers commit, always finds the same count (PostgreSQL's snapshot).
// After a restart both tables hold every committed row.
func TestMultiTableTransaction(t *testing.T) {
	dir := t.TempDir()
	ts := startServerWith(t, dir, 50*time.Millisecond, func(*Backend) {})
	c := ts.conn(t)
	other := ts.conn(t)
	mustExec(t, c, "CREATE TABLE debit (id int, amount int)")
	mustExec(t, c, "CREATE TABLE credit (id int, amount int)")
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO debit VALUES (0, -5)")
	mustExec(t, c, "INSERT INTO credit VALUES (0, 5)")
	if got := queryStrings(t, c, "SELECT (SELECT sum(amount) FROM debit) + (SELECT sum(amount) FROM credit)"); got[0] != "0" {
		t.Fatalf("own writes in the block: %v", got)
	}
	if got := queryStrings(t, other, "SELECT (SELECT count(*) FROM debit), (SELECT count(*) FROM credit)"); got[0] != "0|0" {
		t.Fatalf("another session sees uncommitted writes: %v", got)
	}
	mustExec(t, c, "COMMIT")
	if got := queryStrings(t, other, "SELECT (SELECT count(*) FROM debit), (SELECT count(*) FROM credit)"); got[0] != "1|1" {
		t.Fatalf("after COMMIT: %v", got)
	}

	const transfers = 200
	var stop atomic.Bool
	var reads, torn atomic.Int64
	var wg sync.WaitGroup
	for r := range 2 {
		rc := ts.conn(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two query shapes: count(*) binds the tables without their
			// columns; sum(amount) mirrors the buffered rows.
			q := "SELECT (SELECT count(*) FROM debit) - (SELECT count(*) FROM credit)"
			if r == 1 {
				q = "SELECT coalesce((SELECT sum(amount) FROM debit), 0) + coalesce((SELECT sum(amount) FROM credit), 0)"
			}
			for !stop.Load() {
				var d int64
				if err := rc.QueryRow(context.Background(), q).Scan(&d); err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
				if d != 0 {
					torn.Add(1)
				}
			}
		}()
	}
	for i := 1; i <= transfers; i++ {
		mustExec(t, c, fmt.Sprintf("BEGIN; INSERT INTO debit VALUES (%d, -%d); INSERT INTO credit VALUES (%d, %d); COMMIT", i, i, i, i))
	}
	stop.Store(true)
	wg.Wait()
	if torn.Load() > 0 {
		t.Errorf("%d of %d reads saw a transfer in one table only", torn.Load(), reads.Load())
	}
	t.Logf("%d reads during %d transfers", reads.Load(), transfers)

	c.Close(context.Background())
	other.Close(context.Background())
	ts.stop()
	ts2 := startServer(t, dir)
	c2 := ts2.conn(t)
	want := fmt.Sprintf("%d|%d|0", transfers+1, transfers+1)
	if got := queryStrings(t, c2, "SELECT (SELECT count(*) FROM debit), (SELECT count(DISTINCT id) FROM credit), (SELECT sum(amount) FROM debit) + (SELECT sum(amount) FROM credit)"); got[0] != want {
		t.Fatalf("after restart: %v, want %s", got, want)
	}
}
