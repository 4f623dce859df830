package crashtest

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

// crashHit is the hit count each point is armed with: late enough that some
// writes (and, for commit points, a whole commit) were acknowledged before.
func crashHit(point string) string {
	if strings.HasPrefix(point, "wal-after-append") || strings.HasPrefix(point, "wal-after-sync") {
		return "25"
	}
	return "2"
}

// TestCrashPoints: for every named crash point, the server aborts exactly
// there under a write load; a restart on the same directory must hold every
// acknowledged row exactly once and nothing never sent; after the next
// commit (a clean shutdown) Iceberg and the manifest agree and every WAL
// segment is pruned.
func TestCrashPoints(t *testing.T) {
	for _, point := range crash.All {
		t.Run(point, func(t *testing.T) { runCrashPoint(t, point) })
	}
}

func runCrashPoint(t *testing.T, point string) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	armed := point + ":" + crashHit(point)
	s := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100, "BSDB_CRASH_AT="+armed)})
	setup := connect(ctx, t, s.URL)
	if _, err := setup.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	l := newLedger()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	// Connect every session before any write starts: the point may fire
	// (killing the server) as soon as writes flow.
	conns := []*pgx.Conn{connect(ctx, t, s.URL), connect(ctx, t, s.URL)}
	for w := range errs {
		c := conns[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = writer(wctx, c, l, w, rand.New(rand.NewPCG(uint64(w), 7)))
		}()
	}
	ws, err := waitExit(s, 60*time.Second)
	stop()
	wg.Wait()
	if err != nil {
		t.Fatalf("crash point %s never fired: %v", armed, err)
	}
	if !diedAt(ws, s.Output(), point) {
		t.Fatalf("server exited with %v, want death by SIGKILL at %s:\n%s", ws, armed, s.Output())
	}
	// A writer's error is expected (the connection died) and not checked:
	// a writer may also have seen the cancellation first.
	_ = errs

	// Restart without the crash point, on the same directory.
	r := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	c := connect(ctx, t, r.URL)
	got, err := readIDs(ctx, c)
	if err != nil {
		t.Fatalf("table unreadable after restart: %v", err)
	}
	y := verifyRows(t, l, got)
	if y.acked == 0 {
		t.Errorf("no write was acknowledged before %s fired: the test proves nothing", armed)
	}
	// The next commit: one more acknowledged row, then a clean shutdown
	// (which commits the buffer).
	more := l.reserve(1)
	if err := writeOne(ctx, c, 0, 9, more); err != nil {
		t.Fatalf("write after restart: %v", err)
	}
	l.ack(more)
	c.Close(ctx)
	if err := r.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	checkQuiescentLayout(t, dataDir)
	// And the data survives one more restart, exactly once.
	r.Restart()
	c2 := connect(ctx, t, r.URL)
	got, err = readIDs(ctx, c2)
	if err != nil {
		t.Fatalf("read after second restart: %v", err)
	}
	y = verifyRows(t, l, got)
	t.Logf("%s: %v", armed, y)
}
