package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
)

// BenchmarkMirror copies 1M rows of the benchmark's events table into a
// table's DuckDB mirror (what the first query after a restart does with the
// recovered buffer), in batches of 64K rows and of BatchRows. Per op: one
// mirroring of the 1M rows (then deleted, outside the timer).
func BenchmarkMirror(b *testing.B) {
	ctx := context.Background()
	e, err := Open(ctx, Config{DataDir: b.TempDir(), FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	id := catalog.TableID{Database: "postgres", Schema: "public", Name: "events"}
	sch := &schema.Schema{Columns: []schema.Column{
		{Name: "id", Kind: schema.KindInt64}, {Name: "ts", Kind: schema.KindTimestampTZ},
		{Name: "user_id", Kind: schema.KindInt32}, {Name: "kind", Kind: schema.KindString},
		{Name: "value", Kind: schema.KindFloat64}, {Name: "payload", Kind: schema.KindString},
	}}
	if _, err := e.CreateTable(ctx, id, sch, false); err != nil {
		b.Fatal(err)
	}
	t, err := e.Table(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	const rows = 1 << 20
	for _, size := range []int{64 << 10, BatchRows} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			var recs []arrow.RecordBatch
			for start := 0; start < rows; start += size {
				recs = append(recs, eventsBatch(sch.Arrow(), start, min(size, rows-start)))
			}
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			next := uint64(1)
			for b.Loop() {
				bs := make([]txn.Batch, len(recs))
				ids := make([]uint64, len(recs))
				for i, r := range recs {
					bs[i] = txn.Batch{ID: next, Rec: r}
					ids[i] = next
					next++
				}
				if err := t.ensureMirrored(ctx, bs); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := e.db.ExecContext(ctx, "DELETE FROM "+t.mirror); err != nil {
					b.Fatal(err)
				}
				t.mirMu.Lock()
				for _, id := range ids {
					delete(t.mirrored, id)
				}
				t.mirMu.Unlock()
				b.StartTimer()
			}
		})
	}
}

// eventsBatch is n rows of events-like data starting at row start.
func eventsBatch(sch *arrow.Schema, start, n int) arrow.RecordBatch {
	kinds := []string{"click", "view", "purchase", "login", "logout", "search", "share", "like", "comment", "follow"}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer rb.Release()
	for i := start; i < start+n; i++ {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*1000))
		rb.Field(2).(*array.Int32Builder).Append(int32(i * 7919 % 100_000))
		rb.Field(3).(*array.StringBuilder).Append(kinds[i%len(kinds)])
		rb.Field(4).(*array.Float64Builder).Append(float64(i%1000) / 7)
		rb.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("payload %032d", i))
	}
	return rb.NewRecordBatch()
}
