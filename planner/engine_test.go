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

// TestCreateTableHasOneHandle: a statement that looks a table up while
// CREATE TABLE is still setting it up gets the same handle, never a second
// one on the same WAL and mirror (two batch-id counters on one mirror).
func TestCreateTableHasOneHandle(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: t.TempDir(), FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "t"}
	sch := &schema.Schema{Columns: []schema.Column{{Name: "a", Kind: schema.KindInt64}}}
	got := make(chan *Table, 1)
	e.testAfterCreate = func() {
		// The catalog entry exists now; the handle is not registered yet.
		go func() {
			tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			h, err := e.Table(tctx, id)
			if err != nil {
				t.Error(err)
			}
			got <- h
		}()
		time.Sleep(200 * time.Millisecond) // let the lookup run first
	}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		t.Fatal(err)
	}
	other := <-got
	mine, err := e.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if other != mine {
		t.Fatalf("a concurrent lookup opened a second handle on the table being created")
	}
}
