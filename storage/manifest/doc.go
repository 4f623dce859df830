// Package manifest owns the commit point of a table: the immutable objects
// {table}/_manifest/v{N}.json. Version N of a table exists exactly when
// v{N}.json exists; it is created once with create-if-not-exists
// (objstore.PutIfAbsent) and never rewritten. Whoever creates v{N+1} first
// has committed; everyone else gets ErrConflict, re-reads and retries.
//
// # Invariants
//
//   - v1 is written by CREATE TABLE and lists no files; v{N} has Parent N-1.
//   - Version numbers in keys are decimal without padding ("v9.json",
//     "v10.json"): the latest version is found by numeric comparison, never
//     by the listing's lexical order. Other names under _manifest/ are ignored.
//   - Files lists every live data file; each carries AddedVersion, the
//     version that first listed it (1 <= AddedVersion <= Version).
//   - CommittedWAL records every WAL transaction committed by this version
//     and its ancestors: a transaction id is (writer, counter) (waltx.go),
//     stored as sorted, merged ranges of counters per writer, for the
//     MaxTrackedWALWriters (64) writers that committed most recently. A
//     commit of any number of transactions adds a handful of ranges.
//     Recovery skips these; the WAL prune deletes a segment only when all
//     its ids are in it; a writer whose acknowledgement was ambiguous checks
//     Committed on the head before re-staging, and converges without
//     writing duplicates. (Until format 2 a list of the last 256 ids was the
//     only record: a commit of more than 256 transactions left segments
//     unpruned, and their transactions were replayed twice.)
//   - CommittedWALTx holds the ids of other shapes (format-1 data
//     directories), the newest MaxTrackedWALTx (256), oldest first.
//   - The Manager's cache of the latest manifest never moves backwards, and
//     LoadLatest never returns a version older than one this Manager has
//     already seen.
//   - Create resolves an ambiguous outcome (error after a write that may
//     have happened, or ErrExists caused by a retry of our own successful
//     request) by reading the object back: identical bytes mean success.
//     Two writers producing byte-identical manifests (same table UUID,
//     millisecond, files and tx ids) would both see success; they wrote
//     the same state, so this is harmless.
//
// # On-disk format (format_version 2; format 1 lacks committed_wal)
//
// UTF-8 JSON, indented by one space, with a trailing newline. Readers must
// accept any JSON whitespace and ignore unknown keys. Keys:
//
//	{
//	 "format_version": 2,                    // int: this format (1 is read too)
//	 "table_uuid": "0d5f1c9e-...",           // string: the table's UUID (catalog)
//	 "version": 3,                           // int64 N, as in the key
//	 "parent": 2,                            // int64 N-1 (0 for v1)
//	 "timestamp_ms": 1700000000123,          // int64: commit time, Unix ms
//	 "schema": {"columns": [...], "primary_key": [...]},  // storage/schema JSON
//	 "files": [                              // live data files, [] when none
//	  {
//	   "path": "data/<uuid>.parquet",        // key relative to the table prefix
//	   "rows": 1000,                         // int64 row count
//	   "bytes": 65536,                       // int64 file size
//	   "columns": [                          // optional, per column id
//	    {"id": 1, "null_count": 0, "min": 1, "max": 1000}
//	   ],
//	   "added_version": 2                    // int64
//	  }
//	 ],
//	 "deletes": [                            // optional: live position delete files
//	  {"path": "data/<uuid>-deletes.parquet", // Iceberg v2 position deletes
//	   "rows": 120, "bytes": 4096,           // deleted positions, file size
//	   "data": ["data/<uuid>.parquet"],      // the data files it names, sorted
//	   "added_version": 4}
//	 ],
//	 "committed_wal": [                      // optional, at most 64 writers
//	  {"writer": "3fa85f64b2c1",             // 48 bits, 12 hex digits
//	   "ranges": [[1, 5210], [5212, 9000]],  // committed counters, inclusive
//	   "version": 7}                         // manifest version that last added
//	 ],
//	 "committed_wal_tx": ["<uuid>", ...],    // legacy ids, at most 256, [] when none
//	 "properties": {"k": "v"}                // optional string map
//	}
//
// "min"/"max" are typed JSON values, absent or null when unknown; their
// encoding per column kind (written by storage/parquet):
//
//	bool                       true / false
//	int16, int32, int64        JSON number (integers)
//	float32, float64           JSON number; NaN ignored; absent if infinite
//	decimal(p,s)               JSON string of the decimal text, e.g. "12.30"
//	string, json               JSON string (min truncated to 64 bytes on a
//	                           rune boundary; max absent when longer than 64 bytes)
//	binary                     JSON string, standard base64 (same 64-byte rule)
//	date                       JSON number: days since 1970-01-01
//	time                       JSON number: microseconds since midnight
//	timestamp, timestamptz     JSON number: microseconds since the Unix epoch (UTC)
//	uuid                       JSON string, canonical 8-4-4-4-12 lowercase
//	interval                   absent (no total order)
package manifest
