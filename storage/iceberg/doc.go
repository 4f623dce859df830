// Package iceberg publishes Apache Iceberg (format v2) metadata for a table
// from its _manifest, so that any Iceberg engine can read the table. The
// manifest is the authority; Iceberg metadata converges to it and may lag.
//
// # Layout (under the table prefix)
//
//	metadata/v{K}.metadata.json        table metadata, K = 1, 2, ...; created
//	                                   with create-if-not-exists, never rewritten
//	metadata/version-hint.text         decimal K (no newline); advanced only
//	                                   forwards, by conditional update
//	metadata/{uuid}-m0.avro            the snapshot's data manifest (Avro, spec v2)
//	metadata/{uuid}-m1.avro            its delete manifest, when the table has
//	                                   position delete files
//	metadata/snap-{id}-1-{uuid}.avro   the snapshot's manifest list
//
// Every snapshot lists exactly the manifest's files: entries for files
// already in the parent snapshot are EXISTING (keeping their snapshot id and
// sequence numbers), new ones ADDED, with record counts, file sizes, value
// and null counts and lower/upper bounds (Iceberg single-value
// serialization of the manifest's min/max). Removed files are simply
// absent (no DELETED entries are written). The snapshot summary holds
// "bsdb.manifest-version" = N of _manifest/v{N}, and Iceberg's counters.
//
// Position delete files (manifest.Deletes) are listed the same way in a
// delete manifest (content deletes, entries POSITION_DELETES): new ones
// ADDED without a sequence number, so they inherit the snapshot's and apply
// to every data file with a data sequence number not greater; carried ones
// EXISTING. Each gets record count, size, and file_path (field 2147483546)
// lower/upper bounds: the lowest and highest location of the data files it
// names, by which readers match it to data files (iceberg-go v0.7.0's v2
// manifests have no referenced_data_file field; equal bounds say the same).
// Operation: "append" (data files added only), "delete" (delete files
// added or data files removed, no data added) or "overwrite" (both).
// Schema: the table's column ids are the Iceberg field ids; kinds map as
// IcebergType documents (int16 -> int, json -> string, interval -> fixed[16]).
// Unpartitioned, unsorted.
//
// # Publish protocol and invariants
//
//  1. Read the head: the hint (which may lag) then probe v{K+1}, v{K+2}...
//     until one is missing (without a usable hint: list metadata/).
//  2. If the head's current snapshot publishes manifest version >= N, it is
//     current (AlreadyCurrent, or overtaken by a newer manifest): never
//     publish an older snapshot over a newer one. Go to 5.
//  3. Build v{K+1} from the head (snapshot id random and unused, sequence
//     number = last + 1, snapshot-log and metadata-log extended) and write
//     it with PutIfAbsent. Lost (ErrExists): back off 2-15 ms, go to 1
//     (at most MaxAttempts = 64 times). Any other error is ambiguous: go to
//     1 once; if the head now reflects N the write had landed (no duplicate
//     snapshot), else report the error.
//  4. crash.CommitAfterMetadata.
//  5. Advance the hint forwards only: read it; if it is >= the target, stop;
//     else PutIfMatch (PutIfAbsent when missing); on ErrPrecondition re-read
//     and retry. The hint therefore never regresses, whatever the
//     interleaving of publishers. crash.CommitAfterHint (only on the path
//     that wrote metadata).
//
// A Publisher holds no state, so any number may run concurrently, in any
// number of processes. Avro files of a lost attempt are orphans (unique
// names, never referenced); removing orphans is a separate cleanup phase.
//
// Known debt: the head probe costs one Get per metadata version the hint
// lags; manifests are rewritten whole at every snapshot (fine for the file
// counts a flush-driven table has; manifest merging is future work).
package iceberg
