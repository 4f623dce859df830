package wal

import (
	"bytes"
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden (only from a tree whose WAL format is the reference)")

// goldenSegment is a segment written by the WAL before it had its own
// IPC encoder and pooled checksum (commit 5c01266, arrow-go's ipc.Writer):
// the reference that later writers must reproduce and readers recover.
const goldenSegment = "testdata/golden/log_00000000000000000001_000001_00000001.arrow"

// goldenTxs are the transactions of goldenSegment, deterministic.
func goldenTxs() []encTx {
	rng := rand.New(rand.NewPCG(2024, 1))
	var txs []encTx
	for i := 0; i < 30; i++ {
		var tx encTx
		for k := range tx.id {
			tx.id[k] = byte(rng.Int())
		}
		tx.seq = uint64(i + 1) // a new WAL numbers transactions from 1
		for k := 1 + rng.IntN(2); k > 0; k-- {
			rows := 1
			if rng.IntN(4) == 0 {
				rows = rng.IntN(12)
			}
			tx.batches = append(tx.batches, randomBatch(rng, allTypesSchema, rows, rng.IntN(3)))
		}
		txs = append(txs, tx)
	}
	return txs
}

// writeGoldenTxs appends txs to a new WAL in dir and returns the bytes of
// its one sealed segment.
func writeGoldenTxs(t *testing.T, dir string, txs []encTx) []byte {
	t.Helper()
	w, _, err := Open(Options{Dir: dir, Schema: allTypesSchema, UnsafeNoSync: true, Logger: testLogger(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if _, err := w.Append(context.Background(), tx.id, tx.batches, DurabilityAsync); err != nil {
			t.Fatal(err)
		}
	}
	segs := w.Segments()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 {
		t.Fatalf("%d segments", len(segs))
	}
	data, err := os.ReadFile(filepath.Join(dir, segs[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGoldenSegment: the WAL still writes, byte for byte, the segment
// the reference writer wrote for the same transactions, and recovers
// every row of that segment.
func TestGoldenSegment(t *testing.T) {
	txs := goldenTxs()
	defer func() {
		for _, tx := range txs {
			for _, b := range tx.batches {
				b.Release()
			}
		}
	}()
	got := writeGoldenTxs(t, t.TempDir(), txs)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(goldenSegment), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenSegment, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenSegment)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the WAL wrote %d bytes, the golden segment has %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(goldenSegment)), want, 0o644); err != nil {
		t.Fatal(err)
	}
	checkRecovered(t, dir, txs)
}
