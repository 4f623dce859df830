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

// DefaultRowGroupRows is the row-group length when WriteOptions leaves it 0:
// DuckDB's own row-group size. Row groups are the unit of min/max pruning
// (a point or range lookup on a sorted column reads one of them) and of
// the scan's parallelism; 1<<20 made a point lookup read a million values.
const DefaultRowGroupRows = 122880

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
	// CompressionLevel is the codec's level (zstd: 1 fastest .. 22); 0 is
	// the codec's default.
	CompressionLevel int
	Allocator        memory.Allocator
}

// WriteFile writes batches (each with exactly sch.Arrow()'s column types, in
// order; field metadata may differ) as one Parquet file to w and returns its
// statistics: Rows, Bytes (the file size) and one ColumnStats per column.
// Path and AddedVersion are left for the caller. On error, w holds garbage
// the caller must discard.
func WriteFile(w io.Writer, sch *schema.Schema, batches []arrow.RecordBatch, opts WriteOptions) (manifest.DataFile, error) {
	fw, err := NewWriter(w, sch, opts)
	if err != nil {
		return manifest.DataFile{}, err
	}
	if err := fw.start(batches); err != nil {
		return manifest.DataFile{}, err
	}
	for bi := 0; bi < len(batches); {
		// Runs of small batches (single-row INSERTs) are written as one:
		// each Write has a fixed cost (checks, statistics, conversion,
		// column writers) that dominated a flush of 1-row batches.
		n := smallRun(batches[bi:])
		b := batches[bi]
		if n > 1 {
			var err error
			if b, err = ConcatBatches(batches[bi:bi+n], fw.mem); err != nil {
				fw.Abort()
				return manifest.DataFile{}, fmt.Errorf("batches %d-%d: %w", bi, bi+n-1, err)
			}
		}
		err := fw.Write(b)
		if n > 1 {
			b.Release()
		}
		if err != nil {
			fw.Abort()
			return manifest.DataFile{}, fmt.Errorf("batch %d: %w", bi, err)
		}
		bi += max(n, 1)
	}
	return fw.Close()
}

// smallBatchRows: batches below this many rows are coalesced by WriteFile,
// up to coalesceRows rows per write.
const (
	smallBatchRows = 1024
	coalesceRows   = 64 << 10
)

// smallRun returns how many leading batches of bs are small and together
// hold at most coalesceRows rows (0 or 1: write the first one alone).
func smallRun(bs []arrow.RecordBatch) int {
	n, rows := 0, int64(0)
	for _, b := range bs {
		if b.NumRows() >= smallBatchRows || rows+b.NumRows() > coalesceRows {
			break
		}
		rows += b.NumRows()
		n++
	}
	return n
}

// ConcatBatches concatenates batches of one schema into one (the caller
// releases it).
func ConcatBatches(bs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	sch := bs[0].Schema()
	cols := make([]arrow.Array, sch.NumFields())
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	parts := make([]arrow.Array, len(bs))
	for c := range cols {
		for i, b := range bs {
			parts[i] = b.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, done := range cols[:c] {
				done.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(sch, cols, rows)
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// Writer writes one Parquet file batch by batch (streaming): the rows of
// the current row group are held encoded in memory (at most RowGroupRows
// rows), earlier row groups are already in w. It is what WriteFile does in
// one call; a bulk load uses it to write while its rows still arrive.
// The column encodings are chosen from the first batch (deltaColumns).
// Not safe for concurrent use.
type Writer struct {
	sch        *schema.Schema
	fileSchema *arrow.Schema
	mem        memory.Allocator
	cw         *countingWriter
	props      []pq.WriterProperty // the file's properties but the chosen encodings
	fw         *pqarrow.FileWriter // nil until start
	stats      *statsSet
	rows       int64
	closed     bool
}

// NewWriter starts a Parquet file on w. Nothing is written to w before the
// first Write (or Close).
func NewWriter(w io.Writer, sch *schema.Schema, opts WriteOptions) (*Writer, error) {
	if err := sch.Validate(); err != nil {
		return nil, fmt.Errorf("parquet: write: %w", err)
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
	// Dictionary encoding pays off for repetitive strings (a few distinct
	// values of a long text); numbers and times are stored plain (or
	// delta-encoded, see deltaColumns). For a high-cardinality column (a
	// user id: 100,000 distinct values in a row group) a dictionary does not
	// fill up and fall back to plain, and every reader then decodes through
	// it: a join on such a column over 10M rows took DuckDB 244 ms instead
	// of 124 ms from plain pages (same codec).
	for _, c := range sch.Columns {
		switch c.Kind {
		case schema.KindString, schema.KindJSON, schema.KindBinary:
		default:
			wprops = append(wprops, pq.WithDictionaryFor(c.Name, false))
		}
	}
	if opts.CompressionLevel != 0 {
		wprops = append(wprops, pq.WithCompressionLevel(opts.CompressionLevel))
	}
	// The Parquet schema is checked now, not at the first Write.
	if _, err := pqarrow.ToParquet(fileSchema, pq.NewWriterProperties(wprops...), arrowWriteProps(mem)); err != nil {
		return nil, fmt.Errorf("parquet: write: %w", err)
	}
	return &Writer{sch: sch, fileSchema: fileSchema, mem: mem, cw: &countingWriter{w: w}, props: wprops, stats: newStatsSet(sch)}, nil
}

func arrowWriteProps(mem memory.Allocator) pqarrow.ArrowWriterProperties {
	return pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem))
}

// start creates the file writer, with encodings chosen from sample (the
// first rows of the file; may be empty).
func (w *Writer) start(sample []arrow.RecordBatch) error {
	props := w.props
	if delta := deltaColumns(w.sch, sample); len(delta) > 0 {
		props = append([]pq.WriterProperty(nil), w.props...)
		for _, name := range delta {
			props = append(props, pq.WithEncodingFor(name, pq.Encodings.DeltaBinaryPacked))
		}
	}
	fw, err := pqarrow.NewFileWriter(w.fileSchema, w.cw, pq.NewWriterProperties(props...), arrowWriteProps(w.mem))
	if err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	w.fw = fw
	return nil
}

// Write appends one batch (the caller keeps its reference). On error the
// file is unusable: call Abort.
func (w *Writer) Write(b arrow.RecordBatch) error {
	if w.closed {
		return fmt.Errorf("parquet: write: writer is closed")
	}
	if err := checkBatch(w.sch, b); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	if b.NumRows() == 0 {
		return nil
	}
	if w.fw == nil {
		if err := w.start([]arrow.RecordBatch{b}); err != nil {
			return err
		}
	}
	if err := w.stats.update(b); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	fb, err := toFileBatch(b, w.fileSchema, w.sch, w.mem)
	if err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	err = w.fw.WriteBuffered(fb)
	fb.Release()
	if err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	w.rows += b.NumRows()
	return nil
}

// EndRowGroup closes the open row group (if it holds rows): the next Write
// starts a new one. A bulk load calls it where its row groups end, so that
// each holds rows that arrived together (tight statistics for pruning).
func (w *Writer) EndRowGroup() error {
	if w.closed || w.fw == nil || w.BufferedRows() == 0 {
		return nil
	}
	if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	return nil
}

// Rows is the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// BufferedRows is the number of rows of the open row group, held in memory
// until the row group is full or the file is closed.
func (w *Writer) BufferedRows() int64 {
	if w.closed || w.fw == nil {
		return 0
	}
	n, err := w.fw.RowGroupNumRows()
	if err != nil {
		return 0
	}
	return int64(n)
}

// Close finishes the file (footer) and returns its statistics; Path and
// AddedVersion are left for the caller.
func (w *Writer) Close() (manifest.DataFile, error) {
	var df manifest.DataFile
	if w.closed {
		return df, fmt.Errorf("parquet: write: writer is closed")
	}
	if w.fw == nil {
		if err := w.start(nil); err != nil {
			w.closed = true
			return df, err
		}
	}
	w.closed = true
	if err := w.fw.Close(); err != nil {
		return df, fmt.Errorf("parquet: write: close: %w", err)
	}
	df.Rows = w.rows
	df.Bytes = w.cw.n
	df.Columns = w.stats.result()
	return df, nil
}

// Abort releases the writer after an error; what was written to w is
// garbage the caller discards.
func (w *Writer) Abort() {
	if !w.closed {
		w.closed = true
		if w.fw != nil {
			_ = w.fw.Close()
		}
	}
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
