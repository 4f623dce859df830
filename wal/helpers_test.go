package wal

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// testSchema is the 4-column schema of tests and benchmarks.
var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// makeBatch returns rows rows whose ids start at first.
func makeBatch(first int64, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		id := first + int64(i)
		b.Field(0).(*array.Int64Builder).Append(id)
		if id%7 == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row-%d", id))
		}
		b.Field(2).(*array.Float64Builder).Append(float64(id) * 1.5)
		b.Field(3).(*array.BooleanBuilder).Append(id%2 == 0)
	}
	return b.NewRecordBatch()
}

// firstID is the id of the first row of a test batch.
func firstID(b arrow.RecordBatch) int64 { return b.Column(0).(*array.Int64).Value(0) }

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(discard{}, nil))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// memOpts preallocates 8 KiB at a time: MemFS copies a whole file per
// sync, and a small reservation makes the WAL extend it often.
func memOpts(t testing.TB, fs vfs.FS) Options {
	return Options{Dir: "/wal", FS: fs, Schema: testSchema, Logger: testLogger(t), Preallocate: 8 << 10}
}

func mustOpen(t testing.TB, opts Options, committed func(uuid.UUID) bool) (*WAL, []Record) {
	t.Helper()
	w, recs, err := Open(opts, committed)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return w, recs
}

// appendTx appends a transaction of nb batches of rows rows starting at id.
func appendTx(t testing.TB, w *WAL, tx uuid.UUID, id int64, nb, rows int, d Durability) (uint64, error) {
	bs := make([]arrow.RecordBatch, nb)
	for i := range bs {
		bs[i] = makeBatch(id+int64(i*rows), rows)
	}
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	return w.Append(context.Background(), tx, bs, d)
}

// txSet summarises recovered records: tx id -> first row id; fails on a
// duplicate tx id.
func txSet(t testing.TB, recs []Record) map[uuid.UUID]int64 {
	t.Helper()
	out := map[uuid.UUID]int64{}
	for _, r := range recs {
		if _, dup := out[r.TxID]; dup {
			t.Fatalf("tx %s recovered twice", r.TxID)
		}
		out[r.TxID] = firstID(r.Batches[0])
	}
	return out
}

func releaseAll(recs []Record) {
	for i := range recs {
		recs[i].Release()
	}
}

// ackLog records acknowledged transactions from many goroutines.
type ackLog struct {
	mu  sync.Mutex
	ids map[uuid.UUID]int64
}

func newAckLog() *ackLog { return &ackLog{ids: map[uuid.UUID]int64{}} }

func (a *ackLog) add(tx uuid.UUID, id int64) {
	a.mu.Lock()
	a.ids[tx] = id
	a.mu.Unlock()
}

func (a *ackLog) snapshot() map[uuid.UUID]int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[uuid.UUID]int64, len(a.ids))
	for k, v := range a.ids {
		out[k] = v
	}
	return out
}

func sortedNames(infos []SegmentInfo) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	sort.Strings(out)
	return out
}

func recordsEqual(a, b arrow.RecordBatch) bool {
	if !a.Schema().Equal(b.Schema()) || a.NumRows() != b.NumRows() {
		return false
	}
	for i := range a.Columns() {
		if !array.Equal(a.Column(i), b.Column(i)) {
			return false
		}
	}
	return true
}

// writeForeignStream writes batches as a plain Arrow IPC stream.
func writeForeignStream(t testing.TB, bs []arrow.RecordBatch) []byte {
	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(bs[0].Schema()))
	for _, b := range bs {
		if err := wr.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	wr.Close()
	return buf.Bytes()
}

// noLock is used by negative-control mutations (a lock that is never held).
type noLock struct{}

func (noLock) Close() error { return nil }
