package planner

import (
	"context"
	"database/sql/driver"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgtypes"
	"github.com/bsdb/bsdb-pg/storage/parquet"
)

// intervalUDF decodes an interval stored in Parquet (16 bytes: months,
// days, nanoseconds, little-endian; storage/parquet.EncodeInterval) into a
// DuckDB INTERVAL.
type intervalUDF struct{}

func (intervalUDF) Config() duckdb.ScalarFuncConfig {
	blob, _ := duckdb.NewTypeInfo(duckdb.TYPE_BLOB)
	iv, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTERVAL)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{blob}, ResultTypeInfo: iv}
}

func (intervalUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		b, ok := values[0].([]byte)
		if !ok {
			return nil, fmt.Errorf("bsdb_interval: %T", values[0])
		}
		v, err := parquet.DecodeInterval(b)
		if err != nil {
			return nil, err
		}
		return duckdb.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}, nil
	}}
}

func (e *Engine) registerUDFs(ctx context.Context) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := duckdb.RegisterScalarUDF(conn, "bsdb_interval", intervalUDF{}); err != nil {
		return err
	}
	return duckdb.RegisterScalarUDF(conn, "__bsdb_interval_text", intervalTextUDF{})
}

// intervalTextUDF is PostgreSQL's interval output (IntervalStyle postgres)
// for interval -> text casts inside queries.
type intervalTextUDF struct{}

func (intervalTextUDF) Config() duckdb.ScalarFuncConfig {
	iv, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTERVAL)
	vc, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{iv}, ResultTypeInfo: vc}
}

func (intervalTextUDF) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		v, ok := values[0].(duckdb.Interval)
		if !ok {
			return nil, fmt.Errorf("__bsdb_interval_text: %T", values[0])
		}
		b, err := pgtypes.AppendText(nil, pgtypes.OIDInterval, -1, pgtypes.Interval{Months: v.Months, Days: v.Days, Micros: v.Micros}, nil)
		return string(b), err
	}}
}
