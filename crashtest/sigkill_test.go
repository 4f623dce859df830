package crashtest

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

// TestSustainedSIGKILL: rounds of concurrent writers and readers for a
// random 0.3-1.5 s, then SIGKILL, restart, and a cumulative check of every
// row ever written. -rounds / BSDB_SOAK_ROUNDS sets the number of rounds,
// -soak / BSDB_SOAK_DURATION runs rounds until that much time has passed.
func TestSustainedSIGKILL(t *testing.T) {
	rounds, until := *flagRounds, time.Time{}
	budget := 2 * time.Minute
	if *flagSoak > 0 {
		until = time.Now().Add(*flagSoak)
		budget = *flagSoak + 5*time.Minute
	}
	ctx := testCtx(t, budget)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	s := testserver.Start(t, testserver.Options{Env: serverEnv(50)})
	setup := connect(ctx, t, s.URL)
	if _, err := setup.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	setup.Close(ctx)
	l := newLedger()
	rc := &readChecker{l: l}
	var y tally
	round := 0
	for ; ; round++ {
		if until.IsZero() && round >= rounds || !until.IsZero() && time.Now().After(until) {
			break
		}
		if round > 0 {
			s.Restart()
			// Recovery check: the whole history, cumulatively.
			c := connect(ctx, t, s.URL)
			got, err := readIDs(ctx, c)
			if err != nil {
				t.Fatalf("round %d: table unreadable after restart: %v", round, err)
			}
			y = verifyRows(t, l, got)
			c.Close(ctx)
			if t.Failed() {
				t.Fatalf("round %d: stopping at the first failed recovery", round)
			}
		}
		runFor := 300*time.Millisecond + time.Duration(rng.Int64N(int64(1200*time.Millisecond)))
		rctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		// All sessions connect before any goroutine starts (a failed
		// connect is t.Fatal, which must not race with running sessions).
		conns := make([]*pgx.Conn, 5)
		for i := range conns {
			conns[i] = connect(ctx, t, s.URL)
		}
		for w := 0; w < 3; w++ {
			c, wrng := conns[w], rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = writer(rctx, c, l, w, wrng)
			}()
		}
		for r := 0; r < 2; r++ {
			c := conns[3+r]
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = rc.reader(rctx, c)
			}()
		}
		time.Sleep(runFor)
		s.Kill()
		stop()
		wg.Wait()
	}
	s.Restart()
	c := connect(ctx, t, s.URL)
	got, err := readIDs(ctx, c)
	if err != nil {
		t.Fatalf("final read: %v", err)
	}
	y = verifyRows(t, l, got)
	c.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	checkQuiescentLayout(t, s.DataDir)
	reads, viol := rc.report(t)
	t.Logf("SUMMARY sigkill: rounds=%d acked=%d lost=%d duplicated=%d phantom=%d in-flight-present=%d reads=%d read-violations=%d",
		round, y.acked, y.lost, y.duplicated, y.phantom, y.inflightPresent, reads, viol)
}
