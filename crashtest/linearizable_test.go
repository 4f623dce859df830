package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

// readChecker checks reads through the wire against the ledger:
//   - every id acknowledged before the read was sent is in the result;
//   - every id in the result was attempted (sent) before the read ended;
//   - no id appears twice;
//   - an id once seen by a session stays visible to that session.
//
// Checks are counted; violations are collected (the first few kept).
type readChecker struct {
	l *ledger

	mu         sync.Mutex
	reads      int
	violations int
	examples   []string
}

func (rc *readChecker) violation(format string, a ...any) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.violations++
	if len(rc.examples) < 10 {
		rc.examples = append(rc.examples, fmt.Sprintf(format, a...))
	}
}

// session is one reading connection and the ids it has seen.
type session struct {
	c    *pgx.Conn
	seen map[int64]bool
}

// read runs one SELECT and checks it. It returns the query's error (a dead
// server is not a violation).
func (rc *readChecker) read(ctx context.Context, s *session) error {
	before := rc.l.ackedCount() // everything acknowledged before the read is sent
	got, err := readIDs(ctx, s.c)
	if err != nil {
		return err
	}
	var missing, phantom, dup, vanished int
	var example string
	for _, id := range rc.l.ackedPrefix(before) {
		if got[id] == 0 {
			missing++
			example = fmt.Sprintf("acknowledged id %d missing", id)
		}
	}
	for id, n := range got {
		if n > 1 {
			dup++
			example = fmt.Sprintf("id %d seen %d times", id, n)
		}
		if !rc.l.wasAttempted(id) {
			phantom++
			example = fmt.Sprintf("id %d never sent", id)
		}
	}
	for id := range s.seen {
		if got[id] == 0 {
			vanished++
			example = fmt.Sprintf("id %d seen before by this session, now gone", id)
		}
	}
	for id := range got {
		s.seen[id] = true
	}
	rc.mu.Lock()
	rc.reads++
	rc.mu.Unlock()
	if missing+phantom+dup+vanished > 0 {
		rc.violation("read of %d rows (%d acknowledged before it): missing=%d phantom=%d duplicated=%d vanished=%d, e.g. %s",
			len(got), before, missing, phantom, dup, vanished, example)
	}
	return nil
}

// reader reads until ctx ends or a read fails.
func (rc *readChecker) reader(ctx context.Context, c *pgx.Conn) error {
	s := &session{c: c, seen: map[int64]bool{}}
	for ctx.Err() == nil {
		if err := rc.read(ctx, s); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	return nil
}

func (rc *readChecker) report(t testing.TB) (reads, violations int) {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, e := range rc.examples {
		t.Errorf("linearizability violation: %s", e)
	}
	return rc.reads, rc.violations
}

// TestLinearizableReads: writers insert uniquely identified rows while
// readers read the whole table again and again, with an age flush of 20 ms
// so that reads overlap every commit phase (Staging -> ManifestCommitted ->
// IcebergPublished -> pruned). Every read is checked by readChecker.
// -soak / BSDB_SOAK_DURATION sets how long it runs (default 4 s).
func TestLinearizableReads(t *testing.T) {
	runFor := 4 * time.Second
	if *flagSoak > 0 {
		runFor = *flagSoak
	}
	ctx := testCtx(t, runFor+3*time.Minute)
	s := testserver.Start(t, testserver.Options{Env: serverEnv(20)})
	setup := connect(ctx, t, s.URL)
	if _, err := setup.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	l := newLedger()
	rc := &readChecker{l: l}
	rctx, stop := context.WithTimeout(ctx, runFor)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	conns := make([]*pgx.Conn, 6)
	for i := range conns {
		conns[i] = connect(ctx, t, s.URL)
	}
	for w := 0; w < 3; w++ {
		c := conns[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := writer(rctx, c, l, w, rand.New(rand.NewPCG(uint64(w), 3))); err != nil {
				errs <- fmt.Errorf("writer %d: %w", w, err)
			}
		}()
	}
	for r := 0; r < 3; r++ {
		c := conns[3+r]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := rc.reader(rctx, c); err != nil {
				errs <- fmt.Errorf("reader %d: %w", r, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := readIDs(ctx, setup)
	if err != nil {
		t.Fatal(err)
	}
	y := verifyRows(t, l, got)
	setup.Close(ctx)
	if err := s.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	commits := len(manifests(t, tableDir(s.DataDir))) - 1
	checkQuiescentLayout(t, s.DataDir)
	reads, viol := rc.report(t)
	if commits < 3 {
		t.Errorf("only %d commits ran during the reads: the check did not overlap flushes", commits)
	}
	t.Logf("SUMMARY linearizability: duration=%v reads=%d violations=%d acked=%d commits=%d lost=%d duplicated=%d",
		runFor, reads, viol, y.acked, commits, y.lost, y.duplicated)
}
