package planner

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/wal"
)

// TestCacheLoadAfterBind: a statement bound while its rows are buffered
// reads them once even if their file is committed before it runs: the
// loader does not append the file to the cache while a statement holds the
// table (a scan concurrent with an append was seen to return rows twice),
// and the cache rows are filtered by file number besides.
func TestCacheLoadAfterBind(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: t.TempDir(), FlushInterval: -1, NativeCacheBytes: 1 << 30})
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
	write := func(from, to int64) { writeInt64s(t, tb, from, to) }
	count := func(from string) int64 {
		var n int64
		if err := e.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+from+" t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write(0, 100)
	if err := tb.T.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	waitFiles(t, tb, 1)
	write(100, 200)
	bd, err := tb.Bind(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The buffered rows become file 2; while the statement holds the
	// table, the loader waits.
	if err := tb.T.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := tb.CachedFiles(); n != 1 {
		t.Errorf("the cache loaded a file while a statement held the table: %d files", n)
	}
	if n := count(bd.FromSQL); n != 200 {
		t.Errorf("the statement bound before the flush reads %d rows, want 200", n)
	}
	bd.Release()
	waitFiles(t, tb, 2)
	bd, err = tb.Bind(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Release()
	if n := count(bd.FromSQL); n != 200 {
		t.Errorf("a statement bound after the load reads %d rows, want 200", n)
	}
}

// writeInt64s writes the rows from..to-1 to tb, a table of one bigint
// column, as one synchronous write.
func writeInt64s(t *testing.T, tb *Table, from, to int64) {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Append(i)
	}
	col := b.NewArray()
	rec := array.NewRecordBatch(tb.T.ArrowSchema(), []arrow.Array{col}, to-from)
	col.Release()
	defer rec.Release()
	if _, err := tb.Write(context.Background(), []arrow.RecordBatch{rec}, wal.DurabilitySync, nil, false); err != nil {
		t.Fatal(err)
	}
}

func waitFiles(t *testing.T, tb *Table, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for tb.CachedFiles() != n {
		if time.Now().After(deadline) {
			t.Fatalf("cached files: %d, want %d", tb.CachedFiles(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCacheSweepsDroppedTables: a table dropped while this server was not
// running (by another process on the warehouse) loses its cache at the
// next start; a live table keeps its own.
func TestCacheSweepsDroppedTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{DataDir: dir, FlushInterval: -1, NativeCacheBytes: 1 << 30}
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "a", Kind: schema.KindInt64}}}
	for _, name := range []string{"gone", "kept"} {
		id := catalog.TableID{Database: "postgres", Schema: "public", Name: name}
		if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
			t.Fatal(err)
		}
		tb, err := e.Table(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		writeInt64s(t, tb, 1, 2)
		if err := tb.T.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		waitFiles(t, tb, 1)
	}
	store := e.Store()
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Another process drops "gone" while this server is down.
	if err := catalog.New(store).DropTable(ctx, catalog.TableID{Database: "postgres", Schema: "public", Name: "gone"}); err != nil {
		t.Fatal(err)
	}
	e, err = Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := e.DB().QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'bsdb_cache' AND table_name LIKE '__bsdb_files_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d cache tables after the sweep, want 1 (the kept table's)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	kept, err := e.Table(ctx, catalog.TableID{Database: "postgres", Schema: "public", Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if kept.CachedFiles() != 1 {
		t.Errorf("the kept table's cache holds %d files", kept.CachedFiles())
	}
}

// TestCacheOfAnOlderSchema: a server that dies in ALTER TABLE after the
// manifest with the new schema is durable, before the table's native
// cache is dropped, finds at its next start a cache loaded in the old
// schema. It must not read it: here column a is dropped and a new column
// a added (a new field id, absent from the old file: NULL in every row),
// and the stale cache, matched by name, would answer with the old
// values.
func TestCacheOfAnOlderSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{DataDir: dir, FlushInterval: -1, NativeCacheBytes: 1 << 30}
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "t"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "a", Kind: schema.KindInt64}}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		t.Fatal(err)
	}
	tb, err := e.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	writeInt64s(t, tb, 1, 101)
	if err := tb.T.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	waitFiles(t, tb, 1)
	// The schema change as the crash leaves it: the manifest is committed,
	// the planner's handle (and its cache) never retired.
	if _, err := tb.T.Alter(ctx, func(head *manifest.Manifest) (*schema.Schema, error) {
		s := head.Schema.Clone()
		s.DropColumn("a")
		s.AddColumn(schema.Column{Name: "a", Kind: schema.KindInt64})
		return s, nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = e.Close(ctx)

	e, err = Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	tb, err = e.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, wait := range []bool{false, true} {
		if wait {
			waitFiles(t, tb, 1) // reloaded in the new schema
		}
		bd, err := tb.Bind(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n, nonNull int64
		err = e.DB().QueryRowContext(ctx, "SELECT count(*), count(a) FROM "+bd.FromSQL+" t").Scan(&n, &nonNull)
		bd.Release()
		if err != nil {
			t.Fatal(err)
		}
		if n != 100 || nonNull != 0 {
			t.Fatalf("after the restart (cache reloaded: %v): %d rows, %d with a non-null a; want 100 rows, a NULL in each", wait, n, nonNull)
		}
	}
}
