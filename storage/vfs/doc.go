// Package vfs is the filesystem seam of the storage engine: the WAL (and
// later other packages) reach the disk only through FS and File, so that
// tests can replace the disk with a crashable in-memory filesystem or a
// fault-injecting wrapper. It is a leaf package: it imports nothing of
// bsdb-pg.
//
// # Implementations
//
//   - Default: the operating system. File.SyncData is fdatasync on Linux
//     (falling back to fsync only where fdatasync is unsupported, EINVAL/
//     ENOSYS), fsync elsewhere. SyncDir opens the directory and fsyncs it.
//     Lock is flock(LOCK_EX|LOCK_NB) on a lock file it creates if needed;
//     flock locks belong to an open file description, so two Lock calls in
//     one process conflict just as two processes do, and a lock vanishes
//     with its process.
//   - NewMem: MemFS, in memory and crashable. Every file has its current
//     bytes and its synced bytes (as of the last Sync/SyncData); every
//     directory has its current entries and its durable entries (as of the
//     last SyncDir of that directory). CrashClone returns a new MemFS made
//     of the durable entries with their synced bytes: what a machine would
//     find after power loss, assuming the disk honours flushes. Directories
//     are durable once created (a simplification). Locks are per MemFS and
//     name; a clone holds none.
//   - NewFaulty: wraps any FS and fails chosen operations (Op, path) with an
//     injected error, before performing them (Pebble's vfs/errorfs). Faults
//     compose with MemFS: a failed SyncData leaves the synced view as it
//     was, so a crash clone shows exactly what a failed fsync would lose.
//
// # Contract details callers rely on
//
//   - Create is O_CREATE|O_EXCL: it fails with fs.ErrExist if the name
//     exists, so two writers cannot both create one file.
//   - ReadDir returns sorted names (files and directories).
//   - A file's data is durable only after Sync/SyncData of that file; a new
//     or renamed or removed name is durable only after SyncDir of its
//     directory. Callers must do both.
//   - A failed Sync/SyncData must not be retried on the same File (cf.
//     "fsyncgate": the kernel may have dropped the dirty pages and a retry
//     can falsely succeed); callers abandon the file instead.
package vfs
