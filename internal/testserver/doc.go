// Package testserver builds the bsdb-pg binary and runs it as a real
// subprocess for end-to-end tests: the regress suite, the pgx tests, crash
// and restart tests. Tests talk to it only through the wire protocol, exactly
// as psql, pgx or a BI tool would.
//
// # What it owns
//
//   - Build compiles ./cmd/bsdb-pg once per test binary (sync.Once), with
//     -tags duckdb_arrow, into a private temporary directory, and returns the
//     path. BSDB_TEST_BINARY=/path/to/bsdb-pg skips the build and uses that
//     binary instead (the Makefile's bin/bsdb-pg, or a binary under debug).
//     The build directory is removed by Cleanup; call it from TestMain (see
//     Main), otherwise it is left in os.TempDir.
//   - Start runs the binary on a free 127.0.0.1 port, with a fresh data
//     directory (t.TempDir) unless Options.DataDir names one, and waits until
//     it accepts TCP connections (60 s, Options.ReadyTimeout). The server is
//     configured only through its environment: BSDB_LISTEN and BSDB_DATA_DIR
//     are set by Start, every other BSDB_* variable comes from Options.Env
//     (the test process's own BSDB_LISTEN / BSDB_DATA_DIR are never inherited).
//   - The server's stdout and stderr are captured in one buffer. When the
//     test fails, the buffer is written to the test log at cleanup, so a
//     failing end-to-end test always shows what the server said.
//
// # Lifecycle
//
//	s := testserver.Start(t, testserver.Options{Env: []string{"BSDB_WAL_DURABILITY=sync"}})
//	conn, _ := pgx.Connect(ctx, s.URL)
//	s.Stop()    // SIGTERM, wait: a clean shutdown (flushes) must exit 0
//	s.Restart() // same port, same data dir, same URL
//	s.Kill()    // SIGKILL: no shutdown code runs; WAL recovery on next start
//
// Start registers Stop with t.Cleanup. Restart works after Stop or Kill and
// keeps the port, so connection strings held by the test stay valid.
// The child gets SIGKILL if the test binary dies (Pdeathsig on Linux), so a
// test timeout never leaves a server running.
//
// # Invariants
//
//   - A Server returned by Start is accepting connections.
//   - Stop never returns before the process has exited (it escalates to
//     SIGKILL after Options.StopTimeout, default 60 s, and reports that as an
//     error: an unclean shutdown is a bug of the server).
//   - No method panics; failures to start are t.Fatal with the server's output.
package testserver
