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
}

// tableWrites are the staged batches of one table in a transaction.
type tableWrites struct {
	t    *planner.Table
	recs []stagedBatch
	// truncated: the transaction truncated the table after staging
	// recs[:truncAt], which it no longer sees (savepoint.go).
	truncated bool
	truncAt   int
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
			out := make([]txn.Batch, len(live))
			for i, r := range live {
				out[i] = txn.Batch{ID: r.id, Rec: r.rec}
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
func (s *session) commit(ctx context.Context) error {
	tx := s.tx
	s.tx = nil
	s.releaseXactAdvisory()
	if tx == nil || len(tx.writes) == 0 {
		return nil
	}
	if err := s.commitTruncations(ctx, tx); err != nil {
		tx.undoTo(txMark{}) // discard the staged writes
		return err
	}
	parts := make([]planner.WritePart, 0, len(tx.writes))
	for _, w := range tx.writes {
		if len(w.recs) == 0 {
			continue // only truncated
		}
		p := planner.WritePart{Table: w.t, Recs: make([]arrow.RecordBatch, len(w.recs)), IDs: make([]uint64, len(w.recs))}
		for j, r := range w.recs {
			p.Recs[j], p.IDs[j] = r.rec, r.id
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil
	}
	err := s.eng.Commit(ctx, parts, s.set.durability())
	for _, p := range parts {
		if err != nil {
			p.Table.Unstage(p.IDs)
		}
		releaseAll(p.Recs)
	}
	return err
}

// rollback discards the transaction's staged writes.
func (s *session) rollback() {
	tx := s.tx
	s.tx = nil
	s.releaseXactAdvisory()
	if tx == nil {
		return
	}
	for _, w := range tx.writes {
		ids := make([]uint64, len(w.recs))
		for i, r := range w.recs {
			ids[i] = r.id
			r.rec.Release()
		}
		w.t.Unstage(ids)
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
	if err := s.endImplicit(ctx); err != nil {
		return s.decorate(ctx, err, nil)
	}
	return nil
}
