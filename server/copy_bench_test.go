package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCopyBulk is figure 1 of the benchmark harness in process: one
// binary COPY FROM STDIN of the harness's events rows (bench/gen.go: ids
// and times in order, 100,000 users, 20 kinds, 40-byte payloads cut from
// an 8 KiB string) into an empty table, which a COPY of this size turns
// into a bulk load (decode, Parquet encoding by the encoder goroutines,
// one manifest commit). The client only writes pre-encoded bytes, so
// cpu-ms/op is essentially the server's CPU per COPY: the figure that
// survives a shared machine, unlike ns/op.
//
//	go test ./server -run '^$' -bench CopyBulk -count 6 -cpuprofile cpu.out
func BenchmarkCopyBulk(b *testing.B) {
	const rows = 2_000_000
	data := eventsCopyBinary(1, rows)
	ts := startServerWith(b, "", -1, func(*Backend) {})
	c := ts.conn(b)
	ctx := context.Background()
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		mustExec(b, c, "DROP TABLE IF EXISTS events")
		mustExec(b, c, "CREATE TABLE events (id bigint, ts timestamptz, user_id int, kind text, value double precision, payload text)")
		c0 := cpuTime()
		b.StartTimer()
		tag, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY events (id, ts, user_id, kind, value, payload) FROM STDIN (FORMAT binary)")
		b.StopTimer()
		cpu += cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		if tag.RowsAffected() != rows {
			b.Fatalf("COPY %d rows, want %d", tag.RowsAffected(), rows)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// eventsCopyBinary is the binary COPY stream of events rows [0, n) as the
// benchmark harness generates them for seed (bench/gen.go Gen.Event).
func eventsCopyBinary(seed uint64, n int64) []byte {
	mix := func(seed, i uint64) uint64 {
		z := seed + (i+1)*0x9e3779b97f4a7c15
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	kinds := []string{
		"click", "view", "scroll", "hover", "purchase", "signup", "login", "logout",
		"search", "share", "like", "comment", "download", "upload", "play", "pause",
		"error", "refund", "subscribe", "unsubscribe",
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_"
	pool := make([]byte, 8192)
	for i := range pool {
		pool[i] = alphabet[mix(seed^0x9e3779b97f4a7c15, uint64(i))%uint64(len(alphabet))]
	}
	// 2025-01-01 00:00:00 UTC in microseconds since 2000-01-01.
	const epoch = (1735689600 - 946684800) * 1_000_000
	be := binary.BigEndian
	b := make([]byte, 0, n*104+32)
	b = append(b, "PGCOPY\n\377\r\n\x00"...)
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, 0)
	for i := int64(0); i < n; i++ {
		h := mix(seed, uint64(i))
		h2 := mix(seed^0x5bd1e995, uint64(i))
		off := int(h2 % uint64(len(pool)-40))
		kind := kinds[(h>>20)%uint64(len(kinds))]
		b = be.AppendUint16(b, 6)
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, uint64(i+1))
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, uint64(epoch+i*10_000))
		b = be.AppendUint32(b, 4)
		b = be.AppendUint32(b, uint32(int32(h%100_000)+1))
		b = be.AppendUint32(b, uint32(len(kind)))
		b = append(b, kind...)
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, math.Float64bits(float64((h>>32)%1_000_000)/100))
		b = be.AppendUint32(b, 40)
		b = append(b, pool[off:off+40]...)
	}
	return be.AppendUint16(b, 0xffff)
}
