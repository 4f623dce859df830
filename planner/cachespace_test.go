package planner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// The native cache loads no file while its file system has less free
// space than the reserve (plus what the load takes), and loads it once
// space is back: space an operator frees on a full disk is not taken back
// by the cache. The file system is simulated (diskSpace).
func TestCacheKeepsDiskReserve(t *testing.T) {
	const reserve = 100 << 20
	var avail atomic.Int64
	avail.Store(reserve + 1<<10) // short of a load's need
	defer func(f func(string) (int64, int64, error), retry time.Duration) {
		diskSpace, cacheSpaceRetry = f, retry
	}(diskSpace, cacheSpaceRetry)
	diskSpace = func(string) (int64, int64, error) { return avail.Load(), 1 << 40, nil }
	cacheSpaceRetry = 50 * time.Millisecond

	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: t.TempDir(), FlushInterval: -1, NativeCacheBytes: 1 << 30, NativeCacheReserveBytes: reserve})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "t"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "a", Kind: schema.KindInt64}}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		t.Fatal(err)
	}
	tb, err := e.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	writeInt64s(t, tb, 0, 1000)
	if err := tb.T.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the loader looked (kicked by the flush) and retried
	if n := tb.CachedFiles(); n != 0 {
		t.Fatalf("%d files loaded with the disk at the reserve, want 0", n)
	}
	bd, err := tb.Bind(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	err = e.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+bd.FromSQL+" t").Scan(&n)
	bd.Release()
	if err != nil || n != 1000 {
		t.Fatalf("reading the table from Parquet meanwhile: %d rows, %v", n, err)
	}
	avail.Store(10 << 30) // the operator freed space
	waitFiles(t, tb, 1)
}

// The default reserve is 1 GB, or 5% of a file system larger than 20 GB.
func TestCacheReserveDefault(t *testing.T) {
	e := &Engine{}
	for _, c := range []struct{ set, total, want int64 }{
		{0, 8 << 30, 1 << 30},
		{0, 100 << 30, 5 << 30},
		{64 << 20, 100 << 30, 64 << 20},
		{-1, 100 << 30, 0},
	} {
		e.cfg.NativeCacheReserveBytes = c.set
		if got := e.cacheReserve(c.total); got != c.want {
			t.Errorf("reserve %d on %d bytes: %d, want %d", c.set, c.total, got, c.want)
		}
	}
}
