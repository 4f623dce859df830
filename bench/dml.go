package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// Figure 7 (issue 21): UPDATE and DELETE side by side with PostgreSQL.
//
// The table is dml(id bigint, k int, v bigint, pad text), DMLRows rows
// loaded in id order by one COPY (id = i+1; k in 0..999, v in 0..999999
// and pad, a 40-byte window of the generator's string, drawn from a hash
// of (seed, i), so that the columns do not compress to nothing), then ALTER TABLE
// ADD PRIMARY KEY (id) on both (PostgreSQL builds its index; bsdb-pg
// records the key) and a flush (flushBoth: bsdb-pg restarted, PostgreSQL
// CHECKPOINT + VACUUM ANALYZE): every row is committed in bsdb-pg's data
// files, PostgreSQL's heap is frozen and indexed. Then, alternating the
// systems at each step:
//
//   - 7-scan-before: SELECT sum(v), count(*) FROM dml (median of
//     QueryReps after two warm-ups).
//   - 7-delete-1pct: DELETE FROM dml WHERE id BETWEEN x AND x+N/100-1,
//     seconds until acknowledged; Runs DELETEs on disjoint ranges. Target
//     >= 5x PostgreSQL.
//   - 7-scan-after-delete: the same scan right after the first DELETE
//     (1% deleted); 7-scan-delete-slowdown is after/before per system.
//     Target: bsdb-pg <= 1.3x.
//   - 7-update-cN-{tps,p50,p99}: N connections (1, 64), each doing
//     UPDATE dml SET v = v + 1 WHERE id = $1 (prepared by pgx, binary
//     parameter) with uniformly random ids outside the deleted ranges,
//     autocommit, for InsertDur; every UPDATE must report 1 row.
//     A 40001 (bsdb-pg: two transactions changed one row) is retried with
//     another id and counted in 7-update-cN-40001. Target at c64: >= 1x
//     PostgreSQL.
//   - 7-scan-after-updates: the scan once more, after every UPDATE.
//
// Every scan checks count(*) (and, before the UPDATEs, sum(v)) against
// the other system's answer.

// DMLDDL is figure 7's table (the primary key is added after the load).
const DMLDDL = "CREATE TABLE dml (id bigint NOT NULL, k int, v bigint, pad text)"

const dmlScan = "SELECT sum(v), count(*) FROM dml"

// dmlDeleteRange is the r-th DELETE's ids: disjoint 1% ranges starting at
// 5%, 15%, 25%, ... of the table (r < 10).
func dmlDeleteRange(n int64, r int) (lo, hi int64) {
	lo = 1 + n*int64(1+2*(r%10))/20
	return lo, lo + n/100 - 1
}

// dmlCopyReader is the binary COPY stream of dml rows [next, end).
type dmlCopyReader struct {
	g         *Gen
	next, end int64
	buf       []byte
	pos       int
	started   bool
	done      bool
}

func (r *dmlCopyReader) Read(p []byte) (int, error) {
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

func (r *dmlCopyReader) fill() {
	be := binary.BigEndian
	b := r.buf[:0]
	r.pos = 0
	if !r.started {
		r.started = true
		b = append(b, "PGCOPY\n\377\r\n\x00"...)
		b = be.AppendUint32(b, 0)
		b = be.AppendUint32(b, 0)
	}
	for k := 0; k < 1024 && r.next < r.end; k++ {
		i := r.next
		r.next++
		b = be.AppendUint16(b, 4)
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, uint64(i+1))
		h := mix(r.g.seed^0x3c6ef372, uint64(i))
		b = be.AppendUint32(b, 4)
		b = be.AppendUint32(b, uint32(h%1000))
		b = be.AppendUint32(b, 8)
		b = be.AppendUint64(b, (h>>10)%1_000_000)
		off := int((h >> 30) % uint64(len(r.g.pool)-PayloadLen))
		b = be.AppendUint32(b, PayloadLen)
		b = append(b, r.g.pool[off:off+PayloadLen]...)
	}
	if r.next >= r.end {
		b = be.AppendUint16(b, 0xffff)
		r.done = true
	}
	r.buf = b
}

// loadDML recreates dml with n rows and its primary key.
func loadDML(ctx context.Context, url string, g *Gen, n int64) (time.Duration, error) {
	c, err := connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	for _, q := range []string{"DROP TABLE IF EXISTS dml", DMLDDL} {
		if _, err := c.Exec(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	t0 := time.Now()
	tag, err := c.PgConn().CopyFrom(ctx, &dmlCopyReader{g: g, end: n}, "COPY dml (id, k, v, pad) FROM STDIN (FORMAT binary)")
	if err != nil {
		return 0, fmt.Errorf("copy dml: %w", err)
	}
	if tag.RowsAffected() != n {
		return 0, fmt.Errorf("copy dml: %d rows, sent %d", tag.RowsAffected(), n)
	}
	if _, err := c.Exec(ctx, "ALTER TABLE dml ADD PRIMARY KEY (id)"); err != nil {
		return 0, fmt.Errorf("primary key: %w", err)
	}
	return time.Since(t0), nil
}

// dmlScanOnce runs the scan and returns sum(v) and count(*) as text.
func dmlScanOnce(ctx context.Context, c *pgx.Conn) (sum, count string, err error) {
	rows, err := c.Query(ctx, dmlScan, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", "", err
	}
	defer rows.Close()
	for rows.Next() {
		raw := rows.RawValues()
		sum, count = string(raw[0]), string(raw[1])
	}
	return sum, count, rows.Err()
}

// dmlScans measures the scan on every system (warm-ups, then reps
// alternating) into figure name, and checks count(*) == want (and the sums
// agree when checkSum).
func dmlScans(ctx context.Context, res *Results, name string, reps int, ab []string, conns map[string]*pgx.Conn, want int64, checkSum bool) error {
	res.Define(Figure{Name: name, Unit: "s"})
	sums := map[string]string{}
	for _, sys := range ab {
		for w := 0; w < 2; w++ {
			sum, count, err := dmlScanOnce(ctx, conns[sys])
			if err != nil {
				return fmt.Errorf("%s on %s: %w", name, sys, err)
			}
			if count != fmt.Sprint(want) {
				return fmt.Errorf("%s on %s: count(*) = %s, want %d", name, sys, count, want)
			}
			sums[sys] = sum
		}
	}
	if checkSum && len(ab) > 1 && sums[ab[0]] != sums[ab[1]] {
		return fmt.Errorf("%s: sum(v) = %s on %s, %s on %s", name, sums[ab[0]], ab[0], sums[ab[1]], ab[1])
	}
	for r := 0; r < reps; r++ {
		for k := range ab {
			sys := ab[(r+k)%len(ab)]
			t0 := time.Now()
			if _, _, err := dmlScanOnce(ctx, conns[sys]); err != nil {
				return fmt.Errorf("%s on %s: %w", name, sys, err)
			}
			res.Add(name, sys, time.Since(t0).Seconds())
		}
	}
	return nil
}

// dmlFigure is figure 7 on a bsdb-pg of its own and a fresh PostgreSQL.
func dmlFigure(ctx context.Context, cfg *Config, res *Results, g *Gen) error {
	n := cfg.DMLRows
	if n < 100 {
		return fmt.Errorf("figure 7: -dml-rows %d: need at least 100", n)
	}
	if cfg.Runs > 10 {
		return fmt.Errorf("figure 7: %d runs: at most 10 disjoint 1%% DELETEs", cfg.Runs)
	}
	pg, err := startPostgres()
	if err != nil {
		return fmt.Errorf("reference PostgreSQL: %w", err)
	}
	defer pg.Stop()
	bs, err := newBSDB(cfg.ServerBin, cfg.path("bsdb-dml"), bsdbEnv)
	if err != nil {
		return err
	}
	if err := bs.start(cfg.StartTimeout); err != nil {
		return err
	}
	defer bs.kill()
	return dmlRun(ctx, cfg, res, g, bs, pg)
}

func dmlRun(ctx context.Context, cfg *Config, res *Results, g *Gen, bs *bsdbServer, pg *pgref.Server) error {
	n := cfg.DMLRows
	ab := []string{sysBSDB, sysPG}
	urls := map[string]string{sysBSDB: bs.url(), sysPG: pg.URL}
	for _, sys := range ab {
		d, err := loadDML(ctx, urls[sys], g, n)
		if err != nil {
			return fmt.Errorf("figure 7 load on %s: %w", sys, err)
		}
		logf("figure 7: %s loaded %d rows in %v", sys, n, d.Round(time.Millisecond))
	}
	if err := flushBoth(ctx, cfg, bs, pg.URL, true); err != nil {
		return err
	}
	urls[sysBSDB] = bs.url()
	conns := map[string]*pgx.Conn{}
	for _, sys := range ab {
		c, err := connect(ctx, urls[sys])
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		conns[sys] = c
	}
	want := n
	if err := dmlScans(ctx, res, "7-scan-before", cfg.QueryReps, ab, conns, want, true); err != nil {
		return err
	}

	// DELETEs: the first, then the scan after it, then the others.
	del := res.Define(Figure{Name: "7-delete-1pct", Unit: "s", MinVsPG: 5})
	var lastDel time.Duration
	var deleted [][2]int64
	for r := 0; r < cfg.Runs; r++ {
		lo, hi := dmlDeleteRange(n, r)
		deleted = append(deleted, [2]int64{lo, hi})
		q := fmt.Sprintf("DELETE FROM dml WHERE id BETWEEN %d AND %d", lo, hi)
		for k := range ab {
			sys := ab[(r+k)%len(ab)]
			finish := func() {}
			if sys == sysBSDB && r == cfg.Runs-1 && lastDel > 0 {
				finish = captureProfile(ctx, cfg.ProfileDir, bs, "7-delete-1pct", int(lastDel.Seconds())+2)
			}
			t0 := time.Now()
			tag, err := conns[sys].Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
			d := time.Since(t0)
			finish()
			if err != nil {
				return fmt.Errorf("%s on %s: %w", q, sys, err)
			}
			if tag.RowsAffected() != hi-lo+1 {
				return fmt.Errorf("%s on %s: %s, want %d rows", q, sys, tag, hi-lo+1)
			}
			if sys == sysBSDB {
				lastDel = d
			}
			del.samples[sys] = append(del.samples[sys], d.Seconds())
			logf("7-delete-1pct %s run %d: %v", sys, r, d.Round(time.Microsecond))
		}
		want -= hi - lo + 1
		if r == 0 {
			if err := dmlScans(ctx, res, "7-scan-after-delete", cfg.QueryReps, ab, conns, want, true); err != nil {
				return err
			}
			slow := res.Define(Figure{Name: "7-scan-delete-slowdown", Unit: "x", AbsMax: 1.3})
			for _, sys := range ab {
				b, _ := res.figs["7-scan-before"].Median(sys)
				a, _ := res.figs["7-scan-after-delete"].Median(sys)
				slow.samples[sys] = []float64{a / b}
			}
		}
	}

	// Single-row UPDATE by key.
	for _, c := range cfg.UpdateConns {
		base := fmt.Sprintf("7-update-c%d", c)
		minVsPG := 0.0
		if c == 64 {
			minVsPG = 1
		}
		tps := res.Define(Figure{Name: base + "-tps", Unit: "tps", HigherBetter: true, MinVsPG: minVsPG})
		p50 := res.Define(Figure{Name: base + "-p50", Unit: "ms"})
		p99 := res.Define(Figure{Name: base + "-p99", Unit: "ms"})
		retries := res.Define(Figure{Name: base + "-40001", Unit: "errors"})
		for r := 0; r < cfg.Runs; r++ {
			for k := range ab {
				sys := ab[(r+k)%len(ab)]
				finish := func() {}
				if sys == sysBSDB && r == cfg.Runs-1 && c == cfg.UpdateConns[len(cfg.UpdateConns)-1] {
					finish = captureProfile(ctx, cfg.ProfileDir, bs, base, int(cfg.InsertDur.Seconds()))
				}
				seed := uint64(cfg.Seed)<<32 | uint64(r)<<16 | uint64(k)<<8
				t, lat, nerr, err := updateLoad(ctx, urls[sys], n, deleted, c, cfg.InsertDur, seed)
				finish()
				if err != nil {
					return fmt.Errorf("%s on %s: %w", base, sys, err)
				}
				tps.samples[sys] = append(tps.samples[sys], t)
				p50.samples[sys] = append(p50.samples[sys], percentile(lat, 50))
				p99.samples[sys] = append(p99.samples[sys], percentile(lat, 99))
				retries.samples[sys] = append(retries.samples[sys], float64(nerr))
				logf("%s %s run %d: %.0f tps, p50 %.2f ms, p99 %.2f ms, %d serialization failures", base, sys, r, t, percentile(lat, 50), percentile(lat, 99), nerr)
			}
		}
	}
	return dmlScans(ctx, res, "7-scan-after-updates", cfg.QueryReps, ab, conns, want, false)
}

// updateLoad runs conns connections of single-row UPDATEs by random key
// (outside the deleted ranges) for dur: tps, sorted latencies (ms), and
// the number of 40001 failures (retried with another key, not counted as
// transactions).
func updateLoad(ctx context.Context, url string, n int64, deleted [][2]int64, conns int, dur time.Duration, seed uint64) (tps float64, lat []float64, serr int64, err error) {
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
			return 0, nil, 0, err
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		stop     atomic.Bool
		failures atomic.Int64
		lats     = make([][]float64, conns)
	)
	const q = "UPDATE dml SET v = v + 1 WHERE id = $1"
	live := func(id int64) bool {
		for _, d := range deleted {
			if id >= d[0] && id <= d[1] {
				return false
			}
		}
		return true
	}
	start := time.Now()
	deadline := start.Add(dur)
	for w := range cs {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := cs[w]
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			l := make([]float64, 0, 4096)
			for !stop.Load() && time.Now().Before(deadline) {
				id := 1 + rng.Int64N(n)
				if !live(id) {
					continue
				}
				t0 := time.Now()
				tag, err := c.Exec(ctx, q, id)
				if err != nil {
					var pe *pgconn.PgError
					if errors.As(err, &pe) && pe.Code == "40001" {
						failures.Add(1)
						continue
					}
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("update on connection %d: %w", w, err)
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				if tag.RowsAffected() != 1 {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("update id %d on connection %d: %s, want 1 row", id, w, tag)
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
		return 0, nil, 0, firstErr
	}
	for _, l := range lats {
		lat = append(lat, l...)
	}
	slices.Sort(lat)
	return float64(len(lat)) / elapsed.Seconds(), lat, failures.Load(), nil
}
