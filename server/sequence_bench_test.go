package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// BenchmarkSerialLoad compares loading 100k rows into a table with a
// serial key (the key left to the sequence) and into the same table with
// the key given by the client: multi-row INSERTs of 1000 rows (simple
// protocol), prepared single-row INSERTs (synchronous_commit off) and a
// binary COPY. ns/op is per 100k rows (per row for the single-row INSERT).
//
//	go test ./server -run '^$' -bench SerialLoad -benchtime 5x
func BenchmarkSerialLoad(b *testing.B) {
	const rows = 100_000
	for _, serial := range []bool{false, true} {
		ddl, cols := "CREATE TABLE sl (id bigint, v text, n int)", "id, v, n"
		if serial {
			ddl, cols = "CREATE TABLE sl (id bigserial, v text, n int)", "v, n"
		}
		name := map[bool]string{false: "key=client", true: "key=serial"}[serial]
		b.Run("multirow/"+name, func(b *testing.B) {
			ts := startServerWith(b, "", -1, func(*Backend) {})
			c := ts.conn(b)
			mustExec(b, c, ddl)
			stmts := make([]string, rows/1000)
			for s := range stmts {
				var sb strings.Builder
				fmt.Fprintf(&sb, "INSERT INTO sl (%s) VALUES ", cols)
				for r := 0; r < 1000; r++ {
					if r > 0 {
						sb.WriteString(", ")
					}
					i := s*1000 + r
					if serial {
						fmt.Fprintf(&sb, "('value %d', %d)", i, i)
					} else {
						fmt.Fprintf(&sb, "(%d, 'value %d', %d)", i, i, i)
					}
				}
				stmts[s] = sb.String()
			}
			b.ResetTimer()
			for range b.N {
				for _, q := range stmts {
					if _, err := c.Exec(context.Background(), q, pgx.QueryExecModeSimpleProtocol); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run("prepared/"+name, func(b *testing.B) {
			ts := startServerWith(b, "", -1, func(*Backend) {})
			c := ts.conn(b)
			mustExec(b, c, ddl)
			mustExec(b, c, "SET synchronous_commit = off")
			q := "INSERT INTO sl (id, v, n) VALUES ($1, $2, $3)"
			if serial {
				q = "INSERT INTO sl (v, n) VALUES ($1, $2)"
			}
			b.ResetTimer()
			for i := range b.N {
				var err error
				if serial {
					_, err = c.Exec(context.Background(), q, "value", int32(i))
				} else {
					_, err = c.Exec(context.Background(), q, int64(i), "value", int32(i))
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("copy/"+name, func(b *testing.B) {
			ts := startServerWith(b, "", -1, func(*Backend) {})
			c := ts.conn(b)
			mustExec(b, c, ddl)
			colNames := strings.Split(cols, ", ")
			b.ResetTimer()
			for range b.N {
				_, err := c.CopyFrom(context.Background(), pgx.Identifier{"sl"}, colNames, pgx.CopyFromFunc(func() func() ([]any, error) {
					i := 0
					return func() ([]any, error) {
						if i == rows {
							return nil, nil
						}
						i++
						if serial {
							return []any{"value", int32(i)}, nil
						}
						return []any{int64(i), "value", int32(i)}, nil
					}
				}()))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
