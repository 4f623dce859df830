package txn

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/wal"
)

// TestRecoveryDeleteBeforeItsBatch: a delete record names the buffered
// batch it deletes from by (WAL transaction, index). Recovery resolves
// that over every recovered transaction, whatever order the WAL returns
// them in: here the delete record's transaction is logged before the
// batch's, and the deleted row must stay deleted after the restart.
func TestRecoveryDeleteBeforeItsBatch(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tb := e.create()
	batchTx, delTx := uuid.New(), uuid.New()
	d := &Deletes{}
	d.AddBuf(batchTx, 0, 0, 1) // row 1 (id 11) of the batch
	empty := tb.emptyRecord()
	defer empty.Release()
	if _, err := tb.WAL().AppendAux(ctx, delTx, []arrow.RecordBatch{empty}, [][]byte{encodeDeletes(d)}, wal.DurabilitySync); err != nil {
		t.Fatal(err)
	}
	rec := batch(tb, 10, 11, 12)
	defer rec.Release()
	if _, err := tb.WAL().AppendAux(ctx, batchTx, []arrow.RecordBatch{rec}, nil, wal.DurabilitySync); err != nil {
		t.Fatal(err)
	}
	if err := tb.Abandon(); err != nil {
		t.Fatal(err)
	}
	tb2 := e.open()
	s, err := tb2.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Rows(); got != 2 {
		t.Errorf("after recovery: %d rows, want 2 (row 11 deleted)", got)
	}
	s.Release()
	// And once committed: the delete file holds the row.
	if err := tb2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s, err = tb2.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	if got := s.Rows(); got != 2 {
		t.Errorf("after the commit: %d rows, want 2", got)
	}
}
