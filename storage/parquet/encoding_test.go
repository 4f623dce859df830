package parquet_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// intsBatch: seq counts up from off (NOT NULL), ts steps by 10 ms with
// every 7th row NULL, near climbs with a small jitter (out of order), rnd
// is pseudo-random over the int32 range, d is a date that changes every
// 100 rows.
func intsBatch(sch *schema.Schema, off, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch.Arrow())
	defer b.Release()
	for r := off; r < off+n; r++ {
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		if r%7 == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(r)*10_000))
		}
		b.Field(2).(*array.Int64Builder).Append(int64(r*1000 + (r*7919)%500))
		b.Field(3).(*array.Int32Builder).Append(int32(uint32(r) * 2654435761))
		b.Field(4).(*array.Date32Builder).Append(arrow.Date32(19000 + r/100))
	}
	return b.NewRecordBatch()
}

var intsSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "seq", Kind: schema.KindInt64, NotNull: true},
	{ID: 2, Name: "ts", Kind: schema.KindTimestampTZ},
	{ID: 3, Name: "near", Kind: schema.KindInt64},
	{ID: 4, Name: "rnd", Kind: schema.KindInt32},
	{ID: 5, Name: "d", Kind: schema.KindDate},
}}

// columnEncodings returns each column's encodings in the first row group.
func columnEncodings(t *testing.T, p string) map[string][]pq.Encoding {
	t.Helper()
	r, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rg := r.MetaData().RowGroup(0)
	out := map[string][]pq.Encoding{}
	for i := 0; i < rg.NumColumns(); i++ {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		out[cc.PathInSchema().String()] = cc.Encodings()
	}
	return out
}

// TestDeltaEncoding: integer and temporal columns whose first rows are
// (nearly) in order are written DELTA_BINARY_PACKED, random ones and short
// files PLAIN; either way every value and NULL comes back.
func TestDeltaEncoding(t *testing.T) {
	sch := intsSchema
	in := []arrow.RecordBatch{intsBatch(sch, 0, 3000), intsBatch(sch, 3000, 5000)}
	defer func() {
		for _, b := range in {
			b.Release()
		}
	}()
	has := func(encs []pq.Encoding, e pq.Encoding) bool { return slices.Contains(encs, e) }
	delta := pq.Encodings.DeltaBinaryPacked

	// WriteFile and the streaming Writer choose alike.
	p, _ := writeTemp(t, sch, in, parquet.WriteOptions{RowGroupRows: 4000})
	p2 := filepath.Join(t.TempDir(), "w.parquet")
	f, err := os.Create(p2)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(f, sch, parquet.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range in {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, path := range []string{p, p2} {
		encs := columnEncodings(t, path)
		for _, c := range []string{"seq", "ts", "near", "d"} {
			if !has(encs[c], delta) {
				t.Errorf("%s: column %s encodings %v, want DELTA_BINARY_PACKED", filepath.Base(path), c, encs[c])
			}
		}
		if has(encs["rnd"], delta) {
			t.Errorf("%s: random column encodings %v, want PLAIN", filepath.Base(path), encs["rnd"])
		}
	}
	assertRoundTrip(t, sch, in)

	// A short file gives too small a sample: PLAIN.
	short := intsBatch(sch, 0, 100)
	defer short.Release()
	p3, _ := writeTemp(t, sch, []arrow.RecordBatch{short}, parquet.WriteOptions{})
	if encs := columnEncodings(t, p3); has(encs["seq"], delta) {
		t.Errorf("100-row file: seq encodings %v, want PLAIN", encs["seq"])
	}
	assertRoundTrip(t, sch, []arrow.RecordBatch{short})

	// Turned off (BSDB_PARQUET_DELTA=off): every column PLAIN.
	parquet.SetDeltaEncoding(false)
	defer parquet.SetDeltaEncoding(true)
	p4, _ := writeTemp(t, sch, in, parquet.WriteOptions{RowGroupRows: 4000})
	for c, e := range columnEncodings(t, p4) {
		if has(e, delta) {
			t.Errorf("delta encoding off: column %s encodings %v", c, e)
		}
	}
}

// TestWriterEmpty: a Writer closed without rows still makes a valid file.
func TestWriterEmpty(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(f, intsSchema, parquet.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.EndRowGroup(); err != nil {
		t.Fatal(err)
	}
	df, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(p)
	if df.Rows != 0 || df.Bytes != fi.Size() {
		t.Fatalf("empty file: %+v, size %d", df, fi.Size())
	}
	recs, err := parquet.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 0 {
		t.Fatalf("%d batches from an empty file", len(recs))
	}
}
