package parquet_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// allKinds has one nullable column of every kind, ids deliberately not 1..n.
func allKinds() *schema.Schema {
	return &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "b", Kind: schema.KindBool},
		{ID: 2, Name: "i16", Kind: schema.KindInt16},
		{ID: 3, Name: "i32", Kind: schema.KindInt32},
		{ID: 4, Name: "i64", Kind: schema.KindInt64, NotNull: true},
		{ID: 5, Name: "f32", Kind: schema.KindFloat32},
		{ID: 6, Name: "f64", Kind: schema.KindFloat64},
		{ID: 7, Name: "dec", Kind: schema.KindDecimal, Precision: 12, Scale: 2},
		{ID: 8, Name: "s", Kind: schema.KindString},
		{ID: 9, Name: "bin", Kind: schema.KindBinary},
		{ID: 10, Name: "d", Kind: schema.KindDate},
		{ID: 11, Name: "t", Kind: schema.KindTime},
		{ID: 12, Name: "ts", Kind: schema.KindTimestamp},
		{ID: 13, Name: "tstz", Kind: schema.KindTimestampTZ},
		{ID: 14, Name: "iv", Kind: schema.KindInterval},
		{ID: 15, Name: "u", Kind: schema.KindUUID},
		{ID: 17, Name: "j", Kind: schema.KindJSON},
	}}
}

// batch builds n rows; row i is NULL in every nullable column when i%3 == 2.
func batch(sch *schema.Schema, off, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch.Arrow())
	defer b.Release()
	for r := off; r < off+n; r++ {
		null := r%3 == 2
		for c := range sch.Columns {
			fb := b.Field(c)
			if null && !sch.Columns[c].NotNull {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.BooleanBuilder:
				fb.Append(r%2 == 0)
			case *array.Int16Builder:
				fb.Append(int16(r - 100))
			case *array.Int32Builder:
				fb.Append(int32(r * 7))
			case *array.Int64Builder:
				fb.Append(int64(r) << 33)
			case *array.Float32Builder:
				fb.Append(float32(r) / 4)
			case *array.Float64Builder:
				fb.Append(float64(r) * -1.5)
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(int64(r*100 + 5)))
			case *array.StringBuilder:
				fb.Append(fmt.Sprintf("v%05d-é", r))
			case *array.BinaryBuilder:
				fb.Append([]byte{byte(r), 0, 0xff})
			case *array.Date32Builder:
				fb.Append(arrow.Date32(19000 + r))
			case *array.Time64Builder:
				fb.Append(arrow.Time64(int64(r) * 1_000_001))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(1_700_000_000_000_000 + int64(r)))
			case *array.MonthDayNanoIntervalBuilder:
				fb.Append(arrow.MonthDayNanoInterval{Months: int32(r), Days: -int32(r), Nanoseconds: int64(r) * 1000})
			case *extensions.UUIDBuilder:
				fb.Append(uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(r), byte(r >> 8)}))
			default:
				panic(fmt.Sprintf("test builder %T", fb))
			}
		}
	}
	return b.NewRecordBatch()
}

func writeTemp(t testing.TB, sch *schema.Schema, batches []arrow.RecordBatch, opts parquet.WriteOptions) (string, int64) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	df, err := parquet.WriteFile(f, sch, batches, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if df.Bytes != fi.Size() {
		t.Fatalf("DataFile.Bytes = %d, file size %d", df.Bytes, fi.Size())
	}
	return p, df.Rows
}

func TestRoundTripEveryKindWithNulls(t *testing.T) {
	sch := allKinds()
	in := []arrow.RecordBatch{batch(sch, 0, 10), batch(sch, 10, 7)}
	defer func() {
		for _, b := range in {
			b.Release()
		}
	}()
	assertRoundTrip(t, sch, in)
}

// TestRoundTripSmallBatches: runs of small batches (single-row INSERTs)
// are coalesced by WriteFile; every row and value must come back in order,
// around a large batch that is written alone.
func TestRoundTripSmallBatches(t *testing.T) {
	sch := allKinds()
	var in []arrow.RecordBatch
	off := 0
	for _, n := range []int{1, 1, 3, 1, 2000, 1, 2, 1} {
		in = append(in, batch(sch, off, n))
		off += n
	}
	for i := 0; i < 300; i++ {
		in = append(in, batch(sch, off, 1))
		off++
	}
	defer func() {
		for _, b := range in {
			b.Release()
		}
	}()
	assertRoundTrip(t, sch, in)
}

func assertRoundTrip(t *testing.T, sch *schema.Schema, in []arrow.RecordBatch) {
	t.Helper()
	var total int64
	for _, b := range in {
		total += b.NumRows()
	}
	p, rows := writeTemp(t, sch, in, parquet.WriteOptions{})
	if rows != total {
		t.Fatalf("rows = %d, want %d", rows, total)
	}
	out, err := parquet.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	want := array.NewTableFromRecords(sch.Arrow(), in)
	defer want.Release()
	got := array.NewTableFromRecords(out[0].Schema(), out)
	defer got.Release()
	if got.NumRows() != total {
		t.Fatalf("read %d rows, want %d", got.NumRows(), total)
	}
	for c := range sch.Columns {
		wc, gc := want.Column(c), got.Column(c)
		if !arrow.TypeEqual(wc.DataType(), gc.DataType()) {
			t.Errorf("column %s: type %s read back as %s", sch.Columns[c].Name, wc.DataType(), gc.DataType())
			continue
		}
		wa, _ := array.Concatenate(wc.Data().Chunks(), memory.DefaultAllocator)
		ga, _ := array.Concatenate(gc.Data().Chunks(), memory.DefaultAllocator)
		if !array.Equal(wa, ga) {
			t.Errorf("column %s differs:\nwant %v\ngot  %v", sch.Columns[c].Name, wa, ga)
		}
		wa.Release()
		ga.Release()
	}
}

// The Parquet schema carries the Iceberg field ids and the logical types
// other engines rely on.
func TestParquetLogicalTypes(t *testing.T) {
	sch := allKinds()
	b := batch(sch, 0, 3)
	defer b.Release()
	p, _ := writeTemp(t, sch, []arrow.RecordBatch{b}, parquet.WriteOptions{})
	r, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ps := r.MetaData().Schema
	for i, c := range sch.Columns {
		col := ps.Column(i)
		if got := col.SchemaNode().FieldID(); got != int32(c.ID) {
			t.Errorf("%s: field id %d, want %d", c.Name, got, c.ID)
		}
		lt := col.LogicalType()
		switch c.Kind {
		case schema.KindUUID:
			if _, ok := lt.(pqschema.UUIDLogicalType); !ok {
				t.Errorf("uuid: logical type %s", lt)
			}
		case schema.KindTimestampTZ, schema.KindTimestamp:
			ts, ok := lt.(interface {
				IsAdjustedToUTC() bool
				TimeUnit() pqschema.TimeUnitType
			})
			if !ok || ts.IsAdjustedToUTC() != (c.Kind == schema.KindTimestampTZ) || ts.TimeUnit() != pqschema.TimeUnitMicros {
				t.Errorf("%s: logical type %s", c.Name, lt)
			}
		case schema.KindInterval:
			if col.TypeLength() != parquet.IntervalWidth {
				t.Errorf("interval: type length %d", col.TypeLength())
			}
		}
	}
}

func TestStats(t *testing.T) {
	sch := allKinds()
	b := batch(sch, 0, 10) // rows 2, 5, 8 are NULL in nullable columns
	defer b.Release()
	var buf bytes.Buffer
	df, err := parquet.WriteFile(&buf, sch, []arrow.RecordBatch{b}, parquet.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for i, cs := range df.Columns {
		c := sch.Columns[i]
		if cs.ID != c.ID {
			t.Fatalf("stats %d id %d, want %d", i, cs.ID, c.ID)
		}
		wantNulls := int64(3)
		if c.NotNull {
			wantNulls = 0
		}
		if cs.NullCount != wantNulls {
			t.Errorf("%s: null count %d, want %d", c.Name, cs.NullCount, wantNulls)
		}
		byName[c.Name] = fmt.Sprintf("%s..%s", cs.Min, cs.Max)
	}
	want := map[string]string{
		"b":    "false..true",
		"i16":  "-100..-91",
		"i64":  "0..77309411328",
		"f64":  "-13.5..-0",
		"dec":  `"0.05".."9.05"`,
		"s":    `"v00000-é".."v00009-é"`,
		"d":    "19000..19009",
		"tstz": "1700000000000000..1700000000000009",
		"iv":   "..",
	}
	for k, v := range want {
		if byName[k] != v {
			t.Errorf("%s: stats %s, want %s", k, byName[k], v)
		}
	}
	var u string
	if err := json.Unmarshal(df.Columns[14].Min, &u); err != nil || len(u) != 36 {
		t.Errorf("uuid min %s", df.Columns[14].Min)
	}
}

// WriteBuffered with an explicit row-group length: many small batches make
// few row groups (plain Write would make one per batch).
func TestRowGroups(t *testing.T) {
	sch := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "x", Kind: schema.KindInt64, NotNull: true}}}
	var in []arrow.RecordBatch
	for i := 0; i < 30; i++ {
		in = append(in, batch(sch, i*100, 100))
	}
	p, rows := writeTemp(t, sch, in, parquet.WriteOptions{RowGroupRows: 1000})
	if rows != 3000 {
		t.Fatalf("rows %d", rows)
	}
	r, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.NumRowGroups(); n != 3 {
		t.Fatalf("%d row groups, want 3", n)
	}
}

func TestRejectsBadBatches(t *testing.T) {
	sch := allKinds()
	other := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "x", Kind: schema.KindInt32}}}
	b := batch(other, 0, 3)
	defer b.Release()
	if _, err := parquet.WriteFile(&bytes.Buffer{}, sch, []arrow.RecordBatch{b}, parquet.WriteOptions{}); err == nil {
		t.Fatal("wrong column count accepted")
	}
	// NULL in a NOT NULL column.
	nn := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "x", Kind: schema.KindInt32, NotNull: true}}}
	if _, err := parquet.WriteFile(&bytes.Buffer{}, nn, []arrow.RecordBatch{batch(other, 0, 3)}, parquet.WriteOptions{}); err == nil {
		t.Fatal("NULL in a NOT NULL column accepted")
	}
}

func TestIntervalEncoding(t *testing.T) {
	v := arrow.MonthDayNanoInterval{Months: -1, Days: 2, Nanoseconds: -3}
	e := parquet.EncodeInterval(v)
	if e != [16]byte{0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} {
		t.Fatalf("encoding %x", e)
	}
	if back, err := parquet.DecodeInterval(e[:]); err != nil || back != v {
		t.Fatalf("decode %v %v", back, err)
	}
	if _, err := parquet.DecodeInterval(e[:5]); err == nil {
		t.Fatal("short interval accepted")
	}
}

// BenchmarkFlush1M measures writing 1M rows (id int64, name string, ts
// timestamptz, amount decimal) in 1000-row batches, as a flush does.
//
//	go test -run - -bench Flush1M -benchtime 3x ./storage/parquet/
func BenchmarkFlush1M(b *testing.B) {
	sch := &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "id", Kind: schema.KindInt64, NotNull: true},
		{ID: 2, Name: "name", Kind: schema.KindString},
		{ID: 3, Name: "ts", Kind: schema.KindTimestampTZ},
		{ID: 4, Name: "amount", Kind: schema.KindDecimal, Precision: 12, Scale: 2},
	}}
	const rows, per = 1_000_000, 1000
	var in []arrow.RecordBatch
	for i := 0; i < rows/per; i++ {
		in = append(in, batch(sch, i*per, per))
	}
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Create(filepath.Join(dir, "bench.parquet"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := parquet.WriteFile(f, sch, in, parquet.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriteEvents writes 1M rows of the benchmark's events table
// (bench/gen.go) with the writer options a bulk load may choose.
//
//	go test -run - -bench WriteEvents -benchtime 3x ./storage/parquet/
func BenchmarkWriteEvents(b *testing.B) {
	const rows = 1_000_000
	sch := parquet.EventsSchema()
	in := parquet.EventsBatches(rows, 64<<10)
	defer func() {
		for _, r := range in {
			r.Release()
		}
	}()
	for _, c := range []struct {
		name string
		opts parquet.WriteOptions
	}{
		{"zstd", parquet.WriteOptions{}},
		{"zstd-1", parquet.WriteOptions{CompressionLevel: 1}},
		{"snappy", parquet.WriteOptions{Compression: parquet.CompressionSnappy}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			var size int64
			var ru0, ru1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for i := 0; i < b.N; i++ {
				f, err := os.Create(filepath.Join(dir, "bench.parquet"))
				if err != nil {
					b.Fatal(err)
				}
				df, err := parquet.WriteFile(f, sch, in, c.opts)
				if err != nil {
					b.Fatal(err)
				}
				size = df.Bytes
				f.Close()
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			// CPU time, not wall time: the figure that survives a shared machine.
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(size)/(1<<20), "MB")
		})
	}
}
