package planner

import (
	"context"
	"fmt"
	"sync"

	"github.com/bsdb/bsdb-pg/txn"
)

// BindTruncated is Bind (columns true) or BindRows (false) for a
// transaction that truncated the table and has not committed: it sees none
// of the committed rows, only its own batches written since (extra). No
// snapshot is taken (Snap is nil).
func (t *Table) BindTruncated(ctx context.Context, extra []txn.Batch, columns bool) (*Bound, error) {
	t.gc.RLock()
	if columns {
		if err := t.ensureMirrored(ctx, extra); err != nil {
			t.gc.RUnlock()
			return nil, err
		}
	}
	var rows int64
	for _, b := range extra {
		rows += b.Rec.NumRows()
	}
	b := &Bound{NoColumnsSQL: fmt.Sprintf("(SELECT 1 AS __bsdb_row FROM range(%d))", rows)}
	if columns {
		b.FromSQL = t.relation("", "", nil, extra)
	} else {
		b.Rows, b.RowsKnown = rows, true
	}
	var once sync.Once
	b.release = func() { once.Do(t.gc.RUnlock) }
	return b, nil
}
