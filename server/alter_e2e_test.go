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
// while the table is altered again and again. Writer 0 sends them with the
// simple query protocol (psql's): each is acknowledged (one that raced an
// ALTER's retirement of the table handle is planned again on the new
// schema, as PostgreSQL's would have waited for the ALTER). Writers 1 and
// 2 use the extended protocol, whose implicit transaction is committed at
// Sync: a write staged on the old handle fails there with 40001 (to be
// retried by the client; PostgreSQL would have made the ALTER wait).
// Every acknowledged row is in the table afterwards, once; the rows of all
// schema versions read back with the current schema, and survive a
// restart.
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
				case errors.As(err, &pe) && pe.Code == "40001" && w > 0:
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
		t.Logf("%s: %d rows acknowledged, %d extended-protocol inserts refused with 40001", when, n, raced.Load())
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

// TestAlterTableOpenTransaction: a transaction that wrote to a table
// before another session altered it cannot commit those rows in the old
// schema: its COMMIT fails with 40001 and nothing of it is kept.
// (PostgreSQL's ALTER TABLE would have waited for it instead.)
func TestAlterTableOpenTransaction(t *testing.T) {
	ts := startServer(t, "")
	a, b := ts.conn(t), ts.conn(t)
	mustExec(t, a, "CREATE TABLE ot (id int)")
	mustExec(t, a, "INSERT INTO ot VALUES (1)")
	mustExec(t, b, "BEGIN")
	mustExec(t, b, "INSERT INTO ot VALUES (2)")
	mustExec(t, a, "ALTER TABLE ot ADD COLUMN x text")
	_, err := b.Exec(context.Background(), "COMMIT")
	wantErr(t, "COMMIT", err, "40001", "could not serialize access due to concurrent ALTER TABLE of relation \"ot\"")
	if got := fmt.Sprint(queryStrings(t, a, "SELECT id::text || coalesce(x, '-') FROM ot ORDER BY id")); got != "[1-]" {
		t.Fatalf("rows: %s, want [1-]", got)
	}
	// The session goes on, on the new schema.
	mustExec(t, b, "INSERT INTO ot VALUES (3, 'y')")
	if got := fmt.Sprint(queryStrings(t, b, "SELECT count(*) FROM ot")); got != "[2]" {
		t.Fatalf("count: %s", got)
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
