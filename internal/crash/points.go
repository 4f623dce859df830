package crash

// The crash points, in the order a write and its commit reach them.
const (
	// WAL (package wal).
	WALAfterAppend     = "wal-after-append"      // frames written to the segment, not yet synced
	WALAfterSync       = "wal-after-sync"        // segment synced, append not yet acknowledged
	WALAfterRotateSeal = "wal-after-rotate-seal" // old segment sealed, new segment not yet open

	// Commit state machine (package txn).
	CommitAfterRotate   = "commit-after-rotate"   // WAL rotated, nothing staged yet
	CommitAfterParquet  = "commit-after-parquet"  // data files written, manifest not yet created
	CommitAfterManifest = "commit-after-manifest" // manifest v{N+1} durable (ManifestCommitted)
	CommitAfterMetadata = "commit-after-metadata" // Iceberg metadata v{K} durable, version-hint not advanced
	CommitAfterHint     = "commit-after-hint"     // version-hint advanced (IcebergPublished)
	CommitAfterPrune    = "commit-after-prune"    // sealed WAL segments pruned, subscribers not yet notified

	// Multi-table transactions (txn.Coordinator).
	TxAfterPrepare = "tx-after-prepare" // every table's part synced in its WAL, no commit record yet
	TxAfterLog     = "tx-after-log"     // commit record durable, nothing published yet

	// CREATE TABLE AS (package server).
	CTASAfterFill = "ctas-after-fill" // table created and filled (rows committed), not yet marked finished

	// ALTER TABLE (txn.Table.Alter).
	AlterAfterManifest = "alter-after-manifest" // manifest with the new schema durable, Iceberg not yet published, WAL not pruned
)

// All lists every point; crash tests iterate over it.
var All = []string{
	WALAfterAppend, WALAfterSync, WALAfterRotateSeal,
	CommitAfterRotate, CommitAfterParquet, CommitAfterManifest,
	CommitAfterMetadata, CommitAfterHint, CommitAfterPrune,
}

// Multi lists the points a multi-table transaction reaches (a single-table
// write load never does).
var Multi = []string{TxAfterPrepare, TxAfterLog}

// Known reports whether name is a crash point.
func Known(name string) bool {
	for _, p := range append(append(All[:len(All):len(All)], Multi...), CTASAfterFill, AlterAfterManifest) {
		if p == name {
			return true
		}
	}
	return false
}
