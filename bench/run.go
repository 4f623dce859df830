package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// bsdbEnv is how the server under test runs for figures 1-5: sync
// durability (ack after fdatasync), the default 0.25 GB buffer, and a flush
// interval long enough that rows are still partly buffered when figure 3's
// "ingest" phase runs (the buffer is flushed by size during the COPY); the
// native cache of committed files on (4 GB), as for an analytics workload.
var bsdbEnv = []string{"BSDB_WAL_DURABILITY=sync", "BSDB_CACHE_GB=0.25", "BSDB_FLUSH_INTERVAL_MS=600000", "BSDB_NATIVE_CACHE_GB=4"}

func copyName(n int64) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("1-copy-%dM", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("1-copy-%dk", n/1000)
	}
	return fmt.Sprintf("1-copy-%d", n)
}

// Run runs every figure and returns what was measured, also on error (the
// figures before the failure).
func Run(ctx context.Context, cfg *Config) (*Results, error) {
	res := newResults()
	if len(cfg.CopyRows) == 0 || cfg.Runs < 1 {
		return res, fmt.Errorf("config: need at least one COPY size and one run")
	}
	g := NewGen(cfg.Seed)
	nBig := cfg.CopyRows[len(cfg.CopyRows)-1]

	if cfg.Only == "restart" {
		return res, restartFigure(ctx, cfg, res, g)
	}
	if cfg.Only == "dml" {
		return res, dmlFigure(ctx, cfg, res, g)
	}
	// The disk's physical limit for a durable commit.
	fs := res.Define(Figure{Name: "2-fdatasync", Unit: "syncs/s", HigherBetter: true})
	rate, err := fdatasyncRate(cfg.WorkDir, cfg.FsyncDur)
	if err != nil {
		return res, err
	}
	fs.samples[sysDisk] = append(fs.samples[sysDisk], rate)
	logf("disk: %.0f fdatasync/s", rate)

	// -only analytics measures bsdb-pg against DuckDB alone (no reference
	// PostgreSQL, no INSERT figures); -only insert skips COPY and queries.
	withPG := cfg.Only != "analytics"
	doCopy := cfg.Only != "insert"
	pg := &pgref.Server{}
	if withPG {
		if pg, err = startPostgres(); err != nil {
			return res, fmt.Errorf("reference PostgreSQL: %w", err)
		}
		defer pg.Stop()
	}
	bs, err := newBSDB(cfg.ServerBin, cfg.path("bsdb"), bsdbEnv)
	if err != nil {
		return res, err
	}
	if err := bs.start(cfg.StartTimeout); err != nil {
		return res, err
	}
	defer bs.kill()
	urls := map[string]string{sysBSDB: bs.url()}
	ab := []string{sysBSDB}
	if withPG {
		urls[sysPG] = pg.URL
		ab = append(ab, sysPG)
	}
	for _, sys := range ab {
		if err := loadUsers(ctx, urls[sys], g); err != nil {
			return res, fmt.Errorf("%s: %w", sys, err)
		}
	}

	// (1) COPY and (5) peak RSS during the largest COPY.
	rss := res.Define(Figure{Name: "5-peak-rss-copy", Unit: "MB", AbsMax: 1024})
	var lastBig time.Duration
	for _, n := range cfg.CopyRows {
		if !doCopy {
			break
		}
		name := copyName(n)
		res.Define(Figure{Name: name, Unit: "rows/s", HigherBetter: true, MinVsPG: 3})
		for r := 0; r < cfg.Runs; r++ {
			for _, sys := range ab {
				var finish func()
				if sys == sysBSDB && n == nBig {
					if err := resetPeakRSS(bs.pid()); err != nil {
						logf("cannot reset peak RSS (%v): the figure is the process's lifetime peak", err)
					}
					if r == cfg.Runs-1 && lastBig > 0 {
						finish = captureProfile(ctx, cfg.ProfileDir, bs, name, int(math.Ceil(lastBig.Seconds())))
					}
				}
				d, err := copyEvents(ctx, urls[sys], g, n)
				if finish != nil {
					finish()
				}
				if err != nil {
					return res, fmt.Errorf("%s on %s: %w", name, sys, err)
				}
				res.Add(name, sys, float64(n)/d.Seconds())
				logf("%s %s run %d: %v (%.0f rows/s)", name, sys, r, d.Round(time.Millisecond), float64(n)/d.Seconds())
				if sys == sysBSDB && n == nBig {
					lastBig = d
					if v, err := peakRSS(bs.pid()); err == nil {
						rss.samples[sysBSDB] = append(rss.samples[sysBSDB], float64(v)/(1<<20))
					} else {
						return res, err
					}
				}
			}
		}
	}

	if cfg.Only == "copy" {
		return res, nil
	}

	if doCopy {
		if err := analyticsFigure(ctx, cfg, res, g, bs, pg, urls, ab, nBig); err != nil {
			return res, err
		}
	}
	if cfg.Only == "analytics" {
		return res, nil
	}

	// (2) single-row autocommit INSERT.
	for _, sys := range ab {
		c, err := connect(ctx, urls[sys])
		if err != nil {
			return res, err
		}
		err = resetEvents(ctx, c, "events_ins")
		c.Close(ctx)
		if err != nil {
			return res, fmt.Errorf("%s: %w", sys, err)
		}
	}
	for _, conns := range cfg.InsertConns {
		base := fmt.Sprintf("2-insert-c%d", conns)
		minVsPG := 0.0
		switch conns {
		case 1:
			minVsPG = 1.5
		case 64:
			minVsPG = 2
		}
		tps := res.Define(Figure{Name: base + "-tps", Unit: "tps", HigherBetter: true, MinVsPG: minVsPG})
		p50 := res.Define(Figure{Name: base + "-p50", Unit: "ms"})
		p99 := res.Define(Figure{Name: base + "-p99", Unit: "ms"})
		for r := 0; r < cfg.Runs; r++ {
			// The disk is shared: sample its flush rate next to each run
			// (A B disk), so the physical limit is measured under the same
			// conditions as the systems.
			rate, err := fdatasyncRate(cfg.WorkDir, cfg.FsyncDur)
			if err != nil {
				return res, err
			}
			fs.samples[sysDisk] = append(fs.samples[sysDisk], rate)
			tps.samples[sysDisk] = append(tps.samples[sysDisk], rate)
			for _, sys := range ab {
				finish := func() {}
				if sys == sysBSDB && r == cfg.Runs-1 && conns == cfg.InsertConns[len(cfg.InsertConns)-1] {
					finish = captureProfile(ctx, cfg.ProfileDir, bs, base, int(cfg.InsertDur.Seconds()))
				}
				t, lat, err := insertLoad(ctx, urls[sys], "events_ins", g, conns, cfg.InsertDur)
				finish()
				if err != nil {
					return res, fmt.Errorf("%s on %s: %w", base, sys, err)
				}
				tps.samples[sys] = append(tps.samples[sys], t)
				p50.samples[sys] = append(p50.samples[sys], percentile(lat, 50))
				p99.samples[sys] = append(p99.samples[sys], percentile(lat, 99))
				logf("%s %s run %d: %.0f tps, p50 %.2f ms, p99 %.2f ms", base, sys, r, t, percentile(lat, 50), percentile(lat, 99))
			}
		}
	}

	// (4) freshness.
	lagF := res.Define(Figure{Name: "4-freshness-lag", Unit: "ms"})
	staleF := res.Define(Figure{Name: "4-freshness-stale-reads", Unit: "reads"})
	for _, sys := range ab {
		lag, stale, err := freshness(ctx, urls[sys], cfg.FreshProbes)
		if err != nil {
			return res, fmt.Errorf("freshness on %s: %w", sys, err)
		}
		lagF.samples[sys] = append(lagF.samples[sys], median(lag))
		staleF.samples[sys] = append(staleF.samples[sys], float64(stale))
		if err := checkFresh(sys, stale, cfg.FreshProbes); err != nil {
			return res, err
		}
	}
	if err := bs.stop(); err != nil {
		return res, err
	}
	pg.Stop()

	// (6) restart with unflushed WAL.
	if err := restartFigure(ctx, cfg, res, g); err != nil {
		return res, err
	}
	// (7) UPDATE and DELETE.
	if cfg.DMLRows > 0 {
		if err := dmlFigure(ctx, cfg, res, g); err != nil {
			return res, err
		}
	}
	return res, nil
}

// restartFigure is figure 6 (skipped when RestartWALMB is 0).
func restartFigure(ctx context.Context, cfg *Config, res *Results, g *Gen) error {
	if cfg.RestartWALMB <= 0 {
		return nil
	}
	secs, wal, err := restartReplay(ctx, cfg, g)
	if err != nil {
		return err
	}
	mb := wal / (1 << 20)
	res.Define(Figure{Name: "6-restart", Unit: "s"}).samples[sysBSDB] = []float64{secs}
	res.Define(Figure{Name: "6-replay-rate", Unit: "MB/s", HigherBetter: true, AbsMin: 200}).samples[sysBSDB] = []float64{mb / secs}
	logf("restart with %.0f MB of WAL: %.2f s", mb, secs)
	return nil
}

// queryPhase connects to each wire system and runs figure 3's queries.
func queryPhase(ctx context.Context, cfg *Config, res *Results, phase string, n int64, systems []string, urls map[string]string, duck *sql.DB) error {
	qs := map[string]querier{}
	for sys, u := range urls {
		c, err := connect(ctx, u)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		qs[sys] = pgxQuerier{c}
	}
	qs[sysDuck] = sqlQuerier{duck}
	logf("figure 3, phase %s", phase)
	return runQueries(ctx, res, phase, n, cfg.QueryReps, systems, qs)
}

// flushBoth makes every row durable in each system's long-term format:
// bsdb-pg has no SQL flush command, so it is restarted with SIGTERM (a
// clean shutdown commits the buffer into Parquet); PostgreSQL gets
// CHECKPOINT and VACUUM ANALYZE (visibility map, hint bits, statistics).
func flushBoth(ctx context.Context, cfg *Config, bs *bsdbServer, pgURL string, withPG bool) error {
	if err := bs.stop(); err != nil {
		return err
	}
	if err := bs.start(cfg.StartTimeout); err != nil {
		return err
	}
	logf("bsdb-pg restarted to flush; WAL left: %d bytes", bs.walBytes())
	if !withPG {
		return nil
	}
	c, err := connect(ctx, pgURL)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, q := range []string{"CHECKPOINT", "VACUUM ANALYZE"} {
		if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("postgres %s: %w", q, err)
		}
	}
	return nil
}

// analyticsFigure is figure 3 over the rows of the largest COPY (plus a
// tail left in bsdb-pg's buffer).
func analyticsFigure(ctx context.Context, cfg *Config, res *Results, g *Gen, bs *bsdbServer, pg *pgref.Server, urls map[string]string, ab []string, nBig int64) error {
	// (3) analytics, right after ingest, then after a flush. The big COPY
	// went straight into Parquet on bsdb-pg; a tail of 2% more rows (one
	// COPY well under BSDB_COPY_DIRECT_MB) stays in its WAL-backed buffer,
	// so that the ingest phase reads unflushed rows too.
	tail := nBig / 50
	for _, sys := range ab {
		if err := copyEventsTail(ctx, urls[sys], g, nBig, nBig+tail); err != nil {
			return fmt.Errorf("%s: %w", sys, err)
		}
	}
	nAll := nBig + tail
	logf("loading %d rows into DuckDB", nAll)
	duck, err := openDuckDB(ctx, g, nAll, runtime.NumCPU())
	if err != nil {
		return err
	}
	defer duck.Close()
	all := append(append([]string(nil), ab...), sysDuck)
	logf("bsdb-pg before the ingest phase: %d bytes of WAL (unflushed rows)", bs.walBytes())
	if err := queryPhase(ctx, cfg, res, "ingest", nAll, all, urls, duck); err != nil {
		return err
	}
	if err := flushBoth(ctx, cfg, bs, pg.URL, len(ab) > 1); err != nil {
		return err
	}
	urls[sysBSDB] = bs.url()
	if err := queryPhase(ctx, cfg, res, "flushed", nAll, all, urls, duck); err != nil {
		return err
	}
	return nil
}
