package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

func newLocal(t *testing.T) objstore.Store {
	s, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDatabasesAndSchemas(t *testing.T) {
	ctx := context.Background()
	c := catalog.New(objstore.NewMem())
	if err := c.CreateDatabase(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "app"); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate database: %v", err)
	}
	if err := c.CreateDatabase(ctx, ""); !errors.Is(err, catalog.ErrInvalidName) {
		t.Fatalf("empty name: %v", err)
	}
	if err := c.CreateSchema(ctx, "nodb", "s"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("schema in a missing database: %v", err)
	}
	if err := c.CreateSchema(ctx, "app", "sales"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateSchema(ctx, "app", "sales"); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate schema: %v", err)
	}
	got, err := c.ListSchemas(ctx, "app")
	if err != nil || strings.Join(got, ",") != "public,sales" {
		t.Fatalf("ListSchemas = %v %v", got, err)
	}
	_ = c.CreateDatabase(ctx, "zeta")
	_ = c.CreateDatabase(ctx, "Alpha")
	dbs, _ := c.ListDatabases(ctx)
	if strings.Join(dbs, ",") != "Alpha,app,zeta" {
		t.Fatalf("ListDatabases = %v", dbs)
	}
	if err := c.DropSchema(ctx, "app", "sales", false); err != nil {
		t.Fatal(err)
	}
	if err := c.DropSchema(ctx, "app", "sales", false); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("drop missing schema: %v", err)
	}
	if err := c.DropDatabase(ctx, "zeta"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSchemas(ctx, "zeta"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("dropped database still has schemas: %v", err)
	}
	// Re-create after drop works and starts clean.
	if err := c.CreateDatabase(ctx, "zeta"); err != nil {
		t.Fatal(err)
	}
}

func TestTables(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	c := catalog.New(store)
	_ = c.CreateDatabase(ctx, "app")
	id := catalog.TableID{Database: "app", Schema: "public", Name: "orders"}
	e, err := c.CreateTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.OID != catalog.FirstOID || e.Prefix != "app/public/orders" || len(e.UUID) != 36 || e.ID != id {
		t.Fatalf("entry %+v", e)
	}
	e2, err := c.CreateTable(ctx, catalog.TableID{Database: "app", Schema: "public", Name: "items"})
	if err != nil || e2.OID != catalog.FirstOID+1 {
		t.Fatalf("second table: %+v %v", e2, err)
	}
	if _, err := c.CreateTable(ctx, id); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate table: %v", err)
	}
	if _, err := c.CreateTable(ctx, catalog.TableID{Database: "app", Schema: "nope", Name: "x"}); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("table in a missing schema: %v", err)
	}
	got, err := c.Table(ctx, id)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("Table = %+v %v, want %+v", got, err, e)
	}
	list, _ := c.ListTables(ctx, "app")
	if len(list) != 2 || list[0].ID.Name != "items" || list[1].ID.Name != "orders" {
		t.Fatalf("ListTables = %+v", list)
	}
	if err := c.DropDatabase(ctx, "app"); !errors.Is(err, catalog.ErrNotEmpty) {
		t.Fatalf("drop non-empty database: %v", err)
	}
	if err := c.DropSchema(ctx, "app", "public", false); !errors.Is(err, catalog.ErrNotEmpty) {
		t.Fatalf("drop non-empty schema: %v", err)
	}
	if err := c.DropTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Table(ctx, id); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("Table after drop: %v", err)
	}
	if err := c.DropTable(ctx, id); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("drop missing table: %v", err)
	}
	// A leftover manifest at the prefix (files not deleted yet) blocks a
	// re-create, instead of resurrecting the old rows.
	_ = store.Put(ctx, "app/public/orders/_manifest/v1.json", []byte("{}"))
	if _, err := c.CreateTable(ctx, id); !errors.Is(err, catalog.ErrPrefixInUse) {
		t.Fatalf("re-create over leftovers: %v", err)
	}
	_ = store.Delete(ctx, "app/public/orders/_manifest/v1.json")
	e3, err := c.CreateTable(ctx, id)
	if err != nil || e3.OID == e.OID || e3.UUID == e.UUID {
		t.Fatalf("re-created table must get a new OID and UUID: %+v %v", e3, err)
	}
	if err := c.DropSchema(ctx, "app", "public", true); err != nil {
		t.Fatal(err)
	}
	if list, _ := c.ListTables(ctx, "app"); len(list) != 0 {
		t.Fatalf("cascade left %+v", list)
	}
}

func TestOddNames(t *testing.T) {
	ctx := context.Background()
	c := catalog.New(newLocal(t))
	names := []string{"a/b", "..", ".", "Ünï cödé", "x%41", "with space", "UPPER"}
	_ = c.CreateDatabase(ctx, "d")
	for _, n := range names {
		if err := c.CreateSchema(ctx, "d", n); err != nil {
			t.Fatalf("schema %q: %v", n, err)
		}
		e, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: n, Name: n})
		if err != nil {
			t.Fatalf("table %q: %v", n, err)
		}
		if err := objstore.ValidateKey(e.Prefix + "/_manifest/v1.json"); err != nil {
			t.Fatalf("prefix of %q is not a valid key: %v", n, err)
		}
	}
	schemas, _ := c.ListSchemas(ctx, "d")
	if len(schemas) != len(names)+1 {
		t.Fatalf("ListSchemas = %q", schemas)
	}
	tables, _ := c.ListTables(ctx, "d")
	seen := map[string]bool{}
	for _, e := range tables {
		seen[e.ID.Name] = true
	}
	for _, n := range names {
		if !seen[n] {
			t.Errorf("table %q missing from ListTables", n)
		}
	}
	// "x%41" and "xA" are distinct names: escaping must not make them collide.
	if _, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: "UPPER", Name: "xA"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: "UPPER", Name: "x%41"}); err != nil {
		t.Fatalf("x%%41 next to xA: %v", err)
	}
}

// Processes racing to create the same table: exactly one wins. Processes
// creating different tables: OIDs are unique.
func TestConcurrentCreate(t *testing.T) {
	ctx := context.Background()
	store := newLocal(t)
	if err := catalog.New(store).CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	oids := map[uint32]string{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := catalog.New(store) // one Catalog per "process"
			_, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: "public", Name: "same"})
			mu.Lock()
			if err == nil {
				wins++
			} else if !errors.Is(err, catalog.ErrExists) {
				t.Errorf("same-table creator %d: %v", i, err)
			}
			mu.Unlock()
			for j := 0; j < 4; j++ {
				name := fmt.Sprintf("t%d_%d", i, j)
				e, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: "public", Name: name})
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				mu.Lock()
				if other, dup := oids[e.OID]; dup {
					t.Errorf("OID %d given to %s and %s", e.OID, other, name)
				}
				oids[e.OID] = name
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d creators of one table won, want exactly 1", wins)
	}
}

// An ambiguous create (written, error returned) counts as success; a create
// that really lost is ErrExists even when the records look alike.
func TestAmbiguousCreate(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	f := objstore.NewFaulty(mem, objstore.FailAfter(func(k string) bool { return strings.HasSuffix(k, "/t.json") }, objstore.OpPutIfAbsent))
	c := catalog.New(f)
	_ = c.CreateDatabase(ctx, "d")
	if _, err := c.CreateTable(ctx, catalog.TableID{Database: "d", Schema: "public", Name: "t"}); err != nil {
		t.Fatalf("ambiguous create that landed: %v", err)
	}
	if _, err := catalog.New(mem).Table(ctx, catalog.TableID{Database: "d", Schema: "public", Name: "t"}); err != nil {
		t.Fatal(err)
	}
}

func TestEscapeName(t *testing.T) {
	for _, n := range []string{"", "a", "a/b", "..", "%", "Ünï", "x y"} {
		esc := catalog.EscapeName(n)
		back, err := catalog.UnescapeName(esc)
		if err != nil || back != n {
			t.Errorf("%q -> %q -> %q %v", n, esc, back, err)
		}
		if strings.ContainsAny(esc, "/.") {
			t.Errorf("%q escapes to %q", n, esc)
		}
	}
}
