package parquet_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// stringsSchema: string columns as the dictionary builder (dict.go) meets
// them. s repeats 25 values (non-ASCII among them) with NULLs and empty
// strings; u is distinct on every row and long, so that its dictionary
// passes the 1 MiB dictionary page limit within a row group (the PLAIN
// fallback); b is NOT NULL binary with empty values; j is all NULL.
var stringsSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "n", Kind: schema.KindInt64, NotNull: true},
	{ID: 2, Name: "s", Kind: schema.KindString},
	{ID: 3, Name: "u", Kind: schema.KindString},
	{ID: 4, Name: "b", Kind: schema.KindBinary, NotNull: true},
	{ID: 5, Name: "j", Kind: schema.KindJSON},
}}

// stringsRow is row r of stringsSchema; nil is NULL.
func stringsRow(r int) (s, u, b, j []byte) {
	words := []string{"naïve", "日本語", "emoji🙂", "plain", "Zürich"}
	switch r % 11 {
	case 3:
	case 5:
		s = []byte{}
	default:
		s = fmt.Appendf(nil, "%s-%d", words[r%5], (r/5)%5)
	}
	if r%13 != 0 {
		u = fmt.Appendf(nil, "%06d-%s", r, strings.Repeat("é", 150))
	}
	b = bytes.Repeat([]byte{byte(r % 3), 0xff}, r%4)
	return s, u, b, nil
}

func stringsBatch(off, n int) arrow.RecordBatch {
	rb := array.NewRecordBuilder(memory.DefaultAllocator, stringsSchema.Arrow())
	defer rb.Release()
	for r := off; r < off+n; r++ {
		rb.Field(0).(*array.Int64Builder).Append(int64(r))
		s, u, b, j := stringsRow(r)
		for c, v := range [][]byte{s, u, b, j} {
			switch fb := rb.Field(c + 1).(type) {
			case *array.StringBuilder:
				if v == nil {
					fb.AppendNull()
				} else {
					fb.Append(string(v))
				}
			case *array.BinaryBuilder:
				fb.Append(v)
			}
		}
	}
	return rb.NewRecordBatch()
}

// TestStringDictionaries: string columns written through the row group's
// dictionary (dict.go) read back identically with our reader and DuckDB,
// as plain utf8/binary columns, with the statistics of their values and
// the PLAIN fallback once a dictionary passes the page size limit. The
// batches cross row group boundaries (WriteFile) and a row group is ended
// early (Writer.EndRowGroup).
func TestStringDictionaries(t *testing.T) {
	const rgRows = 5000
	sizes := []int{3000, 3000, 1, 2999, 4000, 1000}
	var in []arrow.RecordBatch
	total := 0
	for _, n := range sizes {
		in = append(in, stringsBatch(total, n))
		total += n
	}
	defer func() {
		for _, b := range in {
			b.Release()
		}
	}()

	p1, _ := writeTemp(t, stringsSchema, in, parquet.WriteOptions{RowGroupRows: rgRows})
	checkStringsFile(t, p1, total, []int{5000, 5000, 4000})

	// Streaming, a row group ended after the first batch.
	p2 := filepath.Join(t.TempDir(), "w.parquet")
	f, err := os.Create(p2)
	if err != nil {
		t.Fatal(err)
	}
	w, err := parquet.NewWriter(f, stringsSchema, parquet.WriteOptions{RowGroupRows: rgRows})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range in {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if got := w.BufferedRows(); got != 3000 {
				t.Errorf("BufferedRows %d after the first batch, want 3000", got)
			}
			if err := w.EndRowGroup(); err != nil {
				t.Fatal(err)
			}
			if got := w.BufferedRows(); got != 0 {
				t.Errorf("BufferedRows %d after EndRowGroup", got)
			}
		}
	}
	df, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	checkStringsFile(t, p2, total, []int{3000, 5000, 5000, 1000})

	// The manifest statistics (stats.go) see the same values.
	s := df.Columns[1]
	if s.NullCount != int64(nullsOf(0, total, 1)) || string(s.Min) != `""` || string(s.Max) != `"日本語-4"` {
		t.Errorf("s: manifest stats nulls=%d min=%s max=%s", s.NullCount, s.Min, s.Max)
	}
	if j := df.Columns[4]; j.NullCount != int64(total) || j.Min != nil || j.Max != nil {
		t.Errorf("j: manifest stats %+v", j)
	}
}

// nullsOf counts the NULLs of column c (1 s, 2 u, 3 b, 4 j) in rows
// [from, to).
func nullsOf(from, to, c int) int {
	n := 0
	for r := from; r < to; r++ {
		s, u, b, j := stringsRow(r)
		if [][]byte{nil, s, u, b, j}[c] == nil {
			n++
		}
	}
	return n
}

func checkStringsFile(t *testing.T, p string, total int, groups []int) {
	t.Helper()
	// Our reader: the Arrow types of the schema, every value.
	out, err := parquet.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r := 0
	for _, rec := range out {
		for c, f := range rec.Schema().Fields() {
			if want := stringsSchema.Columns[c].ArrowType(); !arrow.TypeEqual(f.Type, want) {
				t.Fatalf("column %s read as %s, want %s", f.Name, f.Type, want)
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			s, u, b, j := stringsRow(r)
			for c, want := range [][]byte{s, u, b, j} {
				col := rec.Column(c + 1)
				var got []byte
				if !col.IsNull(i) {
					switch a := col.(type) {
					case *array.String:
						got = []byte(a.Value(i))
					case *array.Binary:
						got = a.Value(i)
					}
					if got == nil {
						got = []byte{}
					}
				}
				if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("row %d column %d: read %q, want %q", r, c+1, got, want)
				}
			}
			r++
		}
		rec.Release()
	}
	if r != total {
		t.Fatalf("read %d rows, want %d", r, total)
	}

	// The Parquet metadata: row groups, logical types, chunk statistics,
	// encodings.
	pf, err := file.OpenParquetFile(p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	if s := md.Schema.Column(1); s.LogicalType().String() != "String" || s.PhysicalType() != pq.Types.ByteArray {
		t.Errorf("s: Parquet type %s %s", s.PhysicalType(), s.LogicalType())
	}
	if g := pf.NumRowGroups(); g != len(groups) {
		t.Fatalf("%d row groups, want %d", g, len(groups))
	}
	from := 0
	uOverflowed := -1 // the first row group where u's dictionary overflowed
	for g, n := range groups {
		rg := md.RowGroup(g)
		if rg.NumRows() != int64(n) {
			t.Fatalf("row group %d: %d rows, want %d", g, rg.NumRows(), n)
		}
		for c := 1; c <= 4; c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			st, err := cc.Statistics()
			if err != nil || st == nil {
				t.Fatalf("row group %d column %d: no statistics (%v)", g, c, err)
			}
			var lo, hi []byte
			for r := from; r < from+n; r++ {
				s, u, b, j := stringsRow(r)
				v := [][]byte{nil, s, u, b, j}[c]
				if v == nil {
					continue
				}
				if lo == nil || bytes.Compare(v, lo) < 0 {
					lo = v
				}
				if hi == nil || bytes.Compare(v, hi) > 0 {
					hi = v
				}
			}
			bs := st.(*metadata.ByteArrayStatistics)
			if nulls := nullsOf(from, from+n, c); bs.NullCount() != int64(nulls) || bs.NumValues() != int64(n-nulls) {
				t.Errorf("row group %d column %d: %d nulls %d values, want %d %d", g, c, bs.NullCount(), bs.NumValues(), nulls, n-nulls)
			}
			if bs.HasMinMax() != (lo != nil) || lo != nil && (!bytes.Equal(bs.Min(), lo) || !bytes.Equal(bs.Max(), hi)) {
				t.Errorf("row group %d column %d: min %q max %q, want %q %q", g, c, bs.Min(), bs.Max(), lo, hi)
			}
		}
		from += n
		encs := map[string][]pq.Encoding{}
		for c := 0; c < rg.NumColumns(); c++ {
			cc, _ := rg.ColumnChunk(c)
			encs[cc.PathInSchema().String()] = cc.Encodings()
		}
		for _, c := range []int{1, 3} { // s, b
			if !hasDictPage(t, pf, g, c) || plainDataPages(t, pf, g, c) {
				t.Errorf("row group %d: column %d encodings %v, want dictionary-encoded", g, c, encs[md.Schema.Column(c).Name()])
			}
		}
		// u's dictionary passes the 1 MiB limit in a full row group: the
		// chunk goes PLAIN.
		if n == 5000 && !plainDataPages(t, pf, g, 2) {
			t.Errorf("row group %d: u has no PLAIN data page (encodings %v)", g, encs["u"])
		}
		// After that, u's row groups go PLAIN from their first row: no
		// dictionary is built (and dropped) again.
		if uOverflowed >= 0 && (hasDictPage(t, pf, g, 2) || !plainDataPages(t, pf, g, 2)) {
			t.Errorf("row group %d: u has a dictionary page or no PLAIN page (encodings %v), after it overflowed in row group %d", g, encs["u"], uOverflowed)
		}
		if n == 5000 && uOverflowed < 0 {
			uOverflowed = g
		}
	}

	checkDuckDB(t, p, total)
}

// hasDictPage reports whether column c of row group g starts with a
// dictionary page.
func hasDictPage(t *testing.T, pf *file.Reader, g, c int) bool {
	t.Helper()
	pr, err := pf.RowGroup(g).GetColumnPageReader(c)
	if err != nil {
		t.Fatal(err)
	}
	return pr.Next() && pr.Page().Type() == file.PageTypeDictionaryPage
}

// plainDataPages reports whether column c of row group g has a PLAIN data
// page.
func plainDataPages(t *testing.T, pf *file.Reader, g, c int) bool {
	t.Helper()
	pr, err := pf.RowGroup(g).GetColumnPageReader(c)
	if err != nil {
		t.Fatal(err)
	}
	for pr.Next() {
		if pg := pr.Page(); pg.Type() == file.PageTypeDataPage && pq.Encoding(pg.Encoding()) == pq.Encodings.Plain {
			return true
		}
	}
	return false
}

// checkDuckDB reads p with DuckDB: VARCHAR and BLOB columns, every value.
func checkDuckDB(t *testing.T, p string, total int) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fmt.Sprintf("FROM read_parquet('%s')", p)
	types := map[string]string{}
	rows, err := db.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * " + q + ")")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n, ty string
		if err := rows.Scan(&n, &ty); err != nil {
			t.Fatal(err)
		}
		types[n] = ty
	}
	rows.Close()
	if want := map[string]string{"n": "BIGINT", "s": "VARCHAR", "u": "VARCHAR", "b": "BLOB", "j": "VARCHAR"}; fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("DuckDB types %v, want %v", types, want)
	}
	rows, err = db.Query("SELECT n, s, u, b, j " + q + " ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	r := 0
	for rows.Next() {
		var n int64
		var s, u, j sql.NullString
		var b []byte
		if err := rows.Scan(&n, &s, &u, &b, &j); err != nil {
			t.Fatal(err)
		}
		ws, wu, wb, wj := stringsRow(r)
		if n != int64(r) || s.Valid != (ws != nil) || s.String != string(ws) || u.Valid != (wu != nil) || u.String != string(wu) ||
			!bytes.Equal(b, wb) || j.Valid != (wj != nil) {
			t.Fatalf("DuckDB row %d: %d %v %.20q %q %v, want %q %.20q %q %q", r, n, s, u.String, b, j, ws, wu, wb, wj)
		}
		r++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if r != total {
		t.Fatalf("DuckDB read %d rows, want %d", r, total)
	}
}

// BenchmarkWriteDistinctStrings: a string column whose values are all
// distinct (a 40-byte key), the worst case of dictionary encoding: the
// dictionary fills up and the column chunk falls back to PLAIN.
//
//	go test ./storage/parquet -run '^$' -bench WriteDistinctStrings -count 6
func BenchmarkWriteDistinctStrings(b *testing.B) {
	const rows, per = 1_000_000, 64 << 10
	sch := &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "id", Kind: schema.KindInt64, NotNull: true},
		{ID: 2, Name: "key", Kind: schema.KindString},
	}}
	var in []arrow.RecordBatch
	for off := 0; off < rows; off += per {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, sch.Arrow())
		for r := off; r < min(off+per, rows); r++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(r))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%016x-%023d", uint64(r)*0x9E3779B97F4A7C15, r))
		}
		in = append(in, rb.NewRecordBatch())
		rb.Release()
	}
	defer func() {
		for _, r := range in {
			r.Release()
		}
	}()
	dir := b.TempDir()
	var size int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Create(filepath.Join(dir, "bench.parquet"))
		if err != nil {
			b.Fatal(err)
		}
		df, err := parquet.WriteFile(f, sch, in, parquet.WriteOptions{CompressionLevel: 1})
		if err != nil {
			b.Fatal(err)
		}
		size = df.Bytes
		f.Close()
	}
	b.ReportMetric(float64(size)/(1<<20), "MB")
}
