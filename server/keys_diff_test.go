package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// keyStep is one statement of a two-session scenario: on session 0 or 1;
// wait: it is expected to wait (for the other session's transaction) and
// its result is read after the next step.
type keyStep struct {
	on   int
	sql  string
	wait bool
}

// keyScenarios are concurrent sessions inserting the same keys, each run
// on bsdb-pg and on PostgreSQL 15: the statements that wait, and every
// statement's outcome (command tag or SQLSTATE), must be the same.
var keyScenarios = map[string][]keyStep{
	// The second inserter of a key waits for the first transaction: 23505
	// once it commits.
	"commit": {
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (1, 'a')", false},
		{1, "INSERT INTO ck VALUES (1, 'b')", true},
		{0, "COMMIT", false},
		{1, "SELECT v FROM ck WHERE id = 1", false},
	},
	// ... and inserts once it rolls back.
	"rollback": {
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (2, 'a')", false},
		{1, "INSERT INTO ck VALUES (2, 'b')", true},
		{0, "ROLLBACK", false},
		{1, "SELECT v FROM ck WHERE id = 2", false},
	},
	// ON CONFLICT DO NOTHING waits too, then skips the row (or not).
	"do nothing": {
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (3, 'a'), (4, 'a')", false},
		{1, "INSERT INTO ck VALUES (3, 'b') ON CONFLICT DO NOTHING", true},
		{0, "COMMIT", false},
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (5, 'a')", false},
		{1, "INSERT INTO ck VALUES (5, 'b'), (6, 'b') ON CONFLICT (id) DO NOTHING", true},
		{0, "ROLLBACK", false},
		{1, "SELECT string_agg(id || v, ',' ORDER BY id) FROM ck WHERE id BETWEEN 3 AND 6", false},
	},
	// Two transactions, each waiting for a key the other inserted: one of
	// them fails with 40P01, the other goes on.
	"deadlock": {
		{0, "BEGIN", false},
		{1, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (7, 'a')", false},
		{1, "INSERT INTO ck VALUES (8, 'b')", false},
		{0, "INSERT INTO ck VALUES (8, 'a')", true},
		{1, "INSERT INTO ck VALUES (7, 'b')", false},
		{1, "ROLLBACK", false},
		{0, "COMMIT", false},
		{0, "SELECT string_agg(id || v, ',' ORDER BY id) FROM ck WHERE id IN (7, 8)", false},
	},
	// A key a transaction deleted is free for it, not for others before
	// it commits (PostgreSQL would make the other wait; bsdb-pg's check
	// sees the row still there: the outcome is the same once committed).
	"delete then insert": {
		{0, "INSERT INTO ck VALUES (9, 'a')", false},
		{0, "BEGIN", false},
		{0, "DELETE FROM ck WHERE id = 9", false},
		{0, "INSERT INTO ck VALUES (9, 'b')", false},
		{0, "COMMIT", false},
		{1, "INSERT INTO ck VALUES (9, 'c')", false},
		{1, "SELECT v FROM ck WHERE id = 9", false},
	},
	// An upsert of a key another transaction inserts waits for it, then
	// updates the row it committed ...
	"upsert after commit": {
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (12, 'a')", false},
		{1, "INSERT INTO ck VALUES (12, 'b') ON CONFLICT (id) DO UPDATE SET v = ck.v || excluded.v", true},
		{0, "COMMIT", false},
		{1, "SELECT v FROM ck WHERE id = 12", false},
	},
	// ... or inserts its own row when it rolled back.
	"upsert after rollback": {
		{0, "BEGIN", false},
		{0, "INSERT INTO ck VALUES (13, 'a')", false},
		{1, "INSERT INTO ck VALUES (13, 'b'), (14, 'c') ON CONFLICT (id) DO UPDATE SET v = ck.v || excluded.v", true},
		{0, "ROLLBACK", false},
		{1, "SELECT string_agg(id || v, ',' ORDER BY id) FROM ck WHERE id IN (13, 14)", false},
	},
	// An UPDATE that moves a row to a key another transaction inserts
	// waits for it.
	"update into a pending key": {
		{0, "INSERT INTO ck VALUES (10, 'a')", false},
		{1, "BEGIN", false},
		{1, "INSERT INTO ck VALUES (11, 'b')", false},
		{0, "UPDATE ck SET id = 11 WHERE id = 10", true},
		{1, "COMMIT", false},
		{0, "SELECT string_agg(id || v, ',' ORDER BY id) FROM ck WHERE id IN (10, 11)", false},
	},
}

// TestKeysConcurrentMatchPostgres runs keyScenarios on both servers.
func TestKeysConcurrentMatchPostgres(t *testing.T) {
	ts := startServer(t, "")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	for name, steps := range keyScenarios {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			ours := runKeyScenario(t, ts.url(), steps)
			ref := runKeyScenario(t, refURL, steps)
			for i := range steps {
				if ours[i] != ref[i] {
					t.Errorf("step %d (session %d: %s): bsdb-pg %s, PostgreSQL %s", i, steps[i].on, steps[i].sql, ours[i], ref[i])
				}
			}
		})
	}
}

// runKeyScenario runs steps on two fresh sessions of url and returns each
// step's outcome; a statement expected to wait must still be running when
// the next step is sent (else its outcome is marked "did not wait").
func runKeyScenario(t *testing.T, url string, steps []keyStep) []string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var conns [2]*pgx.Conn
	for i := range conns {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		conns[i] = c
	}
	if _, err := conns[0].Exec(ctx, "DROP TABLE IF EXISTS ck"); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].Exec(ctx, "CREATE TABLE ck (id int PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	run := func(c *pgx.Conn, sql string) string {
		if strings.HasPrefix(sql, "SELECT") {
			var s *string
			if err := c.QueryRow(ctx, sql).Scan(&s); err != nil {
				return "ERROR " + sqlState(err)
			}
			if s == nil {
				return "NULL"
			}
			return *s
		}
		tag, err := c.Exec(ctx, sql)
		if err != nil {
			var pe *pgconn.PgError
			if ok := asPgError(err, &pe); ok {
				return "ERROR " + pe.Code
			}
			return "ERROR " + err.Error()
		}
		return tag.String()
	}
	out := make([]string, len(steps))
	var waiting sync.WaitGroup
	for i, s := range steps {
		if !s.wait {
			out[i] = run(conns[s.on], s.sql)
			waiting.Wait() // a waiting statement ends after the step that frees it
			continue
		}
		var done atomic.Bool
		waiting.Add(1)
		go func(i int, s keyStep) {
			defer waiting.Done()
			r := run(conns[s.on], s.sql)
			done.Store(true)
			out[i] = r
		}(i, s)
		// It must still wait a moment later (it waits for the other
		// session's next step; a statement that returned at once did not).
		time.Sleep(300 * time.Millisecond)
		if done.Load() {
			waiting.Wait()
			out[i] = "did not wait: " + out[i]
		}
	}
	waiting.Wait()
	return out
}

func asPgError(err error, pe **pgconn.PgError) bool {
	for err != nil {
		if p, ok := err.(*pgconn.PgError); ok {
			*pe = p
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestKeysRacingInserters: sessions insert the same keys at the same time
// (autocommit and in blocks, plain and ON CONFLICT DO NOTHING); every key
// ends up in the table once, and every session was told the truth: the
// inserts acknowledged are the rows there.
func TestKeysRacingInserters(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE race (id int PRIMARY KEY, who int)")
	const workers, keys = 4, 60
	var acked atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, ts.url())
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(ctx)
			for k := 0; k < keys; k++ {
				var tag pgconn.CommandTag
				var err error
				switch (k + w) % 3 {
				case 0:
					tag, err = conn.Exec(ctx, "INSERT INTO race VALUES ($1, $2)", k, w)
				case 1:
					tag, err = conn.Exec(ctx, "INSERT INTO race VALUES ($1, $2) ON CONFLICT DO NOTHING", k, w)
				default:
					if _, err = conn.Exec(ctx, "BEGIN"); err == nil {
						if tag, err = conn.Exec(ctx, "INSERT INTO race VALUES ($1, $2)", k, w); err == nil {
							_, err = conn.Exec(ctx, "COMMIT")
						} else {
							_, _ = conn.Exec(ctx, "ROLLBACK")
						}
					}
				}
				switch {
				case err == nil:
					acked.Add(tag.RowsAffected())
				case sqlState(err) != "23505":
					t.Errorf("worker %d key %d: %v", w, k, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	got := queryStrings(t, c, "SELECT count(*), count(DISTINCT id) FROM race")
	if want := fmt.Sprintf("%d|%d", keys, keys); len(got) != 1 || got[0] != want {
		t.Fatalf("rows, distinct keys: %v, want %s", got, want)
	}
	if acked.Load() != keys {
		t.Fatalf("%d inserts acknowledged, %d keys in the table", acked.Load(), keys)
	}
}

// TestUpsertCountersLoseNothing: sessions upsert counters of the same keys
// at the same time (INSERT ... ON CONFLICT DO UPDATE SET n = n + 1,
// retried on 40001): every key is there once, and its count is the
// number of upserts of it that were acknowledged: no lost update, no key
// inserted twice.
func TestUpsertCountersLoseNothing(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE cnt (id int PRIMARY KEY, n int)")
	const workers, keys, rounds = 4, 8, 12
	var acked [keys]atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, ts.url())
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(ctx)
			for r := 0; r < rounds; r++ {
				k := (r + w) % keys
				for attempt := 0; ; attempt++ {
					_, err := conn.Exec(ctx, "INSERT INTO cnt VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET n = cnt.n + 1", k)
					if err == nil {
						acked[k].Add(1)
						break
					}
					if sqlState(err) != "40001" || attempt > 50 {
						t.Errorf("worker %d key %d: %v", w, k, err)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	got := queryStrings(t, c, "SELECT id, n FROM cnt ORDER BY id")
	var want []string
	for k := range acked {
		if n := acked[k].Load(); n > 0 {
			want = append(want, fmt.Sprintf("%d|%d", k, n))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("counters %v, want %v (acknowledged upserts per key)", got, want)
	}
}
