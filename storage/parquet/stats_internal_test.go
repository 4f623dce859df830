package parquet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/schema"
)

// TestFoldMatchesPerValue: the slice loops of colStats.update give the
// bounds of the per-value definitions (colStats.int, colStats.float,
// colStats.bytes) on random data with NULLs, NaN, ±0, ±Inf and empty
// strings, over sliced arrays too.
func TestFoldMatchesPerValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1)}
	for round := 0; round < 200; round++ {
		n := 1 + rng.IntN(40)
		fb := array.NewFloat64Builder(memory.DefaultAllocator)
		ib := array.NewInt64Builder(memory.DefaultAllocator)
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			if rng.IntN(5) == 0 {
				sb.AppendNull()
			} else {
				v := make([]byte, rng.IntN(4))
				for k := range v {
					v[k] = "ab\xff"[rng.IntN(3)]
				}
				sb.BinaryBuilder.Append(v)
			}
			switch r := rng.IntN(10); {
			case r < 2:
				fb.AppendNull()
				ib.AppendNull()
			case r < 5:
				fb.Append(specials[rng.IntN(len(specials))])
				ib.Append(int64(rng.IntN(3)) - 1)
			default:
				fb.Append(rng.NormFloat64())
				ib.Append(rng.Int64() - math.MaxInt64/2)
			}
		}
		fa, ia, sa := fb.NewFloat64Array(), ib.NewInt64Array(), sb.NewStringArray()
		off := rng.IntN(n)
		for _, a := range []*array.String{sa, array.NewSlice(sa, int64(off), int64(n)).(*array.String)} {
			got := &colStats{col: &schema.Column{Kind: schema.KindString}}
			if err := got.update(a); err != nil {
				t.Fatal(err)
			}
			want := &colStats{}
			for j := 0; j < a.Len(); j++ {
				if a.IsValid(j) {
					want.bytes([]byte(a.Value(j)))
				}
			}
			if got.has != want.has || string(got.bmin) != string(want.bmin) || string(got.bmax) != string(want.bmax) {
				t.Fatalf("strings %q: got %v %q..%q, want %v %q..%q", a.ValueStr(0), got.has, got.bmin, got.bmax, want.has, want.bmin, want.bmax)
			}
		}
		for _, pair := range [][2]arrow.Array{{fa, ia}, {array.NewSlice(fa, int64(off), int64(n)), array.NewSlice(ia, int64(off), int64(n))}} {
			f, i := pair[0].(*array.Float64), pair[1].(*array.Int64)
			got := &colStats{col: &schema.Column{Kind: schema.KindFloat64}}
			if err := got.update(f); err != nil {
				t.Fatal(err)
			}
			want := &colStats{}
			for j := 0; j < f.Len(); j++ {
				if f.IsValid(j) {
					want.float(f.Value(j))
				}
			}
			same := func(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) }
			if got.has != want.has || want.has && (!same(got.fmin, want.fmin) || !same(got.fmax, want.fmax)) {
				t.Fatalf("floats %v: got %v %v..%v, want %v %v..%v", f, got.has, got.fmin, got.fmax, want.has, want.fmin, want.fmax)
			}
			gi := &colStats{col: &schema.Column{Kind: schema.KindInt64}}
			if err := gi.update(i); err != nil {
				t.Fatal(err)
			}
			wi := &colStats{}
			for j := 0; j < i.Len(); j++ {
				if i.IsValid(j) {
					wi.int(i.Value(j))
				}
			}
			if gi.has != wi.has || gi.imin != wi.imin || gi.imax != wi.imax || gi.nulls != int64(i.NullN()) {
				t.Fatalf("ints %v: got %+v, want %+v", i, gi, wi)
			}
		}
		fa.Release()
		ia.Release()
		sa.Release()
		sb.Release()
		fb.Release()
		ib.Release()
	}
}

// BenchmarkStatsUpdate: the statistics pass of a 64K-row batch of the
// benchmark's events table (ints, a timestamp, a float, two strings).
//
//	go test ./storage/parquet -run '^$' -bench StatsUpdate -count 6
func BenchmarkStatsUpdate(b *testing.B) {
	const rows = 64 << 10
	sch := eventsSchema()
	rec := eventsBatches(rows, rows)[0]
	defer rec.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newStatsSet(sch)
		if err := s.update(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

// eventsSchema is the benchmark harness's events table (bench/gen.go).
func eventsSchema() *schema.Schema {
	return &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "id", Kind: schema.KindInt64},
		{ID: 2, Name: "ts", Kind: schema.KindTimestampTZ},
		{ID: 3, Name: "user_id", Kind: schema.KindInt32},
		{ID: 4, Name: "kind", Kind: schema.KindString},
		{ID: 5, Name: "value", Kind: schema.KindFloat64},
		{ID: 6, Name: "payload", Kind: schema.KindString},
	}}
}

// eventsBatches returns rows rows of eventsSchema in batches of per rows,
// shaped like bench/gen.go's: sequential id and ts, 100,000 user ids,
// 20 kinds, a 40-byte payload window of an 8 KiB string. The caller
// releases them.
func eventsBatches(rows, per int) []arrow.RecordBatch {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	pool := make([]byte, 8192)
	for j := range pool {
		pool[j] = alphabet[(j*2654435761>>7)%len(alphabet)]
	}
	sch := eventsSchema().Arrow()
	var out []arrow.RecordBatch
	for off := 0; off < rows; off += per {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for r := off; r < min(off+per, rows); r++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(r + 1))
			rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1735689600000000 + int64(r)*10000))
			rb.Field(2).(*array.Int32Builder).Append(int32(r*7919%100000 + 1))
			rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("kind_%02d", r%20))
			rb.Field(4).(*array.Float64Builder).Append(float64(r*37%1000000) / 100)
			w := (r * 2654435761) % (len(pool) - 40)
			rb.Field(5).(*array.StringBuilder).BinaryBuilder.Append(pool[w : w+40])
		}
		out = append(out, rb.NewRecordBatch())
		rb.Release()
	}
	return out
}
