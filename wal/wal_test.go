package wal

import (
	"testing"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

func TestRoundTrip(t *testing.T) {
	fs := vfs.NewMem()
	w, recs := mustOpen(t, memOpts(t, fs), nil)
	if len(recs) != 0 {
		t.Fatalf("fresh WAL recovered %d records", len(recs))
	}
	var txs []uuid.UUID
	for i := 0; i < 5; i++ {
		tx := uuid.New()
		seq, err := appendTx(t, w, tx, int64(i*1000), 3, 10, DurabilitySync)
		if err != nil {
			t.Fatal(err)
		}
		if seq != uint64(i+1) {
			t.Fatalf("seq %d, want %d", seq, i+1)
		}
		txs = append(txs, tx)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, recs := mustOpen(t, memOpts(t, fs), nil)
	defer w2.Close()
	defer releaseAll(recs)
	if len(recs) != 5 {
		t.Fatalf("recovered %d records, want 5", len(recs))
	}
	for i, r := range recs {
		if r.TxID != txs[i] || r.Seq != uint64(i+1) || len(r.Batches) != 3 {
			t.Fatalf("record %d: tx %s seq %d batches %d", i, r.TxID, r.Seq, len(r.Batches))
		}
		if got := firstID(r.Batches[2]); got != int64(i*1000+20) {
			t.Fatalf("record %d batch 2 first id %d", i, got)
		}
		if md := r.Batches[0].Schema().Metadata(); md.Len() != 0 {
			t.Fatalf("WAL metadata leaked into the schema: %v", md)
		}
		if !r.Batches[0].Schema().Equal(testSchema) {
			t.Fatalf("schema %s", r.Batches[0].Schema())
		}
	}
	// Sequence numbers continue after recovery.
	seq, err := appendTx(t, w2, uuid.New(), 0, 1, 1, DurabilitySync)
	if err != nil || seq != 6 {
		t.Fatalf("seq after reopen %d, %v", seq, err)
	}
}
