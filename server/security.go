package server

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// security is the server's view of the warehouse's roles and of the owner
// and ACL of each database, schema and table, read from the storage
// catalog (which stays the truth) and cached: a privilege check must not
// read the object store at every statement.
//
// Freshness: changes made through this server are in the cache when the
// statement that made them completes (every write goes through security
// and installs what it wrote). Changes made by another process sharing the
// warehouse are seen within securityTTL, as its table commits are: an
// entry older than that is read again by the next statement that needs it.
type security struct {
	cat *catalog.Catalog
	ttl time.Duration

	// roles is the current roleSnap; refresh serializes its reloads and
	// every role change (a writer holds it across the catalog's
	// compare-and-swap and the install).
	roles   atomic.Pointer[roleSnap]
	refresh sync.Mutex

	mu   sync.Mutex
	objs map[string]*objSnap // by objKey
	// oids maps a database's table OIDs to names (the inquiry functions
	// take OIDs), reloaded on a miss at most once per TTL.
	oids map[string]*oidMap
}

type oidMap struct {
	m  map[uint32]catalog.TableID
	at time.Time
}

// securityTTL bounds how long another process's role or privilege change
// may go unseen.
const securityTTL = time.Second

func newSecurity(cat *catalog.Catalog) *security {
	return &security{cat: cat, ttl: securityTTL, objs: map[string]*objSnap{}, oids: map[string]*oidMap{}}
}

// roleSnap is an immutable view of every role: the stored ones and
// PostgreSQL's predefined roles.
type roleSnap struct {
	stored *catalog.Roles
	byName map[string]*catalog.Role
	byOID  map[uint32]*catalog.Role
	graph  *acl.Graph
	at     time.Time
}

func newRoleSnap(r *catalog.Roles, at time.Time) *roleSnap {
	rs := &roleSnap{stored: r, byName: map[string]*catalog.Role{}, byOID: map[uint32]*catalog.Role{}, at: at}
	attrs := map[uint32]acl.Attrs{}
	for _, p := range acl.Predefined {
		role := &catalog.Role{OID: p.OID, Name: p.Name, Inherit: true, ConnLimit: -1}
		rs.byName[p.Name], rs.byOID[p.OID] = role, role
	}
	for i := range r.Roles {
		role := &r.Roles[i]
		rs.byName[role.Name], rs.byOID[role.OID] = role, role
		attrs[role.OID] = acl.Attrs{Super: role.Super, Inherit: role.Inherit}
	}
	edges := make([]acl.Edge, len(r.Members))
	for i, m := range r.Members {
		edges[i] = acl.Edge{Role: m.Role, Member: m.Member, Grantor: m.Grantor, Admin: m.Admin}
	}
	rs.graph = acl.NewGraph(attrs, edges)
	return rs
}

// name implements the name lookup of acl.Item.Format.
func (rs *roleSnap) name(oid uint32) (string, bool) {
	if r := rs.byOID[oid]; r != nil {
		return r.Name, true
	}
	return "", false
}

// nameOrOID is pg_get_userbyid's answer.
func (rs *roleSnap) nameOrOID(oid uint32) string {
	if n, ok := rs.name(oid); ok {
		return n
	}
	return "unknown (OID=" + itoa(oid) + ")"
}

func itoa(n uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// superuser reports whether oid is a superuser role.
func (rs *roleSnap) superuser(oid uint32) bool {
	r := rs.byOID[oid]
	return r != nil && r.Super
}

// snapshot returns the roles, reading them again when older than the TTL.
// Only one caller reloads; the others go on with the previous view.
func (sec *security) snapshot(ctx context.Context) (*roleSnap, error) {
	rs := sec.roles.Load()
	if rs != nil && time.Since(rs.at) < sec.ttl {
		return rs, nil
	}
	if rs != nil && !sec.refresh.TryLock() {
		return rs, nil
	}
	if rs == nil {
		sec.refresh.Lock()
	}
	defer sec.refresh.Unlock()
	if cur := sec.roles.Load(); cur != nil && cur != rs && time.Since(cur.at) < sec.ttl {
		return cur, nil
	}
	r, err := sec.cat.ReadRoles(ctx)
	if err != nil {
		if rs != nil {
			return rs, nil // the store hiccuped: keep the last view
		}
		return nil, err
	}
	cur := newRoleSnap(r, time.Now())
	sec.roles.Store(cur)
	return cur, nil
}

// updateRoles changes the stored roles with fn (catalog.UpdateRoles) and
// installs the result.
func (sec *security) updateRoles(ctx context.Context, fn func(*catalog.Roles) error) (*roleSnap, error) {
	sec.refresh.Lock()
	defer sec.refresh.Unlock()
	r, err := sec.cat.UpdateRoles(ctx, fn)
	if err != nil {
		return nil, err
	}
	rs := newRoleSnap(r, time.Now())
	sec.roles.Store(rs)
	return rs, nil
}

// objSnap is the cached owner and ACL of one object.
type objSnap struct {
	owner uint32
	acl   acl.ACL // nil: the default
	oid   uint32  // tables only
	// view is a view's definition (nil for a table).
	view *catalog.ViewDef
	at   time.Time
	// missing: the object did not exist (so that a search path naming a
	// schema that does not exist, "$user" most often, costs no read per
	// statement). A create through this server forgets the entry.
	missing bool
}

func dbKey(db string) string           { return "d\x00" + db }
func schemaKey(db, name string) string { return "s\x00" + db + "\x00" + name }
func tableKey(id catalog.TableID) string {
	return "t\x00" + id.Database + "\x00" + id.Schema + "\x00" + id.Name
}

// object returns the cached entry of key, reading it with load when absent
// or stale. A missing object is catalog.ErrNotFound.
func (sec *security) object(ctx context.Context, key string, load func() (*objSnap, error)) (*objSnap, error) {
	sec.mu.Lock()
	o := sec.objs[key]
	sec.mu.Unlock()
	if o != nil && time.Since(o.at) < sec.ttl {
		if o.missing {
			return nil, catalog.ErrNotFound
		}
		return o, nil
	}
	o, err := load()
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			sec.install(key, &objSnap{missing: true})
		}
		return nil, err
	}
	o.at = time.Now()
	sec.mu.Lock()
	sec.objs[key] = o
	sec.mu.Unlock()
	return o, nil
}

func (sec *security) install(key string, o *objSnap) {
	o.at = time.Now()
	sec.mu.Lock()
	sec.objs[key] = o
	sec.mu.Unlock()
}

// forget drops key's entry (the object was created or dropped).
func (sec *security) forget(key string) {
	sec.mu.Lock()
	delete(sec.objs, key)
	if strings.HasPrefix(key, "t\x00") {
		db, _, _ := strings.Cut(key[2:], "\x00")
		delete(sec.oids, db)
	}
	sec.mu.Unlock()
}

// tableByOID finds the table of database db with that OID.
func (sec *security) tableByOID(ctx context.Context, eng interface {
	ListRelations(context.Context, string) ([]catalog.Entry, error)
}, db string, oid uint32) (catalog.TableID, bool, error) {
	sec.mu.Lock()
	om := sec.oids[db]
	sec.mu.Unlock()
	if om != nil {
		if id, ok := om.m[oid]; ok || time.Since(om.at) < sec.ttl {
			return id, ok, nil
		}
	}
	ents, err := eng.ListRelations(ctx, db)
	if err != nil {
		return catalog.TableID{}, false, err
	}
	om = &oidMap{m: make(map[uint32]catalog.TableID, len(ents)), at: time.Now()}
	for _, e := range ents {
		om.m[e.OID] = e.ID
	}
	sec.mu.Lock()
	sec.oids[db] = om
	sec.mu.Unlock()
	id, ok := om.m[oid]
	return id, ok, nil
}

func (sec *security) database(ctx context.Context, name string) (*objSnap, error) {
	return sec.object(ctx, dbKey(name), func() (*objSnap, error) {
		r, err := sec.cat.Database(ctx, name)
		if err != nil {
			return nil, err
		}
		return &objSnap{owner: r.Owner, acl: r.ACL}, nil
	})
}

func (sec *security) schema(ctx context.Context, db, name string) (*objSnap, error) {
	return sec.object(ctx, schemaKey(db, name), func() (*objSnap, error) {
		r, err := sec.cat.Schema(ctx, db, name)
		if err != nil {
			return nil, err
		}
		return &objSnap{owner: r.Owner, acl: r.ACL}, nil
	})
}

func (sec *security) table(ctx context.Context, id catalog.TableID) (*objSnap, error) {
	return sec.object(ctx, tableKey(id), func() (*objSnap, error) {
		e, err := sec.cat.Table(ctx, id)
		if err != nil {
			return nil, err
		}
		return &objSnap{owner: e.Owner, acl: e.ACL, oid: e.OID, view: e.View}, nil
	})
}

func (sec *security) updateDatabase(ctx context.Context, name string, fn func(*catalog.Container) error) error {
	r, err := sec.cat.UpdateDatabase(ctx, name, fn)
	if err != nil {
		return err
	}
	sec.install(dbKey(name), &objSnap{owner: r.Owner, acl: r.ACL})
	return nil
}

func (sec *security) updateSchema(ctx context.Context, db, name string, fn func(*catalog.Container) error) error {
	r, err := sec.cat.UpdateSchema(ctx, db, name, fn)
	if err != nil {
		return err
	}
	sec.install(schemaKey(db, name), &objSnap{owner: r.Owner, acl: r.ACL})
	return nil
}

func (sec *security) updateTable(ctx context.Context, id catalog.TableID, fn func(*catalog.Entry) error) error {
	e, err := sec.cat.UpdateTable(ctx, id, fn)
	if err != nil {
		return err
	}
	sec.install(tableKey(id), &objSnap{owner: e.Owner, acl: e.ACL, oid: e.OID, view: e.View})
	return nil
}

// errNoRole is a stored role gone (dropped by another session).
func errNoRole(name string) error {
	return pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
}
