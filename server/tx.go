package server

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/planner"
	"github.com/bsdb/bsdb-pg/txn"
)

// txState is a transaction: an explicit block (BEGIN ... COMMIT) or the
// implicit one PostgreSQL wraps around a multi-statement Query message or
// the messages up to a Sync of the extended protocol.
type txState struct {
	// start is the transaction's start: now() and current_timestamp.
	start    time.Time
	failed   bool
	implicit bool
	writes   []*tableWrites // in first-write order
	// savepoints of the block, innermost last (savepoint.go).
	savepoints []savepoint
	// keys holds the unique keys the transaction inserts (keys.go), nil
	// before its first write to a table with keys.
	keys *planner.KeyOwner
}

// tableWrites are the staged batches of one table in a transaction.
type tableWrites struct {
	t    *planner.Table
	recs []stagedBatch
	// dels: the committed or buffered rows of other transactions that
	// this one deletes (claimed in the table; each statement's set
	// mirrored under its id), in order.
	dels []planner.DeleteSet
	// masks: rows of this transaction's own staged batches it deleted
	// (Bufs with the batches' ids; mirrored like dels), applied at commit.
	masks []planner.DeleteSet
	// truncated: the transaction truncated the table after staging
	// recs[:truncAt], which it no longer sees (savepoint.go).
	truncated bool
	truncAt   int
}

// deletes merges the transaction's delete sets of one table.
func (w *tableWrites) deletes() *txn.Deletes {
	if len(w.dels) == 0 {
		return nil
	}
	d := &txn.Deletes{}
	for _, s := range w.dels {
		d.Merge(s.Del)
	}
	d.Normalize()
	return d
}

// dropDeletes removes the delete sets from dels[from:] and masks[mfrom:]
// from the delete mirror, releasing the claims of the dels when unclaim
// (rolled back; after a commit the table's own record carries them).
func (w *tableWrites) dropDeletes(from, mfrom int, unclaim bool) {
	var ids []uint64
	for _, s := range w.dels[from:] {
		ids = append(ids, s.ID)
		if unclaim {
			w.t.T.Unclaim(s.Del)
		}
	}
	for _, s := range w.masks[mfrom:] {
		ids = append(ids, s.ID)
	}
	if len(ids) > 0 {
		w.t.UnstageDeletes(ids)
	}
	clear(w.dels[from:])
	w.dels = w.dels[:from]
	clear(w.masks[mfrom:])
	w.masks = w.masks[:mfrom]
}

// maskedRecs returns the staged batches with the masked rows removed (the
// batches to commit): a changed batch gets a new id (its rows in the
// mirror are not these), returned in fresh so that the caller releases it.
func (w *tableWrites) maskedRecs(ctx context.Context) (recs []arrow.RecordBatch, ids []uint64, fresh []arrow.RecordBatch, err error) {
	live := w.live()
	drop := map[uint64][]int{}
	for _, m := range w.masks {
		for _, u := range m.Del.Bufs {
			for _, r := range u.Rows {
				drop[u.BatchID] = append(drop[u.BatchID], int(r))
			}
		}
	}
	for _, r := range live {
		rows, ok := drop[r.id]
		if !ok {
			recs, ids = append(recs, r.rec), append(ids, r.id)
			continue
		}
		kept, err := keepRows(r.rec, rows)
		if err != nil {
			releaseAll(fresh)
			return nil, nil, nil, err
		}
		if kept == nil {
			continue
		}
		nid, err := w.t.Stage(ctx, []arrow.RecordBatch{kept})
		if err != nil {
			kept.Release()
			releaseAll(fresh)
			return nil, nil, nil, err
		}
		fresh = append(fresh, kept)
		recs, ids = append(recs, kept), append(ids, nid[0])
	}
	return recs, ids, fresh, nil
}

// stagedBatch is a batch written inside a transaction (mirrored, not yet
// in the WAL).
type stagedBatch struct {
	id  uint64
	rec arrow.RecordBatch
}

func (tx *txState) forTable(t *planner.Table) *tableWrites {
	for _, w := range tx.writes {
		if w.t == t {
			return w
		}
	}
	w := &tableWrites{t: t}
	tx.writes = append(tx.writes, w)
	return w
}

// pendingBatches returns the staged batches of t (read your own writes).
func (tx *txState) pendingBatches(t *planner.Table) []txn.Batch {
	if tx == nil {
		return nil
	}
	for _, w := range tx.writes {
		if w.t == t {
			live := w.live()
			out := make([]txn.Batch, len(live), len(live)+len(w.dels)+len(w.masks))
			for i, r := range live {
				out[i] = txn.Batch{ID: r.id, Rec: r.rec}
			}
			if w.truncated {
				// Its deletes of rows before the TRUNCATE see nothing.
				for _, m := range w.masks {
					out = append(out, txn.Batch{ID: m.ID, Del: m.Del})
				}
				return out
			}
			for i, d := range w.dels {
				if w.t.T.ResolveDeletes(d.Del) {
					// Rows of batches committed since: mirrored anew as
					// rows of their files.
					w.t.UnstageDeletes([]uint64{d.ID})
					d.ID = w.t.AllocDeleteID()
					w.dels[i] = d
				}
				out = append(out, txn.Batch{ID: d.ID, Del: d.Del})
			}
			for _, m := range w.masks {
				out = append(out, txn.Batch{ID: m.ID, Del: m.Del})
			}
			return out
		}
	}
	return nil
}

func (tx *txState) hasWrites() bool { return tx != nil && len(tx.writes) > 0 }

// write makes recs part of the session's transaction, or, outside one, a
// transaction of their own (durable and visible when this returns), and
// returns the batch ids.
func (s *session) write(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch) ([]uint64, error) {
	return s.writeIDs(ctx, t, recs, true)
}

// writeIDs is write; the batch ids are returned only if wantIDs (RETURNING
// reads the rows by them); without, a small autocommit write may be merged
// with concurrent ones (txn.WriteOptions.Merge).
func (s *session) writeIDs(ctx context.Context, t *planner.Table, recs []arrow.RecordBatch, wantIDs bool) ([]uint64, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	if s.tx == nil {
		res, err := t.Write(ctx, recs, s.set.durability(), nil, !wantIDs)
		if err != nil {
			return nil, err
		}
		ids := make([]uint64, len(res.Batches))
		for i, b := range res.Batches {
			ids[i] = b.ID
		}
		return ids, nil
	}
	ids, err := t.Stage(ctx, recs)
	if err != nil {
		return nil, err
	}
	w := s.tx.forTable(t)
	for i, r := range recs {
		r.Retain()
		w.recs = append(w.recs, stagedBatch{id: ids[i], rec: r})
	}
	return ids, nil
}

// commit ends the transaction: its writes become one transaction of the
// storage engine, a WAL transaction in each table it wrote, committed as a
// whole (planner.Engine.Commit): visible to other sessions in every table
// at once, and after a crash replayed in every table or in none.
func (s *session) commit(ctx context.Context) (err error) {
	tx := s.tx
	if tx != nil {
		// Others waiting for the keys it inserted look again.
		defer tx.keys.End()
	}
	s.tx = nil
	s.releaseXactAdvisory()
	defer s.releaseSchemaLocks() // after the commit: an ALTER waits for it
	if tx == nil || len(tx.writes) == 0 {
		return nil
	}
	for _, w := range tx.writes {
		if w.truncated {
			// The rows it deleted are gone with the truncation.
			w.dropDeletes(0, len(w.masks), true)
		}
	}
	if err := s.commitTruncations(ctx, tx); err != nil {
		tx.undoTo(txMark{}) // discard the staged writes
		return err
	}
	parts := make([]planner.WritePart, 0, len(tx.writes))
	var fresh []arrow.RecordBatch
	defer func() { releaseAll(fresh) }()
	for _, w := range tx.writes {
		recs, ids, f, err := w.maskedRecs(ctx)
		fresh = append(fresh, f...)
		if err != nil {
			tx.undoTo(txMark{})
			return err
		}
		del := w.deletes()
		if len(recs) == 0 && del.Empty() {
			continue // only truncated, or all its rows deleted again
		}
		parts = append(parts, planner.WritePart{Table: w.t, Recs: recs, IDs: ids, Deletes: del})
	}
	if len(parts) > 0 {
		err = s.eng.Commit(ctx, parts, s.set.durability())
	}
	committed := map[uint64]bool{} // batch ids now in the tables' buffers
	for _, p := range parts {
		if err != nil {
			p.Table.Unstage(p.IDs)
			continue
		}
		for _, id := range p.IDs {
			committed[id] = true
		}
	}
	for _, w := range tx.writes {
		// The staged batches replaced by masked copies, or all of them
		// if the commit failed, leave the mirror.
		var gone []uint64
		for _, r := range w.recs {
			if !committed[r.id] {
				gone = append(gone, r.id)
			}
			r.rec.Release()
		}
		w.t.Unstage(gone)
		w.recs = nil
		w.dropDeletes(0, 0, err != nil)
	}
	return err
}

// rollback discards the transaction's staged writes.
func (s *session) rollback() {
	tx := s.tx
	s.tx = nil
	s.releaseXactAdvisory()
	defer s.releaseSchemaLocks()
	if tx == nil {
		return
	}
	tx.keys.End()
	for _, w := range tx.writes {
		ids := make([]uint64, len(w.recs))
		for i, r := range w.recs {
			ids[i] = r.id
			r.rec.Release()
		}
		w.t.Unstage(ids)
		w.dropDeletes(0, 0, true)
	}
}

// beginImplicit opens the implicit transaction of a multi-statement query
// or of an extended-protocol batch, unless a transaction is open.
func (s *session) beginImplicit() {
	if s.tx == nil {
		s.tx = &txState{implicit: true, start: s.statementStart()}
	}
}

// endImplicit commits (or, after an error, rolls back) an implicit
// transaction; explicit blocks are left alone.
func (s *session) endImplicit(ctx context.Context) error {
	if s.tx == nil || !s.tx.implicit {
		return nil
	}
	if s.tx.failed {
		s.rollback()
		return nil
	}
	return s.commit(ctx)
}

// Sync implements pgwire.Syncer: the implicit transaction of the extended
// protocol ends at Sync.
func (s *session) Sync(ctx context.Context) error {
	defer func() {
		if s.tx == nil {
			s.releaseSchemaLocks() // a batch outside any transaction
		}
	}()
	if err := s.endImplicit(ctx); err != nil {
		return s.decorate(ctx, err, nil)
	}
	return nil
}
