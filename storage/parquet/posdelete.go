package parquet

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bsdb/bsdb-pg/storage/schema"
)

// Iceberg's reserved field ids of a position delete file's columns.
const (
	PosDeleteFilePathID = 2147483546
	PosDeletePosID      = 2147483545
)

// posDeleteRowGroupRows bounds a delete file's row groups: small enough
// that the file_path statistics of each row group (rows are sorted by
// file_path) let a reader skip the groups of other data files.
const posDeleteRowGroupRows = 1 << 20

// PositionDelete names one deleted row: the data file's full location (as
// Iceberg readers match it against the data manifest's file_path) and the
// 0-based row position in that file.
type PositionDelete struct {
	Path string
	Pos  int64
}

func comparePositionDelete(a, b PositionDelete) int {
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Compare(a.Pos, b.Pos)
}

// PosDeleteArrowSchema is the Arrow schema of the files
// WritePositionDeletes writes: file_path (string) and pos (int64), both
// required, with their Iceberg field ids.
func PosDeleteArrowSchema() *arrow.Schema {
	md := func(id int) arrow.Metadata {
		return arrow.NewMetadata([]string{schema.MetaFieldID}, []string{strconv.Itoa(id)})
	}
	return arrow.NewSchema([]arrow.Field{
		{Name: "file_path", Type: arrow.BinaryTypes.String, Metadata: md(PosDeleteFilePathID)},
		{Name: "pos", Type: arrow.PrimitiveTypes.Int64, Metadata: md(PosDeletePosID)},
	}, nil)
}

// WritePositionDeletes writes an Iceberg v2 position delete file to w:
// columns file_path (string, required, field id 2147483546) and pos (long,
// required, field id 2147483545), rows sorted by (file_path, pos) (a copy
// of dels is sorted when dels is not), duplicates removed. The column
// chunks carry statistics (min/max of file_path and pos), which readers use
// to tell which data files a row group, or the file, deletes from. It
// returns the bytes written and the rows. On error, w holds garbage.
func WritePositionDeletes(w io.Writer, dels []PositionDelete) (bytes int64, rows int64, err error) {
	if !slices.IsSortedFunc(dels, comparePositionDelete) {
		dels = slices.Clone(dels)
		slices.SortFunc(dels, comparePositionDelete)
	}
	mem := memory.DefaultAllocator
	sch := PosDeleteArrowSchema()
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	paths := b.Field(0).(*array.StringBuilder)
	pos := b.Field(1).(*array.Int64Builder)
	for i, d := range dels {
		if d.Path == "" || d.Pos < 0 {
			return 0, 0, fmt.Errorf("parquet: position delete %q at %d: empty path or negative position", d.Path, d.Pos)
		}
		if i > 0 && dels[i-1] == d {
			continue
		}
		paths.Append(d.Path)
		pos.Append(d.Pos)
		rows++
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	props := pq.NewWriterProperties(
		pq.WithCompression(CompressionZstd.codec()),
		pq.WithStats(true),
		pq.WithMaxRowGroupLength(posDeleteRowGroupRows),
		pq.WithAllocator(mem),
		pq.WithCreatedBy("bsdb-pg"),
		pq.WithDictionaryFor("pos", false),
		pq.WithEncodingFor("pos", pq.Encodings.DeltaBinaryPacked),
	)
	cw := &countingWriter{w: w}
	fw, err := pqarrow.NewFileWriter(sch, cw, props, arrowWriteProps(mem))
	if err != nil {
		return 0, 0, fmt.Errorf("parquet: position deletes: %w", err)
	}
	if err := fw.Write(rec); err != nil {
		_ = fw.Close()
		return 0, 0, fmt.Errorf("parquet: position deletes: %w", err)
	}
	if err := fw.Close(); err != nil {
		return 0, 0, fmt.Errorf("parquet: position deletes: %w", err)
	}
	return cw.n, rows, nil
}

// ReadPositionDeletes reads a position delete file (ours or any Iceberg
// writer's: columns are found by name, and others, such as the optional
// row column, are ignored) and returns its rows in file order.
func ReadPositionDeletes(r io.ReaderAt, size int64) ([]PositionDelete, error) {
	mem := memory.DefaultAllocator
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("parquet: read position deletes: %w", err)
	}
	defer pf.Close()
	var cols [2]int
	for i, name := range []string{"file_path", "pos"} {
		// A top-level primitive column: its leaf path is its name.
		if cols[i] = pf.MetaData().Schema.ColumnIndexByName(name); cols[i] < 0 {
			return nil, fmt.Errorf("parquet: read position deletes: no %q column", name)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
	if err != nil {
		return nil, fmt.Errorf("parquet: read position deletes: %w", err)
	}
	rr, err := fr.GetRecordReader(context.Background(), cols[:], nil)
	if err != nil {
		return nil, fmt.Errorf("parquet: read position deletes: %w", err)
	}
	defer rr.Release()
	out := make([]PositionDelete, 0, pf.NumRows())
	for rr.Next() {
		rec := rr.RecordBatch()
		pi, qi := rec.Schema().FieldIndices("file_path"), rec.Schema().FieldIndices("pos")
		if len(pi) != 1 || len(qi) != 1 {
			return nil, fmt.Errorf("parquet: read position deletes: columns %v", rec.Schema())
		}
		pathCol, posCol := rec.Column(pi[0]), rec.Column(qi[0])
		if pathCol.NullN() > 0 || posCol.NullN() > 0 {
			return nil, fmt.Errorf("parquet: read position deletes: null file_path or pos")
		}
		var path func(i int) string
		switch a := pathCol.(type) {
		case *array.String:
			path = a.Value
		case *array.LargeString:
			path = a.Value
		case *array.Binary:
			path = func(i int) string { return string(a.Value(i)) }
		case *array.LargeBinary:
			path = func(i int) string { return string(a.Value(i)) }
		case *array.Dictionary:
			dict, ok := a.Dictionary().(*array.String)
			if !ok {
				return nil, fmt.Errorf("parquet: read position deletes: file_path is %s", a.DataType())
			}
			path = func(i int) string { return dict.Value(a.GetValueIndex(i)) }
		default:
			return nil, fmt.Errorf("parquet: read position deletes: file_path is %s", pathCol.DataType())
		}
		var at func(i int) int64
		switch a := posCol.(type) {
		case *array.Int64:
			at = a.Value
		case *array.Int32:
			at = func(i int) int64 { return int64(a.Value(i)) }
		default:
			return nil, fmt.Errorf("parquet: read position deletes: pos is %s", posCol.DataType())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, PositionDelete{Path: path(i), Pos: at(i)})
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("parquet: read position deletes: %w", err)
	}
	return out, nil
}
