package crashtest

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
)

// TestTwoWriterProcesses: two servers on one data directory (one warehouse,
// one table, one shared _wal directory: the WAL locks each segment per
// process, so each recovers and prunes only its own segments) insert
// disjoint key ranges concurrently with a 30 ms age flush, so their commits
// race on create-if-not-exists of the next manifest. Afterwards (both
// stopped cleanly, one restarted): every row present once, no gap, no data
// file outside the latest manifest, manifest history v1..vN with each
// Parent = N-1, Iceberg agreeing with the manifest, no WAL segment left.
func TestTwoWriterProcesses(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	dataDir := t.TempDir()
	a := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(30)})
	ca := connect(ctx, t, a.URL)
	if _, err := ca.Exec(ctx, createTable); err != nil {
		t.Fatalf("create table: %v", err)
	}
	b := testserver.Start(t, testserver.Options{DataDir: dataDir, Env: serverEnv(30)})
	cb := connect(ctx, t, b.URL)

	const perWriter = 600
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w, c := range []*pgx.Conn{ca, cb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := int64(w) * 1_000_000
			for i := int64(0); i < perWriter; {
				n := int64(1 + i%7)
				if i+n > perWriter {
					n = perWriter - i
				}
				ids := make([]int64, n)
				for k := range ids {
					ids[k] = base + i + int64(k)
				}
				if err := writeOne(ctx, c, int(i%3)+boolInt(n > 1 && i%3 == 0), w, ids); err != nil {
					errs <- fmt.Errorf("server %d: write at %d: %w", w, i, err)
					return
				}
				i += n
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ca.Close(ctx)
	cb.Close(ctx)
	if err := a.Stop(); err != nil {
		t.Errorf("stop a: %v", err)
	}
	if err := b.Stop(); err != nil {
		t.Errorf("stop b: %v", err)
	}
	ms := manifests(t, tableDir(dataDir))
	orphans := checkQuiescentLayout(t, dataDir)
	if len(orphans) > 0 {
		t.Errorf("%d data files no manifest references: %v", len(orphans), orphans)
	}
	a.Restart()
	c := connect(ctx, t, a.URL)
	got, err := readIDs(ctx, c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	checkTwoRanges(t, got, perWriter)
	parquet, _ := filepath.Glob(filepath.Join(tableDir(dataDir), "data", "*.parquet"))
	t.Logf("two writers: %d rows, %d manifest versions, %d data files", len(got), len(ms), len(parquet))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkTwoRanges: ids 0..n-1 and 1e6..1e6+n-1, each exactly once, nothing else.
func checkTwoRanges(t *testing.T, got map[int64]int, n int64) {
	t.Helper()
	bad := 0
	for w := int64(0); w < 2; w++ {
		for i := int64(0); i < n; i++ {
			if c := got[w*1_000_000+i]; c != 1 {
				bad++
				if bad <= 10 {
					t.Errorf("id %d present %d times", w*1_000_000+i, c)
				}
			}
		}
	}
	if int64(len(got)) != 2*n {
		t.Errorf("%d distinct ids, want %d", len(got), 2*n)
	}
}
