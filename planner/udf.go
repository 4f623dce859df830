package planner

import (
	"context"
	"database/sql/driver"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

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
	return duckdb.RegisterScalarUDF(conn, "bsdb_interval", intervalUDF{})
}
