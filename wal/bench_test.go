package wal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
)

// BenchmarkAppendSync measures DurabilitySync appends of one 100-row batch
// of the 4-column schema on the real disk (b.TempDir; make sure TMPDIR is
// not a tmpfs), with 1, 8 and 64 concurrent writers.
//
//	go test ./wal -run '^$' -bench AppendSync -benchtime 2s
func BenchmarkAppendSync(b *testing.B) {
	for _, c := range []struct {
		writers  int
		prealloc int64
	}{{1, 0}, {1, -1}, {8, 0}, {8, -1}, {64, 0}, {64, -1}} {
		writers := c.writers
		b.Run(fmt.Sprintf("writers=%d/prealloc=%v", writers, c.prealloc >= 0), func(b *testing.B) {
			w, _, err := Open(Options{Dir: b.TempDir(), Schema: testSchema, Preallocate: c.prealloc}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			batch := makeBatch(0, 100)
			defer batch.Release()
			bs := []arrow.RecordBatch{batch}
			var next atomic.Int64
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for g := 0; g < writers; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if _, err := w.Append(context.Background(), uuid.New(), bs, DurabilitySync); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			el := time.Since(start).Seconds()
			b.StopTimer()
			st := w.Stats()
			b.ReportMetric(float64(b.N*100)/el, "rows/s")
			b.ReportMetric(float64(st.Syncs)/el, "syncs/s")
			b.ReportMetric(float64(b.N)/float64(max(st.Syncs, 1)), "appends/sync")
		})
	}
}

// BenchmarkReplay measures recovery of a ~16 MiB segment (read, verify
// checksums, assemble).
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	w, _, err := Open(Options{Dir: dir, Schema: testSchema, UnsafeNoSync: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i%64 != 0 || w.Segments() == nil || w.Segments()[0].Size < 16<<20; i++ {
		if _, err := appendTx(b, w, uuid.New(), int64(i*1000), 1, 1000, DurabilityAsync); err != nil {
			b.Fatal(err)
		}
	}
	seg := w.Segments()[0].Name
	w.Close()
	data, err := os.ReadFile(filepath.Join(dir, seg))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, recs, err := Open(Options{Dir: dir, Schema: testSchema}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(recs) == 0 {
			b.Fatal("nothing replayed")
		}
		releaseAll(recs)
		w.Close()
	}
}
