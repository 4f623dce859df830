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
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Unique keys (PRIMARY KEY, UNIQUE) are enforced by the table's key
// indexes (planner/keys.go); this file connects them to the session: the
// transaction that holds the keys it inserts, and PostgreSQL's errors.

// keyOwner returns the key hold of the session's transaction and the
// function that ends a statement's use of it: outside a transaction block
// each write is a transaction of its own, whose keys are released when it
// is written (or failed); inside one they are released at COMMIT or
// ROLLBACK.
func (s *session) keyOwner() (*planner.KeyOwner, func()) {
	if s.tx != nil {
		if s.tx.keys == nil {
			s.tx.keys = planner.NewKeyOwner()
		}
		return s.tx.keys, func() {}
	}
	o := planner.NewKeyOwner()
	return o, o.End
}

// keyOptions are a write's ON CONFLICT choices and replaced rows.
type keyOptions struct {
	doNothing bool
	doUpdate  bool
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
// NOTHING) and the function to call once the write is done or failed; on
// an error nothing is held.
func (s *session) checkKeys(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch, o keyOptions) ([][]bool, func(), error) {
	if !t.HasKeys() {
		return nil, func() {}, nil
	}
	owner, end := o.owner, func() {}
	if owner == nil {
		owner, end = s.keyOwner()
	}
	tx := s.tx
	skip, err := t.CheckKeys(ctx, recs, planner.KeyCheck{
		Owner:     owner,
		Bind:      func(ctx context.Context) (*planner.Bound, error) { return t.Bind(ctx, tx.pendingBatches(t)) },
		DoNothing: o.doNothing,
		DoUpdate:  o.doUpdate,
		Arbiters:  o.arbiters,
		Old:       o.old,
	})
	if err != nil {
		end()
		if errors.Is(err, planner.ErrAffectTwice) {
			return nil, nil, pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
				WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
		}
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
	e.SchemaName, e.TableName, e.ConstraintName = t.ID.Schema, t.ID.Name, kv.Key.Name
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

// refreshKeys gives the open handle of table id the unique keys and CHECK
// constraints of its catalog entry (after a constraint was added,
// dropped or renamed).
func (s *session) refreshKeys(ctx context.Context, id catalog.TableID) error {
	if !s.eng.IsOpen(id) {
		return nil
	}
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	ent, err := s.eng.Catalog().Table(ctx, t.ID)
	if err != nil {
		return err
	}
	t.SetChecks(ent.Checks)
	return t.SetKeys(planner.EntryKeys(t.ID, ent, t.Schema))
}

// duplicateKeyError is PostgreSQL's error for a unique key added to rows
// that repeat it.
func duplicateKeyError(d *planner.ErrDuplicateKey) error {
	e := pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s\"", d.Key.Name)
	e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(quoteKeyCols(d.Key.Columns), ", "), strings.Join(d.Values, ", "))
	return e
}

// uniqueIndexes makes the index entries of UNIQUE constraints of table
// (CREATE TABLE's, ALTER TABLE ... ADD UNIQUE's), as PostgreSQL names
// them (table_col1_col2_key, numbered when taken): one index per
// constraint; with dedup (CREATE TABLE), an unnamed one with the same
// columns as the primary key or an earlier one is left out (PostgreSQL
// drops such a redundant index). taken reports names in use in the
// schema; alloc gives OIDs.
func uniqueIndexes(table string, sch *schema.Schema, pkey []string, specs []bsql.UniqueSpec, dedup bool, taken func(string) (bool, error), alloc func() (uint32, error)) ([]catalog.IndexDef, error) {
	var out []catalog.IndexDef
	same := func(a []string, b []catalog.IndexKey) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if b[i].Column != a[i] {
				return false
			}
		}
		return true
	}
	used := map[string]bool{}
	isTaken := func(n string) (bool, error) {
		if used[n] {
			return true, nil
		}
		return taken(n)
	}
specs:
	for _, u := range specs {
		for _, c := range u.Columns {
			i := sch.Index(c)
			if i < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", c)
			}
			if sch.Columns[i].Kind == schema.KindJSON && sch.Columns[i].Annotation == "json" {
				return nil, pgerr.New(pgerr.UndefinedObject, "data type json has no default operator class for access method \"btree\"").
					WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
			}
		}
		if u.Name == "" && dedup && same(pkey, keysOf(u.Columns)) {
			continue // the primary key's index serves
		}
		if u.Name == "" && dedup {
			for _, x := range out {
				if same(u.Columns, x.Keys) {
					continue specs
				}
			}
		}
		def := catalog.IndexDef{Name: u.Name, Method: "btree", Keys: keysOf(u.Columns), Unique: true, Constraint: true}
		if def.Name == "" {
			name, err := chooseKeyName(table, u.Columns, isTaken)
			if err != nil {
				return nil, err
			}
			def.Name = name
		} else if t, err := isTaken(def.Name); err != nil {
			return nil, err
		} else if t {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", def.Name)
		}
		used[def.Name] = true
		var err error
		if def.OID, err = alloc(); err != nil {
			return nil, err
		}
		if def.ConstraintOID, err = alloc(); err != nil {
			return nil, err
		}
		out = append(out, def)
	}
	return out, nil
}

func keysOf(cols []string) []catalog.IndexKey {
	out := make([]catalog.IndexKey, len(cols))
	for i, c := range cols {
		out[i] = catalog.IndexKey{Column: c}
	}
	return out
}

// chooseKeyName is PostgreSQL's name for a UNIQUE constraint's index:
// table_col1_col2_key, then _key1, _key2, ... while taken.
func chooseKeyName(table string, cols []string, taken func(string) (bool, error)) (string, error) {
	return chooseRelationName(table, cols, "key", taken) // index.go
}

// addUniqueTo adds the UNIQUE constraint u to table id (ALTER TABLE t ADD
// [CONSTRAINT name] UNIQUE (cols), ADD COLUMN ... UNIQUE): the rows must
// not repeat the key (23505), which is enforced from then on.
func (s *session) addUniqueTo(ctx context.Context, id catalog.TableID, u bsql.UniqueSpec) error {
	t, err := s.eng.Table(ctx, id)
	if err != nil {
		return err
	}
	names, err := s.relationNames(ctx, id.Schema)
	if err != nil {
		return err
	}
	defs, err := uniqueIndexes(id.Name, t.Schema, nil, []bsql.UniqueSpec{u}, false,
		func(n string) (bool, error) { return s.nameTaken(ctx, id.Schema, n, names) },
		func() (uint32, error) { return s.eng.Catalog().AllocOID(ctx) })
	if err != nil || len(defs) == 0 {
		return err
	}
	def := defs[0]
	return s.addKey(ctx, id, planner.KeyDef{Name: def.Name, Columns: u.Columns}, func(e *catalog.Entry) error {
		if e.IndexNamed(def.Name) != nil {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", def.Name)
		}
		e.Indexes = append(e.Indexes, def)
		return nil
	})
}

// addKey adds the unique key key to table id: with no write running, the
// rows must not repeat it (23505 could not create unique index), then
// update records it in the table's entry, and it is enforced.
func (s *session) addKey(ctx context.Context, id catalog.TableID, key planner.KeyDef, update func(e *catalog.Entry) error) error {
	err := s.eng.AddKey(ctx, id, key, func(t *planner.Table) ([]planner.KeyDef, error) {
		if err := s.b.sec.updateTable(ctx, id, update); err != nil {
			return nil, err
		}
		return s.entryKeys(ctx, t)
	})
	var dup *planner.ErrDuplicateKey
	if errors.As(err, &dup) {
		return duplicateKeyError(dup)
	}
	return err
}

// dropUnique drops the UNIQUE constraint name of table id, if it has one
// (ok): its index goes with it.
func (s *session) dropUnique(ctx context.Context, id catalog.TableID, name string) (ok bool, err error) {
	return s.dropConstraint(ctx, id, func(e *catalog.Entry) bool {
		for i := range e.Indexes {
			if e.Indexes[i].Name == name && e.Indexes[i].Constraint {
				e.Indexes = append(e.Indexes[:i:i], e.Indexes[i+1:]...)
				return true
			}
		}
		return false
	})
}

// dropConstraint removes a constraint from table id's entry with drop,
// which reports whether it found it (ok; else the entry is unchanged),
// and gives the open handle the remaining keys and checks.
func (s *session) dropConstraint(ctx context.Context, id catalog.TableID, drop func(e *catalog.Entry) bool) (ok bool, err error) {
	err = s.b.sec.updateTable(ctx, id, func(e *catalog.Entry) error {
		if ok = drop(e); !ok {
			return errSkip
		}
		return nil
	})
	if !ok {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, s.refreshKeys(ctx, id)
}
