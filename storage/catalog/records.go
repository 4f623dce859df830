package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Database returns a database's record, or ErrNotFound.
func (c *Catalog) Database(ctx context.Context, name string) (*Container, error) {
	return readRecord(ctx, c, dbKey(name), "database "+name, (*Container).normalize)
}

// Schema returns a schema's record, or ErrNotFound.
func (c *Catalog) Schema(ctx context.Context, db, name string) (*Container, error) {
	return readRecord(ctx, c, schemaKey(db, name), "schema "+db+"."+name, (*Container).normalize)
}

// DatabaseRecords returns every database's record, sorted by name.
func (c *Catalog) DatabaseRecords(ctx context.Context) ([]Container, error) {
	return c.records(ctx, root+"databases/")
}

// SchemaRecords returns the records of db's schemas, sorted by name.
func (c *Catalog) SchemaRecords(ctx context.Context, db string) ([]Container, error) {
	if ok, err := c.exists(ctx, dbKey(db)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: database %s", ErrNotFound, db)
	}
	return c.records(ctx, schemaDir(db))
}

func (c *Catalog) records(ctx context.Context, dir string) ([]Container, error) {
	names, err := c.names(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := make([]Container, 0, len(names))
	for _, n := range names {
		r, err := readRecord(ctx, c, dir+EscapeName(n)+".json", n, (*Container).normalize)
		if errors.Is(err, ErrNotFound) {
			continue // dropped meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// UpdateDatabase changes a database's record with fn, atomically (a
// compare-and-swap of the record: fn runs again if another process changed
// it meanwhile). ErrNotFound if the database does not exist; fn's error is
// returned as is and nothing is written.
func (c *Catalog) UpdateDatabase(ctx context.Context, name string, fn func(*Container) error) (*Container, error) {
	return updateRecord(ctx, c, dbKey(name), "database "+name, (*Container).normalize, fn)
}

// UpdateSchema changes a schema's record with fn, as UpdateDatabase.
func (c *Catalog) UpdateSchema(ctx context.Context, db, name string, fn func(*Container) error) (*Container, error) {
	return updateRecord(ctx, c, schemaKey(db, name), "schema "+db+"."+name, (*Container).normalize, fn)
}

// UpdateTable changes a table's entry with fn, as UpdateDatabase. fn must
// not change the entry's identity (ID, UUID, OID, Prefix).
func (c *Catalog) UpdateTable(ctx context.Context, id TableID, fn func(*Entry) error) (*Entry, error) {
	return updateRecord(ctx, c, tableKey(id), "table "+id.String(), (*Entry).normalize, fn)
}

func readRecord[T any](ctx context.Context, c *Catalog, key, what string, norm func(*T)) (*T, error) {
	data, _, err := c.store.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: read %s: %w", what, err)
	}
	var r T
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("catalog: %s: corrupt record: %w", what, err)
	}
	norm(&r)
	return &r, nil
}

// updateRecord is a read-modify-write of the JSON record at key with
// PutIfMatch, retried while other writers win.
func updateRecord[T any](ctx context.Context, c *Catalog, key, what string, norm func(*T), fn func(*T) error) (*T, error) {
	for attempt := 0; attempt < 64; attempt++ {
		data, v, err := c.store.Get(ctx, key)
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, what)
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: read %s: %w", what, err)
		}
		var r T
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("catalog: %s: corrupt record: %w", what, err)
		}
		norm(&r)
		if err := fn(&r); err != nil {
			return nil, err
		}
		out, err := json.Marshal(&r)
		if err != nil {
			return nil, fmt.Errorf("catalog: encode %s: %w", what, err)
		}
		_, err = c.store.PutIfMatch(ctx, key, out, v)
		if err == nil {
			return &r, nil
		}
		if errors.Is(err, objstore.ErrPrecondition) {
			continue // changed or dropped meanwhile: read again
		}
		// Ambiguous: the record holding our bytes means the write landed
		// (or someone wrote the same state, which is as good).
		if got, _, gerr := c.store.Get(ctx, key); gerr == nil && bytes.Equal(got, out) {
			return &r, nil
		}
		return nil, fmt.Errorf("catalog: update %s: %w", what, err)
	}
	return nil, fmt.Errorf("catalog: update %s: too much contention", what)
}
