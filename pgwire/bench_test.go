package pgwire

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Benchmarks of the wire layer alone (the test backend does no work):
//
//	go test -run XXX -bench . -benchtime 2s ./pgwire

// BenchmarkSimpleQueryRoundTrip: one Query + ReadyForQuery per op.
func BenchmarkSimpleQueryRoundTrip(b *testing.B) {
	ts := startServer(b, Config{}, nil)
	conn := pgxConnect(b, ts.url("alice", "", "default_query_exec_mode=simple_protocol"))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := conn.Exec(ctx, "select generate_series(1, 1)"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtendedQuery: a cached prepared statement with a binary int8
// parameter, Bind/Execute/Sync per op.
func BenchmarkExtendedQuery(b *testing.B) {
	ts := startServer(b, Config{}, nil)
	conn := pgxConnect(b, ts.url("alice", "", ""))
	ctx := context.Background()
	var n int64
	b.ResetTimer()
	for b.Loop() {
		if err := conn.QueryRow(ctx, "select $1::int8", int64(7)).Scan(&n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRowStream: DataRow throughput, 100k binary int8 rows per op.
func BenchmarkRowStream(b *testing.B) {
	ts := startServer(b, Config{}, nil)
	conn := pgxConnect(b, ts.url("alice", "", ""))
	ctx := context.Background()
	const rows = 100_000
	b.ResetTimer()
	for b.Loop() {
		r, err := conn.Query(ctx, "select generate_series(1, 100000)")
		if err != nil {
			b.Fatal(err)
		}
		got, err := pgx.CollectRows(r, pgx.RowTo[int64])
		if err != nil || len(got) != rows {
			b.Fatal(len(got), err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
