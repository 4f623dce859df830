package server

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// BenchmarkInsertPrepared is figure 2 of the benchmark harness in
// process: prepared single-row autocommit INSERTs of an events row with
// binary parameters (pgx), from 1, 8 or 64 connections, per
// synchronous_commit. With "off" an INSERT costs what it costs beyond its
// fdatasync (protocol, plan, Arrow batch, WAL encoding); "on" adds the
// fdatasync (shared by concurrent commits). ns/op is per INSERT.
//
//	go test ./server -run '^$' -bench InsertPrepared -cpuprofile cpu.out
func BenchmarkInsertPrepared(b *testing.B) {
	for _, conns := range []int{1, 8, 64} {
		for _, mode := range []string{"off", "on"} {
			b.Run("conns="+strconv.Itoa(conns)+"/synchronous_commit="+mode, func(b *testing.B) {
				benchmarkInsert(b, conns, mode)
			})
		}
	}
}

// BenchmarkInsertPreparedKey is BenchmarkInsertPrepared on a table whose
// id is its PRIMARY KEY, enforced (keys.go): the cost of the check of a
// new key (a hash and a probe; the index is built at the first INSERT),
// compared with the same INSERTs without a key.
//
//	go test ./server -run '^$' -bench 'InsertPrepared(Key)?/conns=(1|8)/synchronous_commit=off' -count 6
func BenchmarkInsertPreparedKey(b *testing.B) {
	for _, conns := range []int{1, 8} {
		b.Run("conns="+strconv.Itoa(conns)+"/synchronous_commit=off", func(b *testing.B) {
			benchmarkInsertDDL(b, conns, "off", "CREATE TABLE events (id bigint PRIMARY KEY, ts timestamptz, user_id int, kind text, value double precision, payload text)")
		})
	}
}

func benchmarkInsert(b *testing.B, conns int, mode string) {
	benchmarkInsertDDL(b, conns, mode, "CREATE TABLE events (id bigint, ts timestamptz, user_id int, kind text, value double precision, payload text)")
}

func benchmarkInsertDDL(b *testing.B, conns int, mode, ddl string) {
	ts := startServerWith(b, "", -1, func(*Backend) {}) // no flush by age: the buffer holds every row
	ctx := context.Background()
	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		cs[i] = ts.conn(b)
		mustExec(b, cs[i], "SET synchronous_commit = "+mode)
	}
	mustExec(b, cs[0], ddl)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	payload := "0123456789012345678901234567890123456789"
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	b.ResetTimer()
	for _, c := range cs {
		wg.Add(1)
		go func(c *pgx.Conn) {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if _, err := c.Exec(ctx, "INSERT INTO events VALUES ($1, $2, $3, $4, $5, $6)",
					i, t0.Add(time.Duration(i)*time.Second), int32(i%1000), "kind_7", float64(i)*0.5, payload); err != nil {
					errs <- err
					return
				}
			}
		}(c)
	}
	wg.Wait()
	el := b.Elapsed()
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	// How much the WAL transactions were shared (merged writes) and what
	// the fdatasyncs cost: the figures that explain ns/op.
	tb, err := ts.eng.Table(ctx, catalog.TableID{Database: "postgres", Schema: "public", Name: "events"})
	if err != nil {
		b.Fatal(err)
	}
	st := tb.T.WAL().Stats()
	b.ReportMetric(float64(b.N)/float64(max(st.Appends, 1)), "inserts/append")
	if st.Syncs > 0 {
		b.ReportMetric(float64(st.Syncs)/el.Seconds(), "syncs/s")
	}
}
