package wal

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// eventsSchema is the bench harness's events table as the table layer maps
// it to Arrow (bigint, timestamptz, int, text, double precision, text).
var eventsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "user_id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var eventKinds = []string{"click", "view", "purchase", "signup", "login", "logout", "search", "share",
	"like", "comment", "follow", "unfollow", "upload", "download", "play", "pause", "error", "refund", "cart", "checkout"}

// makeEvents returns rows events rows whose ids start at first.
func makeEvents(rng *rand.Rand, first int64, rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, eventsSchema)
	defer b.Release()
	payload := make([]byte, 40)
	for i := 0; i < rows; i++ {
		id := first + int64(i)
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + id*1000))
		b.Field(2).(*array.Int32Builder).Append(rng.Int32N(100_000))
		b.Field(3).(*array.StringBuilder).Append(eventKinds[rng.IntN(len(eventKinds))])
		b.Field(4).(*array.Float64Builder).Append(rng.Float64() * 1000)
		for j := range payload {
			payload[j] = 'a' + byte(rng.IntN(26))
		}
		b.Field(5).(*array.StringBuilder).Append(string(payload))
	}
	return b.NewRecordBatch()
}

// writeEventsWAL fills dir with about size bytes of WAL: one transaction
// per batch of rows rows (a COPY chunk, or a single-row INSERT), rotating
// every segBytes (0: one segment).
func writeEventsWAL(tb testing.TB, dir string, size int64, rows int, segBytes int64) {
	tb.Helper()
	w, _, err := Open(Options{Dir: dir, Schema: eventsSchema, UnsafeNoSync: true}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	// Reuse a few distinct batches: generating 256 MiB of rows dominates
	// the setup otherwise, and the decoder does not care.
	var pool []arrow.RecordBatch
	for i := 0; i < 8; i++ {
		pool = append(pool, makeEvents(rng, int64(i*rows), rows))
	}
	defer func() {
		for _, b := range pool {
			b.Release()
		}
	}()
	var total, segStart int64
	for i := 0; total < size; i++ {
		if _, err := w.Append(context.Background(), uuid.New(), pool[i%len(pool):i%len(pool)+1], DurabilityAsync); err != nil {
			tb.Fatal(err)
		}
		if i%4096 == 0 || rows > 1 {
			total = 0
			for _, s := range w.Segments() {
				total += s.Size
			}
		}
		if segBytes > 0 && total-segStart >= segBytes {
			if err := w.Rotate(); err != nil {
				tb.Fatal(err)
			}
			segStart = total
		}
	}
}

// BenchmarkRecover measures Open over about 256 MiB of unflushed WAL of
// the events schema (read, frame scan, flatbuffer verification, decode,
// checksum, assemble), in 64k-row COPY batches and in the 1-row batches
// single-row INSERTs produce, in one segment or in 32 MiB segments. The
// files are in the page cache: this is the CPU cost of replay.
//
//	go test ./wal -run '^$' -bench Recover -benchtime 5x
func BenchmarkRecover(b *testing.B) {
	for _, c := range []struct {
		name     string
		rows     int
		size     int64
		segBytes int64
	}{
		{"rows=65536/segs=1", 65536, 256 << 20, 0},
		{"rows=65536/segs=32MiB", 65536, 256 << 20, 32 << 20},
		{"rows=1/segs=1", 1, 64 << 20, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			writeEventsWAL(b, dir, c.size, c.rows, c.segBytes)
			var bytes int64
			names, _ := os.ReadDir(dir)
			for _, n := range names {
				if isSegment(n.Name()) {
					fi, err := os.Stat(filepath.Join(dir, n.Name()))
					if err != nil {
						b.Fatal(err)
					}
					bytes += fi.Size()
				}
			}
			b.SetBytes(bytes)
			cpu0 := cpuTime()
			b.ResetTimer()
			var rows int64
			for i := 0; i < b.N; i++ {
				w, recs, err := Open(Options{Dir: dir, Schema: eventsSchema, UnsafeNoSync: true}, nil)
				if err != nil {
					b.Fatal(err)
				}
				rows = 0
				for _, r := range recs {
					for _, rb := range r.Batches {
						rows += rb.NumRows()
					}
				}
				releaseAll(recs)
				w.Close()
			}
			b.StopTimer()
			// CPU seconds (user+sys, every thread) per op: less sensitive
			// than ns/op to other load on a shared machine.
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
			if rows == 0 {
				b.Fatal("nothing replayed")
			}
			b.ReportMetric(float64(rows), "rows")
			b.ReportMetric(float64(bytes)/(1<<20), "MiB")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestEventsWALRoundTrip(t *testing.T) {
	// The benchmark's data recovers intact (so the benchmark measures real work).
	dir := t.TempDir()
	writeEventsWAL(t, dir, 1<<20, 1000, 256<<10)
	_, recs := mustOpen(t, Options{Dir: dir, Schema: eventsSchema, UnsafeNoSync: true}, nil)
	defer releaseAll(recs)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []arrow.RecordBatch
	for i := 0; i < 8; i++ {
		want = append(want, makeEvents(rng, int64(i*1000), 1000))
	}
	defer func() {
		for _, b := range want {
			b.Release()
		}
	}()
	if len(recs) < 12 {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		if len(r.Batches) != 1 || !recordsEqual(r.Batches[0], want[i%8]) {
			t.Fatalf("record %d differs", i)
		}
	}
}
