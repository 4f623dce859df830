package planner

import (
	"database/sql/driver"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/bsdb/bsdb-pg/txn"
)

// appendRowsLimit: batches up to this many rows in total are mirrored with
// DuckDB's appender (no SQL to parse and plan: small INSERTs), larger ones
// through an Arrow view and INSERT ... SELECT (bulk).
const appendRowsLimit = 256

// appendable reports whether every column kind has a direct appender value.
func appendable(sch *schema.Schema) bool {
	for _, c := range sch.Columns {
		switch c.Kind {
		case schema.KindBool, schema.KindInt16, schema.KindInt32, schema.KindInt64,
			schema.KindFloat32, schema.KindFloat64, schema.KindString, schema.KindJSON,
			schema.KindBinary, schema.KindDate, schema.KindTimestamp, schema.KindTimestampTZ:
		default:
			return false
		}
	}
	return true
}

// appendBatches mirrors small batches through the appender. REQUIRES:
// appendable(t.Schema).
func (t *Table) appendBatches(dc driver.Conn, batches []txn.Batch) error {
	app, err := duckdb.NewAppenderFromConn(dc, "", t.mirrorName)
	if err != nil {
		return err
	}
	row := make([]driver.Value, len(t.Schema.Columns)+1)
	for _, b := range batches {
		rec := b.Rec
		for r := 0; r < int(rec.NumRows()); r++ {
			for i := range t.Schema.Columns {
				row[i] = arrowValue(rec.Column(i), r)
			}
			row[len(row)-1] = b.ID
			if err := app.AppendRow(row...); err != nil {
				app.Close()
				return err
			}
		}
	}
	return app.Close()
}

// arrowValue is the appender value of row r of col (nil = NULL).
func arrowValue(col arrow.Array, r int) driver.Value {
	if col.IsNull(r) {
		return nil
	}
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(r)
	case *array.Int16:
		return a.Value(r)
	case *array.Int32:
		return a.Value(r)
	case *array.Int64:
		return a.Value(r)
	case *array.Float32:
		return a.Value(r)
	case *array.Float64:
		return a.Value(r)
	case *array.String:
		return a.Value(r)
	case *array.Binary:
		return a.Value(r)
	case *array.Date32:
		return time.Unix(int64(a.Value(r))*86400, 0).UTC()
	case *array.Timestamp:
		return time.UnixMicro(int64(a.Value(r))).UTC()
	}
	return nil
}
