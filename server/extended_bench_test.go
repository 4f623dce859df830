package server

import (
	"context"
	"testing"
)

// BenchmarkPreparedSelect: pgx's default extended protocol with a cached
// prepared statement, one connection: per op Bind, Describe(portal),
// Execute, Sync in one write, and the server's answer. "one" is a
// parameter echoed back (no table), "point" a point query on a small
// table. ns/op and allocs/op include the pgx client in the same process.
//
//	go test ./server -run '^$' -bench PreparedSelect -benchmem
func BenchmarkPreparedSelect(b *testing.B) {
	b.Run("one", func(b *testing.B) {
		ts := startServerWith(b, "", -1, func(*Backend) {})
		c := ts.conn(b)
		ctx := context.Background()
		var n int32
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if err := c.QueryRow(ctx, "SELECT $1::int", int32(i)).Scan(&n); err != nil || n != int32(i) {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("point", func(b *testing.B) {
		ts := startServerWith(b, "", -1, func(*Backend) {})
		c := ts.conn(b)
		ctx := context.Background()
		mustExec(b, c, "CREATE TABLE t (i int, s text)")
		mustExec(b, c, "INSERT INTO t SELECT g, 'row ' || g FROM generate_series(0, 99) g")
		var n int32
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			k := int32(i % 100)
			if err := c.QueryRow(ctx, "SELECT i FROM t WHERE i = $1", k).Scan(&n); err != nil || n != k {
				b.Fatal(n, err)
			}
		}
	})
}
