package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// Unique keys (PRIMARY KEY, UNIQUE) are enforced by the table's key
// indexes (planner/keys.go); this file connects them to the session: the
// transaction that holds the keys it inserts, and PostgreSQL's errors.

// keyOwner returns the key hold of the session's transaction and the
// function that ends a statement's use of it: outside a transaction block
// each write is a transaction of its own, whose keys are released (and,
// if it succeeded, kept) when it is written; inside one they are released
// at COMMIT or ROLLBACK.
func (s *session) keyOwner() (*planner.KeyOwner, func(ok bool)) {
	if s.tx != nil {
		if s.tx.keys == nil {
			s.tx.keys = planner.NewKeyOwner()
		}
		return s.tx.keys, func(bool) {}
	}
	o := planner.NewKeyOwner()
	return o, o.End
}

// keyOptions are a write's ON CONFLICT choices and replaced rows.
type keyOptions struct {
	doNothing bool
	arbiters  []string
	old       []arrow.RecordBatch
	// owner, if set, holds the keys (a COPY's batches share one); the
	// caller ends it.
	owner *planner.KeyOwner
	// where, if set, is the CONTEXT of a violation by row row of the
	// statement's record rec.
	where func(rec, row int) string
}

// checkKeys checks recs, rows about to be written to t by this session,
// against t's unique keys. It returns the rows to skip (ON CONFLICT DO
// NOTHING) and the function to call once the write is done (ok: it
// succeeded); on an error nothing is held.
func (s *session) checkKeys(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch, o keyOptions) ([][]bool, func(ok bool), error) {
	if !t.HasKeys() {
		return nil, func(bool) {}, nil
	}
	owner, end := o.owner, func(bool) {}
	if owner == nil {
		owner, end = s.keyOwner()
	}
	tx := s.tx
	skip, err := t.CheckKeys(ctx, recs, planner.KeyCheck{
		Owner:     owner,
		Bind:      func(ctx context.Context) (*planner.Bound, error) { return t.Bind(ctx, tx.pendingBatches(t)) },
		DoNothing: o.doNothing,
		Arbiters:  o.arbiters,
		Old:       o.old,
	})
	if err != nil {
		end(false)
		var kv *planner.KeyViolation
		if errors.As(err, &kv) {
			e := s.keyViolation(t, kv, recs[kv.Rec], kv.Row)
			if o.where != nil {
				e.Where = o.where(kv.Rec, kv.Row)
			}
			return nil, nil, e
		}
		return nil, nil, err
	}
	return skip, end, nil
}

// keyViolation is PostgreSQL's 23505 for a new row whose key exists.
func (s *session) keyViolation(t *planner.Table, kv *planner.KeyViolation, rec arrow.RecordBatch, row int) *pgerr.Error {
	e := pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", kv.Key.Name)
	e.Detail = fmt.Sprintf("Key (%s)=(%s) already exists.", strings.Join(quoteKeyCols(kv.Key.Columns), ", "), s.keyText(t, kv.Key.Columns, rec, row))
	return e
}

// quoteKeyCols spells key column names as PostgreSQL's detail does
// (quoted where an identifier needs it).
func quoteKeyCols(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = quoteIdentIfNeeded(c)
	}
	return out
}

// keyText is the text of a key's values in row row of rec (the table's
// columns), as PostgreSQL's detail shows it.
func (s *session) keyText(t *planner.Table, cols []string, rec arrow.RecordBatch, row int) string {
	info := tableInfo(t)
	parts := make([]string, len(cols))
	for i, name := range cols {
		c := t.Schema.Index(name)
		if c < 0 {
			parts[i] = "?"
			continue
		}
		parts[i] = arrowText(rec.Column(c), row, info.Columns[c].TypeOID, info.Columns[c].TypeMod, &s.set.types)
	}
	return strings.Join(parts, ", ")
}

// arrowText is the PostgreSQL text of row i of a (a column of type oid).
func arrowText(a arrow.Array, i int, oid uint32, typmod int32, set *pgtypes.Settings) string {
	if a.IsNull(i) {
		return "null"
	}
	var v any
	switch a := a.(type) {
	case *array.Boolean:
		v = a.Value(i)
	case *array.Int16:
		v = int64(a.Value(i))
	case *array.Int32:
		v = int64(a.Value(i))
	case *array.Int64:
		v = a.Value(i)
	case *array.Float32:
		v = a.Value(i)
	case *array.Float64:
		v = a.Value(i)
	case *array.String:
		v = a.Value(i)
	case *array.Binary:
		v = a.Value(i)
	case *array.Decimal128:
		return a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Date32:
		v = a.Value(i).ToTime()
	case *array.Timestamp:
		v = time.UnixMicro(int64(a.Value(i))).UTC()
	default:
		return a.ValueStr(i)
	}
	b, err := pgtypes.AppendText(nil, oid, typmod, v, set)
	if err != nil {
		return a.ValueStr(i)
	}
	return string(b)
}

// dropRows returns recs without the rows skip marks (recs are released
// where a copy replaces them; the result is owned by the caller like
// recs) and the number of rows kept.
func dropRows(recs []arrow.RecordBatch, skip [][]bool) ([]arrow.RecordBatch, int64, error) {
	var out []arrow.RecordBatch
	var n int64
	for i, r := range recs {
		if skip == nil || skip[i] == nil {
			out = append(out, r)
			n += r.NumRows()
			continue
		}
		var drop []int
		for j, sk := range skip[i] {
			if sk {
				drop = append(drop, j)
			}
		}
		kept, err := keepRows(r, drop)
		r.Release()
		if err != nil {
			releaseAll(out)
			return nil, 0, err
		}
		if kept != nil {
			out = append(out, kept)
			n += kept.NumRows()
		}
	}
	return out, n, nil
}

// entryKeys are the unique keys of t as its catalog entry now has them.
func (s *session) entryKeys(ctx context.Context, t *planner.Table) ([]planner.KeyDef, error) {
	ent, err := s.eng.Catalog().Table(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	return planner.EntryKeys(t.ID, ent, t.Schema), nil
}

// refreshKeys gives the open handle of table id the keys of its catalog
// entry (after a constraint was dropped or renamed).
func (s *session) refreshKeys(ctx context.Context, id catalog.TableID) error {
	if !s.eng.IsOpen(id) {
		return nil
	}
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	keys, err := s.entryKeys(ctx, t)
	if err != nil {
		return err
	}
	return t.SetKeys(keys)
}

// duplicateKeyError is PostgreSQL's error for a unique key added to rows
// that repeat it.
func duplicateKeyError(d *planner.ErrDuplicateKey) error {
	e := pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s\"", d.Key.Name)
	e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(quoteKeyCols(d.Key.Columns), ", "), strings.Join(d.Values, ", "))
	return e
}
