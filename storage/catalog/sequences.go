package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Sequence is a sequence's catalog record: its definition and its durable
// state. Part of the on-disk format.
//
// The state is what PostgreSQL's WAL records of the sequence say: LastValue
// and IsCalled as of the last logged change. A process hands out values
// beyond LastValue only after it logged a LastValue at least as far (the
// log-ahead of package seq), so after a crash the values after LastValue
// are fresh: none is handed out twice (gaps are allowed, as in
// PostgreSQL). Gen counts the writes of the record, so that two writes
// never produce the same bytes (the stores' Version is a hash of the
// content) and a process sees that another one changed it.
type Sequence struct {
	ID        TableID `json:"id"`
	UUID      string  `json:"uuid"`
	OID       uint32  `json:"oid"`
	CreatedMS int64   `json:"created_ms"`
	Owner     uint32  `json:"owner,omitempty"`
	ACL       acl.ACL `json:"acl"`

	// Definition (pg_sequence): TypeOID is int2, int4 or int8.
	TypeOID   uint32 `json:"type_oid"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	Cache     int64  `json:"cache"`
	Cycle     bool   `json:"cycle,omitempty"`
	// OwnedBy is the column that owns the sequence (serial, identity,
	// OWNED BY t.c): the sequence is dropped with its table. Its Name is
	// empty when it is owned by nothing.
	OwnedBy       TableID `json:"owned_by"`
	OwnedByColumn string  `json:"owned_by_column,omitempty"`
	// Identity: the sequence of an identity column (internal dependency).
	Identity bool `json:"identity,omitempty"`

	// Durable state.
	LastValue int64  `json:"last_value"`
	IsCalled  bool   `json:"is_called,omitempty"`
	Gen       uint64 `json:"gen"`
}

func (s *Sequence) normalize() {
	if s.Owner == 0 {
		s.Owner = acl.BootstrapSuperuser
	}
}

func sequenceDir(db string) string { return root + "sequences/" + EscapeName(db) + "/" }
func sequenceKey(id TableID) string {
	return sequenceDir(id.Database) + EscapeName(id.Schema) + "/" + EscapeName(id.Name) + ".json"
}

// CreateSequence records a new sequence (its OID allocated here, its
// UUID fresh): ErrExists if a sequence of that name exists, ErrNotFound if
// its schema does not. The caller checks that no table has the name.
func (c *Catalog) CreateSequence(ctx context.Context, s *Sequence) (*Sequence, error) {
	id := s.ID
	if err := checkNames(id.Database, id.Schema, id.Name); err != nil {
		return nil, err
	}
	if ok, err := c.exists(ctx, schemaKey(id.Database, id.Schema)); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: schema %s.%s", ErrNotFound, id.Database, id.Schema)
	}
	if ok, err := c.exists(ctx, sequenceKey(id)); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("%w: sequence %s", ErrExists, id)
	}
	rec := *s
	if rec.OID == 0 {
		oid, err := c.allocOID(ctx)
		if err != nil {
			return nil, err
		}
		rec.OID = oid
	}
	rec.UUID = uuid.NewString()
	rec.CreatedMS = c.now().UnixMilli()
	if rec.Owner == 0 {
		rec.Owner = acl.BootstrapSuperuser
	}
	if err := c.create(ctx, sequenceKey(id), "sequence "+id.String(), &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// Sequence reads a sequence's record, or ErrNotFound.
func (c *Catalog) Sequence(ctx context.Context, id TableID) (*Sequence, error) {
	return readRecord(ctx, c, sequenceKey(id), "sequence "+id.String(), (*Sequence).normalize)
}

// UpdateSequence changes a sequence's record with fn by compare-and-swap,
// as UpdateDatabase; Gen is advanced on every write. fn must not change the
// identity (ID, UUID, OID).
func (c *Catalog) UpdateSequence(ctx context.Context, id TableID, fn func(*Sequence) error) (*Sequence, error) {
	return updateRecord(ctx, c, sequenceKey(id), "sequence "+id.String(), (*Sequence).normalize, func(s *Sequence) error {
		if err := fn(s); err != nil {
			return err
		}
		s.Gen++
		return nil
	})
}

// RenameSequence moves a sequence's record to a new name (same schema):
// the new record is created first (ErrExists if taken), then the old one
// deleted. A crash in between leaves both; the older name is then still
// listed and may be dropped.
func (c *Catalog) RenameSequence(ctx context.Context, id TableID, newName string) (*Sequence, error) {
	data, _, err := c.store.Get(ctx, sequenceKey(id))
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, fmt.Errorf("%w: sequence %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: read sequence %s: %w", id, err)
	}
	var s Sequence
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("catalog: sequence %s: corrupt record: %w", id, err)
	}
	s.normalize()
	s.ID.Name = newName
	s.Gen++
	if err := c.create(ctx, sequenceKey(s.ID), "sequence "+s.ID.String(), &s); err != nil {
		return nil, err
	}
	if err := c.store.Delete(ctx, sequenceKey(id)); err != nil {
		return nil, fmt.Errorf("catalog: rename sequence %s: %w", id, err)
	}
	return &s, nil
}

// DropSequence removes a sequence's record (ErrNotFound if absent).
func (c *Catalog) DropSequence(ctx context.Context, id TableID) error {
	if ok, err := c.exists(ctx, sequenceKey(id)); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: sequence %s", ErrNotFound, id)
	}
	if err := c.store.Delete(ctx, sequenceKey(id)); err != nil {
		return fmt.Errorf("catalog: drop sequence %s: %w", id, err)
	}
	return nil
}

// ListSequences returns every sequence of db, sorted by schema then name.
func (c *Catalog) ListSequences(ctx context.Context, db string) ([]Sequence, error) {
	infos, err := c.store.List(ctx, sequenceDir(db))
	if err != nil {
		return nil, fmt.Errorf("catalog: list sequences of %s: %w", db, err)
	}
	out := make([]Sequence, 0, len(infos))
	for _, i := range infos {
		data, _, err := c.store.Get(ctx, i.Key)
		if errors.Is(err, objstore.ErrNotFound) {
			continue // dropped meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: read %s: %w", i.Key, err)
		}
		var s Sequence
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("catalog: %s: corrupt record: %w", i.Key, err)
		}
		s.normalize()
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID.Schema != out[j].ID.Schema {
			return out[i].ID.Schema < out[j].ID.Schema
		}
		return out[i].ID.Name < out[j].ID.Name
	})
	return out, nil
}
