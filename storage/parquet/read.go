package parquet

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/bsdb/bsdb-pg/storage/schema"
)

// ReadFile reads a Parquet file written by WriteFile into record batches on
// the table's Arrow types (intervals decoded back to month_day_nano). The
// caller releases the batches. Intended for tests and tools; queries read
// Parquet through the query engine.
func ReadFile(path string) ([]arrow.RecordBatch, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parquet: read %s: %w", path, err)
	}
	defer f.Close()
	out, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("parquet: read %s: %w", path, err)
	}
	return out, nil
}

// Read is ReadFile on any random-access reader.
func Read(r pq.ReaderAtSeeker) ([]arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	release := func() {
		for _, b := range out {
			b.Release()
		}
	}
	for rr.Next() {
		b, err := fromFileBatch(rr.RecordBatch(), mem)
		if err != nil {
			release()
			return nil, err
		}
		out = append(out, b)
	}
	if err := rr.Err(); err != nil {
		release()
		return nil, err
	}
	return out, nil
}

// fromFileBatch converts interval columns (fixed_size_binary(16) tagged
// bsdb:kind=interval) back to month_day_nano. It returns a new reference.
func fromFileBatch(b arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	fields := b.Schema().Fields()
	cols := make([]arrow.Array, b.NumCols())
	changed := false
	for i, f := range fields {
		cols[i] = b.Column(i)
		kind, _ := f.Metadata.GetValue(schema.MetaKind)
		fsb, ok := cols[i].(*array.FixedSizeBinary)
		if kind != schema.KindInterval.String() || !ok {
			continue
		}
		a, err := fixedToInterval(fsb, mem)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		defer a.Release()
		cols[i] = a
		fields[i].Type = arrow.FixedWidthTypes.MonthDayNanoInterval
		changed = true
	}
	if !changed {
		b.Retain()
		return b, nil
	}
	md := b.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, b.NumRows()), nil
}
