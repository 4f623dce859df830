package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
	"github.com/bsdb/bsdb-pg/storage/objstore/objstoretest"
)

func aclText(a acl.ACL) string {
	if a == nil {
		return "NULL"
	}
	var out []string
	for _, it := range a {
		b, _ := it.MarshalText()
		out = append(out, string(b))
	}
	return "{" + strings.Join(out, ",") + "}"
}

// TestOwnersAndACLs: owners are recorded at creation, ACLs changed by
// Update* survive a reopen of the store, and schema public is owned by
// pg_database_owner with initdb's ACL.
func TestOwnersAndACLs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *catalog.Catalog {
		s, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		return catalog.New(s)
	}
	c := open()
	const alice = 16500
	if err := c.CreateDatabase(ctx, "app", catalog.OwnedBy(alice)); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateSchema(ctx, "app", "s", catalog.OwnedBy(alice)); err != nil {
		t.Fatal(err)
	}
	id := catalog.TableID{Database: "app", Schema: "s", Name: "t"}
	if _, err := c.CreateTable(ctx, id, catalog.OwnedBy(alice)); err != nil {
		t.Fatal(err)
	}
	grant := func(a acl.ACL, owner uint32) acl.ACL {
		return acl.Grant(acl.Effective(a, acl.Table, owner), 16501, owner, acl.Select)
	}
	if _, err := c.UpdateTable(ctx, id, func(e *catalog.Entry) error { e.ACL = grant(e.ACL, e.Owner); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateSchema(ctx, "app", "s", func(r *catalog.Container) error { r.Owner = 10; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTable(ctx, catalog.TableID{Database: "app", Schema: "s", Name: "nope"}, func(*catalog.Entry) error { return nil }); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("update of a missing table: %v", err)
	}
	refused := errors.New("refused")
	if _, err := c.UpdateDatabase(ctx, "app", func(r *catalog.Container) error { r.Owner = 1; return refused }); !errors.Is(err, refused) {
		t.Fatalf("fn's error: %v", err)
	}

	c = open()
	e, err := c.Table(ctx, id)
	if err != nil || e.Owner != alice || aclText(e.ACL) != "{16500=arwdDxt/16500,16501=r/16500}" {
		t.Fatalf("table after reopen: %+v %v", e, err)
	}
	db, err := c.Database(ctx, "app")
	if err != nil || db.Owner != alice || db.ACL != nil {
		t.Fatalf("database: %+v %v", db, err)
	}
	schemas, err := c.SchemaRecords(ctx, "app")
	if err != nil || len(schemas) != 2 {
		t.Fatalf("schemas: %+v %v", schemas, err)
	}
	if p := schemas[0]; p.Name != "public" || p.Owner != acl.RoleDatabaseOwner || aclText(p.ACL) != "{6171=UC/6171,=U/6171}" {
		t.Fatalf("public: %+v %s", p, aclText(p.ACL))
	}
	if s := schemas[1]; s.Name != "s" || s.Owner != 10 {
		t.Fatalf("s: %+v", s)
	}
}

// TestLegacyRecords: records written before owners existed read as owned
// by the bootstrap superuser (public: pg_database_owner, initdb's ACL).
func TestLegacyRecords(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	for key, body := range map[string]string{
		"_catalog/databases/old.json":        `{"name":"old","created_ms":1,"uuid":"u1"}`,
		"_catalog/schemas/old/public.json":   `{"name":"public","database":"old","created_ms":1,"uuid":"u2"}`,
		"_catalog/schemas/old/s.json":        `{"name":"s","database":"old","created_ms":1,"uuid":"u3"}`,
		"_catalog/tables/old/public/t.json":  `{"id":{"Database":"old","Schema":"public","Name":"t"},"uuid":"u4","oid":16384,"prefix":"old/public/t","created_ms":1}`,
		"_catalog/tables/old/public/ok.json": `{"id":{"Database":"old","Schema":"public","Name":"ok"},"uuid":"u5","oid":16385,"prefix":"old/public/ok","created_ms":1,"owner":16400,"acl":[]}`,
	} {
		if err := store.Put(ctx, key, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	c := catalog.New(store)
	db, err := c.Database(ctx, "old")
	if err != nil || db.Owner != 10 || db.ACL != nil {
		t.Fatalf("database: %+v %v", db, err)
	}
	pub, err := c.Schema(ctx, "old", "public")
	if err != nil || pub.Owner != acl.RoleDatabaseOwner || aclText(pub.ACL) != "{6171=UC/6171,=U/6171}" {
		t.Fatalf("public: %+v %v", pub, err)
	}
	s, err := c.Schema(ctx, "old", "s")
	if err != nil || s.Owner != 10 || s.ACL != nil {
		t.Fatalf("s: %+v %v", s, err)
	}
	tab, err := c.Table(ctx, catalog.TableID{Database: "old", Schema: "public", Name: "t"})
	if err != nil || tab.Owner != 10 || tab.ACL != nil {
		t.Fatalf("table: %+v %v", tab, err)
	}
	// An empty ACL (every privilege revoked, the owner's too) is not NULL.
	ok, err := c.Table(ctx, catalog.TableID{Database: "old", Schema: "public", Name: "ok"})
	if err != nil || ok.Owner != 16400 || ok.ACL == nil || len(ok.ACL) != 0 {
		t.Fatalf("empty ACL: %+v %v", ok, err)
	}
}

// TestRecreatedDatabaseForgetsGrants: a database re-created after a DROP
// interrupted before its schema records went does not inherit the old
// public schema's grants.
func TestRecreatedDatabaseForgetsGrants(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	c := catalog.New(store)
	if err := c.CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateSchema(ctx, "d", "public", func(r *catalog.Container) error {
		r.ACL = acl.Grant(r.ACL, 16600, r.Owner, acl.Create)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// DROP DATABASE crashed after the database record went.
	if err := store.Delete(ctx, "_catalog/databases/d.json"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	pub, err := c.Schema(ctx, "d", "public")
	if err != nil || aclText(pub.ACL) != "{6171=UC/6171,=U/6171}" {
		t.Fatalf("public after re-create: %+v %v", pub, err)
	}
}

// TestRoles: the bootstrap set until the first change; concurrent updates
// (several processes sharing a warehouse) all land, none lost, names stay
// unique.
func TestRoles(t *testing.T) { testRoles(t, newLocal(t)) }

// TestConcurrentGrants: concurrent changes of one table's ACL (GRANTs of
// several processes) all land.
func TestConcurrentGrants(t *testing.T) { testConcurrentGrants(t, newLocal(t)) }

// The same on a real S3-compatible server (conditional writes with ETags).
func TestRolesOnS3(t *testing.T) {
	gw := objstoretest.StartVersityGW(t)
	testRoles(t, gw.NewBucket(t, "warehouse"))
	testConcurrentGrants(t, gw.NewBucket(t, "warehouse2"))
}

func testConcurrentGrants(t *testing.T, store objstore.Store) {
	ctx := context.Background()
	c := catalog.New(store)
	if err := c.CreateDatabase(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	id := catalog.TableID{Database: "d", Schema: "public", Name: "t"}
	if _, err := c.CreateTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := catalog.New(store).UpdateTable(ctx, id, func(e *catalog.Entry) error {
				e.ACL = acl.Grant(acl.Effective(e.ACL, acl.Table, e.Owner), uint32(20000+i), e.Owner, acl.Select)
				return nil
			})
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	e, err := c.Table(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.ACL) != n+1 {
		t.Fatalf("%d items after %d concurrent grants: %s", len(e.ACL), n, aclText(e.ACL))
	}
}

func testRoles(t *testing.T, store objstore.Store) {
	ctx := context.Background()
	c := catalog.New(store)
	r, err := c.ReadRoles(ctx)
	if err != nil || len(r.Roles) != 1 || r.Roles[0].Name != "postgres" || r.Roles[0].OID != 10 || !r.Roles[0].Super {
		t.Fatalf("bootstrap roles: %+v %v", r, err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := 0; i < n; i++ {
		wg.Add(2)
		for k := 0; k < 2; k++ {
			go func(i, k int) {
				defer wg.Done()
				// Each process has its own Catalog on the same store.
				cc := catalog.New(store)
				oid, err := cc.AllocOID(ctx)
				if err != nil {
					errs <- err
					return
				}
				name := fmt.Sprintf("r%d", i) // two writers race for each name
				_, err = cc.UpdateRoles(ctx, func(r *catalog.Roles) error {
					if r.ByName(name) != nil {
						return catalog.ErrExists
					}
					r.Roles = append(r.Roles, catalog.Role{OID: oid, Name: name, Inherit: true, Login: true, ConnLimit: -1})
					return nil
				})
				if err != nil && !errors.Is(err, catalog.ErrExists) {
					errs <- err
				}
			}(i, k)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r, err = c.ReadRoles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Roles) != n+1 {
		t.Fatalf("%d roles after %d distinct creates: %+v", len(r.Roles), n, r.Roles)
	}
	seen := map[string]bool{}
	for _, role := range r.Roles {
		if seen[role.Name] {
			t.Fatalf("duplicate role %s", role.Name)
		}
		seen[role.Name] = true
	}
	// A changed clone does not change the original.
	cl := r.Clone()
	cl.Roles[0].Name = "x"
	if r.Roles[0].Name == "x" {
		t.Fatal("Clone shares roles")
	}
}
