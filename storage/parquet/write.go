package parquet

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
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
// the current row group are held in memory (at most RowGroupRows rows:
// encoded pages, and a dictionary and one int32 index per row for string
// columns, see dict.go), earlier row groups are already in w. It is what
// WriteFile does in one call; a bulk load uses it to write while its rows
// still arrive. The column encodings are chosen from the first batch
// (deltaColumns). Not safe for concurrent use.
//
// It drives arrow-go's file writer (parquet/file) column by column, as
// pqarrow.FileWriter does, so that string columns can be handed over as
// dictionary arrays once per row group.
type Writer struct {
	sch        *schema.Schema
	fileSchema *arrow.Schema
	mem        memory.Allocator
	cw         *countingWriter
	props      []pq.WriterProperty // the file's properties but the chosen encodings
	maxRows    int64               // rows per row group
	ctx        context.Context     // pqarrow's write context
	fw         *file.Writer        // nil until start
	rg         file.BufferedRowGroupWriter
	rgRows     int64         // rows in rg
	dicts      []*dictColumn // per column; nil where arrow-go encodes the rows as they come
	// plain: the column's dictionary overflowed in a row group of this
	// file; its later row groups go PLAIN from their first row.
	plain  []bool
	levels []int16 // definition levels, reused
	stats  *statsSet
	rows   int64
	closed bool
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
	arrowProps := arrowWriteProps(mem)
	return &Writer{
		sch: sch, fileSchema: fileSchema, mem: mem, cw: &countingWriter{w: w}, props: wprops, maxRows: rg,
		ctx: pqarrow.NewArrowWriteContext(context.Background(), &arrowProps), stats: newStatsSet(sch),
	}, nil
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
	wp := pq.NewWriterProperties(props...)
	pqSchema, err := pqarrow.ToParquet(w.fileSchema, wp, arrowWriteProps(w.mem))
	if err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	// As pqarrow.FileWriter with WithStoreSchema: the Arrow schema goes
	// into the footer (ARROW:schema), serialized as an IPC stream holding
	// only the schema, base64.
	var ipcSchema bytes.Buffer
	iw := ipc.NewWriter(&ipcSchema, ipc.WithSchema(w.fileSchema), ipc.WithAllocator(w.mem))
	if err := iw.Close(); err != nil {
		return fmt.Errorf("parquet: write: arrow schema: %w", err)
	}
	meta := metadata.KeyValueMetadata{}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(ipcSchema.Bytes()))
	fw, err := file.NewParquetWriterWithError(w.cw, pqSchema.Root(), file.WithWriterProps(wp), file.WithWriteMetadata(meta))
	if err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	w.fw = fw
	w.dicts = make([]*dictColumn, len(w.sch.Columns))
	w.plain = make([]bool, len(w.sch.Columns))
	for i, f := range w.fileSchema.Fields() {
		switch f.Type.ID() {
		case arrow.STRING, arrow.BINARY:
			if wp.DictionaryEnabledFor(f.Name) {
				w.dicts[i] = newDictColumn(f.Type, f.Nullable, wp.DictionaryPageSizeLimit())
			}
		}
	}
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
	defer fb.Release()
	for off, n := int64(0), fb.NumRows(); off < n; {
		if w.rg == nil {
			if err := w.startRowGroup(); err != nil {
				return fmt.Errorf("parquet: write: %w", err)
			}
		}
		k := min(n-off, w.maxRows-w.rgRows)
		if err := w.writeRows(fb, off, k); err != nil {
			return fmt.Errorf("parquet: write: %w", err)
		}
		w.rgRows += k
		off += k
		if w.rgRows == w.maxRows {
			if err := w.endRowGroup(); err != nil {
				return fmt.Errorf("parquet: write: %w", err)
			}
		}
	}
	w.rows += b.NumRows()
	return nil
}

// writeRows adds rows [off, off+n) of b to the open row group.
func (w *Writer) writeRows(b arrow.RecordBatch, off, n int64) error {
	for i := range w.dicts {
		a := b.Column(i)
		if off > 0 || n < int64(a.Len()) {
			a = array.NewSlice(a, off, off+n)
			defer a.Release()
		}
		if d := w.dicts[i]; d != nil && !d.full && !w.plain[i] {
			taken, err := d.add(a)
			if err != nil {
				return err
			}
			if !d.full {
				continue
			}
			// The dictionary is full: what it holds is written with it,
			// the rest of the row group by arrow-go, which goes PLAIN.
			if err := w.flushDict(i); err != nil {
				return err
			}
			// arrow-go falls back itself for the rest of this row group.
			w.plain[i] = true
			a = array.NewSlice(a, int64(taken), int64(a.Len()))
			defer a.Release()
		}
		if err := w.writeColumn(i, a); err != nil {
			return err
		}
	}
	return nil
}

// startRowGroup opens a row group. A high-cardinality column (its
// dictionary overflowed in an earlier row group) goes PLAIN before its
// first row: building a 1 MiB dictionary to drop it again cost every row
// group. On an empty chunk, FallbackToPlain drops the empty dictionary.
func (w *Writer) startRowGroup() error {
	rg, err := w.fw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	w.rg = rg
	for i, plain := range w.plain {
		if !plain {
			continue
		}
		cw, err := rg.Column(i)
		if err != nil {
			return err
		}
		if bw, ok := cw.(*file.ByteArrayColumnChunkWriter); ok {
			bw.FallbackToPlain()
		}
	}
	return nil
}

// writeColumn hands a (rows of column i) to arrow-go's column writer, with
// the definition levels pqarrow's FileWriter would compute for a flat
// column.
func (w *Writer) writeColumn(i int, a arrow.Array) error {
	cw, err := w.rg.Column(i)
	if err != nil {
		return err
	}
	nullable := w.fileSchema.Field(i).Nullable
	var def []int16
	if nullable {
		w.levels = definitionLevels(w.levels, a.NullBitmapBytes(), a.Data().Offset(), a.Len(), a.NullN() > 0)
		def = w.levels
	}
	if err := pqarrow.WriteArrowToColumn(w.ctx, cw, a, def, nil, nullable && a.NullN() > 0); err != nil {
		return fmt.Errorf("column %q: %w", w.fileSchema.Field(i).Name, err)
	}
	return nil
}

// endRowGroup writes the dictionary columns of the open row group and
// closes it.
func (w *Writer) endRowGroup() error {
	if w.rg == nil {
		return nil
	}
	for i, d := range w.dicts {
		if d != nil && !d.full {
			if err := w.flushDict(i); err != nil {
				return err
			}
		}
	}
	err := w.rg.Close()
	w.rg, w.rgRows = nil, 0
	// The column writers are closed: arrow-go keeps no reference to the
	// dictionaries' buffers (its memo table copied the values).
	for _, d := range w.dicts {
		if d != nil {
			d.reset()
		}
	}
	return err
}

// EndRowGroup closes the open row group (if it holds rows): the next Write
// starts a new one. A bulk load calls it where its row groups end, so that
// each holds rows that arrived together (tight statistics for pruning).
func (w *Writer) EndRowGroup() error {
	if w.closed || w.rgRows == 0 {
		return nil
	}
	if err := w.endRowGroup(); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	return nil
}

// Rows is the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// BufferedRows is the number of rows of the open row group, held in memory
// until the row group is full or the file is closed.
func (w *Writer) BufferedRows() int64 {
	if w.closed {
		return 0
	}
	return w.rgRows
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
	if err := w.endRowGroup(); err != nil {
		_ = w.fw.Close()
		return df, fmt.Errorf("parquet: write: close: %w", err)
	}
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
		if w.rg != nil {
			_ = w.rg.Close()
			w.rg = nil
		}
		if w.fw != nil {
			_ = w.fw.Close()
		}
		w.dicts = nil
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
