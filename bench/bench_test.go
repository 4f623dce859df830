package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

func TestMain(m *testing.M) { testserver.Main(m) }

func TestGeneratorDeterministic(t *testing.T) {
	a, b, c := NewGen(7), NewGen(7), NewGen(8)
	differ := 0
	for i := int64(0); i < 1000; i++ {
		ea, eb, ec := a.Event(i), b.Event(i), c.Event(i)
		if ea.rowText() != eb.rowText() {
			t.Fatalf("row %d differs for one seed: %s vs %s", i, ea.rowText(), eb.rowText())
		}
		if ea.rowText() != ec.rowText() {
			differ++
		}
		if ea.ID != i+1 || !ea.TS.Equal(EventTS(i)) || ea.UserID < 1 || ea.UserID > Users || len(ea.Payload) != PayloadLen {
			t.Fatalf("row %d out of shape: %s", i, ea.rowText())
		}
	}
	if differ < 990 {
		t.Fatalf("seeds 7 and 8 share %d of 1000 rows", 1000-differ)
	}
	kinds := map[string]bool{}
	for i := int64(0); i < 10000; i++ {
		kinds[a.Event(i).Kind] = true
	}
	if len(kinds) != len(Kinds) {
		t.Fatalf("10000 rows use %d kinds, want %d", len(kinds), len(Kinds))
	}
}

func TestStats(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Fatalf("median odd = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median even = %v", m)
	}
	s := make([]float64, 100)
	for i := range s {
		s[i] = float64(i + 1)
	}
	if p := percentile(s, 99); p != 99 {
		t.Fatalf("p99 = %v", p)
	}
	if g := geomean([]float64{1, 100}); math.Abs(g-10) > 1e-9 {
		t.Fatalf("geomean = %v", g)
	}
}

func TestVerdictAndRatios(t *testing.T) {
	r := newResults()
	f := r.Define(Figure{Name: "1-x", Unit: "rows/s", HigherBetter: true, MinVsPG: 3})
	r.Add("1-x", sysBSDB, 300)
	r.Add("1-x", sysPG, 100)
	if v := f.Verdict(); !strings.HasPrefix(v, "MET") {
		t.Fatalf("3x of a 3x target: %s", v)
	}
	q := r.Define(Figure{Name: "3-q", Unit: "s", MinVsPG: 10, MaxVsDuck: 1.3})
	r.Add("3-q", sysBSDB, 0.2)
	r.Add("3-q", sysPG, 1)
	r.Add("3-q", sysDuck, 0.1)
	if v := q.Verdict(); !strings.HasPrefix(v, "MISSED") {
		t.Fatalf("5x faster than PG and 2x slower than DuckDB must miss: %s", v)
	}
	var buf bytes.Buffer
	r.WriteLines(&buf)
	for _, want := range []string{"1-x bsdb-pg 300 rows/s", "1-x ratio bsdb-pg/postgres=3.00x", "3-q ratio bsdb-pg/postgres=5.00x bsdb-pg/duckdb=0.50x"} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

// fakeQuerier answers every query with fixed results.
type fakeQuerier struct {
	count string
	rows  int
}

func (f fakeQuerier) run(_ context.Context, q string) (string, int, error) {
	if q == "SELECT count(*) FROM events" {
		return f.count, 1, nil
	}
	return "x", f.rows, nil
}

// TestQueriesCheckAnswers: a system that loses rows (count(*) != rows
// loaded) or answers with a different row count fails the run.
func TestQueriesCheckAnswers(t *testing.T) {
	ctx := context.Background()
	good := fakeQuerier{count: "100", rows: 3}
	systems := []string{sysBSDB, sysPG}
	if err := runQueries(ctx, newResults(), "p", 100, 1, systems, map[string]querier{sysBSDB: good, sysPG: good}); err != nil {
		t.Fatal(err)
	}
	lost := fakeQuerier{count: "99", rows: 3}
	if err := runQueries(ctx, newResults(), "p", 100, 1, systems, map[string]querier{sysBSDB: lost, sysPG: good}); err == nil || !strings.Contains(err.Error(), "count(*) = 99") {
		t.Fatalf("lost row not reported: %v", err)
	}
	other := fakeQuerier{count: "100", rows: 4}
	if err := runQueries(ctx, newResults(), "p", 100, 1, systems, map[string]querier{sysBSDB: other, sysPG: good}); err == nil {
		t.Fatal("different row counts not reported")
	}
}

func TestFdatasyncRate(t *testing.T) {
	r, err := fdatasyncRate(t.TempDir(), 200*time.Millisecond)
	if err != nil || r <= 0 {
		t.Fatalf("rate %v, %v", r, err)
	}
	t.Logf("%.0f fdatasync/s in %s", r, os.TempDir())
}

// laggyFresh makes each row visible only after `lag` further reads, like a
// system whose acknowledged writes reach readers asynchronously.
type laggyFresh struct {
	inserted, reads, lag int
}

func (f *laggyFresh) insert(_ context.Context, k int) error { f.inserted, f.reads = k, 0; return nil }
func (f *laggyFresh) count(context.Context) (int64, error) {
	f.reads++
	if f.reads <= f.lag {
		return int64(f.inserted - 1), nil
	}
	return int64(f.inserted), nil
}

// TestFreshnessDetectsLag: a read after the acknowledgement that misses the
// row is counted and fails the harness; a 0-lag system passes.
func TestFreshnessDetectsLag(t *testing.T) {
	ctx := context.Background()
	lag, stale, err := probeFreshness(ctx, &laggyFresh{}, 5, time.Second)
	if err != nil || stale != 0 || len(lag) != 5 || checkFresh("x", stale, 5) != nil {
		t.Fatalf("0-lag system: lag %v stale %d err %v", lag, stale, err)
	}
	_, stale, err = probeFreshness(ctx, &laggyFresh{lag: 2}, 5, time.Second)
	if err != nil || stale != 5 {
		t.Fatalf("lagging system: stale %d, want 5 (err %v)", stale, err)
	}
	if checkFresh("x", stale, 5) == nil {
		t.Fatal("stale reads did not fail the check")
	}
	if _, _, err := probeFreshness(ctx, &laggyFresh{lag: 1 << 30}, 1, 50*time.Millisecond); err == nil {
		t.Fatal("a row that never becomes visible must be an error")
	}
}

// TestPeakRSS: the peak follows a 128 MB allocation, and resetting it
// (what figure 5 does before the big COPY) forgets that peak once the
// memory is returned.
func TestPeakRSS(t *testing.T) {
	pid := os.Getpid()
	buf := make([]byte, 128<<20)
	for i := range buf {
		buf[i] = 1
	}
	high, err := peakRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	if high < 128<<20 {
		t.Fatalf("peak RSS %d after touching 128 MB", high)
	}
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	if err := resetPeakRSS(pid); err != nil {
		t.Skipf("clear_refs not writable: %v", err)
	}
	low, err := peakRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	if low > high-64<<20 {
		t.Fatalf("peak RSS after reset %d, before %d: not reset", low, high)
	}
}

// TestSmoke runs the whole harness with tiny sizes: every figure must have
// produced a number for each system it measures, and the freshness check
// (0 stale reads) must hold. No timing assertions.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and bsdb-pg")
	}
	if _, err := pgref.FindBinDir(); err != nil {
		if os.Getenv(pgref.EnvRequire) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	cfg := Smoke()
	cfg.CopyRows = []int64{1000, 3000}
	cfg.Runs = 1
	cfg.InsertConns = []int{1, 8}
	cfg.InsertDur = 2 * time.Second
	cfg.FsyncDur = 500 * time.Millisecond
	cfg.QueryReps = 1
	cfg.FreshProbes = 10
	cfg.RestartWALMB = 1
	cfg.DMLRows = 5000
	cfg.UpdateConns = []int{1, 4}
	cfg.ServerBin = testserver.Build(t)
	cfg.WorkDir = t.TempDir()
	cfg.ProfileDir = ""
	var out bytes.Buffer
	cfg.Out = &out
	logOut = testWriter{t}
	defer func() { logOut = os.Stderr }()
	res, err := Run(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"1-copy-1k":               {sysBSDB, sysPG},
		"1-copy-3k":               {sysBSDB, sysPG},
		"2-fdatasync":             {sysDisk},
		"2-insert-c1-tps":         {sysBSDB, sysPG, sysDisk},
		"2-insert-c8-p99":         {sysBSDB, sysPG},
		"3-geomean-ingest":        {sysBSDB, sysPG, sysDuck},
		"3-join-country-flushed":  {sysBSDB, sysPG, sysDuck},
		"4-freshness-lag":         {sysBSDB, sysPG},
		"4-freshness-stale-reads": {sysBSDB, sysPG},
		"5-peak-rss-copy":         {sysBSDB},
		"6-restart":               {sysBSDB},
		"6-replay-rate":           {sysBSDB},
		"7-scan-before":           {sysBSDB, sysPG},
		"7-delete-1pct":           {sysBSDB, sysPG},
		"7-scan-after-delete":     {sysBSDB, sysPG},
		"7-scan-delete-slowdown":  {sysBSDB, sysPG},
		"7-update-c1-tps":         {sysBSDB, sysPG},
		"7-update-c4-p99":         {sysBSDB, sysPG},
		"7-scan-after-updates":    {sysBSDB, sysPG},
	}
	for name, systems := range want {
		f, ok := res.figs[name]
		if !ok {
			t.Errorf("figure %s missing", name)
			continue
		}
		for _, sys := range systems {
			v, ok := f.Median(sys)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v == 0 && name != "4-freshness-stale-reads") {
				t.Errorf("figure %s on %s: %v (ok=%v)", name, sys, v, ok)
			}
		}
	}
	for _, sys := range []string{sysBSDB, sysPG} {
		if v, _ := res.figs["4-freshness-stale-reads"].Median(sys); v != 0 {
			t.Errorf("%s: %v stale reads after an acknowledged INSERT", sys, v)
		}
	}
	res.WriteLines(&out)
	var md bytes.Buffer
	res.WriteMarkdown(&md, "header")
	if !strings.Contains(md.String(), "| 1-copy-3k | rows/s |") {
		t.Errorf("markdown table lacks the COPY row:\n%s", md.String())
	}
	t.Logf("smoke output:\n%s", out.String())
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
