package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// CreateDatabase creates a database with its "public" schema (owned by
// pg_database_owner, with initdb's ACL).
func (c *Catalog) CreateDatabase(ctx context.Context, name string, opts ...CreateOption) error {
	if err := checkNames(name); err != nil {
		return err
	}
	o := applyCreate(opts)
	ms := c.now().UnixMilli()
	if err := c.create(ctx, dbKey(name), "database "+name, Container{Name: name, CreatedMS: ms, UUID: uuid.NewString(), Owner: o.owner}); err != nil {
		return err
	}
	// The database is ours: its public schema is written whole, over any
	// record left by an interrupted DROP DATABASE of an earlier database
	// of that name (whose grants must not come back).
	data, err := json.Marshal(publicSchema(name, ms))
	if err != nil {
		return fmt.Errorf("catalog: encode schema public: %w", err)
	}
	if err := c.store.Put(ctx, schemaKey(name, DefaultSchema), data); err != nil {
		return fmt.Errorf("catalog: create schema %s.%s: %w", name, DefaultSchema, err)
	}
	return nil
}

func publicSchema(db string, ms int64) Container {
	return Container{Name: DefaultSchema, Database: db, CreatedMS: ms, UUID: uuid.NewString(), Owner: acl.RoleDatabaseOwner, ACL: PublicSchemaACL()}
}

// DropDatabase removes a database and its schemas. It fails with
// ErrNotEmpty while the database has tables: the caller drops them (and
// deletes their files) first.
func (c *Catalog) DropDatabase(ctx context.Context, name string) error {
	if ok, err := c.exists(ctx, dbKey(name)); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: database %s", ErrNotFound, name)
	}
	infos, err := c.store.List(ctx, tableDir(name))
	if err != nil {
		return fmt.Errorf("catalog: list tables of %s: %w", name, err)
	}
	if len(infos) > 0 {
		return fmt.Errorf("%w: database %s has %d tables", ErrNotEmpty, name, len(infos))
	}
	schemas, err := c.store.List(ctx, schemaDir(name))
	if err != nil {
		return fmt.Errorf("catalog: list schemas of %s: %w", name, err)
	}
	// The database record goes first: once it is gone the database is gone,
	// and leftover schema records are invisible and overwritten by a re-create.
	if err := c.store.Delete(ctx, dbKey(name)); err != nil {
		return fmt.Errorf("catalog: drop database %s: %w", name, err)
	}
	for _, s := range schemas {
		if err := c.store.Delete(ctx, s.Key); err != nil {
			return fmt.Errorf("catalog: drop database %s: %w", name, err)
		}
	}
	return nil
}

// ListDatabases returns database names, sorted.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	return c.names(ctx, root+"databases/")
}

// CreateSchema creates a schema in an existing database. Schema public
// is owned by pg_database_owner unless OwnedBy says otherwise.
func (c *Catalog) CreateSchema(ctx context.Context, db, name string, opts ...CreateOption) error {
	if err := checkNames(db, name); err != nil {
		return err
	}
	if ok, err := c.exists(ctx, dbKey(db)); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: database %s", ErrNotFound, db)
	}
	o := applyCreate(opts)
	rec := Container{Name: name, Database: db, CreatedMS: c.now().UnixMilli(), UUID: uuid.NewString(), Owner: o.owner}
	if name == DefaultSchema && !o.ownerSet {
		rec = publicSchema(db, rec.CreatedMS)
	}
	return c.create(ctx, schemaKey(db, name), "schema "+db+"."+name, rec)
}

// DropSchema removes a schema. Without cascade it fails with ErrNotEmpty
// while the schema has tables; with cascade it removes their entries too
// (the caller deletes their files: list them with ListTables first).
func (c *Catalog) DropSchema(ctx context.Context, db, name string, cascade bool) error {
	if ok, err := c.exists(ctx, schemaKey(db, name)); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: schema %s.%s", ErrNotFound, db, name)
	}
	tables, err := c.store.List(ctx, tableSchemaDir(db, name))
	if err != nil {
		return fmt.Errorf("catalog: list tables of %s.%s: %w", db, name, err)
	}
	if len(tables) > 0 && !cascade {
		return fmt.Errorf("%w: schema %s.%s has %d tables", ErrNotEmpty, db, name, len(tables))
	}
	if err := c.store.Delete(ctx, schemaKey(db, name)); err != nil {
		return fmt.Errorf("catalog: drop schema %s.%s: %w", db, name, err)
	}
	for _, t := range tables {
		if err := c.store.Delete(ctx, t.Key); err != nil {
			return fmt.Errorf("catalog: drop schema %s.%s: %w", db, name, err)
		}
	}
	return nil
}

// ListSchemas returns the schema names of db, sorted.
func (c *Catalog) ListSchemas(ctx context.Context, db string) ([]string, error) {
	if ok, err := c.exists(ctx, dbKey(db)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: database %s", ErrNotFound, db)
	}
	return c.names(ctx, schemaDir(db))
}

// CreateTable registers a table: ErrExists if present, ErrNotFound if its
// schema does not exist, ErrPrefixInUse if a manifest still lies at its
// prefix. The entry is created with create-if-not-exists: of two processes
// creating the same table exactly one wins. The OID is allocated first, so a
// lost race burns one (as in PostgreSQL).
func (c *Catalog) CreateTable(ctx context.Context, id TableID, opts ...CreateOption) (*Entry, error) {
	if err := checkNames(id.Database, id.Schema, id.Name); err != nil {
		return nil, err
	}
	if ok, err := c.exists(ctx, schemaKey(id.Database, id.Schema)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: schema %s.%s", ErrNotFound, id.Database, id.Schema)
	}
	if _, err := c.Table(ctx, id); err == nil {
		return nil, fmt.Errorf("%w: table %s", ErrExists, id)
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	prefix := TablePrefix(id)
	left, err := c.store.List(ctx, prefix+"/_manifest/")
	if err != nil {
		return nil, fmt.Errorf("catalog: check prefix %s: %w", prefix, err)
	}
	taken := false
	if len(left) > 0 {
		// The files of a table renamed away from this name, or leftovers
		// of a DROP interrupted after its entry went (garbage).
		rels, err := c.ListRelations(ctx, id.Database)
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			taken = taken || r.Prefix == prefix
		}
		if !taken {
			return nil, fmt.Errorf("%w: %s (%d objects)", ErrPrefixInUse, prefix, len(left))
		}
	}
	oid, err := c.allocOID(ctx)
	if err != nil {
		return nil, err
	}
	if taken {
		// '~' is escaped in names: no table's own prefix ends so.
		prefix += "~" + strconv.FormatUint(uint64(oid), 10)
	}
	o := applyCreate(opts)
	e := &Entry{ID: id, UUID: uuid.NewString(), OID: oid, Prefix: prefix, CreatedMS: c.now().UnixMilli(), Owner: o.owner, Creating: o.creating}
	for _, fn := range o.entry {
		fn(e)
	}
	if err := c.createReplacingStale(ctx, id, e); err != nil {
		return nil, err
	}
	return e, nil
}

// DropTable removes the table's entry. The caller deletes the table's files.
// A view is ErrNotFound here (DropView drops views).
func (c *Catalog) DropTable(ctx context.Context, id TableID) error {
	if e, err := c.Table(ctx, id); err != nil {
		return err
	} else if e.IsView() {
		return fmt.Errorf("%w: table %s", ErrNotFound, id)
	}
	if err := c.store.Delete(ctx, tableKey(id)); err != nil {
		return fmt.Errorf("catalog: drop table %s: %w", id, err)
	}
	return nil
}

// Table returns the entry of a relation (a table or a view: check
// Entry.Kind), or ErrNotFound.
func (c *Catalog) Table(ctx context.Context, id TableID) (*Entry, error) {
	data, _, err := c.store.Get(ctx, tableKey(id))
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, fmt.Errorf("%w: table %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: table %s: %w", id, err)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("catalog: table %s: corrupt entry: %w", id, err)
	}
	e.normalize()
	if live, err := c.renameDone(ctx, &e); err != nil {
		return nil, err
	} else if !live {
		return nil, fmt.Errorf("%w: table %s", ErrNotFound, id)
	}
	return &e, nil
}

// renameDone reports whether e is a relation: false for the new entry of
// a rename that has not happened (its old entry, the same relation, is
// still there).
func (c *Catalog) renameDone(ctx context.Context, e *Entry) (bool, error) {
	if e.RenamedFrom == nil {
		return true, nil
	}
	data, _, err := c.store.Get(ctx, tableKey(*e.RenamedFrom))
	if errors.Is(err, objstore.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("catalog: table %s: %w", *e.RenamedFrom, err)
	}
	var old Entry
	if err := json.Unmarshal(data, &old); err != nil {
		return false, fmt.Errorf("catalog: table %s: corrupt entry: %w", *e.RenamedFrom, err)
	}
	return old.UUID != e.UUID, nil
}

// RenameTable gives a relation (a table or a view) a new name, possibly in
// another schema of its database (ALTER TABLE ... RENAME TO / SET SCHEMA).
// Its files stay where they are (Entry.Prefix). ErrExists if the new name
// is taken, ErrNotFound if the relation or the new schema does not exist.
//
// Three steps, each atomic: the entry under the new name, marked
// RenamedFrom (no relation yet: the old entry still is); the old entry's
// deletion (the commit point: from here the new one is the relation); the
// mark's removal. A crash after the first leaves the relation under its
// old name and a stale entry that a later create of the new name replaces;
// after the second, the relation under its new name.
func (c *Catalog) RenameTable(ctx context.Context, from, to TableID) (*Entry, error) {
	if err := checkNames(to.Database, to.Schema, to.Name); err != nil {
		return nil, err
	}
	if ok, err := c.exists(ctx, schemaKey(to.Database, to.Schema)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: schema %s.%s", ErrNotFound, to.Database, to.Schema)
	}
	e, err := c.Table(ctx, from)
	if err != nil {
		return nil, err
	}
	ne := *e
	ne.ID = to
	ne.RenamedFrom = &from
	if err := c.createReplacingStale(ctx, to, &ne); err != nil {
		return nil, err
	}
	if err := c.store.Delete(ctx, tableKey(from)); err != nil {
		_ = c.store.Delete(ctx, tableKey(to)) // not a relation: the old entry is
		return nil, fmt.Errorf("catalog: rename %s: %w", from, err)
	}
	r, err := c.UpdateTable(ctx, to, func(e *Entry) error {
		e.RenamedFrom = nil
		return nil
	})
	if err != nil {
		// Renamed; the mark stays (harmless: the old entry is gone).
		ne.RenamedFrom = nil
		return &ne, nil
	}
	return r, nil
}

// createReplacingStale creates the entry of id, replacing a stale entry of
// a rename that never happened (renameDone false).
func (c *Catalog) createReplacingStale(ctx context.Context, id TableID, e *Entry) error {
	err := c.create(ctx, tableKey(id), "table "+id.String(), e)
	if !errors.Is(err, ErrExists) {
		return err
	}
	data, _, gerr := c.store.Get(ctx, tableKey(id))
	if gerr != nil {
		return err
	}
	var cur Entry
	if json.Unmarshal(data, &cur) != nil {
		return err
	}
	if live, lerr := c.renameDone(ctx, &cur); lerr != nil || live {
		return err
	}
	if derr := c.store.Delete(ctx, tableKey(id)); derr != nil {
		return err
	}
	return c.create(ctx, tableKey(id), "table "+id.String(), e)
}

// ListTables returns every table of db (not its views), sorted by schema
// then name.
func (c *Catalog) ListTables(ctx context.Context, db string) ([]Entry, error) {
	all, err := c.ListRelations(ctx, db)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		if !e.IsView() {
			out = append(out, e)
		}
	}
	return out, nil
}

// ListRelations returns every table and view of db, sorted by schema then
// name.
func (c *Catalog) ListRelations(ctx context.Context, db string) ([]Entry, error) {
	infos, err := c.store.List(ctx, tableDir(db))
	if err != nil {
		return nil, fmt.Errorf("catalog: list tables of %s: %w", db, err)
	}
	out := make([]Entry, 0, len(infos))
	for _, i := range infos {
		data, _, err := c.store.Get(ctx, i.Key)
		if errors.Is(err, objstore.ErrNotFound) {
			continue // dropped meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: read %s: %w", i.Key, err)
		}
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, fmt.Errorf("catalog: %s: corrupt entry: %w", i.Key, err)
		}
		e.normalize()
		if live, err := c.renameDone(ctx, &e); err != nil {
			return nil, err
		} else if !live {
			continue
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID.Schema != out[j].ID.Schema {
			return out[i].ID.Schema < out[j].ID.Schema
		}
		return out[i].ID.Name < out[j].ID.Name
	})
	return out, nil
}
