package wal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
)

// BenchmarkAppendSmall measures the CPU of appending one small batch (the
// WAL transaction of a single-row INSERT, or of a merged group) without
// the fdatasync: checksum, Arrow IPC encoding, write(2).
//
//	go test ./wal -run '^$' -bench AppendSmall -benchmem
func BenchmarkAppendSmall(b *testing.B) {
	for _, rows := range []int{1, 64} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			w, _, err := Open(Options{Dir: b.TempDir(), Schema: eventsSchema, UnsafeNoSync: true}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			batch := makeEvents(rand.New(rand.NewPCG(1, 2)), 0, rows)
			defer batch.Release()
			bs := []arrow.RecordBatch{batch}
			tx := uuid.New()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Append(ctx, tx, bs, DurabilityAsync); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
