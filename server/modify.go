package server

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/pgwire"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/txn"
)

// UPDATE and DELETE.
//
// A statement translates to one query over its target bound with row
// identities (planner.Table.BindTarget): the identity of each row to
// change, and for UPDATE its new values. Committed rows are deleted by
// position in their data file, buffered ones (acknowledged, not yet in a
// data file) by their batch's WAL transaction and index and the row's
// index (a delete record in the WAL, which the commit turns into an
// Iceberg position delete file); an UPDATE deletes the old version and
// inserts the new one in the same transaction. Rows the transaction wrote
// itself are removed from its staged batches. A row that another
// transaction deleted after this statement read it, or that an open
// transaction has claimed, fails the statement with 40001 (PostgreSQL's
// REPEATABLE READ error).

// serializationFailure is PostgreSQL's error for a concurrent update.
func serializationFailure() error {
	return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
}

type modifyPlan struct {
	s         *session
	st        *bsql.Statement
	args      []any
	paramOIDs []uint32
	isDelete  bool
	ret       *selectPlan // RETURNING, or nil
}

func (s *session) planModify(ctx context.Context, st *bsql.Statement, params []any, paramOIDs []uint32, formats []int16) (plan, error) {
	rv := st.Tree.GetUpdateStmt().GetRelation()
	if st.Kind == bsql.KindDelete {
		rv = st.Tree.GetDeleteStmt().GetRelation()
	}
	if err := s.lockForWrite(ctx, rv); err != nil { // schemalock.go
		return nil, err
	}
	p := &modifyPlan{s: s, st: st, args: params, paramOIDs: paramOIDs, isDelete: st.Kind == bsql.KindDelete}
	if hasReturning(st.Tree) {
		// The RETURNING list's columns, described over an empty relation
		// of the table's columns.
		b := &binder{s: s, ctx: ctx}
		m, err := bsql.TranslateModify(st.Tree, b, paramOIDs)
		if err != nil {
			b.release()
			return nil, err
		}
		t := b.target
		b.release()
		if err := s.returningView(ctx, t, nil); err != nil {
			return nil, err
		}
		p.ret = &selectPlan{s: s, q: m.Returning, args: params, b: &binder{s: s, ctx: ctx}, tag: p.tagName()}
		if err := p.ret.describe(ctx, formats); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *modifyPlan) tagName() string {
	if p.isDelete {
		return "DELETE"
	}
	return "UPDATE"
}

func (p *modifyPlan) Columns() []pgwire.Column {
	if p.ret != nil {
		return p.ret.Columns()
	}
	return nil
}

func (p *modifyPlan) Close() {
	if p.ret != nil {
		p.ret.Close()
	}
}

func (p *modifyPlan) execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (bool, error) {
	if p.ret != nil && p.ret.rows != nil {
		return p.ret.execute(ctx, maxRows, w) // a suspended RETURNING portal
	}
	res, err := p.run(ctx)
	if err != nil {
		return false, err
	}
	defer res.release()
	if p.ret == nil {
		return false, w.Complete(fmt.Sprintf("%s %d", p.tagName(), res.count))
	}
	return p.returning(ctx, res, maxRows, w)
}

// modifyResult is what one run of a statement changed.
type modifyResult struct {
	t     *planner.Table
	count int64
	// retRecs: the rows RETURNING reads (new rows of an UPDATE, deleted
	// rows of a DELETE); retIDs their batch ids when they are in the
	// mirror already (an UPDATE's written rows), else nil.
	retRecs []arrow.RecordBatch
	retIDs  []uint64
	owned   []arrow.RecordBatch // records to release
}

func (r *modifyResult) release() { releaseAll(r.owned) }

// run translates and runs the statement once.
func (p *modifyPlan) run(ctx context.Context) (*modifyResult, error) {
	s := p.s
	b := &binder{s: s, ctx: ctx}
	m, err := bsql.TranslateModify(p.st.Tree, b, p.paramOIDs)
	if err != nil {
		b.release()
		return nil, err
	}
	t, bd := b.target, b.targetBound
	res := &modifyResult{t: t}
	// The transaction's own batches of t: their rows are changed in place.
	own := map[uint64]bool{}
	if s.tx != nil {
		for _, sb := range s.tx.pendingBatches(t) {
			if sb.Del == nil {
				own[sb.ID] = true
			}
		}
	}
	fileDel := &txn.Deletes{}
	ownDel := map[uint64][]int{}       // own batch id -> row indexes
	buffered := map[uint64]txn.Batch{} // the snapshot's buffered batches
	for _, sb := range bd.Snap.Batches {
		buffered[sb.ID] = sb
	}
	withValues := !p.isDelete || p.ret != nil
	var bb *batchBuilder
	if withValues {
		bb = newBatchBuilder(t.Schema, t.T.ArrowSchema(), 0)
	}
	info := tableInfo(t)
	s.detachStream(ctx)
	rows, err := s.conn.QueryContext(ctx, m.Source.SQL, p.args...)
	if err != nil {
		b.release()
		if bb != nil {
			bb.abort()
		}
		return nil, err
	}
	ncols := 2
	if withValues {
		ncols += len(info.Columns)
	}
	vals := make([]any, ncols)
	ptrs := make([]any, ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	conv := make([]any, len(info.Columns))
	// An UPDATE of key columns checks its new keys, with the keys of the
	// rows it replaces gone (their identities: ridF, ridP).
	var keys *keyOptions
	if !p.isDelete && assignsKey(t, m.Assigned) {
		keys = &keyOptions{}
	}
	var ridF, ridP []int64
	scanErr := func() error {
		defer rows.Close()
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			f, ok1 := vals[0].(int64)
			pos, ok2 := vals[1].(int64)
			if !ok1 || !ok2 {
				return fmt.Errorf("BUG: modify: row identity %T/%T", vals[0], vals[1])
			}
			if keys != nil {
				ridF, ridP = append(ridF, f), append(ridP, pos)
			}
			switch {
			case f >= 0:
				if int(f) >= len(bd.RIDFiles) {
					return fmt.Errorf("BUG: modify: file index %d of %d", f, len(bd.RIDFiles))
				}
				fileDel.Add(bd.RIDFiles[f], pos)
			case own[uint64(-f)]:
				ownDel[uint64(-f)] = append(ownDel[uint64(-f)], int(pos))
			default:
				sb, ok := buffered[uint64(-f)]
				if !ok {
					return fmt.Errorf("BUG: modify: row of batch %d, which the snapshot does not hold", -f)
				}
				fileDel.AddBuf(sb.TxID, sb.Ord, sb.ID, pos)
			}
			res.count++
			if !withValues {
				continue
			}
			if err := appendDuckRow(bb, info, vals[2:], conv); err != nil {
				return err
			}
		}
		return rows.Err()
	}()
	if scanErr == nil && keys != nil && len(ridF) > 0 {
		keys.old, scanErr = t.RowsByID(ctx, bd, ridF, ridP)
	}
	b.release() // the snapshot is no longer needed
	if keys != nil {
		defer releaseAll(keys.old)
	}
	var recs []arrow.RecordBatch
	if bb != nil {
		if scanErr != nil {
			bb.abort()
		} else {
			recs = bb.finish()
		}
	}
	if scanErr != nil {
		return nil, scanErr
	}
	res.owned = recs
	fileDel.Normalize()
	if err := p.apply(ctx, res, fileDel, ownDel, recs, keys); err != nil {
		res.release()
		return nil, err
	}
	return res, nil
}

// appendDuckRow converts a row of the table's columns as DuckDB returned
// them (vals) and appends it to bb; conv is scratch of the same length.
func appendDuckRow(bb *batchBuilder, info *bsql.TableInfo, vals, conv []any) error {
	for i, v := range vals {
		if v == nil {
			conv[i] = nil
			continue
		}
		cv, err := fromDuck(info.Columns[i].TypeOID, v)
		if err != nil {
			return err
		}
		if str, ok := cv.(string); ok {
			if e := pgerr.CheckTextString(str); e != nil {
				return e
			}
		}
		conv[i] = cv
	}
	return bb.appendRow(conv)
}

// apply makes the statement's changes: deletes and new rows, in the
// session's transaction or, outside one, as a transaction of their own.
func (p *modifyPlan) apply(ctx context.Context, res *modifyResult, fileDel *txn.Deletes, ownDel map[uint64][]int, recs []arrow.RecordBatch, keys *keyOptions) (err error) {
	s, t := p.s, res.t
	newRows := recs
	if p.isDelete {
		newRows = nil
		res.retRecs = recs // the deleted rows, for RETURNING
	}
	if err := s.enforceChecks(ctx, t, newRows); err != nil { // checks.go
		return err
	}
	if keys != nil && len(newRows) > 0 {
		_, endKeys, kerr := s.checkKeys(ctx, t, newRows, *keys) // keys.go
		if kerr != nil {
			return kerr
		}
		defer endKeys()
	}
	if err := t.T.Claim(ctx, fileDel); err != nil {
		if errors.Is(err, txn.ErrSerialization) {
			return serializationFailure()
		}
		return err
	}
	if s.tx == nil {
		if p.ret != nil && len(newRows) > 0 {
			t.HoldMirror() // released after RETURNING read the rows
		}
		wr, err := t.WriteDeletes(ctx, newRows, fileDel, s.set.durability())
		if err != nil {
			if p.ret != nil && len(newRows) > 0 {
				t.ReleaseMirror()
			}
			t.T.Unclaim(fileDel)
			if errors.Is(err, txn.ErrSerialization) {
				return serializationFailure()
			}
			return err
		}
		if !p.isDelete {
			res.retRecs = newRows
			for _, b := range wr.Batches {
				res.retIDs = append(res.retIDs, b.ID)
			}
		}
		return nil
	}
	w := s.tx.forTable(t)
	if !fileDel.Empty() {
		w.dels = append(w.dels, planner.DeleteSet{ID: t.AllocDeleteID(), Del: fileDel})
	}
	if len(ownDel) > 0 {
		// Rows the transaction wrote: masked in its batches (a savepoint
		// can bring them back), left out when it commits.
		m := &txn.Deletes{}
		k := int32(0)
		for id, rows := range ownDel {
			rs := make([]int64, len(rows))
			for i, r := range rows {
				rs[i] = int64(r)
			}
			m.AddBuf(uuid.Nil, k, id, rs...) // no WAL name yet: keyed by k
			k++
		}
		w.masks = append(w.masks, planner.DeleteSet{ID: t.AllocDeleteID(), Del: m})
	}
	if len(newRows) > 0 {
		ids, err := s.writeIDs(ctx, t, newRows, true)
		if err != nil {
			return err
		}
		if !p.isDelete {
			res.retRecs, res.retIDs = newRows, ids
		}
	}
	return nil
}

// keepRows returns rec without the rows at the given indexes (nil when no
// row remains).
func keepRows(rec arrow.RecordBatch, drop []int) (arrow.RecordBatch, error) {
	sort.Ints(drop)
	n := int(rec.NumRows())
	var slices []arrow.RecordBatch
	defer func() {
		for _, s := range slices {
			s.Release()
		}
	}()
	start, kept := 0, 0
	for _, d := range append(drop, n) {
		if d > start {
			slices = append(slices, rec.NewSlice(int64(start), int64(d)))
			kept += d - start
		}
		if d+1 > start {
			start = d + 1
		}
	}
	if kept == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		parts := make([]arrow.Array, len(slices))
		for i, s := range slices {
			parts[i] = s.Column(c)
		}
		col, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, done := range cols[:c] {
				done.Release()
			}
			return nil, err
		}
		col.NullN() // computes the null count Concatenate leaves unknown
		cols[c] = col
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(kept))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// returning sends the RETURNING rows: res.retRecs read through the
// mirror (under their batch ids, or staged there for the statement).
func (p *modifyPlan) returning(ctx context.Context, res *modifyResult, maxRows int, w pgwire.ResultWriter) (bool, error) {
	t := res.t
	ids := res.retIDs
	temp := false
	if ids == nil && len(res.retRecs) > 0 {
		var err error
		if ids, err = t.Stage(ctx, res.retRecs); err != nil {
			return false, err
		}
		temp = true
	}
	if p.s.tx == nil && !p.isDelete && len(res.retRecs) > 0 {
		defer t.ReleaseMirror() // HoldMirror in apply
	}
	if temp {
		defer t.Unstage(ids)
	}
	if len(ids) > 0 {
		if err := t.MirrorWritten(ctx, ids, res.retRecs); err != nil {
			return false, err
		}
	}
	if err := p.s.returningView(ctx, t, ids); err != nil {
		return false, err
	}
	// The rows are read now: a RETURNING portal is never suspended
	// between the write and the read.
	p.ret.tag = p.tagName()
	return p.ret.execute(ctx, 0, w)
}

// LookupTarget implements bsql.TargetCatalog: the target of an UPDATE or
// DELETE, bound with row identities.
func (b *binder) LookupTarget(schemaName, name string, update, reads bool) (*bsql.TableInfo, error) {
	want := acl.Delete
	if update {
		want = acl.Update
	}
	if reads {
		want |= acl.Select
	}
	return b.lookupTarget(schemaName, name, want, func(seq bool) error {
		if seq {
			return pgerr.New("42809", "cannot change sequence \"%s\"", name)
		}
		return pgerr.New(pgerr.FeatureNotSupported, "cannot change relation \"%s\"", name)
	})
}

// lookupTarget binds the target of an UPDATE, DELETE or MERGE; notTable
// is the error for a relation that is not a table (seq: a sequence).
func (b *binder) lookupTarget(schemaName, name string, want acl.Mode, notTable func(seq bool) error) (*bsql.TableInfo, error) {
	info, t, err := b.openTable(schemaName, name, want)
	if err != nil {
		return nil, err
	}
	if t == nil {
		_, seq, _ := b.s.sequenceRelation(b.ctx, schemaName, name)
		return nil, notTable(seq)
	}
	if !b.readLocked {
		b.s.eng.ReadLock()
		b.readLocked = true
	}
	bind := t.BindTarget
	if b.s.tx.truncated(t) {
		bind = t.BindTargetTruncated
	}
	bd, err := bind(b.ctx, b.s.tx.pendingBatches(t))
	if err != nil {
		return nil, err
	}
	b.bounds = append(b.bounds, bd)
	b.tables = append(b.tables, t)
	b.target, b.targetBound = t, bd
	info.FromSQL = bd.FromSQL
	info.OID = t.Entry.OID
	info.Columns = append(append([]bsql.ColumnInfo(nil), info.Columns...),
		bsql.ColumnInfo{Name: bsql.RowIDFile, TypeOID: pgtypes.OIDInt8, TypeMod: -1},
		bsql.ColumnInfo{Name: bsql.RowIDPos, TypeOID: pgtypes.OIDInt8, TypeMod: -1})
	return info, nil
}

// assignsKey reports whether an UPDATE that sets the columns assigned
// (by position) changes a column of one of t's unique keys.
func assignsKey(t *planner.Table, assigned []bool) bool {
	for _, k := range t.Keys() {
		for _, c := range k.Columns {
			if i := t.Schema.Index(c); i >= 0 && i < len(assigned) && assigned[i] {
				return true
			}
		}
	}
	return false
}
