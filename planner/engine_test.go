package planner

import (
	"context"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// TestOpenPanicReleasesWaiters: a panic while a table opens (recovered by
// the session that hit it) must not leave other sessions waiting forever
// for that table.
func TestOpenPanicReleasesWaiters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(ctx, Config{DataDir: dir, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "t"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "a", Kind: schema.KindInt64}}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Reopen: the table is opened lazily, and the first open panics.
	e, err = Open(ctx, Config{DataDir: dir, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	panics := 1
	e.testOpenHook = func() {
		if panics > 0 {
			panics--
			panic("injected")
		}
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = e.Table(ctx, id)
	}()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := e.Table(tctx, id); err != nil {
		t.Fatalf("second open after a panicking one: %v", err)
	}
}
