package planner

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// Arrow batches reach the query engine as views registered on a
// connection (duckdb-go's RegisterView), named uniquely in the process (a
// registered view is not local to its connection) and dropped after the
// one statement that reads them. Such a view reads the Arrow stream, which
// can be read once: the statement must scan it once (INSERT ... SELECT *,
// CREATE TABLE ... AS SELECT); a query whose plan scanned it twice (a
// filter and a sort over it) killed the process. Rows a query reads more
// freely are copied into a temporary table first (queryArrowIn).

var arrowViews atomic.Uint64

// arrowViewName returns a process-unique view name with prefix.
func arrowViewName(prefix string) string {
	return fmt.Sprintf("%s_%d", prefix, arrowViews.Add(1))
}

// execWithArrow runs the statement stmt(view) on the connection dc (of
// conn.Raw), with recs (one schema, at least one batch) registered as the
// view it names.
func execWithArrow(ctx context.Context, dc any, recs []arrow.RecordBatch, prefix string, stmt func(view string) string) error {
	ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
	if err != nil {
		return err
	}
	rdr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		return err
	}
	defer rdr.Release()
	view := arrowViewName(prefix)
	release, err := ar.RegisterView(rdr, view)
	if err != nil {
		return err
	}
	defer release()
	ex := dc.(driver.ExecerContext)
	defer func() { _, _ = ex.ExecContext(context.Background(), "DROP VIEW IF EXISTS "+view, nil) }()
	_, err = ex.ExecContext(ctx, stmt(view), nil)
	return err
}

// ExecWithArrow is execWithArrow on conn (a session's connection).
func ExecWithArrow(ctx context.Context, conn *sql.Conn, recs []arrow.RecordBatch, prefix string, stmt func(view string) string) error {
	return conn.Raw(func(dc any) error { return execWithArrow(ctx, dc, recs, prefix, stmt) })
}
