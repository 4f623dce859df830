package server

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/planner"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/txn"
)

// Savepoints and transactional TRUNCATE, as PostgreSQL runs them
// (src/backend/access/transam/xact.c DefineSavepoint, ReleaseSavepoint,
// RollbackToSavepoint).
//
// A savepoint is a mark of the transaction's changes (txState.mark): per
// table written, how many staged batches it had and whether it was
// truncated. ROLLBACK TO undoes everything after the mark (undoTo: the
// later batches are unstaged from the mirror and released, a later
// TRUNCATE is forgotten), destroys the savepoints defined after it, keeps
// it, and leaves the block usable even if it had failed. RELEASE destroys
// the savepoint and every later one and keeps the changes. Names may
// repeat: the innermost savepoint of a name wins.
//
// Besides the writes, ROLLBACK TO closes the cursors declared after the
// savepoint (PostgreSQL drops the portals of an aborted subtransaction)
// and releases the transaction-level advisory locks taken after it
// (session-level ones stay, as in PostgreSQL). Not undone, as in
// PostgreSQL: sequence values (nextval), prepared statements, and cursor
// positions. Settings are not undone either: the session keeps no
// transactional GUC state (SET LOCAL acts as SET, and ROLLBACK does not
// undo a SET), so ROLLBACK TO matches ROLLBACK there.
//
// Savepoints exist only in an explicit block: in an implicit transaction
// (a multi-statement Query, the extended protocol up to Sync) or outside
// any, PostgreSQL raises 25P01 "... can only be used in transaction
// blocks", and so do we.
//
// TRUNCATE in a transaction (explicit or implicit) is deferred to the
// commit: txState records it (tableWrites.truncated), reads of the table
// in the transaction see only the batches it wrote after the TRUNCATE
// (planner.Table.BindTruncated), other sessions see the old rows, and
// ROLLBACK or ROLLBACK TO a savepoint before it forgets it. COMMIT
// commits each truncated table with the rows written to it after the
// TRUNCATE in one manifest version, then the writes to other tables (see
// commitTruncations).

// savepoint is one SAVEPOINT of the block.
type savepoint struct {
	name    string
	mark    txMark
	cursors map[*cursor]bool   // the block's cursors when it was defined
	xactAdv map[advKey]advHold // the transaction-level advisory holds then
}

// txMark is the state of a transaction's changes at one point (mark), to
// which undoTo returns. State added to tableWrites (deleted rows, ...)
// belongs in tableMark.
type txMark struct {
	tables []tableMark // one per entry of txState.writes then, in order
}

type tableMark struct {
	recs      int // staged batches
	dels      int // delete sets of others' rows (claimed)
	masks     int // delete sets of own rows
	truncated bool
	truncAt   int
}

// mark returns the transaction's current state for undoTo.
func (tx *txState) mark() txMark {
	m := txMark{tables: make([]tableMark, len(tx.writes))}
	for i, w := range tx.writes {
		m.tables[i] = tableMark{recs: len(w.recs), dels: len(w.dels), masks: len(w.masks), truncated: w.truncated, truncAt: w.truncAt}
	}
	return m
}

// undoTo undoes the changes made after m: batches staged later are
// removed from the mirror and released, tables first written later are
// forgotten, truncations made later are dropped.
func (tx *txState) undoTo(m txMark) {
	for i, w := range tx.writes {
		keep, dels, masks := 0, 0, 0
		if i < len(m.tables) {
			tm := m.tables[i]
			keep, w.truncated, w.truncAt = tm.recs, tm.truncated, tm.truncAt
			dels, masks = tm.dels, tm.masks
		}
		// Deletes made later: their rows are released and shown again.
		w.dropDeletes(dels, masks, true)
		if len(w.recs) > keep {
			dropped := w.recs[keep:]
			ids := make([]uint64, len(dropped))
			for j, r := range dropped {
				ids[j] = r.id
				r.rec.Release()
			}
			w.t.Unstage(ids)
			clear(dropped)
			w.recs = w.recs[:keep]
		}
	}
	if len(tx.writes) > len(m.tables) {
		clear(tx.writes[len(m.tables):])
		tx.writes = tx.writes[:len(m.tables)]
	}
}

// live returns the batches of w that the transaction's reads and its
// commit see: those staged after its last TRUNCATE of the table.
func (w *tableWrites) live() []stagedBatch { return w.recs[w.truncAt:] }

// truncate records a TRUNCATE of t in the transaction: the batches staged
// so far are hidden (kept for a ROLLBACK TO), the committed rows are
// deleted at commit.
func (tx *txState) truncate(t *planner.Table) {
	w := tx.forTable(t)
	w.truncated, w.truncAt = true, len(w.recs)
}

// truncated reports whether the transaction truncated t.
func (tx *txState) truncated(t *planner.Table) bool {
	if tx == nil {
		return false
	}
	for _, w := range tx.writes {
		if w.t == t {
			return w.truncated
		}
	}
	return false
}

// commitTruncations performs the transaction's truncations, before its
// other writes are committed (commit). A truncated table's rows written
// after its TRUNCATE are committed with the truncation, in one manifest
// version (txn.Table.TruncateWith: data files, then the manifest without
// the old ones): a reader sees the old rows or the new ones, and a crash
// leaves one or the other. Across tables it is not one transaction: each
// truncated table commits alone, then the writes to the tables not
// truncated commit together (planner.Engine.Commit); a failure or a crash
// in between leaves the earlier ones committed, and the COMMIT reports
// the error. A temporary table (in memory, never flushed to files) is
// truncated and its rows go with the other writes. The batches committed
// or hidden here are unstaged and released.
func (s *session) commitTruncations(ctx context.Context, tx *txState) error {
	for _, w := range tx.writes {
		if !w.truncated {
			continue
		}
		n := len(w.recs) // all of them leave w if the table gets its rows here
		if w.t.IsTemp() {
			// A temporary table: the rows are committed with the others.
			if err := w.t.T.Truncate(ctx); err != nil {
				return err
			}
			n = w.truncAt
		} else {
			// Its rows written since, without those it deleted again.
			recs, _, fresh, err := w.maskedRecs(ctx)
			if err == nil {
				err = w.t.T.TruncateWith(ctx, recs)
			}
			releaseAll(fresh)
			if err != nil {
				return err
			}
		}
		done := w.recs[:n]
		ids := make([]uint64, len(done))
		for i, r := range done {
			ids[i] = r.id
			r.rec.Release()
		}
		w.t.Unstage(ids)
		w.recs = w.recs[n:]
		w.truncated, w.truncAt = false, 0
	}
	return nil
}

// bindTable returns how the binder binds a table for the session:
// planner.Table.Bind (columns) or BindRows, or, if the transaction
// truncated the table, BindTruncated (its own rows written since only).
func (s *session) bindTable(columns bool) func(*planner.Table, context.Context, []txn.Batch) (*planner.Bound, error) {
	return func(t *planner.Table, ctx context.Context, extra []txn.Batch) (*planner.Bound, error) {
		switch {
		case s.tx.truncated(t):
			return t.BindTruncated(ctx, extra, columns)
		case columns:
			return t.Bind(ctx, extra)
		}
		return t.BindRows(ctx, extra)
	}
}

// truncateTables runs TRUNCATE: in a transaction, recorded until its end;
// outside one, at once.
func (s *session) truncateTables(ctx context.Context, ts *pg_query.TruncateStmt) error {
	var tables []*planner.Table
	for _, r := range ts.Relations {
		rv := r.GetRangeVar()
		if rv == nil {
			continue
		}
		t, err := s.accessTable(ctx, rv.Schemaname, rv.Relname, acl.Truncate)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	for _, t := range tables {
		if s.tx != nil {
			s.tx.truncate(t)
			continue
		}
		if err := t.T.Truncate(ctx); err != nil {
			return err
		}
	}
	return nil
}

// isRollbackTo reports whether st is ROLLBACK TO [SAVEPOINT]: the one
// statement besides ROLLBACK and COMMIT that a failed block accepts.
func isRollbackTo(st *bsql.Statement) bool {
	ts := st.Tree.GetTransactionStmt()
	return ts != nil && ts.Kind == pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO
}

// planSavepoint plans SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO
// [SAVEPOINT].
func (s *session) planSavepoint(st *bsql.Statement) (plan, error) {
	ts := st.Tree.GetTransactionStmt()
	if ts == nil {
		return nil, st.Unsupported()
	}
	name := ts.SavepointName
	switch ts.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return tagOnly("SAVEPOINT", func(ctx context.Context) error {
			if err := s.requireBlock("SAVEPOINT"); err != nil {
				return err
			}
			sp := savepoint{name: name, mark: s.tx.mark(), cursors: map[*cursor]bool{}, xactAdv: advisory.xactHolds(s)}
			for _, c := range s.cursors {
				if c.tx == s.tx {
					sp.cursors[c] = true
				}
			}
			s.tx.savepoints = append(s.tx.savepoints, sp)
			return nil
		}), nil
	case pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:
		return tagOnly("RELEASE", func(ctx context.Context) error {
			if err := s.requireBlock("RELEASE SAVEPOINT"); err != nil {
				return err
			}
			i, err := s.findSavepoint(name)
			if err != nil {
				return err
			}
			clear(s.tx.savepoints[i:])
			s.tx.savepoints = s.tx.savepoints[:i]
			return nil
		}), nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return tagOnly("ROLLBACK", func(ctx context.Context) error {
			if err := s.requireBlock("ROLLBACK TO SAVEPOINT"); err != nil {
				return err
			}
			i, err := s.findSavepoint(name)
			if err != nil {
				return err
			}
			sp := s.tx.savepoints[i]
			clear(s.tx.savepoints[i+1:])
			s.tx.savepoints = s.tx.savepoints[:i+1]
			s.tx.undoTo(sp.mark)
			for _, cname := range s.cursorNames() {
				c := s.cursors[cname]
				if c.tx == s.tx && !sp.cursors[c] {
					c.close()
					delete(s.cursors, cname)
				}
			}
			advisory.restoreXactHolds(s, sp.xactAdv)
			s.tx.failed = false
			return nil
		}), nil
	}
	return nil, st.Unsupported()
}

// requireBlock is PostgreSQL's RequireTransactionBlock for the savepoint
// statements: an implicit transaction does not count (DefineSavepoint).
func (s *session) requireBlock(what string) error {
	if s.tx == nil || s.tx.implicit {
		return pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", what)
	}
	return nil
}

// findSavepoint returns the index of the innermost savepoint named name.
func (s *session) findSavepoint(name string) (int, error) {
	for i := len(s.tx.savepoints) - 1; i >= 0; i-- {
		if s.tx.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, pgerr.New("3B001", "savepoint \"%s\" does not exist", name)
}

// xactHolds returns the transaction-level advisory lock holds of s.
func (t *advisoryTable) xactHolds(s *session) map[advKey]advHold {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[advKey]advHold{}
	for k, l := range t.locks {
		if h := l.holders[s]; h != nil && h[1] != (advHold{}) {
			out[k] = h[1]
		}
	}
	return out
}

// restoreXactHolds sets the transaction-level holds of s back to hs
// (taken by xactHolds; they can only have grown since: transaction-level
// locks are not unlocked one by one).
func (t *advisoryTable) restoreXactHolds(s *session, hs map[advKey]advHold) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, l := range t.locks {
		if h := l.holders[s]; h != nil && h[1] != hs[k] {
			h[1] = hs[k]
			t.tidy(k, l, s)
		}
	}
}
