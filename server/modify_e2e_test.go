package server

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestUpdateConflicts: a row changed by an open transaction cannot be
// changed by another (40001 at once, PostgreSQL's REPEATABLE READ error;
// no waiting), rows of the same table that no one else changes can, and
// after the first transaction ends the row is changeable again.
func TestUpdateConflicts(t *testing.T) {
	ts := startServer(t, "")
	a, b := ts.conn(t), ts.conn(t)
	mustExec(t, a, "CREATE TABLE acct (id int, bal int)")
	mustExec(t, a, "INSERT INTO acct SELECT g, 100 FROM generate_series(1, 10) g")
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "UPDATE acct SET bal = bal - 10 WHERE id = 1")
	_, err := b.Exec(context.Background(), "UPDATE acct SET bal = bal + 1 WHERE id = 1")
	wantErr(t, "update of a row an open transaction changed", err, "40001", "could not serialize access due to concurrent update")
	_, err = b.Exec(context.Background(), "DELETE FROM acct WHERE id <= 2")
	wantErr(t, "delete of a row an open transaction changed", err, "40001", "could not serialize access due to concurrent update")
	if tag := mustExec(t, b, "UPDATE acct SET bal = bal + 1 WHERE id = 2"); tag.String() != "UPDATE 1" {
		t.Errorf("another row: %s", tag)
	}
	// The failed statements changed nothing.
	if got := fmt.Sprint(queryStrings(t, b, "SELECT id, bal FROM acct WHERE id <= 2 ORDER BY id")); got != "[1|100 2|101]" {
		t.Errorf("before commit: %s", got)
	}
	mustExec(t, a, "COMMIT")
	if got := fmt.Sprint(queryStrings(t, b, "SELECT id, bal FROM acct WHERE id <= 2 ORDER BY id")); got != "[1|90 2|101]" {
		t.Errorf("after commit: %s", got)
	}
	mustExec(t, b, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
	// A rolled back transaction releases its rows.
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "DELETE FROM acct WHERE id = 3")
	mustExec(t, a, "ROLLBACK")
	mustExec(t, b, "UPDATE acct SET bal = 0 WHERE id = 3")
	if got := fmt.Sprint(queryStrings(t, b, "SELECT id, bal FROM acct WHERE id IN (1, 3) ORDER BY id")); got != "[1|91 3|0]" {
		t.Errorf("end: %s", got)
	}
}

// TestConcurrentIncrementsLoseNothing: sessions increment one counter
// row (retrying on 40001) and their own rows at the same time; every
// acknowledged increment is in the table once: no lost update, no row
// twice, none missing.
func TestConcurrentIncrementsLoseNothing(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	const workers, rounds = 6, 25
	mustExec(t, c, "CREATE TABLE cnt (id int, n int)")
	mustExec(t, c, fmt.Sprintf("INSERT INTO cnt SELECT g, 0 FROM generate_series(0, %d) g", workers))
	var mu sync.Mutex
	acked := 0
	var wg sync.WaitGroup
	for w := 1; w <= workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(context.Background(), ts.url())
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(context.Background())
			for i := 0; i < rounds; i++ {
				for {
					_, err := conn.Exec(context.Background(), "UPDATE cnt SET n = n + 1 WHERE id = 0")
					if err == nil {
						mu.Lock()
						acked++
						mu.Unlock()
						break
					}
					if pe := pgErr(err); pe == nil || pe.Code != "40001" {
						t.Error(err)
						return
					}
				}
				if _, err := conn.Exec(context.Background(), "UPDATE cnt SET n = n + 1 WHERE id = $1", w); err != nil {
					t.Errorf("own row: %v", err) // nobody else changes it
					return
				}
			}
		}()
	}
	wg.Wait()
	want := fmt.Sprintf("[0|%d", acked)
	for w := 1; w <= workers; w++ {
		want += fmt.Sprintf(" %d|%d", w, rounds)
	}
	want += "]"
	if got := fmt.Sprint(queryStrings(t, c, "SELECT id, n FROM cnt ORDER BY id")); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if acked != workers*rounds {
		t.Errorf("%d increments acknowledged, want %d", acked, workers*rounds)
	}
}
