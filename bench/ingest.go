package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// resetEvents drops and recreates table (with the events schema).
func resetEvents(ctx context.Context, c *pgx.Conn, table string) error {
	ddl := EventsDDL
	if table != "events" {
		ddl = "CREATE TABLE " + table + ddl[len("CREATE TABLE events"):]
	}
	for _, q := range []string{"DROP TABLE IF EXISTS " + table, ddl} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// loadUsers creates and fills users.
func loadUsers(ctx context.Context, url string, g *Gen) error {
	c, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, q := range []string{"DROP TABLE IF EXISTS users", UsersDDL} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"users"}, UserColumns, &userSource{g: g})
	if err != nil {
		return fmt.Errorf("copy users: %w", err)
	}
	if n != Users {
		return fmt.Errorf("copy users: %d rows, want %d", n, Users)
	}
	return nil
}

// copyEvents recreates events and COPYs rows [0, n) into it in one COPY; the
// duration ends when the server acknowledged the COPY (durable on both).
func copyEvents(ctx context.Context, url string, g *Gen, n int64) (time.Duration, error) {
	c, err := connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	if err := resetEvents(ctx, c, "events"); err != nil {
		return 0, err
	}
	// The client sends a binary COPY stream it encodes itself (what pgx
	// CopyFrom sends, without pgx's per-value encoding, which cost more CPU
	// per row than either server on a 2-core machine and made the figure
	// the client's speed).
	t0 := time.Now()
	tag, err := c.PgConn().CopyFrom(ctx, &eventCopyReader{g: g, end: n}, "COPY events ("+strings.Join(EventColumns, ", ")+") FROM STDIN (FORMAT binary)")
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("copy %d events: %w", n, err)
	}
	if got := tag.RowsAffected(); got != n {
		return 0, fmt.Errorf("copy events: server reported %d rows, sent %d", got, n)
	}
	return d, nil
}

// copyEventsTail appends rows [start, end) to events in one COPY (no reset).
// Figure 3's ingest phase uses it for a tail small enough to stay in
// bsdb-pg's WAL-backed buffer (a large COPY goes straight to Parquet).
func copyEventsTail(ctx context.Context, url string, g *Gen, start, end int64) error {
	c, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	tag, err := c.PgConn().CopyFrom(ctx, &eventCopyReader{g: g, next: start, end: end}, "COPY events ("+strings.Join(EventColumns, ", ")+") FROM STDIN (FORMAT binary)")
	if err != nil {
		return fmt.Errorf("copy events [%d, %d): %w", start, end, err)
	}
	if got := tag.RowsAffected(); got != end-start {
		return fmt.Errorf("copy events tail: server reported %d rows, sent %d", got, end-start)
	}
	return nil
}

// eventCopyReader is the binary COPY stream (PostgreSQL's COPY BINARY
// format) of events rows [next, end), encoded a few hundred rows at a time.
type eventCopyReader struct {
	g         *Gen
	next, end int64
	buf       []byte
	pos       int
	started   bool
	done      bool
}

func (r *eventCopyReader) Read(p []byte) (int, error) {
	for r.pos >= len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		r.fill()
	}
	n := copy(p, r.buf[r.pos:])
	r.pos += n
	return n, nil
}

func (r *eventCopyReader) fill() {
	be := binary.BigEndian
	b := r.buf[:0]
	r.pos = 0
	if !r.started {
		r.started = true
		b = append(b, "PGCOPY\n\377\r\n\x00"...)
		b = be.AppendUint32(b, 0) // flags
		b = be.AppendUint32(b, 0) // header extension length
	}
	const pgEpochMicros = 946684800000000
	for k := 0; k < 512 && r.next < r.end; k++ {
		e := r.g.Event(r.next)
		r.next++
		b = be.AppendUint16(b, 6)
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, uint64(e.ID))
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, uint64(e.TS.UnixMicro()-pgEpochMicros))
		b = be.AppendUint32(b, 4)
		b = be.AppendUint32(b, uint32(e.UserID))
		b = be.AppendUint32(b, uint32(len(e.Kind)))
		b = append(b, e.Kind...)
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, math.Float64bits(e.Value))
		b = be.AppendUint32(b, uint32(len(e.Payload)))
		b = append(b, e.Payload...)
	}
	if r.next >= r.end {
		b = be.AppendUint16(b, 0xffff) // trailer
		r.done = true
	}
	r.buf = b
}

// insertLoad runs conns connections, each doing single-row autocommit
// INSERTs into table for dur. It returns the transactions per second and
// the latencies (ms, sorted).
func insertLoad(ctx context.Context, url, table string, g *Gen, conns int, dur time.Duration) (tps float64, lat []float64, err error) {
	cs := make([]*pgx.Conn, conns)
	defer func() {
		for _, c := range cs {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}()
	for i := range cs {
		if cs[i], err = connect(ctx, url); err != nil {
			return 0, nil, err
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		stop     atomic.Bool
		lats     = make([][]float64, conns)
	)
	sql := "INSERT INTO " + table + " VALUES ($1, $2, $3, $4, $5, $6)"
	start := time.Now()
	deadline := start.Add(dur)
	for w := range cs {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := cs[w]
			l := make([]float64, 0, 4096)
			for i := int64(w); !stop.Load() && time.Now().Before(deadline); i += int64(conns) {
				e := g.Event(i)
				t0 := time.Now()
				if _, err := c.Exec(ctx, sql, e.ID, e.TS, e.UserID, e.Kind, e.Value, e.Payload); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("insert on connection %d: %w", w, err)
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				l = append(l, float64(time.Since(t0).Microseconds())/1000)
			}
			lats[w] = l
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, nil, firstErr
	}
	for _, l := range lats {
		lat = append(lat, l...)
	}
	slices.Sort(lat)
	return float64(len(lat)) / elapsed.Seconds(), lat, nil
}

// fdatasyncRate measures the disk's raw flush rate in dir: 4 KiB written
// and fdatasync'ed per iteration, for dur. The file is preallocated and
// synced first and the writes overwrite it in sequence, as PostgreSQL does
// with its recycled 16 MB WAL segments: an fdatasync then carries no
// metadata (no file-size change), which is the physical limit of a commit.
func fdatasyncRate(dir string, dur time.Duration) (float64, error) {
	f, err := os.CreateTemp(dir, "fdatasync-*.bin")
	if err != nil {
		return 0, fmt.Errorf("fdatasync probe: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	const size, block = 16 << 20, 4096
	if _, err := f.Write(make([]byte, size)); err != nil {
		return 0, fmt.Errorf("fdatasync probe preallocate: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("fdatasync probe preallocate: %w", err)
	}
	buf := make([]byte, block)
	n := 0
	start := time.Now()
	for time.Since(start) < dur {
		buf[0] = byte(n)
		if _, err := f.WriteAt(buf, int64(n*block%size)); err != nil {
			return 0, fmt.Errorf("fdatasync probe write: %w", err)
		}
		if err := fdatasync(f); err != nil {
			return 0, fmt.Errorf("fdatasync probe sync: %w", err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// captureProfile starts a CPU profile of s for seconds (through its
// BSDB_PPROF listener) into dir/name.cpu.pprof; the returned function waits
// for it and then saves the cumulative allocation profile. No-op when dir is
// "". A server without the listener only costs a logged error.
func captureProfile(ctx context.Context, dir string, s *bsdbServer, name string, seconds int) func() {
	if dir == "" || seconds <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", s.pprofPort, seconds)
		// A server that is starting (figure 6) opens its listener first:
		// retry a refused connection for a while.
		err := httpToFile(ctx, url, filepath.Join(dir, name+".cpu.pprof"))
		for t0 := time.Now(); errors.Is(err, syscall.ECONNREFUSED) && time.Since(t0) < 30*time.Second; {
			time.Sleep(20 * time.Millisecond)
			err = httpToFile(ctx, url, filepath.Join(dir, name+".cpu.pprof"))
		}
		if err != nil {
			logf("profile %s: %v (does this bsdb-pg build serve BSDB_PPROF?)", name, err)
		}
	}()
	return func() {
		<-done
		url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/allocs", s.pprofPort)
		if err := httpToFile(ctx, url, filepath.Join(dir, name+".allocs.pprof")); err != nil {
			logf("profile %s allocs: %v", name, err)
		}
	}
}
