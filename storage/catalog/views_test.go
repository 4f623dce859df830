package catalog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// TestViews: views share the tables' namespace (a name is a table or a
// view, never both), ListTables leaves them out, ListRelations has both,
// and DropTable / DropView each drop only their own kind.
func TestViews(t *testing.T) {
	ctx := context.Background()
	c := catalog.New(objstore.NewMem())
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	tid := catalog.TableID{Database: "db", Schema: "public", Name: "t"}
	vid := catalog.TableID{Database: "db", Schema: "public", Name: "v"}
	if _, err := c.CreateTable(ctx, tid); err != nil {
		t.Fatal(err)
	}
	def := &catalog.ViewDef{Query: "SELECT a FROM public.t", Columns: []catalog.ViewColumn{{Name: "a", TypeOID: 23, TypeMod: -1}}, Deps: []catalog.TableID{tid}}
	if _, err := c.CreateView(ctx, tid, def); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("view over a table's name: %v", err)
	}
	v, err := c.CreateView(ctx, vid, def, catalog.OwnedBy(16500))
	if err != nil || !v.IsView() || v.Owner != 16500 || v.OID == 0 {
		t.Fatalf("CreateView: %+v %v", v, err)
	}
	if _, err := c.CreateTable(ctx, vid); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("table over a view's name: %v", err)
	}
	if _, err := c.CreateView(ctx, catalog.TableID{Database: "db", Schema: "nope", Name: "v"}, def); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("view in a missing schema: %v", err)
	}
	tables, _ := c.ListTables(ctx, "db")
	all, _ := c.ListRelations(ctx, "db")
	if len(tables) != 1 || tables[0].ID != tid || len(all) != 2 || !all[1].IsView() || all[1].View.Query != def.Query {
		t.Fatalf("ListTables %+v, ListRelations %+v", tables, all)
	}
	got, err := c.ReplaceView(ctx, vid, func(e *catalog.Entry) error {
		e.View = &catalog.ViewDef{Query: "SELECT a, b FROM public.t"}
		return nil
	})
	if err != nil || got.View.Query != "SELECT a, b FROM public.t" || got.OID != v.OID {
		t.Fatalf("ReplaceView: %+v %v", got, err)
	}
	if err := c.DropTable(ctx, vid); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("DropTable of a view: %v", err)
	}
	if err := c.DropView(ctx, tid); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("DropView of a table: %v", err)
	}
	if err := c.DropView(ctx, vid); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Table(ctx, vid); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("view after DropView: %v", err)
	}
	// A CREATE TABLE AS table is created Creating.
	e, err := c.CreateTable(ctx, catalog.TableID{Database: "db", Schema: "public", Name: "c"}, catalog.Creating())
	if err != nil || !e.Creating {
		t.Fatalf("Creating: %+v %v", e, err)
	}
}
