// Package txn is the table handle: the write path, the PendingCommit state
// machine that turns buffered writes into Parquet files, a manifest version and
// an Iceberg snapshot, and the linearizable read snapshot. It knows nothing of
// SQL or the wire protocol. The specification is DESIGN.md and
// ADR-008 (shared/seeds/adr-008-pending-commit.txt).
//
// # Write
//
// Table.Write makes one WAL transaction of its batches (a fresh tx id),
// appends them to the WAL with the requested durability (sync: returns after
// fdatasync, shared by concurrent writers), then appends them to the active
// buffer (pendingWrites), where every reader sees them from that moment.
// An optional hook runs before the WAL append with the batch ids the batches
// will have (the planner mirrors batches into its query engine there); a
// failed hook or WAL append leaves nothing durable and nothing visible.
//
// # Commit (Flush): the phases
//
//	Idle (no PendingCommit; batches in pendingWrites)
//	  |  rotate the WAL; move pendingWrites into PendingCommit{Staging}
//	  v
//	Staging            readers: manifest + staged batches + newer active batches
//	  |  write Parquet files; create _manifest/v{N+1}.json (create-if-not-exists)
//	  |  any failure here: restoreStaging puts the staged batches and tx ids back
//	  |  AHEAD of newer writes, nothing lost or reordered; the next flush retries
//	  v
//	ManifestCommitted  epoch bumped; readers: manifest >= N+1 + newer active batches
//	  |  Iceberg metadata v{K} (create-if-not-exists, CAS) + version-hint forward
//	  v
//	IcebergPublished
//	  |  prune sealed WAL segments whose tx ids are all committed; notify
//	  |  subscribers once; clear PendingCommit; bump the epoch
//	  v
//	Idle
//
// A flush that finds a PendingCommit past Staging (its tail failed earlier)
// resumes the tail idempotently before staging anything new. Before writing
// files, staging drops every batch whose tx id is already on the durable
// manifest head (an ambiguous acknowledgement of an earlier create that in fact
// succeeded): the commit converges without duplicates. Commits race with other
// processes on create-if-not-exists of the next manifest version: on conflict
// the committer re-reads the head, rebuilds N+1 on it and retries with a
// randomized 2-15 ms backoff, up to 64 attempts; the staged files do not
// depend on the head (format v2), so they are reused.
//
// # Text written by older versions (repair.go)
//
// The inputs refuse text that is not valid UTF-8 or holds a NUL; versions
// before that check stored it, and the query engine cannot read it back.
// WAL recovery repairs every recovered batch (each run of invalid bytes and
// each NUL becomes U+FFFD, with a warning) before it is buffered, so the
// replayed rows are readable and flush repaired. RepairText (the server's
// VACUUM FULL) rewrites the data files that hold such text: it flushes,
// then, holding maint and commitMu as Truncate does, reads each file,
// writes a repaired copy of those that need it and swaps them in one
// manifest version (a conflict with another process re-applies the swap
// to the new head), then deletes the old files.
//
// # Bulk load (bulk.go)
//
// BeginBulk / BulkLoad.Write / Commit | Abort: one large write (an
// autocommit COPY past its threshold) that bypasses the WAL and the buffer.
// Its batches go to encoder goroutines (one per core, at most 4; chunks of
// 256k consecutive rows in turn, each chunk one row group) that write them
// into Parquet files (rolled at FileRows, staged locally, stored under
// data/) while the producer keeps parsing. Each encoder has a queue of
// BulkQueueBatches; the producer blocks when it is full, so memory holds at
// most the queues plus one open row group per encoder, whatever the size of
// the load (BulkStats.PeakHeldRows).
//
//	Writing     files written while rows arrive; nothing visible
//	  |  Commit: wait for the encoder; maint (shared) -> commitMu, as a flush;
//	  |  finish a tail left by an earlier flush first
//	  v
//	(manifest)  create _manifest/v{N+1}.json = head + every file of the load,
//	  |  and the load's id in committed_wal; a conflict re-reads the head
//	  |  and retries (64 attempts); before each attempt, a head that already
//	  |  holds the id means an earlier create that reported an error
//	  |  succeeded: converge, never add the files twice
//	  v
//	ManifestCommitted  PendingCommit{Manifest} set, epoch bumped; Commit
//	  |  returns: the load is durable and acknowledged
//	  v                Iceberg publish + prune + notify: the ordinary tail
//	Idle               (a failing tail is resumed by the next flush)
//
// Failure before the manifest create, or Abort: the load's files are
// deleted and nothing is committed. A create whose outcome stays ambiguous
// (the store failed and the head cannot be re-read) leaves the files in
// place: orphans at worst, never a manifest naming a deleted file. A crash
// during a load leaves orphan files and no commit.
//
// Durability: a bulk load is acknowledged after its manifest commit is
// durable in the object store (the files are durable before it: PutFile
// syncs). It is durable in the table itself, not in the WAL — the choice
// PostgreSQL makes for bulk loads under wal_level=minimal. Snapshots: a
// reader sees all of the load or none (one manifest version adds all its
// files); this process's readers see it right after Commit (the manifest
// cache advanced at the create, the epoch bumped), another process's after
// its manifest refresh (Options.RefreshInterval).
//
// # Read
//
// Table.Snapshot: load epoch1, load the latest manifest (cached on the first
// attempt, listed from the store on retries), take pendingCommit then
// pendingWrites, copy the staged (Staging phase only) and active batch lists,
// release, load epoch2. If the epochs differ, or the manifest is older than
// the version the state machine says is committed, retry (8 attempts). Any
// buffered batch whose tx id the loaded manifest already lists as committed is
// left out (it is in the files): this closes the window between the durable
// manifest create and the phase change, so a row can never appear twice.
//
// # Locks
//
// Order, always: pcMu (pendingCommit) -> pwMu (pendingWrites). No I/O under
// either. commitMu serializes flushes, truncates and tail resumption of one
// handle. maint is the maintenance RW lock: shared for Write and Flush,
// exclusive for Truncate and Close. Write releases maint before it triggers
// a size-based flush, so it never waits for a commit.
//
// # Crash points
//
// internal/crash: CommitAfterRotate, CommitAfterParquet, CommitAfterManifest,
// CommitAfterPrune here; CommitAfterMetadata and CommitAfterHint in
// storage/iceberg; the WAL points in wal.
//
// # Multi-table transactions (multi.go, txlog.go)
//
// Coordinator.Commit writes a transaction over several tables: each
// table's part goes to its own WAL under a flagged tx id
// (manifest.IsMultiTx), all synced in parallel (crash point
// TxAfterPrepare); then one record naming every part goes to the TxLog
// and is synced: the commit point (TxAfterLog); then every part joins its
// table's buffer under the coordinator's lock, which a reader of several
// tables holds while it takes their snapshots: a transaction is in all of
// them or in none. Recovery replays a flagged transaction only if the
// TxLog holds its record; a part that will never commit is marked aborted
// so that pruning does not wait for it. A record is kept until every part
// is in its table's manifest.
//
// # Known design debt
//
// Without the TxLog the multi-table commit is lost with it: the log must
// live with the WALs (the planner puts it next to them). The manifest records committed WAL transactions as
// ranges per writer (one writer per table handle) for the 64 writers that
// committed last (manifest.MaxTrackedWALWriters): a segment of a writer
// evicted from that window would be replayed, which needs a segment to
// survive 64 other writers' commits (every commit prunes what it covers,
// and recovery commits and prunes what it replays).
package txn
