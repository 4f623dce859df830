package parquet

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

// DefaultRowGroupRows is the row-group length when WriteOptions leaves it 0.
const DefaultRowGroupRows = 1 << 20

// Compression names a Parquet compression codec.
type Compression uint8

// Codecs. The zero value is the default, zstd.
const (
	CompressionZstd Compression = iota
	CompressionSnappy
	CompressionNone
)

func (c Compression) codec() compress.Compression {
	switch c {
	case CompressionSnappy:
		return compress.Codecs.Snappy
	case CompressionNone:
		return compress.Codecs.Uncompressed
	}
	return compress.Codecs.Zstd
}

// WriteOptions tune WriteFile.
type WriteOptions struct {
	RowGroupRows int64       // rows per row group; 0 = DefaultRowGroupRows
	Compression  Compression // default zstd
	Allocator    memory.Allocator
}

// WriteFile writes batches (each with exactly sch.Arrow()'s column types, in
// order; field metadata may differ) as one Parquet file to w and returns its
// statistics: Rows, Bytes (the file size) and one ColumnStats per column.
// Path and AddedVersion are left for the caller. On error, w holds garbage
// the caller must discard.
func WriteFile(w io.Writer, sch *schema.Schema, batches []arrow.RecordBatch, opts WriteOptions) (manifest.DataFile, error) {
	var df manifest.DataFile
	if err := sch.Validate(); err != nil {
		return df, fmt.Errorf("parquet: write: %w", err)
	}
	rg := opts.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	fileSchema := FileSchema(sch)
	wprops := []pq.WriterProperty{
		pq.WithCompression(opts.Compression.codec()),
		pq.WithStats(true),
		pq.WithMaxRowGroupLength(rg),
		pq.WithAllocator(mem),
		pq.WithCreatedBy("bsdb-pg"),
	}
	// Dictionary encoding pays off for repetitive values (strings, bools,
	// small ints); for wide numeric and temporal columns, which are mostly
	// distinct (ids, timestamps), its hash table costs more than it saves
	// and the writer falls back to plain after the dictionary page fills.
	for _, c := range sch.Columns {
		switch c.Kind {
		case schema.KindInt64, schema.KindFloat64, schema.KindTimestamp, schema.KindTimestampTZ,
			schema.KindTime, schema.KindDecimal, schema.KindUUID, schema.KindInterval:
			wprops = append(wprops, pq.WithDictionaryFor(c.Name, false))
		}
	}
	props := pq.NewWriterProperties(wprops...)
	cw := &countingWriter{w: w}
	fw, err := pqarrow.NewFileWriter(fileSchema, cw, props,
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)))
	if err != nil {
		return df, fmt.Errorf("parquet: write: %w", err)
	}
	stats := newStatsSet(sch)
	for bi, b := range batches {
		if err := checkBatch(sch, b); err != nil {
			_ = fw.Close()
			return df, fmt.Errorf("parquet: write: batch %d: %w", bi, err)
		}
		if b.NumRows() == 0 {
			continue
		}
		if err := stats.update(b); err != nil {
			_ = fw.Close()
			return df, fmt.Errorf("parquet: write: batch %d: %w", bi, err)
		}
		fb, err := toFileBatch(b, fileSchema, sch, mem)
		if err != nil {
			_ = fw.Close()
			return df, fmt.Errorf("parquet: write: batch %d: %w", bi, err)
		}
		err = fw.WriteBuffered(fb)
		fb.Release()
		if err != nil {
			_ = fw.Close()
			return df, fmt.Errorf("parquet: write: batch %d: %w", bi, err)
		}
		df.Rows += b.NumRows()
	}
	if err := fw.Close(); err != nil {
		return df, fmt.Errorf("parquet: write: close: %w", err)
	}
	df.Bytes = cw.n
	df.Columns = stats.result()
	return df, nil
}

// FileSchema is the Arrow schema of our Parquet files for sch: sch.Arrow()
// with interval columns as fixed_size_binary(16) (see EncodeInterval).
func FileSchema(sch *schema.Schema) *arrow.Schema {
	as := sch.Arrow()
	fields := as.Fields()
	for i, c := range sch.Columns {
		if c.Kind == schema.KindInterval {
			fields[i].Type = &arrow.FixedSizeBinaryType{ByteWidth: IntervalWidth}
		}
	}
	return arrow.NewSchema(fields, nil)
}

func checkBatch(sch *schema.Schema, b arrow.RecordBatch) error {
	if int(b.NumCols()) != len(sch.Columns) {
		return fmt.Errorf("%d columns, schema has %d", b.NumCols(), len(sch.Columns))
	}
	for i := range sch.Columns {
		c := &sch.Columns[i]
		if got := b.Column(i).DataType(); !arrow.TypeEqual(got, c.ArrowType()) {
			return fmt.Errorf("column %d %q: type %s, want %s", i, c.Name, got, c.ArrowType())
		}
		if c.NotNull && b.Column(i).NullN() > 0 {
			return fmt.Errorf("column %d %q: NOT NULL column holds %d nulls", i, c.Name, b.Column(i).NullN())
		}
	}
	return nil
}

// toFileBatch rebuilds b on fileSchema, converting interval columns.
func toFileBatch(b arrow.RecordBatch, fileSchema *arrow.Schema, sch *schema.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		if sch.Columns[i].Kind == schema.KindInterval {
			a, ok := b.Column(i).(*array.MonthDayNanoInterval)
			if !ok {
				return nil, fmt.Errorf("column %q: not a month_day_nano array", sch.Columns[i].Name)
			}
			cols[i] = intervalToFixed(a, mem)
			defer cols[i].Release()
		} else {
			cols[i] = b.Column(i)
		}
	}
	return array.NewRecordBatch(fileSchema, cols, b.NumRows()), nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
