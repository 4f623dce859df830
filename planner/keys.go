package planner

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Unique keys: PRIMARY KEY and UNIQUE constraints, enforced.
//
// Each unique key of a table has a key index in its open handle: the set
// of 64-bit hashes of the keys that may exist in the table (committed or
// buffered rows, and rows of transactions that have ended), and the
// hashes that in-flight transactions are inserting, each with its owner.
// It is built at the first write that needs it, from one scan of the key
// columns of the table's current state, and is then kept by the writes:
// a writer checks and registers its new keys before its rows become
// visible (CheckKeys), under the table's key mutex, and its transaction
// moves them into the set when it ends (KeyOwner.End). Rows deleted
// leave their hashes behind: the set only ever says "may exist".
//
// Exactness comes from a query, not from the set: a new key whose hash is
// in the set (a real duplicate, a key deleted since, or a hash collision)
// is looked up in the writer's view of the table (its own staged rows
// included, its own deletes applied), in one DuckDB query per statement
// for all such keys. A key whose hash is not in the set cannot exist.
// So a key inserted after another was deleted costs a query, and the
// common case (new keys, serial ids) costs a hash and a map probe.
//
// Concurrency, as PostgreSQL: a key that another in-flight transaction
// is inserting makes the writer wait for that transaction to end, then
// check again (23505 if it committed, nothing if it rolled back). Waits
// that would close a cycle fail with 40P01 (deadlock detected). A key an
// in-flight transaction deletes is still there for others until it
// commits (PostgreSQL would wait for it instead).
//
// Memory: the hash set costs about 10 bytes per key (Go's swiss-table map
// of uint64 at its load factor), whatever the key's type; the index is
// rebuilt at each open of the table (one scan of the key columns), not
// persisted: it has no format to keep and cannot disagree with the files.
//
// Scope: keys are enforced among the writes of one server process.
// Another server process writing the same table (a second frontend on the
// warehouse) is not checked against.

// KeyDef is a unique key of a table.
type KeyDef struct {
	Name    string   // the constraint's (or unique index's) name
	Columns []string // key columns, in key order
	Primary bool
}

// keyIndex is one unique key's index (guarded by Table.keyMu).
type keyIndex struct {
	def     KeyDef
	cols    []int // schema positions of the key columns
	built   bool
	seen    map[uint64]struct{}
	pending map[uint64]*KeyOwner
}

// The row identity columns of a target binding (sql.RowIDFile, RowIDPos).
const (
	ridFileColumn = "__bsdb_rid_f"
	ridPosColumn  = "__bsdb_rid_p"
)

// keyHashSeed hashes every key of this process (the index is never
// persisted).
var keyHashSeed = maphash.MakeSeed()

// SetKeys sets the table's unique keys (at open, and when a constraint is
// added or dropped). An index of a key already set is kept. A key naming
// a column the handle's schema lacks is left out (an ALTER TABLE's
// catalog entry catching up with its schema: the entry's update sets the
// keys again).
func (t *Table) SetKeys(defs []KeyDef) error {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	var out []*keyIndex
defs:
	for _, d := range defs {
		cols := make([]int, len(d.Columns))
		for i, c := range d.Columns {
			cols[i] = t.Schema.Index(c)
			if cols[i] < 0 {
				t.eng.log.Warn("unique key names a column the table does not have; not enforced until the catalog catches up", "table", t.ID.Name, "key", d.Name, "column", c)
				continue defs
			}
		}
		var kept *keyIndex
		for _, ix := range t.keys {
			if ix.def.Name == d.Name && slices.Equal(ix.cols, cols) {
				kept = ix
			}
		}
		if kept == nil {
			kept = &keyIndex{cols: cols, seen: map[uint64]struct{}{}, pending: map[uint64]*KeyOwner{}}
		}
		kept.def = d
		out = append(out, kept)
	}
	t.keys = out
	return nil
}

// EntryKeys are the unique keys of a table: its primary key, then its
// unique indexes (UNIQUE constraints' and CREATE UNIQUE INDEX's).
func EntryKeys(id catalog.TableID, ent *catalog.Entry, sch *schema.Schema) []KeyDef {
	var out []KeyDef
	if cols, name := ent.EffectiveKey(sch.PrimaryKey); len(cols) > 0 {
		if name == "" {
			name = id.Name + "_pkey"
		}
		out = append(out, KeyDef{Name: name, Columns: cols, Primary: true})
	}
	for _, x := range ent.Indexes {
		if !x.Unique || x.Where != "" {
			continue
		}
		cols := make([]string, 0, len(x.Keys))
		for _, k := range x.Keys {
			if k.Column == "" {
				cols = nil // an expression: refused when created
				break
			}
			cols = append(cols, k.Column)
		}
		if len(cols) > 0 {
			out = append(out, KeyDef{Name: x.Name, Columns: cols})
		}
	}
	return out
}

// Keys returns the table's unique keys.
func (t *Table) Keys() []KeyDef {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	out := make([]KeyDef, len(t.keys))
	for i, ix := range t.keys {
		out[i] = ix.def
	}
	return out
}

// KeyOwner is a transaction's hold on the keys it inserts: other writers
// of those keys wait until End.
type KeyOwner struct {
	done  chan struct{}
	ended bool
	held  []heldKey
	// waiting is the owner this one waits for, since waitStart; victim
	// is closed when its wait is chosen to break a deadlock (guarded by
	// waitMu).
	waiting   *KeyOwner
	waitStart time.Time
	victim    chan struct{}
}

type heldKey struct {
	t  *Table
	ix *keyIndex
	h  uint64
}

// waitMu guards KeyOwner.waiting, the wait-for graph of key waits.
var waitMu sync.Mutex

// NewKeyOwner returns the key hold of a new transaction.
func NewKeyOwner() *KeyOwner { return &KeyOwner{done: make(chan struct{})} }

// End ends the transaction's hold, committed or not: its keys join the
// sets of keys that may exist either way (a write that failed may still
// have become durable, and a key in the set only costs its next insert an
// exact lookup, while a key missing from it would let a duplicate in).
// Waiters wake. End is idempotent.
func (o *KeyOwner) End() {
	if o == nil || o.ended {
		return
	}
	o.ended = true
	var locked *Table
	for _, k := range o.held {
		if k.t != locked {
			if locked != nil {
				locked.keyMu.Unlock()
			}
			locked = k.t
			locked.keyMu.Lock()
		}
		if k.ix.pending[k.h] == o {
			delete(k.ix.pending, k.h)
		}
		k.ix.seen[k.h] = struct{}{}
	}
	if locked != nil {
		locked.keyMu.Unlock()
	}
	o.held = nil
	close(o.done)
}

// HasKeys reports whether the table has unique keys to check.
func (t *Table) HasKeys() bool {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	return len(t.keys) > 0
}

// KeyCheck is one statement's check of its new rows.
type KeyCheck struct {
	Owner *KeyOwner
	// Bind binds the writer's view of the table (its transaction's staged
	// rows and deletes), to look up keys that may exist.
	Bind func(ctx context.Context) (*Bound, error)
	// DoNothing: rows that conflict in an arbiter key are skipped (ON
	// CONFLICT DO NOTHING); Arbiters names them (nil: every key).
	DoNothing bool
	Arbiters  []string
	// DoUpdate: as DoNothing, the rows to skip are those whose arbiter
	// key exists (ON CONFLICT DO UPDATE updates them instead); a key
	// proposed twice is ErrAffectTwice.
	DoUpdate bool
	// Old are the rows the statement replaces (an UPDATE's old rows, with
	// the table's columns, of which the key columns are read): their keys
	// are gone when the new rows arrive.
	Old []arrow.RecordBatch
}

// KeyViolation is a new row whose key exists (or repeats an earlier new
// row's): PostgreSQL's 23505.
type KeyViolation struct {
	Key KeyDef
	// Values are the key's column values (Rec's row Row).
	Rec, Row int
}

func (v *KeyViolation) Error() string {
	return fmt.Sprintf("duplicate key value violates unique constraint \"%s\"", v.Key.Name)
}

// keyRows is the encoded keys of a statement's rows for one key.
type keyRows struct {
	hash  []uint64
	exact []string
	null  []bool // a NULL key column: never conflicts
}

// CheckKeys checks the new rows recs against the table's unique keys and
// registers their keys for kc.Owner. It returns, for ON CONFLICT DO
// NOTHING, the rows to skip (per record, nil when none); a conflict
// otherwise is a *KeyViolation.
func (t *Table) CheckKeys(ctx context.Context, recs []arrow.RecordBatch, kc KeyCheck) ([][]bool, error) {
	t.keyMu.Lock()
	keys := append([]*keyIndex(nil), t.keys...)
	t.keyMu.Unlock()
	if len(keys) == 0 || len(recs) == 0 {
		return nil, nil
	}
	// Row r of the statement is recs[recOf[r]] row rowOf[r].
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	recOf, rowOf := make([]int, 0, n), make([]int, 0, n)
	for i, r := range recs {
		for j := 0; j < int(r.NumRows()); j++ {
			recOf = append(recOf, i)
			rowOf = append(rowOf, j)
		}
	}
	enc := make([]keyRows, len(keys))
	old := make([]map[string]int, len(keys))
	for k, ix := range keys {
		enc[k] = t.encodeKeys(recs, ix.cols)
		if len(kc.Old) > 0 {
			o := t.encodeKeys(kc.Old, ix.cols)
			old[k] = map[string]int{}
			for r := range o.exact {
				if !o.null[r] {
					old[k][o.exact[r]]++
				}
			}
		}
	}
	arbiter := func(k int) bool {
		if !kc.DoNothing && !kc.DoUpdate {
			return false
		}
		if kc.Arbiters == nil {
			return true
		}
		for _, a := range kc.Arbiters {
			if a == keys[k].def.Name {
				return true
			}
		}
		return false
	}
	t.keyMu.Lock()
	locked := true
	defer func() {
		if locked {
			t.keyMu.Unlock()
		}
	}()
	for {
		for _, ix := range keys {
			if !ix.built {
				if err := t.buildKeyIndex(ctx, ix, kc.Bind); err != nil {
					return nil, err
				}
			}
		}
		// Keys in-flight transactions insert: wait for them to end.
		var waitFor *KeyOwner
		for k, ix := range keys {
			for r, h := range enc[k].hash {
				if enc[k].null[r] {
					continue
				}
				if o := ix.pending[h]; o != nil && o != kc.Owner {
					waitFor = o
					break
				}
			}
			if waitFor != nil {
				break
			}
		}
		if waitFor == nil {
			break
		}
		t.keyMu.Unlock()
		locked = false
		if err := kc.Owner.waitFor(ctx, waitFor); err != nil {
			return nil, err
		}
		t.keyMu.Lock()
		locked = true
	}
	// Keys that may exist: look them up in the writer's view.
	type cand struct{ k, r int }
	var cands []cand
	for k, ix := range keys {
		for r, h := range enc[k].hash {
			if enc[k].null[r] {
				continue
			}
			if _, ok := ix.seen[h]; ok || ix.pending[h] == kc.Owner {
				cands = append(cands, cand{k, r})
			}
		}
	}
	exists := make([]map[int]bool, len(keys))
	if len(cands) > 0 {
		byKey := make([][]int, len(keys))
		for _, c := range cands {
			byKey[c.k] = append(byKey[c.k], c.r)
		}
		b, err := kc.Bind(ctx)
		if err != nil {
			return nil, err
		}
		for k, rows := range byKey {
			if len(rows) == 0 {
				continue
			}
			counts, err := t.countKeys(ctx, b, keys[k], recs, recOf, rowOf, rows)
			if err != nil {
				b.Release()
				return nil, err
			}
			exists[k] = map[int]bool{}
			for r, n := range counts {
				if old[k] != nil {
					n -= old[k][enc[k].exact[r]]
				}
				if n > 0 {
					exists[k][r] = true
				}
			}
		}
		b.Release()
	}
	// PostgreSQL's order: row by row, each against the table and the
	// rows before it.
	// (The maps of the statement's own keys are made only when it has
	// more than one row: a single-row INSERT allocates none.)
	var skip [][]bool
	accepted := make([]map[string]bool, len(keys))
	proposed := make([]map[string]bool, len(keys))
	for r := range recOf {
		if kc.DoUpdate && n > 1 {
			for k := range keys {
				if enc[k].null[r] || !arbiter(k) {
					continue
				}
				if proposed[k][enc[k].exact[r]] {
					return nil, ErrAffectTwice
				}
				if proposed[k] == nil {
					proposed[k] = map[string]bool{}
				}
				proposed[k][enc[k].exact[r]] = true
			}
		}
		// An arbiter's conflict skips the row (ON CONFLICT); else the
		// first key that conflicts fails it (PostgreSQL's index order).
		conflict := -1
		for k := range keys {
			if enc[k].null[r] || !exists[k][r] && !accepted[k][enc[k].exact[r]] {
				continue
			}
			if arbiter(k) {
				conflict = k
				break
			}
			if conflict < 0 {
				conflict = k
			}
		}
		if conflict >= 0 {
			if !arbiter(conflict) {
				return nil, &KeyViolation{Key: keys[conflict].def, Rec: recOf[r], Row: rowOf[r]}
			}
			if skip == nil {
				skip = make([][]bool, len(recs))
			}
			if skip[recOf[r]] == nil {
				skip[recOf[r]] = make([]bool, recs[recOf[r]].NumRows())
			}
			skip[recOf[r]][rowOf[r]] = true
			continue
		}
		if n == 1 {
			continue
		}
		for k := range keys {
			if !enc[k].null[r] {
				if accepted[k] == nil {
					accepted[k] = map[string]bool{}
				}
				accepted[k][enc[k].exact[r]] = true
			}
		}
	}
	for r := range recOf {
		if skip != nil && skip[recOf[r]] != nil && skip[recOf[r]][rowOf[r]] {
			continue
		}
		for k, ix := range keys {
			if enc[k].null[r] {
				continue
			}
			h := enc[k].hash[r]
			if ix.pending[h] != kc.Owner {
				ix.pending[h] = kc.Owner
				kc.Owner.held = append(kc.Owner.held, heldKey{t: t, ix: ix, h: h})
			}
		}
	}
	return skip, nil
}

// waitFor waits until other ends (or ctx is done); a wait that would close
// a cycle of waits fails with 40P01, as PostgreSQL's deadlock detector.
//
// The victim is the transaction of the cycle that has waited longest, as
// PostgreSQL's (the first whose deadlock_timeout fires): often not the
// one that closes the cycle, which then waits on.
func (o *KeyOwner) waitFor(ctx context.Context, other *KeyOwner) error {
	waitMu.Lock()
	o.waiting, o.waitStart, o.victim = other, time.Now(), make(chan struct{})
	victim := o.victim
	cycle := false
	oldest := o
	seen := map[*KeyOwner]bool{}
	for w := other; w != nil && !seen[w]; w = w.waiting {
		// (A cycle without o is one whose victim has not left it yet.)
		seen[w] = true
		if w.waitStart.Before(oldest.waitStart) {
			oldest = w
		}
		if w == o {
			cycle = true
			break
		}
	}
	if cycle {
		select {
		case <-oldest.victim: // chosen already
		default:
			close(oldest.victim)
		}
	}
	waitMu.Unlock()
	defer func() {
		waitMu.Lock()
		o.waiting, o.victim = nil, nil
		waitMu.Unlock()
	}()
	select {
	case <-other.done:
		return nil
	case <-victim:
		return pgerr.New("40P01", "deadlock detected").
			WithDetail("%s", "Two or more transactions wait for each other to end: each inserts a key another one inserted.").
			WithHint("See server log for query details.")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// buildKeyIndex fills ix from the table's current rows (keyMu held).
func (t *Table) buildKeyIndex(ctx context.Context, ix *keyIndex, bind func(context.Context) (*Bound, error)) error {
	b, err := bind(ctx)
	if err != nil {
		return err
	}
	defer b.Release()
	cols := make([]string, len(ix.cols))
	notNull := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		cols[i] = quoteIdent(t.Schema.Columns[c].Name)
		notNull[i] = cols[i] + " IS NOT NULL"
	}
	q := fmt.Sprintf("SELECT %s FROM %s AS __t WHERE %s", strings.Join(cols, ", "), b.FromSQL, strings.Join(notNull, " AND "))
	seen := map[uint64]struct{}{}
	err = t.queryArrow(ctx, q, nil, func(rec arrow.RecordBatch) error {
		arrs := make([]arrow.Array, len(ix.cols))
		for i := range arrs {
			arrs[i] = rec.Column(i)
		}
		kr := t.encodeColumns(arrs, ix.cols, int(rec.NumRows()))
		for r, h := range kr.hash {
			if !kr.null[r] {
				seen[h] = struct{}{}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("build the index of %s: %w", ix.def.Name, err)
	}
	ix.seen = seen
	ix.built = true
	return nil
}

// countKeys counts, for the given statement rows, the rows of the bound
// view with the same key.
func (t *Table) countKeys(ctx context.Context, b *Bound, ix *keyIndex, recs []arrow.RecordBatch, recOf, rowOf, rows []int) (map[int]int, error) {
	mem := memory.DefaultAllocator
	// The candidates: their statement row number and key columns.
	fields := []arrow.Field{{Name: "__r", Type: arrow.PrimitiveTypes.Int64}}
	for _, c := range ix.cols {
		col := &t.Schema.Columns[c]
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("k%d", len(fields)), Type: col.ArrowType(), Nullable: true})
	}
	rb := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer rb.Release()
	for _, r := range rows {
		rb.Field(0).(*array.Int64Builder).Append(int64(r))
		rec := recs[recOf[r]]
		for i, c := range ix.cols {
			if err := appendFrom(rb.Field(i+1), rec.Column(c), rowOf[r]); err != nil {
				return nil, err
			}
		}
	}
	cand := rb.NewRecordBatch()
	defer cand.Release()
	friendly := duckFriendly(cand, 0)
	defer friendly.Release()
	on := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		col := &t.Schema.Columns[c]
		on[i] = fmt.Sprintf("__t.%s = CAST(__c.k%d AS %s)", quoteIdent(col.Name), i+1, DuckType(col))
	}
	q := fmt.Sprintf("SELECT __c.__r, count(*) FROM __bsdb_keycand AS __c JOIN %s AS __t ON %s GROUP BY __c.__r", b.FromSQL, strings.Join(on, " AND "))
	out := map[int]int{}
	err := t.queryArrow(ctx, q, friendly, func(rec arrow.RecordBatch) error {
		rs, ok1 := rec.Column(0).(*array.Int64)
		ns, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("BUG: key lookup of %s returned %s", t.ID.Name, rec.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			out[int(rs.Value(i))] = int(ns.Value(i))
		}
		return nil
	})
	return out, err
}

// QueryRows runs q, in which placeholder names a relation of recs (the
// table's rows, in the mirror's form: with the batch column numbering
// recs from 0 and the row index column), and hands each result batch to
// fn (valid during the call).
func (t *Table) QueryRows(ctx context.Context, q, placeholder string, recs []arrow.RecordBatch, fn func(arrow.RecordBatch) error) error {
	in := make([]arrow.RecordBatch, len(recs))
	for i, r := range recs {
		in[i] = duckFriendly(r, uint64(i))
	}
	defer func() {
		for _, r := range in {
			r.Release()
		}
	}()
	return t.queryArrowIn(ctx, q, placeholder, in, fn)
}

// queryArrow runs q on one connection, with in (if set) registered as a
// view whose name replaces __bsdb_keycand in q, and hands each result
// batch to fn.
func (t *Table) queryArrow(ctx context.Context, q string, in arrow.RecordBatch, fn func(arrow.RecordBatch) error) error {
	var recs []arrow.RecordBatch
	if in != nil {
		recs = []arrow.RecordBatch{in}
	}
	return t.queryArrowIn(ctx, q, "__bsdb_keycand", recs, fn)
}

func (t *Table) queryArrowIn(ctx context.Context, q, placeholder string, in []arrow.RecordBatch, fn func(arrow.RecordBatch) error) error {
	conn, err := t.eng.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		if len(in) > 0 {
			// Copied into a temporary table of the connection: the query
			// may scan the rows more than once (arrowview.go).
			tmp := arrowViewName("__bsdb_rows")
			if err := execWithArrow(ctx, dc, in, "__bsdb_rows_in", func(view string) string {
				return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT * FROM %s", tmp, view)
			}); err != nil {
				return err
			}
			defer func() {
				_, _ = dc.(driver.ExecerContext).ExecContext(context.Background(), "DROP TABLE IF EXISTS temp."+tmp, nil)
			}()
			q = strings.ReplaceAll(q, placeholder, tmp)
		}
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rr, err := ar.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rr.Release()
		for rr.Next() {
			if err := fn(rr.RecordBatch()); err != nil {
				return err
			}
		}
		return rr.Err()
	})
}

// appendFrom appends row i of a to b (same type).
func appendFrom(b array.Builder, a arrow.Array, i int) error {
	if a.IsNull(i) {
		b.AppendNull()
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(a.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(i))
	case *array.Float32:
		b.(*array.Float32Builder).Append(a.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(i))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(a.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.Binary:
		b.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(a.Value(i))
	case *array.Time64:
		b.(*array.Time64Builder).Append(a.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(i))
	case *array.MonthDayNanoInterval:
		b.(*array.MonthDayNanoIntervalBuilder).Append(a.Value(i))
	case array.ExtensionArray:
		return b.AppendValueFromString(a.ValueStr(i))
	default:
		return b.AppendValueFromString(a.ValueStr(i))
	}
	return nil
}

// encodeKeys encodes the keys (columns cols) of every row of recs.
func (t *Table) encodeKeys(recs []arrow.RecordBatch, cols []int) keyRows {
	var out keyRows
	for _, r := range recs {
		arrs := make([]arrow.Array, len(cols))
		for i, c := range cols {
			arrs[i] = r.Column(c)
		}
		kr := t.encodeColumns(arrs, cols, int(r.NumRows()))
		out.hash = append(out.hash, kr.hash...)
		out.exact = append(out.exact, kr.exact...)
		out.null = append(out.null, kr.null...)
	}
	return out
}

// encodeColumns encodes n rows of the key columns arrs (the columns cols
// of the schema, in any Arrow form of their kind: the table's own, or the
// query engine's): equal keys, and only they, encode equally.
func (t *Table) encodeColumns(arrs []arrow.Array, cols []int, n int) keyRows {
	kr := keyRows{hash: make([]uint64, n), exact: make([]string, n), null: make([]bool, n)}
	var buf []byte
	for r := 0; r < n; r++ {
		buf = buf[:0]
		for i, a := range arrs {
			if a.IsNull(r) {
				kr.null[r] = true
				break
			}
			buf = appendKey(buf, &t.Schema.Columns[cols[i]], a, r)
		}
		if kr.null[r] {
			continue
		}
		kr.exact[r] = string(buf)
		kr.hash[r] = maphash.Bytes(keyHashSeed, buf)
	}
	return kr
}

// appendKey appends the canonical encoding of row r of a (a column of
// kind c.Kind) to buf. Variable-length values are length-prefixed, so
// that a composite key's encoding is unambiguous.
func appendKey(buf []byte, c *schema.Column, a arrow.Array, r int) []byte {
	if ext, ok := a.(array.ExtensionArray); ok {
		a = ext.Storage()
	}
	switch a := a.(type) {
	case *array.Boolean:
		if a.Value(r) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case *array.Int8:
		return binary.LittleEndian.AppendUint64(buf, uint64(int64(a.Value(r))))
	case *array.Int16:
		return binary.LittleEndian.AppendUint64(buf, uint64(int64(a.Value(r))))
	case *array.Int32:
		return binary.LittleEndian.AppendUint64(buf, uint64(int64(a.Value(r))))
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(buf, uint64(a.Value(r)))
	case *array.Float32:
		return appendFloatKey(buf, float64(a.Value(r)))
	case *array.Float64:
		return appendFloatKey(buf, a.Value(r))
	case *array.Decimal128:
		v := a.Value(r)
		if s := a.DataType().(*arrow.Decimal128Type).Scale; s < int32(c.Scale) {
			v = v.IncreaseScaleBy(int32(c.Scale) - s)
		} else if s > int32(c.Scale) {
			v = v.ReduceScaleBy(s-int32(c.Scale), false)
		}
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v.HighBits()))
		return binary.LittleEndian.AppendUint64(buf, v.LowBits())
	case *array.Date32:
		return binary.LittleEndian.AppendUint64(buf, uint64(int64(a.Value(r))))
	case *array.Time64:
		v := int64(a.Value(r))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			v /= 1000
		}
		return binary.LittleEndian.AppendUint64(buf, uint64(v))
	case *array.Timestamp:
		v := int64(a.Value(r))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			v *= 1_000_000
		case arrow.Millisecond:
			v *= 1000
		case arrow.Nanosecond:
			v /= 1000
		}
		return binary.LittleEndian.AppendUint64(buf, uint64(v))
	case *array.MonthDayNanoInterval:
		v := a.Value(r)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v.Months))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v.Days))
		return binary.LittleEndian.AppendUint64(buf, uint64(v.Nanoseconds))
	case *array.FixedSizeBinary:
		return appendBytesKey(buf, a.Value(r))
	case *array.String:
		return appendStringKey(buf, c, a.Value(r))
	case *array.LargeString:
		return appendStringKey(buf, c, a.Value(r))
	case *array.StringView:
		return appendStringKey(buf, c, a.Value(r))
	case *array.Binary:
		return appendBytesKey(buf, a.Value(r))
	case *array.LargeBinary:
		return appendBytesKey(buf, a.Value(r))
	}
	return appendStringKey(buf, c, a.ValueStr(r))
}

func appendFloatKey(buf []byte, f float64) []byte {
	switch {
	case f == 0:
		f = 0 // -0 = 0
	case math.IsNaN(f):
		f = math.NaN() // one NaN, equal to itself (PostgreSQL's order)
	}
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
}

func appendBytesKey(buf, b []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(b)))
	return append(buf, b...)
}

// appendStringKey: a uuid given as text is its 16 bytes; numeric without
// a precision (stored as its text) is compared as a number.
func appendStringKey(buf []byte, c *schema.Column, s string) []byte {
	switch {
	case c.Kind == schema.KindUUID:
		if u, err := uuid.Parse(s); err == nil {
			return appendBytesKey(buf, u[:])
		}
	case c.Kind == schema.KindString && c.Annotation == "numeric":
		s = canonicalNumericText(s)
	}
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// canonicalNumericText drops a numeric's trailing fractional zeros (1.50
// = 1.5) and the sign of zero.
func canonicalNumericText(s string) string {
	if strings.ContainsAny(s, "eE") {
		return s
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// ErrAffectTwice: ON CONFLICT DO UPDATE proposed one key twice.
var ErrAffectTwice = errors.New("ON CONFLICT DO UPDATE command cannot affect row a second time")

// RowsByID reads the rows of a target binding (BindTarget) with the given
// identities (row identity columns, as the binding numbers them): the
// table's columns, in the query engine's Arrow forms. An UPDATE that
// changes key columns reads its old rows so.
func (t *Table) RowsByID(ctx context.Context, b *Bound, files, positions []int64) ([]arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	fb, pb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	fb.AppendValues(files, nil)
	pb.AppendValues(positions, nil)
	fa, pa := fb.NewArray(), pb.NewArray()
	fb.Release()
	pb.Release()
	in := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Int64}, {Name: "p", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{fa, pa}, int64(len(files)))
	fa.Release()
	pa.Release()
	defer in.Release()
	cols := make([]string, len(t.Schema.Columns))
	for i := range t.Schema.Columns {
		cols[i] = "__t." + quoteIdent(t.Schema.Columns[i].Name)
	}
	q := fmt.Sprintf("SELECT %s FROM %s AS __t JOIN __bsdb_keycand AS __c ON __t.%s = __c.f AND __t.%s = __c.p",
		strings.Join(cols, ", "), b.FromSQL, quoteIdent(ridFileColumn), quoteIdent(ridPosColumn))
	var out []arrow.RecordBatch
	err := t.queryArrow(ctx, q, in, func(rec arrow.RecordBatch) error {
		rec.Retain()
		out = append(out, rec)
		return nil
	})
	if err != nil {
		for _, r := range out {
			r.Release()
		}
		return nil, err
	}
	return out, nil
}

// ErrDuplicateKey is returned by AddKey when existing rows repeat a key:
// Values are the text of one repeated key's columns.
type ErrDuplicateKey struct {
	Key    KeyDef
	Values []string
}

func (e *ErrDuplicateKey) Error() string {
	return fmt.Sprintf("could not create unique index \"%s\"", e.Key.Name)
}

// AddKey adds a unique key to table id: with no write running (the
// table's schema lock, exclusively), it checks that the existing rows do
// not repeat the key (*ErrDuplicateKey), then runs record (which records
// the key in the catalog) and enforces the key from then on. keys is the
// table's keys afterwards, given the handle.
func (e *Engine) AddKey(ctx context.Context, id catalog.TableID, def KeyDef, record func(t *Table) ([]KeyDef, error)) error {
	return e.WithWritesStopped(ctx, id, func(t *Table) error {
		if err := t.CheckUnique(ctx, def); err != nil {
			return err
		}
		keys, err := record(t)
		if err != nil {
			return err
		}
		return t.SetKeys(keys)
	})
}

// WithWritesStopped runs fn with table id's open handle while no write to
// it runs (its schema lock, exclusively): a constraint added checks the
// rows and is in force before the next write.
func (e *Engine) WithWritesStopped(ctx context.Context, id catalog.TableID, fn func(t *Table) error) error {
	unlock, err := e.lockForAlter(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := e.Table(ctx, id)
	if err != nil {
		return err
	}
	return fn(t)
}

// CheckUnique finds a key of def repeated among the table's rows
// (*ErrDuplicateKey).
func (t *Table) CheckUnique(ctx context.Context, def KeyDef) error {
	b, err := t.Bind(ctx, nil)
	if err != nil {
		return err
	}
	defer b.Release()
	cols := make([]string, len(def.Columns))
	text := make([]string, len(def.Columns))
	notNull := make([]string, len(def.Columns))
	for i, c := range def.Columns {
		cols[i] = quoteIdent(c)
		text[i] = fmt.Sprintf("CAST(%s AS VARCHAR)", cols[i])
		notNull[i] = cols[i] + " IS NOT NULL"
	}
	q := fmt.Sprintf("SELECT %s FROM %s AS __t WHERE %s GROUP BY %s HAVING count(*) > 1 LIMIT 1",
		strings.Join(text, ", "), b.FromSQL, strings.Join(notNull, " AND "), strings.Join(cols, ", "))
	rows, err := t.eng.db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return rows.Err()
	}
	vals := make([]string, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return err
	}
	return &ErrDuplicateKey{Key: def, Values: vals}
}

// SetChecks sets the table's CHECK constraints (at open, and when one is
// added or dropped), kept in name order: the order PostgreSQL checks
// them in.
func (t *Table) SetChecks(checks []catalog.CheckDef) {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	t.checks = append([]catalog.CheckDef(nil), checks...)
	slices.SortFunc(t.checks, func(a, b catalog.CheckDef) int { return strings.Compare(a.Name, b.Name) })
	t.checkSQL = ""
}

// Checks returns the table's CHECK constraints, in name order, and the
// query that checks rows against them, computed by build once per set of
// constraints.
func (t *Table) Checks(build func([]catalog.CheckDef) (string, error)) ([]catalog.CheckDef, string, error) {
	t.keyMu.Lock()
	defer t.keyMu.Unlock()
	if len(t.checks) == 0 || t.checkSQL != "" {
		return t.checks, t.checkSQL, nil
	}
	q, err := build(t.checks)
	if err != nil {
		return nil, "", err
	}
	t.checkSQL = q
	return t.checks, q, nil
}
