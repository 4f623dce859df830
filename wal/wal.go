package wal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// WAL is one table's write-ahead log. It is safe for concurrent use.
//
// Lock order: pruneMu -> mu -> segment.smu. No callback runs under mu.
type WAL struct {
	opts Options
	fs   vfs.FS
	pid  int

	stats stats

	pruneMu sync.Mutex // serialises Prune

	mu struct {
		sync.Mutex
		closed     bool
		active     *segment         // nil until the first append after open/rotate
		sealed     []*sealedSegment // registry of sealed segments, name order
		nextSeq    uint64           // next transaction sequence number
		nextSegSeq uint64           // next segment counter in names
		lastTS     int64            // largest timestamp in any segment name seen
		enc        ipcEncoder       // encodes every append and seal (encode.go)
	}

	lowSpace     atomic.Bool  // a reservation failed for want of space (nospace.go)
	asyncPending atomic.Int64 // async batches not yet covered by a worker sync
	kick         chan struct{}
	stop         chan struct{}
	done         chan struct{}
}

// sealedSegment is a registry entry: a segment no longer appended to.
type sealedSegment struct {
	name     string
	path     string
	lock     io.Closer
	txs      map[uuid.UUID]struct{}
	untagged bool
	size     int64
	torn     bool // recovered with a torn tail (compaction keeps a .broken copy)
}

// SegmentInfo describes a segment, for tests and Describe.
type SegmentInfo struct {
	Name     string
	Sealed   bool
	TxIDs    []uuid.UUID // sorted
	Untagged bool
	Size     int64
}

// Stats are counters since Open.
type Stats struct {
	Appends    int64 // successful Append calls
	Batches    int64 // batches in them
	Syncs      int64 // fdatasync calls on segments
	SyncErrors int64
}

type stats struct {
	appends, batches, syncs, syncErrors atomic.Int64
}

// Stats returns the counters.
func (w *WAL) Stats() Stats {
	return Stats{
		Appends: w.stats.appends.Load(), Batches: w.stats.batches.Load(),
		Syncs: w.stats.syncs.Load(), SyncErrors: w.stats.syncErrors.Load(),
	}
}

// Dir returns the segment directory.
func (w *WAL) Dir() string { return w.opts.Dir }

// Append writes the batches of one transaction contiguously to the active
// segment and returns the transaction's sequence number. With
// DurabilitySync it returns only after an fdatasync covered them; an error
// means the transaction was not acknowledged (it may still be on disk and
// be recovered: an error is ambiguous, never a false acknowledgement). The
// context is checked before writing; once written, Append waits for the
// sync. The caller keeps ownership of batches.
func (w *WAL) Append(ctx context.Context, txID uuid.UUID, batches []arrow.RecordBatch, d Durability) (uint64, error) {
	return w.AppendAux(ctx, txID, batches, nil, d)
}

// MaxAuxBytes bounds one auxiliary payload (AppendAux). Its key and value
// travel in the batch's flatbuffer metadata, whose limit is 64 MiB.
const MaxAuxBytes = 16 << 20

// AppendAux is Append where aux[i], if non-nil, is an opaque payload stored
// with batch i (len(aux) == len(batches), or aux == nil meaning none). A
// payload may be up to MaxAuxBytes. The WAL does not interpret it: it is
// stored (metadata key bsdb.wal.aux), covered by the batch's checksum and
// returned in Record.Aux by Open. A zero-length non-nil payload is a
// payload: it is recovered as a non-nil empty slice. The caller keeps
// ownership of aux; the WAL does not retain it after AppendAux returns.
func (w *WAL) AppendAux(ctx context.Context, txID uuid.UUID, batches []arrow.RecordBatch, aux [][]byte, d Durability) (uint64, error) {
	if txID == uuid.Nil {
		return 0, errors.New("wal: append: nil transaction id")
	}
	if len(batches) == 0 {
		return 0, errors.New("wal: append: no batches")
	}
	if d != DurabilitySync && d != DurabilityAsync {
		return 0, fmt.Errorf("wal: append: bad durability %d", d)
	}
	if aux != nil && len(aux) != len(batches) {
		return 0, fmt.Errorf("wal: append: %d auxiliary payloads for %d batches", len(aux), len(batches))
	}
	for i, a := range aux {
		if len(a) > MaxAuxBytes {
			return 0, fmt.Errorf("wal: append: batch %d: auxiliary payload of %d bytes exceeds the limit of %d", i, len(a), MaxAuxBytes)
		}
	}
	crcs := make([]uint32, len(batches))
	for i, b := range batches {
		if !b.Schema().Equal(w.opts.Schema) {
			return 0, fmt.Errorf("wal: append: batch %d schema %s differs from the table schema %s", i, b.Schema(), w.opts.Schema)
		}
		c, err := dataCRC(b)
		if err != nil {
			return 0, fmt.Errorf("wal: append: batch %d: %w", i, err)
		}
		crcs[i] = c
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}

	w.mu.Lock()
	seg, err := w.activeLocked()
	if err != nil {
		w.mu.Unlock()
		return 0, err
	}
	seq := w.mu.nextSeq
	w.mu.nextSeq++
	buf, err := w.encodeLocked(seg, txID, seq, batches, aux, crcs)
	if err != nil {
		w.mu.Unlock()
		return 0, err
	}
	if err := seg.writeLocked(buf); err != nil {
		w.mu.Unlock()
		return 0, err
	}
	seg.txs[txID] = struct{}{}
	end := seg.size
	w.mu.Unlock()

	crash.Point(crash.WALAfterAppend)
	switch {
	case w.opts.UnsafeNoSync:
	case d == DurabilitySync:
		if err := seg.waitSynced(end); err != nil {
			return 0, fmt.Errorf("wal: append tx %s: %w", txID, err)
		}
		crash.Point(crash.WALAfterSync)
	default:
		if w.asyncPending.Add(int64(len(batches))) >= int64(w.opts.SyncBatchSize) {
			select {
			case w.kick <- struct{}{}:
			default:
			}
		}
	}
	w.stats.appends.Add(1)
	w.stats.batches.Add(int64(len(batches)))
	return seq, nil
}

// encodeLocked encodes the tagged batches (after the schema message if
// they start seg's stream) and returns the bytes to write, valid until the
// next call. aux is nil or parallel to batches (nil entries: no payload).
// An error leaves seg untouched and usable: nothing was written.
// REQUIRES: w.mu held.
func (w *WAL) encodeLocked(seg *segment, txID uuid.UUID, seq uint64, batches []arrow.RecordBatch, aux [][]byte, crcs []uint32) ([]byte, error) {
	e := &w.mu.enc
	e.reset()
	if seg.size == 0 {
		sm, err := e.schemaMessage(w.opts.Schema)
		if err != nil {
			return nil, fmt.Errorf("wal: append tx %s: schema: %w", txID, err)
		}
		e.out = append(e.out, sm...)
	}
	count := uint32(len(batches))
	for i, b := range batches {
		idx := uint32(i)
		var a []byte
		if aux != nil {
			a = aux[i]
		}
		if err := e.appendBatch(b, txID, seq, idx, count, finishCRC(crcs[i], txID, seq, idx, count, a), a); err != nil {
			return nil, fmt.Errorf("wal: append tx %s: batch %d: %w", txID, i, err)
		}
	}
	return e.out, nil
}

// endStreamLocked returns the bytes that finish seg's stream: the
// end-of-stream marker, after the schema message if the stream is empty
// (what ipc.Writer.Close writes).
// REQUIRES: w.mu held.
func (w *WAL) endStreamLocked(seg *segment) ([]byte, error) {
	e := &w.mu.enc
	e.reset()
	if seg.size == 0 {
		sm, err := e.schemaMessage(w.opts.Schema)
		if err != nil {
			return nil, err
		}
		e.out = append(e.out, sm...)
	}
	e.out = append(e.out, eosMarker...)
	return e.out, nil
}

// activeLocked returns a usable active segment, retiring a failed one and
// creating a new one as needed.
// REQUIRES: w.mu held.
func (w *WAL) activeLocked() (*segment, error) {
	if w.mu.closed {
		return nil, ErrClosed
	}
	if s := w.mu.active; s != nil {
		if s.usableLocked() {
			return s, nil
		}
		w.retireLocked(s)
	}
	s, err := w.createSegmentLocked()
	if err != nil {
		return nil, err
	}
	w.mu.active = s
	return s, nil
}

// retireLocked moves a failed active segment to the registry without an
// end-of-stream marker or sync: whatever reached the disk is recovered on
// the next Open (its tail reads as torn).
// REQUIRES: w.mu held.
func (w *WAL) retireLocked(s *segment) {
	if err := s.close(); err != nil {
		w.opts.Logger.Warn("wal: closing failed segment", slog.String("segment", s.name), slog.Any("err", err))
	}
	w.registerLocked(s)
	w.mu.active = nil
}

func (w *WAL) registerLocked(s *segment) {
	w.mu.sealed = append(w.mu.sealed, &sealedSegment{
		name: s.name, path: s.path, lock: s.lock, txs: s.txs, size: s.size,
	})
	sort.Slice(w.mu.sealed, func(i, j int) bool { return w.mu.sealed[i].name < w.mu.sealed[j].name })
}

// createSegmentLocked creates, locks and dir-syncs a new segment file.
// REQUIRES: w.mu held.
func (w *WAL) createSegmentLocked() (*segment, error) {
	for attempt := 0; ; attempt++ {
		ts := time.Now().UnixMicro()
		if ts <= w.mu.lastTS {
			ts = w.mu.lastTS + 1
		}
		w.mu.lastTS = ts
		w.mu.nextSegSeq++
		name := segmentName(ts, w.pid, w.mu.nextSegSeq)
		path := filepath.Join(w.opts.Dir, name)
		// Lock first: another process never sees an unlocked segment of ours.
		lk, err := w.fs.Lock(path + lockSuffix)
		if err != nil {
			if errors.Is(err, vfs.ErrLocked) && attempt < 8 {
				continue
			}
			return nil, fmt.Errorf("wal: lock new segment: %w", err)
		}
		f, err := w.fs.Create(path)
		if err != nil {
			lk.Close()
			if errors.Is(err, fs.ErrExist) && attempt < 8 {
				continue
			}
			_ = w.fs.Remove(path + lockSuffix)
			return nil, fmt.Errorf("wal: create segment: %w", err)
		}
		if !w.opts.UnsafeNoSync {
			if err := w.fs.SyncDir(w.opts.Dir); err != nil {
				f.Close()
				_ = w.fs.Remove(path)
				_ = w.fs.Remove(path + lockSuffix)
				lk.Close()
				return nil, fmt.Errorf("wal: sync dir after creating %s: %w", name, err)
			}
		}
		s := newSegment(w, name, path, lk, f)
		if w.opts.Preallocate > 0 {
			switch err := vfs.Allocate(f, w.opts.Preallocate); {
			case err == nil:
				s.alloc = w.opts.Preallocate
				w.spaceBack()
			case errors.Is(err, vfs.ErrNoAllocate):
			case isNoSpace(err):
				// A full disk: plain appends, which need only their own
				// bytes (a one-row INSERT with 10 MB free must not fail for
				// want of 16). What fallocate reserved before failing stays
				// until sealing trims it.
				s.allocOff, s.zoff = true, true
				if fi, serr := f.Stat(); serr == nil {
					s.alloc = fi.Size()
				}
				w.noSpace(name, err)
			default:
				f.Close()
				_ = w.fs.Remove(path)
				_ = w.fs.Remove(path + lockSuffix)
				lk.Close()
				return nil, fmt.Errorf("wal: preallocate %s: %w", name, err)
			}
		}
		return s, nil
	}
}

// Sync makes every append so far durable (in any durability mode).
func (w *WAL) Sync() error {
	w.mu.Lock()
	s := w.mu.active
	w.mu.Unlock()
	if s == nil {
		return nil
	}
	err := s.waitSynced(s.written.Load())
	if errors.Is(err, errSegmentClosed) {
		// Sealed meanwhile: sealing synced it, or failed and said so.
		return nil
	}
	return err
}

// asyncWorker syncs DurabilityAsync appends every SyncBatchSize batches or
// SyncInterval.
func (w *WAL) asyncWorker() {
	defer close(w.done)
	t := time.NewTicker(w.opts.SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		case <-w.kick:
		}
		if w.asyncPending.Swap(0) == 0 {
			continue
		}
		if err := w.Sync(); err != nil {
			w.opts.Logger.Error("wal: async sync failed", slog.Any("err", err))
		}
	}
}

// Segments describes the active and sealed segments, in name order.
func (w *WAL) Segments() []SegmentInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []SegmentInfo
	for _, s := range w.mu.sealed {
		out = append(out, SegmentInfo{Name: s.name, Sealed: true, TxIDs: sortedTxs(s.txs), Untagged: s.untagged, Size: s.size})
	}
	if s := w.mu.active; s != nil {
		out = append(out, SegmentInfo{Name: s.name, TxIDs: sortedTxs(s.txs), Size: s.size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sortedTxs(m map[uuid.UUID]struct{}) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i][:]) < string(out[j][:]) })
	return out
}

// Close seals the active segment (end-of-stream marker, sync), stops the
// worker and releases every lock. Files are kept; the next Open recovers
// them. Close is idempotent.
func (w *WAL) Close() error {
	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return nil
	}
	w.mu.closed = true
	var errs []error
	if s := w.mu.active; s != nil {
		if err := w.sealLocked(s); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range w.mu.sealed {
		if err := s.lock.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	w.mu.sealed = nil
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	return errors.Join(errs...)
}
