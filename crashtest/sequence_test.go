package crashtest

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// TestSequenceSIGKILL: sessions call nextval, insert into a serial table
// (single rows and batches) and COPY into it while the server is killed
// with SIGKILL at a random moment, over several rounds. After every
// restart no value acknowledged before the crash is handed out again (the
// log-ahead of package seq made each one durable before it was returned;
// gaps are allowed), and the serial table never holds an id twice.
// Negative control: with the log-ahead write disabled in seq.nextLocked the
// first restart hands out 1 again.
func TestSequenceSIGKILL(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	s := testserver.Start(t, testserver.Options{Env: serverEnv(50)})
	setup := connect(ctx, t, s.URL)
	for _, q := range []string{"CREATE SEQUENCE ks", "CREATE TABLE kt (id bigserial, w int)"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	setup.Close(ctx)
	var mu sync.Mutex
	acked := map[int64]bool{} // nextval values the server answered
	var maxAcked int64
	rounds := envInt("BSDB_SEQ_ROUNDS", 5)
	for round := 0; round < rounds; round++ {
		if round > 0 {
			s.Restart()
			c := connect(ctx, t, s.URL)
			var v int64
			if err := c.QueryRow(ctx, "SELECT nextval('ks')").Scan(&v); err != nil {
				t.Fatalf("round %d: nextval after restart: %v", round, err)
			}
			if acked[v] || v <= maxAcked {
				t.Fatalf("round %d: nextval after SIGKILL returned %d; %d was acknowledged before", round, v, maxAcked)
			}
			acked[v], maxAcked = true, v
			var n, distinct int64
			if err := c.QueryRow(ctx, "SELECT count(*), count(DISTINCT id) FROM kt").Scan(&n, &distinct); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if n != distinct {
				t.Fatalf("round %d: serial table holds %d rows but %d distinct ids", round, n, distinct)
			}
			c.Close(ctx)
		}
		conns := make([]*pgx.Conn, 4)
		for i := range conns {
			conns[i] = connect(ctx, t, s.URL)
		}
		rctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for w, c := range conns {
			wg.Add(1)
			go func(w int, c *pgx.Conn) {
				defer wg.Done()
				for i := 0; rctx.Err() == nil; i++ {
					switch (w + i) % 3 {
					case 0:
						var v int64
						if err := c.QueryRow(rctx, "SELECT nextval('ks')").Scan(&v); err != nil {
							return // the crash
						}
						mu.Lock()
						if acked[v] {
							t.Errorf("nextval %d handed out twice", v)
						}
						acked[v] = true
						if v > maxAcked {
							maxAcked = v
						}
						mu.Unlock()
					case 1:
						if _, err := c.Exec(rctx, "INSERT INTO kt (w) VALUES ($1), ($1), ($1)", w); err != nil {
							return
						}
					default:
						rows := [][]any{{w}, {w}, {w}, {w}, {w}, {w}, {w}, {w}}
						if _, err := c.CopyFrom(rctx, pgx.Identifier{"kt"}, []string{"w"}, pgx.CopyFromRows(rows)); err != nil {
							return
						}
					}
				}
			}(w, c)
		}
		time.Sleep(200*time.Millisecond + time.Duration(rng.Int64N(int64(600*time.Millisecond))))
		s.Kill()
		stop()
		wg.Wait()
		for _, c := range conns {
			c.Close(context.Background())
		}
		t.Logf("round %d: %d nextval values acknowledged so far, max %d", round, len(acked), maxAcked)
	}
}
