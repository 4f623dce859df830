// Package crashtest holds the crash, fault and concurrency verification of
// bsdb-pg through real processes, real signals and real clients (issue 4,
// DESIGN.md "How we verify"). It has no production code: every test builds
// (or reuses, with BSDB_TEST_BINARY) the real cmd/bsdb-pg binary, starts it
// with internal/testserver, and talks to it only with pgx over the wire.
// The servers run with sync durability (an acknowledged write has been
// fdatasync'ed) and a short age flush, so commits run all the time.
//
// # The ledger
//
// Every row written has a unique id chosen by the client. Before a write is
// sent its ids are recorded as attempted; only after the server acknowledged
// it (INSERT 0 n / COPY n) are they recorded as acknowledged. After any
// crash the table is checked against the ledger (verifyRows):
//
//   - every acknowledged id is present exactly once (lost = 0, duplicated = 0);
//   - an id attempted but not acknowledged (in flight at the crash, or its
//     write returned an error) is present at most once;
//   - no id that was never sent is present (phantom = 0).
//
// Writes alternate a single-row INSERT (extended protocol, parameters), a
// multi-row INSERT (simple protocol) and a binary COPY (pgx CopyFrom).
//
// # The tests and the invariant each guards
//
//   - TestCrashPoints: for every point of internal/crash.All, the server is
//     started with BSDB_CRASH_AT=<point>:<n> (n=25 for the per-append WAL
//     points, 2 for the rotate/commit points: the first commit completes)
//     under two writers, and must die by SIGKILL (a point that never fires
//     fails the test, so does any other exit). Restarted without the
//     variable on the same directory: the ledger holds; one more write and a
//     clean shutdown (which commits) later, the Iceberg head (version-hint
//     -> metadata -> manifest list -> manifests) lists exactly the data
//     files of the latest _manifest/v{N}.json, the manifest history is
//     v1..vN with Parent = N-1, and no _wal/*.arrow is left (every
//     transaction is committed, so every segment must have been pruned);
//     and the rows survive one more restart exactly once.
//     internal/crash prints the point's name and sends itself SIGKILL
//     (TestAbortDiesBySIGKILL in internal/crash guards that); a test checks
//     both the signal and the name (diedAt).
//   - TestSustainedSIGKILL: rounds of 3 writers and 2 readers for a random
//     0.3-1.5 s, then SIGKILL; restart and verify the whole history
//     cumulatively. Readers check linearizability while they run. Logs a
//     "SUMMARY sigkill:" line (rounds, acked, lost, duplicated, reads,
//     violations).
//   - TestTornWALTail: five acknowledged unflushed INSERTs (one WAL
//     transaction and one frame each), SIGKILL, then the only segment is cut
//     at offsets inside its final frame (frame boundaries are measured from
//     the segment size after each acknowledgement): the server opens, rows
//     1..4 are there once, row 5 is not, and the log has the torn-tail
//     warning. Iceberg metadata holds absolute file URIs, so each cut runs
//     on a fresh copy of the image restored at the original path.
//   - TestCorruptWALMiddle: the low byte of the id value of the third of the
//     five frames is flipped (found by its distinctive little-endian bytes,
//     so the flip is in a value, never in padding): SELECT and INSERT are
//     refused with SQLSTATE XX001 and a message naming the segment and the
//     offset; the server log reports it; the segment is byte-identical
//     afterwards and the WAL directory lists the same files.
//   - TestTwoWriterProcesses: two servers on one data directory (one
//     warehouse, one table, one shared _wal directory — the WAL holds a
//     lock per segment per process, so sharing is the supported setup)
//     insert disjoint id ranges with a 30 ms flush, racing on the manifest
//     create. Afterwards: each id once, no gap, no data file outside the
//     latest manifest (orphans), linear manifest history, Iceberg agreeing,
//     no WAL segment left.
//   - TestLinearizableReads: 3 writers and 3 readers for 4 s with a 20 ms
//     flush (reads overlap every commit phase). Each read (SELECT id FROM
//     ct) must contain every id acknowledged before it was sent, nothing
//     never sent, nothing twice, and everything the same session saw
//     before. Logs a "SUMMARY linearizability:" line (reads, violations).
//
// # UPDATE and DELETE (issue 21)
//
// modify_model_test.go holds a second ledger, a model of row versions:
// every operation has a unique value; an INSERT writes it, an UPDATE sets
// w to it and appends it to payload, so each row carries the history of
// its versions. Every read is checked for one linear order of the
// operations (model.checkRead): one version per id; only values of
// updates that were sent and not refused (a 40001 is "not applied" and
// its value must never be seen); no version older than an update
// acknowledged before the read; no row after its acknowledged delete; the
// histories of an id prefixes of one another across sessions and
// restarts; each operation (an explicit transaction of UPDATE + DELETE +
// INSERT, a multi-row UPDATE) all or nothing. Operations unanswered at a
// crash are settled by the next read and must stay so.
//
//   - TestModifyCrashPoints: the WAL append and sync of a delete record,
//     the staged data + delete files, the manifest listing the delete
//     file, the Iceberg metadata and the version-hint: after a one-INSERT
//     seed, two clients only update and delete, so every later append and
//     commit carries deletes (the crash directory is checked for the delete
//     record, the unlisted staged delete file, the manifest adding one).
//     After the restart the model holds, the table takes changes, and
//     after a clean stop iceberg-go's scan equals SELECT.
//   - TestModifySIGKILL: rounds (BSDB_MODIFY_ROUNDS, default 5) of 4
//     clients with INSERT / UPDATE / DELETE / transactions on shared rows
//     and a checking reader, SIGKILL after 0.3-1.2 s, the model checked
//     after every restart; at the end Iceberg equals SELECT. Logs
//     "SUMMARY modify-sigkill:".
//   - TestLinearizableModify: the same workload with 3 checking readers
//     and a 20 ms flush for 4 s. Logs "SUMMARY linearizability-modify:".
//   - TestMultiTableModifyCrashPoints: transactions that update and delete
//     rows of two tables die at tx-after-prepare / tx-after-log: the
//     tables stay equal row for row, acknowledged changes hold, the one in
//     flight is applied exactly when its commit record was durable.
//   - TestTwoProcessUpdateConflict (skipped unless
//     BSDB_TWO_PROCESS_MODIFY=1: a known failure): two server processes
//     UPDATE the same committed row; at most one may be acknowledged.
//
// BSDB_MODIFY_ALL_POINTS=1 runs TestModifyCrashPoints over every point of
// crash.All.
//
// The fuzz targets of the issue are wal.FuzzSegmentReader and
// pgwire.FuzzServerMessages; their seed corpora run in the default test run
// of those packages, and `make fuzz FUZZTIME=2m` fuzzes each.
//
// # Running
//
// The default run takes three to four minutes on 2 cores (the UPDATE/DELETE
// tests about half of it):
//
//	make build && BSDB_TEST_BINARY=$PWD/bin/bsdb-pg go test -tags duckdb_arrow -p 1 ./crashtest
//
// The long versions, from one command (a quarter of the duration each for
// the two SIGKILL loops and the two linearizability checks; totals printed
// at the end):
//
//	scripts/soak.sh 10m          # or: make soak SOAK=10m
//
// Other knobs: -rounds N (BSDB_SOAK_ROUNDS) for the SIGKILL loop, -soak D
// (BSDB_SOAK_DURATION) for both loops, -alloffsets (BSDB_TORN_ALL_OFFSETS=1)
// to cut the torn segment at every byte of its final frame.
package crashtest
