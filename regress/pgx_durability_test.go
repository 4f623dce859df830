package regress

// End-to-end durability and visibility: concurrent sessions, clean restart,
// and SIGKILL with sync durability. Every acknowledged row must be visible
// to every session at once, and present exactly once after any restart.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

// checkConcurrentSessions: writers on their own sessions, each followed
// after every acknowledgement by a read on a different session; the row must
// be there (no "eventually").
func checkConcurrentSessions(t *testing.T, url string) {
	ctx := testContext(t)
	setup := connect(t, url)
	mustExec(t, ctx, setup, "CREATE TABLE pgx_conc (w integer, k integer, payload text)")
	const writers, perWriter = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wconn, rconn := connect(t, url), connect(t, url)
		wg.Add(1)
		go func(w int32) {
			defer wg.Done()
			errs <- concurrentWriter(ctx, wconn, rconn, w, perWriter)
		}(int32(w))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	fresh := connect(t, url)
	var total, distinct int64
	if err := fresh.QueryRow(ctx, "SELECT (SELECT count(*) FROM pgx_conc), (SELECT count(*) FROM (SELECT DISTINCT w, k FROM pgx_conc) d)").Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != writers*perWriter || distinct != total {
		t.Errorf("after concurrent writes: %d rows, %d distinct, want %d", total, distinct, writers*perWriter)
	}
}

// concurrentWriter alternates single-row INSERTs and small COPYs; after each
// acknowledgement it checks the rows on another session.
func concurrentWriter(ctx context.Context, wconn, rconn *pgx.Conn, w int32, n int) error {
	for k := int32(0); k < int32(n); {
		if k%5 == 4 && k+3 <= int32(n) {
			rows := [][]any{{w, k, "copy"}, {w, k + 1, "copy"}, {w, k + 2, "copy"}}
			if _, err := wconn.CopyFrom(ctx, pgx.Identifier{"pgx_conc"}, []string{"w", "k", "payload"}, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("writer %d: copy %d: %w", w, k, err)
			}
			k += 3
		} else {
			if _, err := wconn.Exec(ctx, "INSERT INTO pgx_conc VALUES ($1, $2, $3)", w, k, "insert"); err != nil {
				return fmt.Errorf("writer %d: insert %d: %w", w, k, err)
			}
			k++
		}
		var seen int64
		if err := rconn.QueryRow(ctx, "SELECT count(*) FROM pgx_conc WHERE w = $1", w).Scan(&seen); err != nil {
			return fmt.Errorf("writer %d: read: %w", w, err)
		}
		if seen != int64(k) {
			return fmt.Errorf("writer %d: another session sees %d of its %d acknowledged rows", w, seen, k)
		}
	}
	return nil
}

type ackedRows struct {
	mu  sync.Mutex
	ids map[int64]bool
}

// verifyExactlyOnce checks that every acknowledged id is in table exactly
// once and that nothing else is, except ids in maybe (statements in flight
// when the server died: either outcome is correct, but at most once).
func verifyExactlyOnce(t *testing.T, url, table string, acked map[int64]bool, maybe map[int64]bool) {
	t.Helper()
	ctx := testContext(t)
	conn := connect(t, url)
	rows, err := conn.Query(ctx, "SELECT id, count(*) FROM "+table+" GROUP BY id")
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	seen := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		seen[id] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for id := range acked {
		if seen[id] == 0 {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged row %d lost", id)
			}
		}
	}
	if lost > 5 {
		t.Errorf("... %d acknowledged rows lost in all", lost)
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("row %d present %d times", id, n)
		}
		if !acked[id] && !maybe[id] {
			t.Errorf("row %d present but never written", id)
		}
	}
}

// TestRestartKeepsRows: rows written by INSERT, COPY and a transaction
// survive a clean shutdown (SIGTERM) and restart, and later writes are not
// duplicated by a second restart.
func TestRestartKeepsRows(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	srv := testserver.Start(t, testserver.Options{Env: []string{"BSDB_WAL_DURABILITY=sync"}})
	ctx := testContext(t)
	acked := map[int64]bool{}
	conn := connect(t, srv.URL)
	mustExec(t, ctx, conn, "CREATE TABLE restart_rows (id bigint, v text)")
	write := func(conn *pgx.Conn, from, to int64) {
		t.Helper()
		for id := from; id < from+10 && id < to; id++ {
			mustExec(t, ctx, conn, "INSERT INTO restart_rows VALUES ($1, 'insert')", id)
			acked[id] = true
		}
		var rows [][]any
		for id := from + 10; id < to; id++ {
			rows = append(rows, []any{id, "copy"})
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"restart_rows"}, []string{"id", "v"}, pgx.CopyFromRows(rows)); err != nil {
			t.Fatalf("CopyFrom: %v", err)
		}
		for _, r := range rows {
			acked[r[0].(int64)] = true
		}
	}
	write(conn, 0, 1000)
	mustExec(t, ctx, conn, "BEGIN")
	mustExec(t, ctx, conn, "INSERT INTO restart_rows VALUES (5000, 'tx')")
	mustExec(t, ctx, conn, "INSERT INTO restart_rows VALUES (5001, 'tx')")
	mustExec(t, ctx, conn, "COMMIT")
	acked[5000], acked[5001] = true, true
	mustExec(t, ctx, conn, "BEGIN")
	mustExec(t, ctx, conn, "INSERT INTO restart_rows VALUES (6000, 'rolled back')")
	mustExec(t, ctx, conn, "ROLLBACK")
	conn.Close(ctx)

	for round := 0; round < 2; round++ {
		if err := srv.Stop(); err != nil {
			t.Fatalf("clean shutdown: %v", err)
		}
		srv.Restart()
		verifyExactlyOnce(t, srv.URL, "restart_rows", acked, nil)
		c := connect(t, srv.URL)
		write(c, int64(10000*(round+1)), int64(10000*(round+1)+100))
		c.Close(ctx)
	}
	verifyExactlyOnce(t, srv.URL, "restart_rows", acked, nil)
}

// TestKillKeepsAcknowledgedRows: with sync durability, SIGKILL while
// writers are busy loses no acknowledged row and duplicates none, over
// several kill/restart rounds on the same data directory.
func TestKillKeepsAcknowledgedRows(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	srv := testserver.Start(t, testserver.Options{Env: []string{"BSDB_WAL_DURABILITY=sync"}})
	ctx := testContext(t)
	setup := connect(t, srv.URL)
	mustExec(t, ctx, setup, "CREATE TABLE kill_rows (id bigint, v text)")
	setup.Close(ctx)

	acked, maybe := map[int64]bool{}, map[int64]bool{}
	var mu sync.Mutex
	const rounds, writers = 3, 3
	var next atomic.Int64
	for round := 0; round < rounds; round++ {
		maybeBefore := len(maybe)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			conn := connect(t, srv.URL)
			wg.Add(1)
			go func(copyMode bool) {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					var ids []int64
					n := 1
					if copyMode {
						n = 20
					}
					for k := 0; k < n; k++ {
						ids = append(ids, next.Add(1))
					}
					mu.Lock()
					for _, id := range ids {
						maybe[id] = true
					}
					mu.Unlock()
					var err error
					if copyMode {
						rows := make([][]any, len(ids))
						for k, id := range ids {
							rows[k] = []any{id, "copy"}
						}
						_, err = conn.CopyFrom(ctx, pgx.Identifier{"kill_rows"}, []string{"id", "v"}, pgx.CopyFromRows(rows))
					} else {
						_, err = conn.Exec(ctx, "INSERT INTO kill_rows VALUES ($1, 'insert')", ids[0])
					}
					if err != nil {
						return // the server died under us: the ids stay "maybe"
					}
					mu.Lock()
					for _, id := range ids {
						acked[id] = true
						delete(maybe, id)
					}
					mu.Unlock()
				}
			}(w == 0)
		}
		time.Sleep(1500 * time.Millisecond)
		srv.Kill()
		close(stop)
		wg.Wait()
		mu.Lock()
		nacked := len(acked)
		mu.Unlock()
		if nacked == 0 {
			t.Fatalf("round %d: no write was acknowledged before the kill", round)
		}
		srv.Restart()
		verifyExactlyOnce(t, srv.URL, "kill_rows", acked, maybe)
		t.Logf("round %d: %d acknowledged rows in all, %d in flight at SIGKILL", round, nacked, len(maybe)-maybeBefore)
	}
}
