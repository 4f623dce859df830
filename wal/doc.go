// Package wal is the segmented Arrow IPC write-ahead log of one table.
//
// A write (one INSERT, one COPY, one BEGIN..COMMIT) is one WAL transaction:
// a caller-chosen tx id (UUID) and a sequence number the WAL assigns. Its
// batches are appended contiguously to the active segment and acknowledged
// per the durability policy. The commit path (package txn) rotates the WAL
// before staging data files, and prunes sealed segments once the manifest
// records their transactions as committed. Open recovers everything not yet
// committed. The package knows nothing of SQL, the wire or the manifest: it
// asks the caller whether a tx id is committed.
//
// Start reading at Open (recover.go), Append (wal.go), Rotate and Prune
// (rotate.go); the segment reader is reader.go, the checksum checksum.go.
//
// # Segment files
//
// Segments live in Options.Dir, named (part of the on-disk format)
//
//	log_{ts:020}_{pid:06}_{seq:08}.arrow
//
// ts = unix microseconds at creation (kept strictly above every name seen
// in the directory, so names sort in creation order even if the clock
// steps back), pid = process id, seq = per-WAL segment counter. Name order
// is log order. Next to each live segment is its lock file
// <segment>.lock (see Locking); a segment replaced by a repair is kept as
// <segment>.broken. Any other *.arrow file in the directory (a foreign or
// legacy stream) is recovered too; its batches are "untagged".
//
// # Segment format (byte by byte)
//
// A segment is an Arrow IPC stream (format version V5), little-endian:
//
//	stream  := message* [eos]
//	message := 0xFFFFFFFF            continuation marker, 4 bytes
//	           int32 metaLen         flatbuffer length incl. padding; > 0, multiple of 8
//	           byte[metaLen]         flatbuffer Message (header type, bodyLength, custom metadata)
//	           byte[bodyLength]      body: the buffers, each padded to 8 bytes
//	eos     := 0xFFFFFFFF 0x00000000 end-of-stream marker, written when a segment is sealed
//
// The first message is the Schema (Options.Schema); every following one is
// a RecordBatch (no dictionaries: no column type uses them). Every message
// starts at an offset that is a multiple of 8. A segment that was active
// when its process died has no eos.
//
// Every RecordBatch carries custom metadata (Message.custom_metadata; part
// of the on-disk format):
//
//	bsdb.wal.tx_id     transaction id, canonical 36-byte UUID text
//	bsdb.wal.seq       transaction sequence number, decimal
//	bsdb.wal.tx_index  index of the batch in its transaction, decimal, 0-based
//	bsdb.wal.tx_count  number of batches of the transaction, decimal, >= 1
//	bsdb.wal.crc32c    checksum, 8 lowercase hex digits (big-endian value)
//	bsdb.wal.aux       auxiliary payload (AppendAux), only on a batch that has
//	                   one, after the five keys above: the payload's raw bytes
//	                   (any bytes, NUL and invalid UTF-8 included; not base64),
//	                   0..MaxAuxBytes (16 MiB) long. The WAL does not interpret
//	                   it (bsdb-pg stores a DELETE's row identities in one, on
//	                   a zero-row batch). A zero-length payload is a payload:
//	                   it is recovered as non-nil and empty, unlike no payload.
//
// Arrow IPC has no checksum: a flipped bit reads back silently. The
// checksum is CRC-32C (Castagnoli) over a canonical form of the batch
// (row count, and per column: name, nullability, type fingerprint,
// length, null count, the validity bits and values of exactly the rows in
// the array, offsets rebased to 0) followed by the 32-byte trailer tx id,
// seq u64, index u32, count u32, and, for a batch with an auxiliary
// payload only, its length u64 and bytes (a batch without one has the
// checksum it had before payloads existed); see checksum.go for the exact
// definition. It is independent of how buffers are sliced or padded, so
// it survives the IPC round trip; a flip in any byte that carries a value,
// a length, a null, the tx identity, the schema of the column or a
// payload is detected. Flips in padding bytes that no value reads are not
// (they cannot change data).
//
// Limits (part of the format): metaLen <= 64 MiB (the payload is part of
// the metadata), bodyLength <= 2 GiB.
//
// # Durability policy
//
//   - DurabilitySync (default): Append returns only after an fdatasync
//     (vfs File.SyncData; fsync where fdatasync is unsupported) covered its
//     bytes. Group commit: a waiter whose bytes are unsynced becomes the
//     leader (one fdatasync covering every write completed so far) or waits
//     for the current leader; concurrent appenders share syncs (Stats.Syncs
//     counts them). A new segment's directory entry is synced (SyncDir)
//     before anything is written to it.
//   - A failed fdatasync is returned to every appender it should have
//     covered (never a false acknowledgement) and poisons the segment: it is
//     never written or synced again (no retry on the same descriptor,
//     cf. fsyncgate); the next Append retires it into the registry and
//     opens a new segment. An error is ambiguous, like a network timeout:
//     the bytes may have reached the disk and will then be recovered by the
//     next Open.
//   - DurabilityAsync: Append returns after the write(2); a worker syncs
//     every SyncBatchSize batches or SyncInterval. A crash loses at most
//     that window.
//   - UnsafeNoSync: no fdatasync and no directory sync at all. Tests only.
//   - A full disk (nospace.go): a reservation (Options.Preallocate) that
//     fallocate cannot make (ENOSPC, EDQUOT) is skipped, not an error: the
//     segment takes plain appends, which need only their own bytes, and
//     the next segment reserves again. An append that does not fit fails
//     with the system error in its chain (errors.Is(err, syscall.ENOSPC)).
//
// # Rotation, registry and pruning
//
// Rotate seals the active segment: eos, fdatasync, close, directory sync,
// and moves it into the registry of sealed segments, which records for
// each its tx ids and whether it holds untagged data. The next Append
// creates a new segment (lazily: an idle WAL creates no files). Appends
// and Rotate both run under WAL.mu, so an append lands and is registered
// in exactly one segment.
//
// Invariant: Prune(committed) deletes a sealed segment only if it holds no
// untagged data and committed(id) is true for every tx id in it; it never
// deletes the active segment. Segments holding failed (unacknowledged)
// transactions are therefore kept until a restart recovers them.
//
// # Recovery (Open)
//
// Segments are read in name order. Per segment:
//   - locked by another live WAL: skipped (not read, not registered);
//   - vanished between listing and opening: skipped;
//   - 0 bytes, all zeros, or shorter than a complete schema message: empty;
//   - an incomplete final frame (or an undecodable final frame followed
//     only by zeros): the end of the stream; a warning names the segment and
//     offset; every complete valid batch before it is kept. If the
//     incomplete frame's length overruns a later complete message, the
//     length itself is damaged: corruption;
//   - a torn write into preallocated space (segments are fallocate'd ahead
//     of the stream, Options.Preallocate, and trimmed when sealed): in a
//     segment without an end-of-stream marker, a frame that fails
//     verification, or a frame boundary that reads as zeros with data
//     after it, showing a sector that reads as zeros from the frame's part
//     to the sector's end (it was never persisted), is where the stream
//     ends: no fdatasync completed after that write, so nothing from there
//     on was acknowledged. A warning gives the bytes dropped (see
//     unwrittenIn in reader.go);
//   - anything else refuses to open with *CorruptionError{Segment, Offset,
//     Err}: a bad continuation marker, a length out of bounds, a checksum
//     mismatch (wherever the batch is), an undecodable frame followed by
//     more data, data after eos, a transaction interrupted by another, a
//     batch without WAL metadata in a segment named by this package or
//     holding tagged batches (a damaged metadata reference must not turn
//     data into "legacy" data). Before any message reaches the Arrow
//     decoder its flatbuffer is bounds-checked (fbverify.go): the decoder
//     sizes allocations by vector lengths it trusts. Err
//     wraps ErrBadMagic, ErrBadLength, ErrBadFrame, ErrChecksum or
//     ErrBadTransaction. Nothing on disk is changed: an operator decides.
//
// A transaction is replayed only if all its batches are present (index
// 0..count-1, contiguous, one seq); a transaction cut by a torn tail was
// never acknowledged and is dropped with a warning. Transactions for which
// committed(id) is true are skipped; each tx id is returned at most once
// (a crash during compaction can leave it in two segments). The rest are
// returned in log order, and every recovered segment is registered as
// sealed with all its tx ids, so the first Prune after the commit removes
// it. Recovered segments are never appended to; a torn segment with valid
// data stays as a sealed segment. Sequence numbers continue after the
// largest recovered one.
//
// A recovered segment larger than CompactBytes that holds committed
// transactions is compacted: its uncommitted transactions are rewritten
// (same ids and seqs) into a new segment, sealed and dir-synced, before
// the original is removed — or, if it had a torn tail, renamed to
// <segment>.broken.
//
// # Locking (several writers on one directory)
//
// Two processes may open WALs on one directory. Each WAL holds an
// exclusive vfs.Lock on <segment>.lock for every segment it owns (active,
// sealed, recovered), taken before the segment is created, released on
// Close (lock files are kept for reuse) or after Prune removed the segment
// (the lock file is removed too). Open skips segments whose lock is held;
// when a process dies its locks vanish and the next Open recovers its
// segments. Open removes lock files whose segment is gone and whose lock
// is free.
//
// Lock order inside a WAL: pruneMu -> mu -> segment.smu. No caller callback
// (committed) runs under mu.
package wal
