package parquet_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bsdb/bsdb-pg/storage/parquet"
)

const (
	fileA = "file:///wh/db/t/data/a.parquet"
	fileB = "file:///wh/db/t/data/b.parquet"
)

func writeDeletes(t *testing.T, dels []parquet.PositionDelete) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, _, err := parquet.WritePositionDeletes(&buf, dels)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WritePositionDeletes returned %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func readDeletes(t *testing.T, data []byte) []parquet.PositionDelete {
	t.Helper()
	got, err := parquet.ReadPositionDeletes(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Sorted input round-trips as is; unsorted input with duplicates comes back
// sorted by (file_path, pos) without the duplicates, and the caller's slice
// is left alone.
func TestPositionDeletesRoundTrip(t *testing.T) {
	sorted := []parquet.PositionDelete{{fileA, 0}, {fileA, 7}, {fileA, 1 << 40}, {fileB, 3}}
	if got := readDeletes(t, writeDeletes(t, sorted)); !slices.Equal(got, sorted) {
		t.Fatalf("round trip: %v, want %v", got, sorted)
	}
	in := []parquet.PositionDelete{{fileB, 3}, {fileA, 7}, {fileB, 3}, {fileA, 0}, {fileA, 7}, {fileB, 1}}
	orig := slices.Clone(in)
	var buf bytes.Buffer
	_, rows, err := parquet.WritePositionDeletes(&buf, in)
	if err != nil {
		t.Fatal(err)
	}
	want := []parquet.PositionDelete{{fileA, 0}, {fileA, 7}, {fileB, 1}, {fileB, 3}}
	if got := readDeletes(t, buf.Bytes()); !slices.Equal(got, want) || rows != int64(len(want)) {
		t.Fatalf("unsorted input: %v (rows %d), want %v", got, rows, want)
	}
	if !slices.Equal(in, orig) {
		t.Fatalf("input modified: %v", in)
	}
	// No rows: a valid, empty file.
	if got := readDeletes(t, writeDeletes(t, nil)); len(got) != 0 {
		t.Fatalf("empty file read %v", got)
	}
	if _, _, err := parquet.WritePositionDeletes(&buf, []parquet.PositionDelete{{fileA, -1}}); err == nil {
		t.Fatal("negative position accepted")
	}
}

// The Parquet schema is Iceberg's: required file_path (string) and pos
// (int64) with the reserved field ids, and every column chunk carries its
// min/max (what readers prune delete files and row groups by).
func TestPositionDeletesSchemaAndStats(t *testing.T) {
	data := writeDeletes(t, []parquet.PositionDelete{{fileB, 9}, {fileA, 4}, {fileA, 2}})
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	sch := pf.MetaData().Schema
	if sch.NumColumns() != 2 {
		t.Fatalf("%d columns", sch.NumColumns())
	}
	for i, want := range []struct {
		name string
		id   int32
		typ  pq.Type
	}{{"file_path", parquet.PosDeleteFilePathID, pq.Types.ByteArray}, {"pos", parquet.PosDeletePosID, pq.Types.Int64}} {
		c := sch.Column(i)
		if c.Name() != want.name || c.SchemaNode().FieldID() != want.id || c.PhysicalType() != want.typ ||
			c.SchemaNode().RepetitionType() != pq.Repetitions.Required {
			t.Errorf("column %d: %s id %d %s %s, want %s id %d %s required", i, c.Name(), c.SchemaNode().FieldID(),
				c.PhysicalType(), c.SchemaNode().RepetitionType(), want.name, want.id, want.typ)
		}
	}
	rg := pf.MetaData().RowGroup(0)
	for i, want := range [][2]string{{fileA, fileB}, {"2", "9"}} {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasMinMax() {
			t.Fatalf("column %d: no min/max statistics (%v)", i, err)
		}
		var lo, hi string
		switch s := st.(type) {
		case *metadata.ByteArrayStatistics:
			lo, hi = string(s.Min()), string(s.Max())
		case *metadata.Int64Statistics:
			lo, hi = fmt.Sprint(s.Min()), fmt.Sprint(s.Max())
		}
		if lo != want[0] || hi != want[1] {
			t.Errorf("column %d: min/max %q/%q, want %q/%q", i, lo, hi, want[0], want[1])
		}
	}
}

// A delete file as another Iceberg writer may write it: the optional row
// column (a struct, placed first so the leaf indices shift), large strings,
// no field ids. Only file_path and pos are read, in file order.
func TestReadForeignPositionDeletes(t *testing.T) {
	rowType := arrow.StructOf(arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "row", Type: rowType, Nullable: true},
		{Name: "file_path", Type: arrow.BinaryTypes.LargeString},
		{Name: "pos", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	want := []parquet.PositionDelete{{fileB, 5}, {fileA, 1}, {fileA, 0}} // not sorted: file order is kept
	for i, d := range want {
		rb := b.Field(0).(*array.StructBuilder)
		rb.Append(true)
		rb.FieldBuilder(0).(*array.Int64Builder).Append(int64(i))
		rb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprint("r", i))
		b.Field(1).(*array.LargeStringBuilder).Append(d.Path)
		b.Field(2).(*array.Int64Builder).Append(d.Pos)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, pq.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readDeletes(t, buf.Bytes()); !slices.Equal(got, want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	// A truncated file is an error, not fewer deletes.
	data := writeDeletes(t, want)
	if _, err := parquet.ReadPositionDeletes(bytes.NewReader(data[:len(data)-10]), int64(len(data)-10)); err == nil {
		t.Fatal("truncated file read without error")
	}
}

// DuckDB reads our delete files: the column names and types Iceberg
// readers expect, every row.
func TestDuckDBReadsPositionDeletes(t *testing.T) {
	var dels []parquet.PositionDelete
	for i := 0; i < 3000; i++ {
		dels = append(dels, parquet.PositionDelete{Path: []string{fileA, fileB}[i%2], Pos: int64(i * 3)})
	}
	p := filepath.Join(t.TempDir(), "d-deletes.parquet")
	if err := os.WriteFile(p, writeDeletes(t, dels), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", p))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var n, ty string
		if err := rows.Scan(&n, &ty); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, n+" "+ty)
	}
	rows.Close()
	if fmt.Sprint(cols) != "[file_path VARCHAR pos BIGINT]" {
		t.Fatalf("DuckDB columns %v", cols)
	}
	rows, err = db.Query(fmt.Sprintf("SELECT * FROM read_parquet('%s')", p))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []parquet.PositionDelete
	for rows.Next() {
		var d parquet.PositionDelete
		if err := rows.Scan(&d.Path, &d.Pos); err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(dels, func(a, b parquet.PositionDelete) int {
		if a.Path != b.Path {
			if a.Path < b.Path {
				return -1
			}
			return 1
		}
		return int(a.Pos - b.Pos)
	})
	if !slices.Equal(got, dels) {
		t.Fatalf("DuckDB read %d rows (first %v), want %d sorted rows", len(got), got[:min(3, len(got))], len(dels))
	}
}
