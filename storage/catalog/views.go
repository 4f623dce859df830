package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// CreateView registers a view: ErrExists if a table or view of that name
// exists, ErrNotFound if its schema does not. Like CreateTable, of two
// processes creating the same name exactly one wins.
func (c *Catalog) CreateView(ctx context.Context, id TableID, def *ViewDef, opts ...CreateOption) (*Entry, error) {
	if err := checkNames(id.Database, id.Schema, id.Name); err != nil {
		return nil, err
	}
	if def == nil {
		return nil, fmt.Errorf("catalog: view %s without a definition", id)
	}
	if ok, err := c.exists(ctx, schemaKey(id.Database, id.Schema)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: schema %s.%s", ErrNotFound, id.Database, id.Schema)
	}
	if _, err := c.Table(ctx, id); err == nil {
		return nil, fmt.Errorf("%w: relation %s", ErrExists, id)
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	oid, err := c.allocOID(ctx)
	if err != nil {
		return nil, err
	}
	e := &Entry{ID: id, UUID: uuid.NewString(), OID: oid, CreatedMS: c.now().UnixMilli(), Owner: applyCreate(opts).owner,
		Kind: KindView, View: def}
	if err := c.createReplacingStale(ctx, id, e); err != nil {
		return nil, err
	}
	return e, nil
}

// ReplaceView changes a view's definition with fn (CREATE OR REPLACE
// VIEW), atomically as UpdateTable; ErrNotFound if there is no view of
// that name (a table of that name is fn's to refuse: it sees the entry).
func (c *Catalog) ReplaceView(ctx context.Context, id TableID, fn func(*Entry) error) (*Entry, error) {
	return c.UpdateTable(ctx, id, fn)
}

// DropView removes a view's entry; ErrNotFound if there is no view of that
// name.
func (c *Catalog) DropView(ctx context.Context, id TableID) error {
	e, err := c.Table(ctx, id)
	if err != nil {
		return err
	}
	if !e.IsView() {
		return fmt.Errorf("%w: view %s", ErrNotFound, id)
	}
	if err := c.store.Delete(ctx, tableKey(id)); err != nil {
		return fmt.Errorf("catalog: drop view %s: %w", id, err)
	}
	return nil
}
