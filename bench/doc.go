// Command bench is bsdb-pg's benchmark harness: the same workload, through
// the PostgreSQL wire protocol (pgx), against bsdb-pg and a reference
// PostgreSQL side by side in one run, with an embedded DuckDB on its own
// native tables as the limit for analytics (issue 6).
//
// # Running it
//
//	make bench-compare   # full run, < 20 min on 2 cores; writes bench/RESULTS.md and bench/profiles/
//	make bench-smoke     # ~1 minute, tiny sizes: the harness works end to end
//	make bench-dml       # figure 7 alone, DML_ROWS rows (default 10M, ~8 min)
//	go run -tags duckdb_arrow ./bench -h
//
// Flags: -server (the bsdb-pg binary, default bin/bsdb-pg), -out (Markdown
// table), -workdir (data of every system; default a temp dir removed at the
// end; it must be on the disk you want to measure), -profile DIR (CPU and
// allocation profiles of bsdb-pg, through its BSDB_PPROF listener),
// -seed, -copy-rows, -runs, -insert-duration, -restart-wal-mb, -dml-rows,
// -smoke, -only (restart: figure 6 alone; copy: figures 1 and 5 alone;
// dml: figure 7 alone).
// `go test ./bench` runs TestSmoke: a smaller smoke run that checks every
// figure produced a number and the freshness check held; it asserts no
// timings. PostgreSQL is found as internal/pgref finds it (BSDB_PG_BIN,
// /usr/lib/postgresql/{17,16,15}/bin, $PATH); without one the test skips
// (fails with BSDB_REQUIRE_PG=1).
//
// # The systems
//
//   - bsdb-pg: the binary, started with BSDB_WAL_DURABILITY=sync (ack after
//     fdatasync), BSDB_CACHE_GB=0.25 (the default buffer), and
//     BSDB_FLUSH_INTERVAL_MS=600000 so that rows are still partly in the
//     buffer during figure 3's "ingest" phase. Its WAL is in DATA/wal
//     (BSDB_WAL_DIR).
//   - postgres: a throwaway cluster (internal/pgref: initdb, 127.0.0.1, run as
//     user pgtest when root) with the test defaults overridden for a durable
//     benchmark: fsync=on, synchronous_commit=on, full_page_writes=on,
//     wal_level=replica, shared_buffers = 25% of RAM capped at 4 GB,
//     work_mem=64MB, max_wal_size=4GB. Its data lives in $TMPDIR.
//   - duckdb: duckdb-go in this process, threads = cores, the same rows
//     loaded with its appender into native tables (figure 3 only).
//   - disk: the harness itself, measuring the raw fdatasync rate.
//
// Neither system gets an index: every figure-3 query scans (PostgreSQL
// with parallel workers). Runs alternate A B A B (Config.Runs, 2 in the full
// run) and each figure reports the median per system.
//
// # The data
//
// events(id bigint, ts timestamptz, user_id int, kind text, value double
// precision, payload text) and users(user_id int, country text), generated
// by Gen as a pure function of (seed, row index): id = i+1, ts = 2025-01-01
// + i*10ms, user_id uniform in 1..100000, kind one of 20, value in
// 0.00..9999.99, payload a 40-byte window of a seeded random string.
// users has 100000 rows, country one of 27.
//
// # The figures (names as printed)
//
//   - 1-copy-1M, 1-copy-10M: one COPY FROM STDIN (FORMAT binary) of that
//     many rows into a freshly created events; rows/s until the COPY is
//     acknowledged (durable on both systems). The harness encodes the
//     binary stream itself (eventCopyReader, the bytes pgx CopyFrom would
//     send): pgx's per-value encoding cost ~2 us of CPU per row, more than
//     either server, so the figure measured the client on 2 cores. Target
//     >= 3x PostgreSQL.
//   - 2-fdatasync: 4 KiB overwrite + fdatasync per iteration of a
//     preallocated file in the work directory (no metadata per sync, as in
//     PostgreSQL's recycled WAL segments): the physical limit of one flush
//     per commit, sampled at the start and next to every INSERT run (the
//     disk may be shared); it is also shown as "disk" on the tps rows.
//   - 2-insert-cN-{tps,p50,p99}: N connections (1, 8, 64), each its own
//     goroutine and connection, single-row autocommit INSERT (prepared by
//     pgx, binary parameters) into events_ins for 15 s; throughput and
//     latency percentiles (ms). Targets: c1 >= 1.5x, c64 >= 2x PostgreSQL.
//   - 3-<query>-ingest / 3-<query>-flushed: seconds per query (median of
//     QueryReps after one warm-up run that also checks the answers: count(*)
//     must equal the rows loaded, every system must return the same number
//     of rows) on the 10M-row table: count, groupby-kind, range-top-users
//     (10% time range, GROUP BY user_id ORDER BY sum DESC LIMIT 10),
//     distinct-users, point-id, range-id (10000 ids), join-country. "ingest"
//     runs right after the COPYs plus a tail COPY of 2% more rows into both
//     servers (the big COPY goes straight to Parquet on bsdb-pg; the tail,
//     far below BSDB_COPY_DIRECT_MB, stays in its WAL-backed buffer, so
//     the answers include unflushed rows); "flushed" after bsdb-pg was restarted with
//     SIGTERM (its clean shutdown commits the buffer to Parquet; there is no
//     SQL flush command) and PostgreSQL got CHECKPOINT + VACUUM ANALYZE.
//     3-geomean-<phase> is the geometric mean of the medians. Target: >= 10x
//     PostgreSQL and <= 1.3x DuckDB.
//   - 4-freshness-lag / 4-freshness-stale-reads: connection A INSERTs into
//     fresh; as soon as it has the acknowledgement, connection B runs
//     SELECT count(*) FROM fresh. stale-reads counts the probes where that
//     first statement did not see the row (must be 0: the run fails
//     otherwise); lag is the median time from acknowledgement to the end of
//     the read that saw it.
//   - 5-peak-rss-copy: VmHWM of the bsdb-pg process over the 10M-row COPY
//     (reset through /proc/PID/clear_refs before it). Target <= 1024 MB.
//   - 6-restart, 6-replay-rate: a second bsdb-pg that never flushes
//     (BSDB_CACHE_GB=1000, flush interval one day) gets COPYs until its WAL
//     holds -restart-wal-mb MB (1024 in the full run), is SIGKILLed and
//     started again; seconds from exec to the first count(*) returning every
//     acknowledged row, and WAL MB / those seconds. Target >= 200 MB/s.
//   - 7-*: UPDATE and DELETE (issue 21), on a table of -dml-rows rows
//     (bsdb-pg of its own, fresh PostgreSQL; dml.go has the details):
//     7-delete-1pct (seconds per DELETE of 1% of the rows by an id range;
//     target >= 5x PostgreSQL), 7-scan-before / 7-scan-after-delete /
//     7-scan-after-updates (SELECT sum(v), count(*)), 7-scan-delete-slowdown
//     (after/before; target <= 1.3 on bsdb-pg), 7-update-cN-{tps,p50,p99,40001}
//     (UPDATE ... SET v = v + 1 WHERE id = $1, random ids, N = 1 and 64
//     connections for -insert-duration; target c64 >= PostgreSQL). Both
//     sides get the primary key (PostgreSQL's index; recorded by bsdb-pg).
//
// # Output
//
// One line per figure and system, `figure system value unit`, then one
// line per figure `figure ratio bsdb-pg/postgres=Xx bsdb-pg/duckdb=Yx
// MET|MISSED (targets)`, where X and Y are bsdb-pg's speedups (> 1 means
// bsdb-pg is better, whichever direction the unit runs), and the same as a
// Markdown table with date, machine and commit, written to -out for the
// README to quote.
//
// # Caveats
//
// The load generator shares the machine's cores with the server under test
// (and, on the CI machine, with other jobs): numbers from a loaded machine
// are noisy; compare ratios from one run, not absolute numbers across runs.
package main
