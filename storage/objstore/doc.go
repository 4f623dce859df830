// Package objstore is the object-store seam of bsdb-pg: a small Store
// interface with conditional writes, and its implementations on local disk
// (Local), S3 (S3), memory (Mem, for tests) and a fault-injecting wrapper
// (Faulty, for tests). Every package that persists table data or metadata
// does it through Store, so a test can script faults between any two steps.
//
// # Keys
//
// Keys are relative slash paths ("db/public/t/_manifest/v3.json"): no
// leading or trailing slash, no empty, "." or ".." segment, no NUL or
// backslash. Segments starting with ".bsdb-" are reserved for the Local
// store's temporary and lock files and are rejected (ErrInvalidKey).
// List(prefix) matches by plain string prefix ("t/data/a" lists
// "t/data/a.parquet"), recursively, sorted by key.
//
// # The contract
//
//   - A write that returns nil is durable.
//   - A write that returns an error may or may not have happened (an
//     ambiguous outcome: a lost response, an SDK retry of a request that in
//     fact succeeded). Callers that must know re-read; see manifest.Manager.Create.
//   - PutIfAbsent is create-if-not-exists: exactly one of any number of
//     concurrent creators of a key succeeds; the others get ErrExists; the
//     object appears with its whole content or not at all.
//   - PutIfMatch is compare-and-swap on the Version returned by Get,
//     PutIfAbsent or a previous PutIfMatch: of concurrent writers holding the
//     same version exactly one succeeds; the others get ErrPrecondition. A
//     missing object also gives ErrPrecondition.
//   - Delete of a missing key succeeds.
//
// The same contract test suite (contract_test.go) runs against Local (also
// through two handles on one root, as two processes would), Mem and S3.
//
// # Local: the durability protocol
//
// Put, PutFile: write "<dir>/.bsdb-tmp-<random>" in the key's directory,
// fsync it, rename(2) it over the key, fsync the directory. New directories
// are created one level at a time and their parents fsynced.
//
// MoveFile (the FileMover capability; objstore.MoveFile falls back to
// PutFile on other stores): fsync the local file, rename it to
// "<dir>/.bsdb-tmp-<random>", then publish it as Put does. No byte is
// copied: a bulk load's or a flush's Parquet file, staged in the table's WAL
// directory on the same file system, becomes the object. A file on another
// file system (EXDEV) is copied as PutFile does.
//
// PutIfAbsent: a key that exists already is ErrExists before anything is
// written (so that re-creating what exists works on a full disk). Else write
// and fsync the temp file, then link(2) it to the key: link fails with
// EEXIST when the key exists (=> ErrExists), so the create is atomic with the
// full content, across processes. Then remove the temp name and fsync the
// directory.
//
// PutIfMatch: take an exclusive flock(2) on "<dir>/.bsdb-lock" (flock locks
// belong to the open file description: this excludes goroutines of this
// process and other processes alike), compare the SHA-256 of the current
// content with the expected Version, write temp + fsync + rename + fsync dir,
// unlock. Put, PutFile, MoveFile and Delete take the same lock around their
// rename or remove (not around writing the temp file, so large files are
// written in parallel), so an unconditional write never interleaves between
// a CAS's compare and its rename. (PutIfAbsent needs no
// lock: link is atomic.) The lock files stay; List never shows them. A
// crashed writer can leave a ".bsdb-tmp-*" file: harmless, never listed, and
// removable by any cleanup pass.
//
// The Version of an object on Local and Mem is the lowercase hex SHA-256 of
// its content: two writes of identical bytes have the same Version (as S3
// ETags of single-part uploads do). All our CAS users write a strictly
// increasing value, so this ABA case cannot arise for them.
//
// # S3
//
// PutIfAbsent sends If-None-Match: *, PutIfMatch sends If-Match: <etag>.
// 412 PreconditionFailed and 409 ConditionalRequestConflict (a concurrent
// conditional write in flight) are a lost race: ErrExists for PutIfAbsent,
// ErrPrecondition for PutIfMatch; 404/NoSuchKey is ErrNotFound (and a lost
// race for PutIfMatch). The SDK's own retries can turn a success whose
// response was lost into a 412: the ambiguous case above.
//
// Tests run against versitygw v1.8.0 (POSIX backend), installed with
//
//	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
//
// and started by the test on a free 127.0.0.1 port (package objstoretest:
// StartVersityGW, NewBucket; usable by any package's tests). Without the
// binary those tests skip, unless BSDB_REQUIRE_S3=1 (CI), where they fail.
//
// # Faulty
//
// NewFaulty(inner, rules...) applies scripted Rules to every call: by
// operation (Op) and key predicate, at a Phase (Before: the operation does
// not happen; After: it happened, the error makes it ambiguous), on the Nth
// matching call or every one, injecting an error and/or running a Hook (to
// run racing code between steps, or to check an invariant after each step).
// Modelled on Pebble's vfs/errorfs.
package objstore
