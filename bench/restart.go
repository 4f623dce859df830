package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// restartReplay is figure 6: a server that never flushes (huge cache, huge
// flush interval) gets COPYs of chunk rows until its WAL holds walMB; then
// SIGKILL, and the time from the new process's start until count(*) returns
// every acknowledged row (startup + WAL replay + first query).
func restartReplay(ctx context.Context, cfg *Config, g *Gen) (secs, walBytes float64, err error) {
	s, err := newBSDB(cfg.ServerBin, cfg.path("bsdb-restart"), []string{
		"BSDB_WAL_DURABILITY=sync", "BSDB_CACHE_GB=1000", "BSDB_FLUSH_INTERVAL_MS=86400000",
		"BSDB_COPY_DIRECT_MB=0", // every COPY goes through the WAL, however large
	})
	if err != nil {
		return 0, 0, err
	}
	if err := s.start(cfg.StartTimeout); err != nil {
		return 0, 0, err
	}
	defer s.kill()
	c, err := connect(ctx, s.url())
	if err != nil {
		return 0, 0, err
	}
	if err := resetEvents(ctx, c, "events"); err != nil {
		c.Close(ctx)
		return 0, 0, err
	}
	want := int64(cfg.RestartWALMB) << 20
	chunk := max(int64(1000), min(int64(500_000), want/400))
	var rows int64
	for last := s.walBytes(); last < want; {
		n, err := c.CopyFrom(ctx, pgx.Identifier{"events"}, EventColumns, newEventSource(g, rows, rows+chunk))
		if err != nil {
			c.Close(ctx)
			return 0, 0, fmt.Errorf("restart: copy at row %d: %w", rows, err)
		}
		rows += n
		grown := s.walBytes()
		if grown <= last {
			c.Close(ctx)
			return 0, 0, fmt.Errorf("restart: a COPY of %d rows did not grow the WAL (%d bytes): it bypassed it", n, grown)
		}
		last = grown
	}
	c.Close(ctx)
	walBytes = float64(s.walBytes())
	logf("restart: %d rows, %.0f MB of WAL; SIGKILL and restart", rows, walBytes/(1<<20))
	s.kill()
	// The profile covers startup and replay (estimated at 20 MB/s, at least
	// 5 s); the server is idle afterwards.
	finish := captureProfile(ctx, cfg.ProfileDir, s, "6-restart", max(5, min(120, cfg.RestartWALMB/20)))
	defer finish()
	t0 := time.Now()
	if err := s.start(cfg.StartTimeout); err != nil {
		return 0, 0, err
	}
	c, err = connect(ctx, s.url())
	if err != nil {
		return 0, 0, err
	}
	defer c.Close(ctx)
	// A query that reads a column: count(*) alone is answered without
	// the rows' values (row counts of the files and buffered batches), and
	// the figure is the time until every recovered row is queryable.
	var n int64
	var sum float64
	if err := c.QueryRow(ctx, "SELECT count(*), sum(value) FROM events", pgx.QueryExecModeSimpleProtocol).Scan(&n, &sum); err != nil {
		return 0, 0, fmt.Errorf("restart: count: %w", err)
	}
	secs = time.Since(t0).Seconds()
	if n != rows {
		return 0, 0, fmt.Errorf("restart: count(*) = %d after replay, %d rows were acknowledged", n, rows)
	}
	return secs, walBytes, nil
}
