package server

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/txn"
)

// MERGE.
//
// sql.TranslateMerge makes the statement one query over the target bound
// with row identities (as UPDATE and DELETE, modify.go): a row per target
// row an UPDATE or DELETE clause changes and per row an INSERT clause
// inserts, with the clause and the new row. The rows are applied as
// modifyPlan.apply applies an UPDATE's: deletes of the old versions and
// the new rows in one WAL transaction, or staged in the session's
// transaction. A target row that two source rows would change fails the
// statement with PostgreSQL's 21000.

type mergePlan struct {
	s         *session
	st        *bsql.Statement
	args      []any
	paramOIDs []uint32
}

func (s *session) planMerge(st *bsql.Statement, params []any, paramOIDs []uint32) (plan, error) {
	return &mergePlan{s: s, st: st, args: params, paramOIDs: paramOIDs}, nil
}

func (p *mergePlan) Columns() []pgwire.Column { return nil }

func (p *mergePlan) Close() {}

func (p *mergePlan) execute(ctx context.Context, maxRows int, w pgwire.ResultWriter) (bool, error) {
	if err := p.s.lockForWrite(ctx, p.st.Tree.GetMergeStmt().GetRelation()); err != nil { // schemalock.go
		return false, err
	}
	res, err := p.run(ctx)
	if err != nil {
		return false, err
	}
	res.release()
	return false, w.Complete(fmt.Sprintf("MERGE %d", res.count))
}

// errMergeTwice is PostgreSQL's error for a target row joined to several
// source rows that change it.
func errMergeTwice() error {
	return pgerr.New(pgerr.CardinalityViolation, "MERGE command cannot affect row a second time").
		WithHint("Ensure that not more than one source row matches any one target row.")
}

// run translates and runs the statement once.
func (p *mergePlan) run(ctx context.Context) (*modifyResult, error) {
	s := p.s
	b := &binder{s: s, ctx: ctx}
	m, err := bsql.TranslateMerge(p.st, b, p.paramOIDs, false)
	if err != nil {
		b.release()
		return nil, err
	}
	t, bd := b.target, b.targetBound
	res := &modifyResult{t: t}
	own := map[uint64]bool{}
	if s.tx != nil {
		for _, sb := range s.tx.pendingBatches(t) {
			if sb.Del == nil {
				own[sb.ID] = true
			}
		}
	}
	fileDel := &txn.Deletes{}
	ownDel := map[uint64][]int{}
	buffered := map[uint64]txn.Batch{} // the snapshot's buffered batches
	for _, sb := range bd.Snap.Batches {
		buffered[sb.ID] = sb
	}
	info := tableInfo(t)
	var bb *batchBuilder
	if m.Values {
		bb = newBatchBuilder(t.Schema, t.T.ArrowSchema(), 0)
	}
	s.detachStream(ctx)
	rows, err := s.conn.QueryContext(ctx, m.Source.SQL, p.args...)
	if err != nil {
		b.release()
		if bb != nil {
			bb.abort()
		}
		return nil, err
	}
	ncols := 3
	if m.Values {
		ncols += len(info.Columns)
	}
	vals := make([]any, ncols)
	ptrs := make([]any, ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	conv := make([]any, len(info.Columns))
	changed := map[[2]int64]bool{}
	// New rows are checked against the table's unique keys, with the keys
	// of the rows its UPDATEs replace gone (their identities: ridF, ridP).
	var keys *keyOptions
	if m.Values && t.HasKeys() {
		keys = &keyOptions{}
	}
	var ridF, ridP []int64
	scanErr := func() error {
		defer rows.Close()
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			var clause int64
			switch c := vals[0].(type) {
			case int32:
				clause = int64(c)
			case int64:
				clause = c
			}
			if clause < 1 || int(clause) > len(m.Actions) {
				return fmt.Errorf("BUG: merge: clause %v", vals[0])
			}
			action := m.Actions[clause-1]
			if action == bsql.MergeUpdate || action == bsql.MergeDelete {
				f, ok1 := vals[1].(int64)
				pos, ok2 := vals[2].(int64)
				if !ok1 || !ok2 {
					return fmt.Errorf("BUG: merge: row identity %T/%T", vals[1], vals[2])
				}
				id := [2]int64{f, pos}
				if changed[id] {
					return errMergeTwice()
				}
				changed[id] = true
				if keys != nil && action == bsql.MergeUpdate {
					ridF, ridP = append(ridF, f), append(ridP, pos)
				}
				switch {
				case f >= 0:
					if int(f) >= len(bd.RIDFiles) {
						return fmt.Errorf("BUG: merge: file index %d of %d", f, len(bd.RIDFiles))
					}
					fileDel.Add(bd.RIDFiles[f], pos)
				case own[uint64(-f)]:
					ownDel[uint64(-f)] = append(ownDel[uint64(-f)], int(pos))
				default:
					sb, ok := buffered[uint64(-f)]
					if !ok {
						return fmt.Errorf("BUG: merge: row of batch %d, which the snapshot does not hold", -f)
					}
					fileDel.AddBuf(sb.TxID, sb.Ord, sb.ID, pos)
				}
			}
			res.count++
			if action == bsql.MergeDelete {
				continue
			}
			if err := appendDuckRow(bb, info, vals[3:], conv); err != nil {
				return err
			}
		}
		return rows.Err()
	}()
	if scanErr == nil && keys != nil && len(ridF) > 0 {
		keys.old, scanErr = t.RowsByID(ctx, bd, ridF, ridP)
	}
	b.release()
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
	if res.count == 0 {
		return res, nil
	}
	fileDel.Normalize()
	mp := &modifyPlan{s: s}
	if err := mp.apply(ctx, res, fileDel, ownDel, recs, keys); err != nil {
		res.release()
		return nil, err
	}
	return res, nil
}

// LookupMergeTarget implements bsql.MergeCatalog.
func (b *binder) LookupMergeTarget(schemaName, name string, insert, update, delete bool) (*bsql.TableInfo, error) {
	want := acl.Select
	if insert {
		want |= acl.Insert
	}
	if update {
		want |= acl.Update
	}
	if delete {
		want |= acl.Delete
	}
	// PostgreSQL's transformMergeStmt: no position.
	notTable := pgerr.New(pgerr.FeatureNotSupported, "cannot execute MERGE on relation \"%s\"", name)
	notTable.NoPosition = true
	if b.s.isView(b.ctx, schemaName, name) {
		return nil, notTable.WithDetail("This operation is not supported for views.")
	}
	return b.lookupTarget(schemaName, name, want, func(seq bool) error {
		e := notTable
		if seq {
			return e.WithDetail("This operation is not supported for sequences.")
		}
		return e
	})
}

// CurrentDatabase implements bsql.DatabaseNamer.
func (b *binder) CurrentDatabase() string { return b.s.db }
