package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// savepointScript is run statement by statement (simple protocol; an entry
// with several statements is one Query message) on PostgreSQL 15 and on
// bsdb-pg: every result, command tag, error (SQLSTATE, message) and the
// transaction status after it must be the same.
var savepointScript = []string{
	"CREATE TABLE sp (id int, v text)",
	"INSERT INTO sp VALUES (1, 'a')",
	// Outside a block, and in the implicit block of a multi-statement
	// Query: 25P01 (the implicit transaction is rolled back).
	"SAVEPOINT a",
	"RELEASE a",
	"ROLLBACK TO a",
	"RELEASE SAVEPOINT a",
	"ROLLBACK TO SAVEPOINT a",
	"SELECT 1; SAVEPOINT a",
	"INSERT INTO sp VALUES (99, 'x'); SAVEPOINT a",
	"INSERT INTO sp VALUES (98, 'x'); RELEASE a",
	"SELECT * FROM sp ORDER BY id",
	// ROLLBACK TO undoes the writes after the savepoint and keeps it.
	"BEGIN",
	"INSERT INTO sp VALUES (2, 'b')",
	"SAVEPOINT a",
	"INSERT INTO sp VALUES (3, 'c')",
	"SELECT * FROM sp ORDER BY id",
	"ROLLBACK TO a",
	"SELECT * FROM sp ORDER BY id",
	"INSERT INTO sp VALUES (4, 'd')",
	"SAVEPOINT b",
	"INSERT INTO sp VALUES (5, 'e')",
	// A repeated name: the innermost wins.
	"SAVEPOINT a",
	"INSERT INTO sp VALUES (6, 'f')",
	"ROLLBACK TO a",
	"SELECT * FROM sp ORDER BY id",
	// RELEASE b releases b and the inner a.
	"RELEASE b",
	"ROLLBACK TO b",
	// The block failed: only ROLLBACK TO (and ROLLBACK, COMMIT) run.
	"SELECT 1",
	"RELEASE a",
	"SAVEPOINT c",
	"ROLLBACK TO nosuch",
	"ROLLBACK TO a",
	"SELECT * FROM sp ORDER BY id",
	"SELECT 1/0",
	"ROLLBACK TO SAVEPOINT a",
	"INSERT INTO sp VALUES (7, 'g')",
	"COMMIT",
	"SELECT * FROM sp ORDER BY id",
	// COMMIT of a failed block rolls back, savepoints or not.
	"BEGIN",
	"SAVEPOINT s1",
	"INSERT INTO sp VALUES (8, 'h')",
	"SELECT 1/0",
	"COMMIT",
	"SELECT * FROM sp ORDER BY id",
	// ROLLBACK TO in a failed block without savepoints: 3B001, still failed.
	"BEGIN",
	"RELEASE s1",
	"SELECT 1",
	"ROLLBACK TO s1",
	"ROLLBACK",
	// Nesting.
	"BEGIN",
	"SAVEPOINT a",
	"INSERT INTO sp VALUES (10, 'i')",
	"SAVEPOINT b",
	"INSERT INTO sp VALUES (11, 'j')",
	"SAVEPOINT c",
	"INSERT INTO sp VALUES (12, 'k')",
	"ROLLBACK TO b",
	"ROLLBACK TO c",
	"ROLLBACK TO b",
	"RELEASE a",
	"ROLLBACK TO b",
	"ROLLBACK",
	"BEGIN",
	"SAVEPOINT a",
	"INSERT INTO sp VALUES (10, 'i')",
	"SAVEPOINT b",
	"INSERT INTO sp VALUES (11, 'j')",
	"SAVEPOINT c",
	"INSERT INTO sp VALUES (12, 'k')",
	"ROLLBACK TO b",
	"RELEASE a",
	"SELECT * FROM sp ORDER BY id",
	"COMMIT",
	"SELECT * FROM sp ORDER BY id",
	// Savepoints inside one Query message that holds BEGIN.
	"BEGIN; SAVEPOINT x; INSERT INTO sp VALUES (20, 'm'); ROLLBACK TO x; INSERT INTO sp VALUES (21, 'n'); COMMIT",
	"BEGIN; SAVEPOINT x; INSERT INTO sp VALUES (22, 'o'); SELECT 1/0; ROLLBACK TO x; COMMIT",
	"ROLLBACK TO x",
	"INSERT INTO sp VALUES (23, 'p')",
	"COMMIT",
	"SELECT * FROM sp ORDER BY id",
	// A table first written after the savepoint.
	"CREATE TABLE sp2 (k int)",
	"BEGIN",
	"INSERT INTO sp VALUES (24, 'q')",
	"SAVEPOINT a",
	"INSERT INTO sp2 VALUES (1), (2)",
	"SELECT count(*) FROM sp2",
	"ROLLBACK TO a",
	"SELECT count(*) FROM sp2",
	"COMMIT",
	"SELECT count(*) FROM sp2",
	// Cursors declared after the savepoint are closed by ROLLBACK TO;
	// earlier ones keep their position.
	"BEGIN",
	"DECLARE c1 CURSOR FOR SELECT id FROM sp ORDER BY id",
	"SAVEPOINT a",
	"DECLARE c2 CURSOR FOR SELECT id FROM sp ORDER BY id",
	"FETCH 1 FROM c1",
	"FETCH 1 FROM c2",
	"ROLLBACK TO a",
	"FETCH 1 FROM c2",
	"ROLLBACK TO a",
	"FETCH 1 FROM c1",
	"DECLARE c2 CURSOR FOR SELECT id FROM sp ORDER BY id DESC",
	"FETCH 1 FROM c2",
	"COMMIT",
	// TRUNCATE rolls back with its block.
	"BEGIN",
	"INSERT INTO sp VALUES (30, 't')",
	"TRUNCATE sp",
	"SELECT count(*) FROM sp",
	"INSERT INTO sp VALUES (31, 'u')",
	"SELECT * FROM sp ORDER BY id",
	"SELECT count(*) FROM sp",
	"ROLLBACK",
	"SELECT * FROM sp ORDER BY id",
	// ... and with a savepoint before it.
	"BEGIN",
	"INSERT INTO sp VALUES (32, 'v')",
	"SAVEPOINT a",
	"TRUNCATE sp",
	"INSERT INTO sp VALUES (33, 'w')",
	"SELECT * FROM sp ORDER BY id",
	"ROLLBACK TO a",
	"SELECT * FROM sp ORDER BY id",
	"SAVEPOINT b",
	"TRUNCATE sp, sp2",
	"INSERT INTO sp VALUES (34, 'x')",
	"SAVEPOINT c",
	"INSERT INTO sp VALUES (35, 'y')",
	"ROLLBACK TO c",
	"SELECT * FROM sp ORDER BY id",
	"COMMIT",
	"SELECT * FROM sp ORDER BY id",
	"SELECT count(*) FROM sp2",
	// In the implicit block of a Query message.
	"INSERT INTO sp2 VALUES (3); TRUNCATE sp; SELECT 1/0",
	"SELECT * FROM sp ORDER BY id",
	"SELECT count(*) FROM sp2",
	"TRUNCATE sp; INSERT INTO sp VALUES (40, 'z'); SELECT * FROM sp",
	"SELECT * FROM sp ORDER BY id",
	// A block that only truncates.
	"BEGIN",
	"TRUNCATE sp",
	"COMMIT",
	"SELECT count(*) FROM sp",
	// Several tables, one of them temporary.
	"CREATE TEMP TABLE tt (k int)",
	"INSERT INTO tt VALUES (1)",
	"INSERT INTO sp2 VALUES (7)",
	"BEGIN",
	"INSERT INTO tt VALUES (2)",
	"TRUNCATE tt",
	"INSERT INTO tt VALUES (3)",
	"INSERT INTO sp VALUES (50, 'aa')",
	"TRUNCATE sp2",
	"INSERT INTO sp2 VALUES (8)",
	"SELECT * FROM tt",
	"COMMIT",
	"SELECT * FROM tt",
	"SELECT * FROM sp ORDER BY id",
	"SELECT * FROM sp2",
}

// TestSavepointsMatchPostgres runs savepointScript on both servers.
func TestSavepointsMatchPostgres(t *testing.T) {
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ref, err := pgx.Connect(ctx, refURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close(context.Background())
	ts := startServer(t, "")
	ours := ts.conn(t)
	for _, q := range savepointScript {
		want := scriptResult(ctx, ref, q) + fmt.Sprintf("\n  status %c", ref.PgConn().TxStatus())
		got := scriptResult(ctx, ours, q) + fmt.Sprintf("\n  status %c", ours.PgConn().TxStatus())
		if got != want {
			t.Errorf("%s\n got: %s\nwant: %s", q, got, want)
		}
	}
}

// TestSavepointSemantics checks what the differential script cannot:
// the extended protocol, and other sessions' view of a block's TRUNCATE.
func TestSavepointSemantics(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	c := ts.conn(t)
	other := ts.conn(t)
	mustExec(t, c, "CREATE TABLE st (id int)")
	mustExec(t, c, "INSERT INTO st VALUES (1), (2)")

	// Extended protocol: outside a block, 25P01.
	if _, err := c.Exec(ctx, "SAVEPOINT a", pgx.QueryExecModeExec); sqlState(err) != "25P01" {
		t.Fatalf("SAVEPOINT outside a block (extended): %v", err)
	}
	// Extended protocol inside a block: a savepoint, an error, ROLLBACK TO.
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO st VALUES ($1)", 3)
	mustExec(t, c, "SAVEPOINT a")
	mustExec(t, c, "INSERT INTO st VALUES ($1)", 4)
	if _, err := c.Exec(ctx, "SELECT 1/$1::int", 0); sqlState(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	if _, err := c.Exec(ctx, "RELEASE a"); sqlState(err) != "25P02" {
		t.Fatalf("RELEASE in a failed block: %v", err)
	}
	if tag := mustExec(t, c, "ROLLBACK TO SAVEPOINT a"); tag.String() != "ROLLBACK" {
		t.Fatalf("ROLLBACK TO tag %q", tag)
	}
	if st := c.PgConn().TxStatus(); st != 'T' {
		t.Fatalf("status after ROLLBACK TO: %c", st)
	}
	if got := strings.Join(queryStrings(t, c, "SELECT id FROM st ORDER BY id"), ","); got != "1,2,3" {
		t.Fatalf("after ROLLBACK TO: %s", got)
	}
	// ROLLBACK TO releases the transaction-level advisory locks taken
	// after the savepoint; session-level ones and earlier ones stay.
	tryLock := func(key int) bool {
		var ok bool
		if err := other.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", key).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	mustExec(t, c, "SELECT pg_advisory_xact_lock(41)")
	mustExec(t, c, "SAVEPOINT adv")
	mustExec(t, c, "SELECT pg_advisory_xact_lock(41), pg_advisory_xact_lock(42), pg_advisory_lock(43)")
	if tryLock(41) || tryLock(42) || tryLock(43) {
		t.Fatal("advisory locks of the block not held")
	}
	mustExec(t, c, "ROLLBACK TO adv")
	if tryLock(41) || !tryLock(42) || tryLock(43) {
		t.Fatal("after ROLLBACK TO: want 41 and 43 held, 42 free")
	}
	mustExec(t, c, "RELEASE adv")
	// TRUNCATE in the block: the block sees the table empty plus its own
	// later rows; another session sees the committed rows until COMMIT.
	mustExec(t, c, "TRUNCATE st")
	mustExec(t, c, "INSERT INTO st VALUES (10)")
	if got := strings.Join(queryStrings(t, c, "SELECT id FROM st ORDER BY id"), ","); got != "10" {
		t.Fatalf("own view after TRUNCATE: %s", got)
	}
	if got := strings.Join(queryStrings(t, other, "SELECT id FROM st ORDER BY id"), ","); got != "1,2" {
		t.Fatalf("other session during the block: %s", got)
	}
	mustExec(t, other, "INSERT INTO st VALUES (5)")
	if got := strings.Join(queryStrings(t, other, "SELECT count(*) FROM st"), ","); got != "3" {
		t.Fatalf("other session count during the block: %s", got)
	}
	mustExec(t, c, "COMMIT")
	if got := strings.Join(queryStrings(t, other, "SELECT id FROM st ORDER BY id"), ","); got != "10" {
		t.Fatalf("other session after COMMIT: %s", got)
	}
	// The truncation and the rows survive a restart.
	dir := ts.dir
	ts.stop()
	ts2 := startServer(t, dir)
	c2 := ts2.conn(t)
	if got := strings.Join(queryStrings(t, c2, "SELECT id FROM st ORDER BY id"), ","); got != "10" {
		t.Fatalf("after restart: %s", got)
	}
	// ROLLBACK of a block that truncated leaves the rows, for everyone.
	mustExec(t, c2, "BEGIN")
	mustExec(t, c2, "TRUNCATE st")
	mustExec(t, c2, "ROLLBACK")
	if got := strings.Join(queryStrings(t, c2, "SELECT id FROM st ORDER BY id"), ","); got != "10" {
		t.Fatalf("after ROLLBACK of TRUNCATE: %s", got)
	}
	// Extended protocol: TRUNCATE and a failing statement before Sync
	// (one implicit transaction) leave the table as it was.
	b := &pgx.Batch{}
	b.Queue("TRUNCATE st")
	b.Queue("SELECT 1/$1::int", 0)
	if err := c2.SendBatch(ctx, b).Close(); sqlState(err) != "22012" {
		t.Fatalf("batch: %v", err)
	}
	if got := strings.Join(queryStrings(t, c2, "SELECT id FROM st ORDER BY id"), ","); got != "10" {
		t.Fatalf("after a failed batch with TRUNCATE: %s", got)
	}
}

// TestTruncateInBlockAtomicForReaders: a block that truncates a table and
// writes new rows into it commits both at once: a reader in another
// session sees the old rows or the new ones, never the table empty (run
// with -race).
func TestTruncateInBlockAtomicForReaders(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	w := ts.conn(t)
	r := ts.conn(t)
	mustExec(t, w, "CREATE TABLE ta (id int)")
	mustExec(t, w, "INSERT INTO ta VALUES (0), (0), (0)")
	done := make(chan error, 1)
	go func() {
		for i := 1; i <= 30; i++ {
			q := fmt.Sprintf("BEGIN; TRUNCATE ta; INSERT INTO ta VALUES (%d), (%d), (%d); COMMIT", i, i, i)
			if _, err := w.Exec(ctx, q); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	reads := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(queryStrings(t, r, "SELECT count(*), min(id), max(id) FROM ta"), ","); got != "3|30|30" {
				t.Fatalf("after the last block: %s", got)
			}
			t.Logf("%d reads during 30 blocks", reads)
			return
		default:
		}
		var n, lo, hi int
		if err := r.QueryRow(ctx, "SELECT count(*), coalesce(min(id), -1), coalesce(max(id), -1) FROM ta").Scan(&n, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		reads++
		if n != 3 || lo != hi {
			t.Fatalf("a reader saw %d rows (ids %d..%d): want the 3 rows of one block", n, lo, hi)
		}
	}
}
