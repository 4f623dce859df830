package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// TestRenameTable: the relation moves to its new name (and schema) with
// its files' prefix, OID and UUID; the old name is free; a new table of
// the old name gets a prefix of its own (the renamed table's files are
// still at the old name's prefix).
func TestRenameTable(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	c := catalog.New(store)
	_ = c.CreateDatabase(ctx, "app")
	_ = c.CreateSchema(ctx, "app", "archive")
	from := catalog.TableID{Database: "app", Schema: "public", Name: "orders"}
	to := catalog.TableID{Database: "app", Schema: "archive", Name: "old_orders"}
	e, err := c.CreateTable(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	// The table's files (what CreateTable checks the prefix by).
	if _, err := store.PutIfAbsent(ctx, e.Prefix+"/_manifest/v1.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	r, err := c.RenameTable(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != to || r.Prefix != e.Prefix || r.OID != e.OID || r.UUID != e.UUID || r.RenamedFrom != nil {
		t.Fatalf("renamed entry %+v, from %+v", r, e)
	}
	if _, err := c.Table(ctx, from); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("old name after the rename: %v", err)
	}
	if got, err := c.Table(ctx, to); err != nil || got.UUID != e.UUID {
		t.Fatalf("new name: %+v %v", got, err)
	}
	n, err := c.CreateTable(ctx, from)
	if err != nil {
		t.Fatalf("a new table of the old name: %v", err)
	}
	if n.Prefix == e.Prefix {
		t.Fatalf("the new table shares the renamed table's prefix %s", n.Prefix)
	}
	if _, err := c.RenameTable(ctx, from, to); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("rename onto an existing name: %v", err)
	}
	if _, err := c.RenameTable(ctx, from, catalog.TableID{Database: "app", Schema: "nope", Name: "x"}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("rename into a missing schema: %v", err)
	}
}

// TestRenameInterrupted: each state a crash can leave a rename in. After
// the first step (new entry marked, old entry still there) the relation
// is under its old name only, and the new name is free (a create replaces
// the stale entry); after the second (old entry gone, mark not cleared)
// the relation is under its new name.
func TestRenameInterrupted(t *testing.T) {
	ctx := context.Background()
	from := catalog.TableID{Database: "app", Schema: "public", Name: "a"}
	to := catalog.TableID{Database: "app", Schema: "public", Name: "b"}
	setup := func() (objstore.Store, *catalog.Catalog, *catalog.Entry) {
		store := objstore.NewMem()
		c := catalog.New(store)
		_ = c.CreateDatabase(ctx, "app")
		e, err := c.CreateTable(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RenameTable(ctx, from, to); err != nil {
			t.Fatal(err)
		}
		return store, c, e
	}
	key := func(id catalog.TableID) string { return "_catalog/tables/app/public/" + id.Name + ".json" }

	// Crash after step 1: put the old entry back and mark the new one.
	store, c, e := setup()
	old := *e
	marked := *e
	marked.ID, marked.RenamedFrom = to, &from
	put(t, store, key(from), &old)
	put(t, store, key(to), &marked)
	if got, err := c.Table(ctx, from); err != nil || got.UUID != e.UUID {
		t.Fatalf("after step 1: old name %+v %v, want the relation", got, err)
	}
	if _, err := c.Table(ctx, to); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("after step 1: new name %v, want not found", err)
	}
	if rels, _ := c.ListRelations(ctx, "app"); len(rels) != 1 || rels[0].ID != from {
		t.Fatalf("after step 1: relations %+v", rels)
	}
	if _, err := c.CreateView(ctx, to, &catalog.ViewDef{Query: "SELECT 1"}); err != nil {
		t.Fatalf("after step 1: a view of the new name: %v", err)
	}
	if got, err := c.Table(ctx, from); err != nil || got.UUID != e.UUID {
		t.Fatalf("after step 1 and a create of the new name: old name %+v %v", got, err)
	}

	// Crash after step 2: the old entry gone, the mark left.
	store, c, e = setup()
	marked = *e
	marked.ID, marked.RenamedFrom = to, &from
	_ = store.Delete(ctx, key(from))
	put(t, store, key(to), &marked)
	if got, err := c.Table(ctx, to); err != nil || got.UUID != e.UUID {
		t.Fatalf("after step 2: new name %+v %v, want the relation", got, err)
	}
	if _, err := c.CreateTable(ctx, to); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("after step 2: create of the new name: %v, want ErrExists", err)
	}
}

// put overwrites the record at key with v (a crash's leftovers).
func put(t *testing.T, store objstore.Store, key string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	_ = store.Delete(context.Background(), key)
	if _, err := store.PutIfAbsent(context.Background(), key, data); err != nil {
		t.Fatal(err)
	}
}
