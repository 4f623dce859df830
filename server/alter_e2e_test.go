package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestAlterTableConcurrentWriters: autocommit INSERTs on other sessions
// (writer 0 with the simple query protocol, writers 1 and 2 with the
// extended one, whose implicit transaction commits at Sync) while the
// table is altered again and again. Every INSERT is acknowledged: the
// ALTER waits for the writes in progress and the writes that come after it
// wait for it and run on the new schema (the schema lock); its row is in
// the table afterwards, once. The rows of all schema versions read back
// with the current schema, and survive a restart.
func TestAlterTableConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	admin := ts.conn(t)
	mustExec(t, admin, "CREATE TABLE aw (id int NOT NULL, v text)")
	const writers = 3
	var acked sync.Map
	var raced, nacked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		c := ts.conn(t)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := w*1_000_000 + i
				args := []any{id, fmt.Sprint("w", w)}
				if w == 0 {
					args = append([]any{pgx.QueryExecModeSimpleProtocol}, args...)
				}
				_, err := c.Exec(context.Background(), "INSERT INTO aw (id, v) VALUES ($1, $2)", args...)
				var pe *pgconn.PgError
				switch {
				case err == nil:
					acked.Store(id, true)
					nacked.Add(1)
				case errors.As(err, &pe) && pe.Code == "40001":
					raced.Add(1)
				default:
					errc <- fmt.Errorf("writer %d insert %d: %w", w, id, err)
					return
				}
			}
		}(w)
	}
	for i := 0; i < 6; i++ {
		// Let the writers make progress in each schema version.
		for base := nacked.Load(); nacked.Load() < base+20; {
			time.Sleep(time.Millisecond)
		}
		mustExec(t, admin, fmt.Sprintf("ALTER TABLE aw ADD COLUMN c%d int DEFAULT %d", i, i))
		mustExec(t, admin, fmt.Sprintf("ALTER TABLE aw RENAME COLUMN c%d TO d%d", i, i))
	}
	close(stop)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	check := func(when string) {
		rows := queryStrings(t, admin, "SELECT id || ':' || coalesce(d0::text, 'null') FROM aw")
		seen := map[int]bool{}
		for _, r := range rows {
			var id, d0 int
			if _, err := fmt.Sscanf(r, "%d:%d", &id, &d0); err != nil || d0 != 0 {
				t.Fatalf("%s: row %q: d0 must be 0 (the initial default) in every row", when, r)
			}
			if seen[id] {
				t.Fatalf("%s: row %d twice", when, id)
			}
			seen[id] = true
		}
		n := 0
		acked.Range(func(k, _ any) bool {
			n++
			if !seen[k.(int)] {
				t.Fatalf("%s: acknowledged row %d is missing", when, k.(int))
			}
			return true
		})
		if len(seen) != n {
			t.Fatalf("%s: %d rows, %d acknowledged", when, len(seen), n)
		}
		t.Logf("%s: %d rows acknowledged, %d inserts refused with 40001", when, n, raced.Load())
		if raced.Load() != 0 {
			t.Fatalf("%s: %d INSERTs failed with 40001: a write raced an ALTER", when, raced.Load())
		}
	}
	check("after the ALTERs")
	cols := fmt.Sprint(queryStrings(t, admin, "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'aw'"))
	if cols != "[id,v,d0,d1,d2,d3,d4,d5]" {
		t.Fatalf("columns: %s", cols)
	}
	ts.stop()
	ts = startServer(t, dir)
	admin = ts.conn(t)
	check("after a restart")
}

// TestAlterTableOpenTransaction: an ALTER TABLE waits for a transaction
// that wrote to the table to end, as PostgreSQL's does (its lock); the
// transaction's rows commit in the old schema and read in the new one; a
// write that comes while the ALTER waits waits for it and runs on the new
// schema.
func TestAlterTableOpenTransaction(t *testing.T) {
	ts := startServer(t, "")
	a, b, c := ts.conn(t), ts.conn(t), ts.conn(t)
	mustExec(t, a, "CREATE TABLE ot (id int)")
	mustExec(t, a, "INSERT INTO ot VALUES (1)")
	mustExec(t, b, "BEGIN")
	mustExec(t, b, "INSERT INTO ot VALUES (2)")
	altered := make(chan error, 1)
	go func() {
		_, err := a.Exec(context.Background(), "ALTER TABLE ot ADD COLUMN x text DEFAULT 'new'")
		altered <- err
	}()
	select {
	case err := <-altered:
		t.Fatalf("ALTER TABLE did not wait for the open transaction: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	inserted := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), "INSERT INTO ot (id, x) VALUES (3, 'c')")
		inserted <- err
	}()
	mustExec(t, b, "INSERT INTO ot VALUES (4)") // the transaction holds the lock: no wait
	mustExec(t, b, "COMMIT")
	if err := <-altered; err != nil {
		t.Fatalf("ALTER TABLE: %v", err)
	}
	if err := <-inserted; err != nil {
		t.Fatalf("the INSERT that waited for the ALTER: %v", err)
	}
	if got := fmt.Sprint(queryStrings(t, a, "SELECT id::text || coalesce(x, '-') FROM ot ORDER BY id")); got != "[1new 2new 3c 4new]" {
		t.Fatalf("rows: %s, want [1new 2new 3c 4new]", got)
	}
}

// TestRenameTableKeepsData: a renamed table keeps its rows (committed and
// still buffered at the rename) across a restart; a new table of the old
// name has files of its own, and dropping it leaves the renamed table's
// files alone.
func TestRenameTableKeepsData(t *testing.T) {
	dir := t.TempDir()
	ts := startServerWith(t, dir, -1, func(*Backend) {}) // nothing flushed by age
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE r1 (id int, v text)")
	mustExec(t, c, "INSERT INTO r1 SELECT g, 'v' || g FROM generate_series(1, 100) g")
	mustExec(t, c, "ALTER TABLE r1 RENAME TO r2")
	mustExec(t, c, "INSERT INTO r2 VALUES (101, 'after')")
	mustExec(t, c, "CREATE TABLE r1 (x int)")
	mustExec(t, c, "INSERT INTO r1 VALUES (1)")
	mustExec(t, c, "DROP TABLE r1")
	mustExec(t, c, "CREATE TABLE r1 (y text)")
	ts.stop()
	ts = startServer(t, dir)
	c = ts.conn(t)
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*)::text || ' ' || max(id)::text || ' ' || count(DISTINCT id)::text FROM r2")); got != "[101 101 101]" {
		t.Fatalf("r2 after the restart: %s, want [101 101 101]", got)
	}
	if got := fmt.Sprint(queryStrings(t, c, "SELECT count(*) FROM r1")); got != "[0]" {
		t.Fatalf("r1: %s", got)
	}
}
