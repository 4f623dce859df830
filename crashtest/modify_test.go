package crashtest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// seedRows creates ct and inserts n rows in one statement (one WAL
// append), through the model.
func seedRows(ctx context.Context, t *testing.T, url string, m *model, n int) {
	t.Helper()
	c := connect(ctx, t, url)
	if _, err := c.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	o := m.newOp("insert", n, nil, nil)
	_, err := c.Exec(ctx, "INSERT INTO ct SELECT x, $2, $3 FROM unnest($1::bigint[]) AS x", o.ins, o.v, hist(o.v))
	if m.done(o, err); err != nil {
		t.Fatalf("seed: %v", err)
	}
	c.Close(ctx)
}

// checkNow reads ct on a fresh connection (and checks count(*) against it).
func checkNow(ctx context.Context, t *testing.T, url, when string) map[int64][]mrow {
	t.Helper()
	c := connect(ctx, t, url)
	defer c.Close(ctx)
	got, err := readTable(ctx, c)
	if err != nil {
		t.Fatalf("%s: table unreadable: %v", when, err)
	}
	// Nothing writes now: count(*) (the exact row count, deletes
	// subtracted) agrees with the rows.
	n, versions := int64(0), 0
	for _, vs := range got {
		versions += len(vs)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM ct").Scan(&n); err != nil {
		t.Fatalf("%s: count(*): %v", when, err)
	}
	if n != int64(versions) {
		t.Errorf("%s: count(*) = %d, but SELECT returned %d rows", when, n, versions)
	}
	return got
}

// verifyModel checks rows read with every operation over and settles the
// unanswered ones.
func verifyModel(t *testing.T, m *model, got map[int64][]mrow, when string) {
	t.Helper()
	s := m.clock.Add(1)
	if bad := m.checkRead(got, s, s+1, nil); len(bad) > 0 {
		if len(bad) > 15 {
			bad = append(bad[:15], fmt.Sprintf("... %d more", len(bad)-15))
		}
		t.Fatalf("%s: %d rows violate the model:\n  %s", when, len(got), strings.Join(bad, "\n  "))
	}
	a, n := m.resolve(got)
	if a+n > 0 {
		t.Logf("%s: %d rows; %d unanswered operations applied, %d not", when, len(got), a, n)
	}
}

// finishModify ends a test: every live row updated in one statement
// (model.sweep), the table read, checked, a clean stop (which
// commits everything), the quiescent layout (delete files included),
// iceberg-go's scan equal to SELECT, and one more restart with the same
// rows.
func finishModify(ctx context.Context, t *testing.T, s *testserver.Server, m *model) map[int64][]mrow {
	t.Helper()
	c := connect(ctx, t, s.URL)
	m.sweep(ctx, t, c)
	c.Close(ctx)
	before := checkNow(ctx, t, s.URL, "final read")
	verifyModel(t, m, before, "final read")
	if err := s.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	checkQuiescentLayout(t, s.DataDir)
	if ms := manifests(t, tableDir(s.DataDir)); len(ms[len(ms)-1].Deletes) == 0 {
		t.Errorf("the latest manifest lists no delete file: no delete reached a commit")
	}
	if diff := sameRows(before, icebergRows(ctx, t, s.DataDir)); len(diff) > 0 {
		t.Errorf("iceberg-go's scan differs from SELECT (SELECT vs Iceberg):\n  %s", strings.Join(diff, "\n  "))
	}
	s.Restart()
	after := checkNow(ctx, t, s.URL, "read after the last restart")
	if diff := sameRows(before, after); len(diff) > 0 {
		t.Errorf("rows changed across a clean restart:\n  %s", strings.Join(diff, "\n  "))
	}
	verifyModel(t, m, after, "read after the last restart")
	return after
}

// TestModifySIGKILL: rounds of 4 clients running a mixed INSERT / UPDATE /
// DELETE / explicit-transaction workload on shared rows (so some changes
// conflict and get 40001) and a reader checking every read, for a random
// 0.3-1.2 s, then SIGKILL of the server process; after each restart the
// table is checked against the model (modify_model_test.go): every
// acknowledged change there once, no row version twice, no updated row
// gone, no refused or lost change half there. BSDB_MODIFY_ROUNDS sets the
// rounds (default 5); -soak / BSDB_SOAK_DURATION runs rounds that long.
func TestModifySIGKILL(t *testing.T) {
	rounds, until := envInt("BSDB_MODIFY_ROUNDS", 5), time.Time{}
	budget := 3 * time.Minute
	if *flagSoak > 0 {
		until = time.Now().Add(*flagSoak)
		budget = *flagSoak + 5*time.Minute
	}
	ctx := testCtx(t, budget)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 21))
	s := testserver.Start(t, testserver.Options{Env: serverEnv(50)})
	m := newModel()
	seedRows(ctx, t, s.URL, m, 100)
	round := 0
	for ; ; round++ {
		if until.IsZero() && round >= rounds || !until.IsZero() && time.Now().After(until) {
			break
		}
		if round > 0 {
			s.Restart()
			got := checkNow(ctx, t, s.URL, "restart")
			verifyModel(t, m, got, fmt.Sprintf("round %d, after restart", round))
		}
		conns := make([]*pgx.Conn, 5)
		for i := range conns {
			conns[i] = connect(ctx, t, s.URL)
		}
		rctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			c, wrng := conns[w], rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				m.client(rctx, rctx, c, wrng, 25)
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.reader(rctx, conns[4])
		}()
		time.Sleep(300*time.Millisecond + time.Duration(rng.Int64N(int64(900*time.Millisecond))))
		s.Kill()
		stop()
		wg.Wait()
		for _, c := range conns {
			c.Close(context.Background())
		}
		m.report(t)
		if t.Failed() {
			t.Fatalf("round %d: stopping at the first failure", round)
		}
	}
	s.Restart()
	verifyModel(t, m, checkNow(ctx, t, s.URL, "restart"), "after the last kill")
	rows := finishModify(ctx, t, s, m)
	m.report(t)
	t.Logf("SUMMARY modify-sigkill: rounds=%d rows=%d %s", round, len(rows), m.summary())
}

// modifyPoints are the crash points around the persistence steps of an
// UPDATE/DELETE: the WAL append of its delete record (before and after the
// sync), the staged data and delete files, the manifest listing the delete
// file, the Iceberg metadata with it, and the version-hint naming it.
var modifyPoints = []string{
	crash.WALAfterAppend, crash.WALAfterSync, crash.CommitAfterParquet,
	crash.CommitAfterManifest, crash.CommitAfterMetadata, crash.CommitAfterHint,
}

// TestModifyCrashPoints: for each point of modifyPoints the server is
// armed to abort there, the table is seeded by one INSERT (the first WAL
// append, the first commit), and then two clients only update and delete
// (autocommit UPDATE/DELETE and explicit transactions of UPDATE + DELETE +
// INSERT): every later WAL append is a delete-bearing transaction and every
// later commit writes a delete file. The WAL points fire at append 12, the
// commit points at commit 3. Before the restart the directory shows the
// step was delete-bearing (a delete record in the WAL; a staged delete
// file no manifest lists; the latest manifest adding a delete file); after
// it the model holds (finishModify: and after a clean stop Iceberg agrees).
//
// BSDB_MODIFY_ALL_POINTS=1 runs every point of crash.All.
func TestModifyCrashPoints(t *testing.T) {
	points := modifyPoints
	if os.Getenv("BSDB_MODIFY_ALL_POINTS") != "" {
		points = crash.All
	}
	for _, point := range points {
		t.Run(point, func(t *testing.T) { runModifyCrashPoint(t, point) })
	}
}

func runModifyCrashPoint(t *testing.T, point string) {
	ctx := testCtx(t, 2*time.Minute)
	dataDir := t.TempDir()
	hit := "3"
	if strings.HasPrefix(point, "wal-") {
		hit = "12"
	}
	armed := point + ":" + hit
	s := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100, "BSDB_CRASH_AT="+armed)})
	m := newModel()
	seedRows(ctx, t, s.URL, m, 60)
	conns := []*pgx.Conn{connect(ctx, t, s.URL), connect(ctx, t, s.URL)}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for w, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.client(wctx, wctx, c, rand.New(rand.NewPCG(uint64(w), 21)), 0)
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
	checkDeleteBearing(t, dataDir, point)
	m.report(t)

	r := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(100)})
	verifyModel(t, m, checkNow(ctx, t, r.URL, "restart"), "after the crash")
	// The table takes changes again: one more UPDATE and DELETE of
	// recovered rows, acknowledged.
	c := connect(ctx, t, r.URL)
	rng := rand.New(rand.NewPCG(9, 9))
	if !m.doUpdate(ctx, c, rng, 2) || !m.doDelete(ctx, c, rng) {
		t.Fatalf("the connection failed after the restart")
	}
	c.Close(ctx)
	m.report(t)
	rows := finishModify(ctx, t, r, m)
	t.Logf("%s: rows=%d %s", armed, len(rows), m.summary())
}

// checkDeleteBearing shows, from the directory the crash left, that the
// step the point interrupted carried deletes.
func checkDeleteBearing(t *testing.T, dataDir, point string) {
	t.Helper()
	dir := tableDir(dataDir)
	switch point {
	case crash.WALAfterAppend, crash.WALAfterSync:
		found := false
		for _, seg := range walSegments(t, dir) {
			b, err := os.ReadFile(seg)
			if err != nil {
				t.Fatal(err)
			}
			found = found || bytes.Contains(b, []byte("BSDBDEL1"))
		}
		if !found {
			t.Errorf("%s: no WAL segment holds a delete record", point)
		}
	case crash.CommitAfterParquet:
		ms := manifests(t, dir)
		listed := map[string]bool{}
		for _, f := range manifestFiles(ms[len(ms)-1]) {
			listed[f] = true
		}
		staged, _ := filepath.Glob(filepath.Join(dir, "data", "*-deletes.parquet"))
		n := 0
		for _, p := range staged {
			if !listed[filepath.Base(p)] {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no staged delete file (every delete file on disk is in manifest v%d)", point, ms[len(ms)-1].Version)
		}
	case crash.CommitAfterManifest, crash.CommitAfterMetadata, crash.CommitAfterHint:
		ms := manifests(t, dir)
		latest := ms[len(ms)-1]
		n := len(latest.Deletes)
		if n == 0 || latest.Deletes[n-1].AddedVersion != latest.Version {
			t.Errorf("%s: the latest manifest v%d adds no delete file", point, latest.Version)
		}
	}
}

// TestLinearizableModify: 4 clients run the mixed INSERT / UPDATE / DELETE
// / transaction workload on shared rows while 3 readers read the whole
// table again and again, with a 20 ms flush so reads overlap every commit
// phase; every read is checked against the model (modify_model_test.go).
// A change refused with 40001 must never be seen. -soak /
// BSDB_SOAK_DURATION sets how long it runs (default 4 s).
func TestLinearizableModify(t *testing.T) {
	runFor := 4 * time.Second
	if *flagSoak > 0 {
		runFor = *flagSoak
	}
	ctx := testCtx(t, runFor+3*time.Minute)
	s := testserver.Start(t, testserver.Options{Env: serverEnv(20)})
	m := newModel()
	seedRows(ctx, t, s.URL, m, 100)
	conns := make([]*pgx.Conn, 7)
	for i := range conns {
		conns[i] = connect(ctx, t, s.URL)
	}
	rctx, stop := context.WithTimeout(ctx, runFor)
	defer stop()
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i < 4 {
				// Writers finish the operation they started (its
				// outcome must be known before the final checks).
				m.client(ctx, rctx, c, rand.New(rand.NewPCG(uint64(i), 5)), 25)
			} else {
				m.reader(rctx, c)
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		c.Close(context.Background())
	}
	m.report(t)
	rows := finishModify(ctx, t, s, m)
	commits := len(manifests(t, tableDir(s.DataDir))) - 1
	m.mu.Lock()
	conflicts := m.refused["40001"]
	m.mu.Unlock()
	if conflicts == 0 {
		t.Logf("no change was refused with 40001: the run did not exercise conflicts")
	}
	t.Logf("SUMMARY linearizability-modify: duration=%v rows=%d commits=%d %s", runFor, len(rows), commits, m.summary())
}
