package planner

import (
	"context"
	"fmt"
	"sync"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/txn"
)

// BindTruncated is Bind (columns true) or BindRows (false) for a
// transaction that truncated the table and has not committed: it sees none
// of the committed rows, only its own batches written since (extra). No
// snapshot is taken (Snap is nil).
func (t *Table) BindTruncated(ctx context.Context, extra []txn.Batch, columns bool) (*Bound, error) {
	return t.bindTruncated(ctx, extra, columns, false)
}

// BindTargetTruncated is BindTarget for such a transaction.
func (t *Table) BindTargetTruncated(ctx context.Context, extra []txn.Batch) (*Bound, error) {
	return t.bindTruncated(ctx, extra, true, true)
}

func (t *Table) bindTruncated(ctx context.Context, extraAll []txn.Batch, columns, target bool) (*Bound, error) {
	extra, ownDels := splitExtra(extraAll)
	t.gc.RLock()
	// An empty snapshot: the transaction's own deletes only.
	empty := &txn.Snapshot{Manifest: &manifest.Manifest{}}
	dv, err := t.ensureDeletes(ctx, empty, ownDels, presentBatches(nil, extra))
	if err == nil && columns {
		err = t.ensureMirrored(ctx, extra)
	}
	if err != nil {
		t.gc.RUnlock()
		return nil, err
	}
	var rows int64
	for _, b := range extra {
		rows += b.Rec.NumRows()
	}
	rows -= dv.bufRows
	b := &Bound{NoColumnsSQL: fmt.Sprintf("(SELECT 1 AS __bsdb_row FROM range(%d))", rows), Snap: empty}
	switch {
	case target:
		b.FromSQL, b.RIDFiles = t.targetRelation(nil, nil, dv, nil, extra)
	case columns:
		b.FromSQL = t.relation("", "", nil, nil, dv, nil, extra)
	default:
		b.Rows, b.RowsKnown = rows, true
	}
	var once sync.Once
	b.release = func() { once.Do(t.gc.RUnlock) }
	return b, nil
}
