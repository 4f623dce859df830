package wal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// Record is one recovered transaction, in log order. Batches have the
// user schema (WAL metadata stripped); the caller releases them. Untagged
// data (batches without WAL metadata, from a foreign or legacy stream) is
// returned as a Record with TxID uuid.Nil and Seq 0, one per run of
// consecutive untagged batches.
type Record struct {
	TxID    uuid.UUID
	Seq     uint64
	Batches []arrow.RecordBatch
	// Aux is parallel to Batches: Aux[i] is the auxiliary payload batch i
	// was appended with (AppendAux), nil when it had none (a zero-length
	// payload is recovered as a non-nil empty slice). Aux is nil when no
	// batch of the record had one.
	Aux     [][]byte
	Segment string
}

// Release releases the record's batches.
func (r *Record) Release() {
	for _, b := range r.Batches {
		b.Release()
	}
	r.Batches, r.Aux = nil, nil
}

// Open recovers the segments in opts.Dir and returns a WAL ready for
// appends with the transactions to replay: those not satisfying committed,
// complete, in log order, each exactly once. See doc.go for the rules. On
// a *CorruptionError nothing on disk has been changed.
func Open(opts Options, committed func(uuid.UUID) bool) (*WAL, []Record, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	if committed == nil {
		committed = func(uuid.UUID) bool { return false }
	}
	w := &WAL{opts: opts, fs: opts.FS, pid: os.Getpid(),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.mu.nextSeq = 1
	if err := w.fs.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("wal: open: %w", err)
	}
	recs, err := w.recover(committed)
	if err != nil {
		for _, s := range w.mu.sealed {
			s.lock.Close()
		}
		for i := range recs {
			recs[i].Release()
		}
		return nil, nil, err
	}
	go w.asyncWorker()
	return w, recs, nil
}

// owned is a segment locked by this WAL during recovery.
type owned struct {
	name, path string
	lock       io.Closer
	contents   *segmentContents
	size       int64
}

func (w *WAL) recover(committed func(uuid.UUID) bool) ([]Record, error) {
	log := w.opts.Logger
	names, err := w.fs.ReadDir(w.opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("wal: open: list %s: %w", w.opts.Dir, err)
	}
	present := map[string]bool{}
	for _, n := range names {
		present[n] = true
	}
	w.cleanOrphanLocks(names, present)

	// Phase 1: lock and read every segment; any corruption aborts before
	// anything is changed on disk.
	var segs []*owned
	release := func() {
		for _, o := range segs {
			o.lock.Close()
			if o.contents != nil {
				o.contents.release()
			}
		}
	}
	for _, name := range names {
		if !isSegment(name) {
			continue
		}
		if ts := segmentTS(name); ts > w.mu.lastTS {
			w.mu.lastTS = ts
		}
		o, err := w.readOwned(name)
		if err != nil {
			release()
			return nil, err
		}
		if o != nil {
			segs = append(segs, o)
		}
	}

	// Phase 2: assemble transactions, in name order, each tx id once.
	seen := map[uuid.UUID]bool{}
	var recs []Record
	for _, o := range segs {
		c := o.contents
		reg := &sealedSegment{name: o.name, path: o.path, lock: o.lock, txs: map[uuid.UUID]struct{}{}, size: o.size, torn: c.tail == tailTorn}
		txs, err := assemble(o.name, c)
		if err != nil {
			for i := range recs {
				recs[i].Release()
			}
			release()
			return nil, err
		}
		if c.tail == tailTorn {
			log.Warn("wal: torn tail: segment ends with an incomplete frame; every complete batch before it is kept",
				slog.String("segment", o.name), slog.Int64("offset", c.tailOff), slog.String("reason", c.reason))
		}
		for _, t := range txs {
			if t.incomplete {
				log.Warn("wal: dropping an incomplete transaction cut by the end of the segment",
					slog.String("segment", o.name), slog.String("tx", t.tx.String()), slog.Int64("offset", t.off))
				t.release()
				continue
			}
			if t.tx == uuid.Nil {
				reg.untagged = true
			} else {
				reg.txs[t.tx] = struct{}{}
				if t.seq >= w.mu.nextSeq {
					w.mu.nextSeq = t.seq + 1
				}
				if seen[t.tx] || committed(t.tx) {
					t.release()
					continue
				}
				seen[t.tx] = true
			}
			recs = append(recs, Record{TxID: t.tx, Seq: t.seq, Batches: t.batches, Aux: t.aux, Segment: o.name})
		}
		c.batches = nil // ownership moved to recs
		w.mu.sealed = append(w.mu.sealed, reg)
	}

	// Phase 3: compact large segments (rewrites only; nothing dropped that
	// is not committed, and the rewrite is durable before the removal).
	if err := w.compactLarge(recs); err != nil {
		for i := range recs {
			recs[i].Release()
		}
		for _, s := range w.mu.sealed {
			s.lock.Close()
		}
		w.mu.sealed = nil
		return nil, err
	}
	return recs, nil
}

// readOwned locks and reads one segment. It returns nil, nil for a segment
// locked by another live WAL or one that vanished.
func (w *WAL) readOwned(name string) (*owned, error) {
	path := filepath.Join(w.opts.Dir, name)
	lk, err := w.fs.Lock(path + lockSuffix)
	if errors.Is(err, vfs.ErrLocked) {
		w.opts.Logger.Info("wal: skipping a segment locked by another writer", slog.String("segment", name))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wal: open: lock %s: %w", name, err)
	}
	f, err := w.fs.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		_ = w.fs.Remove(path + lockSuffix)
		lk.Close()
		return nil, nil
	}
	if err != nil {
		lk.Close()
		return nil, fmt.Errorf("wal: open: %w", err)
	}
	data, m, err := loadSegment(f, w.opts.NoMmap)
	f.Close()
	if err != nil {
		lk.Close()
		return nil, fmt.Errorf("wal: open: read %s: %w", name, err)
	}
	c, err := readSegmentFrom(name, data, m)
	if err != nil {
		lk.Close()
		return nil, err
	}
	return &owned{name: name, path: path, lock: lk, contents: c, size: int64(len(data))}, nil
}

// cleanOrphanLocks removes lock files whose segment is gone (pruned by a
// writer that died before removing the lock file) and nobody holds.
func (w *WAL) cleanOrphanLocks(names []string, present map[string]bool) {
	for _, n := range names {
		seg, ok := strings.CutSuffix(n, lockSuffix)
		if !ok || !isSegment(seg) || present[seg] {
			continue
		}
		path := filepath.Join(w.opts.Dir, n)
		lk, err := w.fs.Lock(path)
		if err != nil {
			continue // held: its owner is creating the segment
		}
		if _, err := w.fs.Stat(filepath.Join(w.opts.Dir, seg)); errors.Is(err, fs.ErrNotExist) {
			_ = w.fs.Remove(path)
		}
		lk.Close()
	}
}

// txn is one transaction found in a segment.
type txn struct {
	tx         uuid.UUID // Nil for a run of untagged batches
	seq        uint64
	batches    []arrow.RecordBatch
	aux        [][]byte // parallel to batches; nil while no batch has a payload
	off        int64
	incomplete bool
}

// add appends a batch and its auxiliary payload (nil if none).
func (t *txn) add(b batch) {
	t.batches = append(t.batches, b.rec)
	if b.aux != nil && t.aux == nil {
		t.aux = make([][]byte, len(t.batches)-1, cap(t.batches))
	}
	if t.aux != nil {
		t.aux = append(t.aux, b.aux)
	}
}

func (t *txn) release() {
	for _, b := range t.batches {
		b.Release()
	}
	t.batches, t.aux = nil, nil
}

// assemble groups a segment's batches into transactions. The batches of a
// transaction are contiguous with indexes 0..count-1 and one seq. Only the
// end of a segment that did not end cleanly may cut a transaction (the
// crash tore the tail, or the write failed and the segment was retired);
// anything else is corruption.
func assemble(name string, c *segmentContents) ([]*txn, error) {
	var out []*txn
	var cur *txn
	var want, count uint32
	// On failure the batches stay owned by c (the caller releases them).
	fail := func(off int64, format string, args ...any) ([]*txn, error) {
		return nil, corrupt(name, off, ErrBadTransaction, format, args...)
	}
	for _, b := range c.batches {
		switch {
		case !b.tagged:
			if cur != nil && cur.tx != uuid.Nil {
				return fail(b.off, "transaction %s interrupted by untagged data", cur.tx)
			}
			if cur == nil {
				cur = &txn{off: b.off}
				out = append(out, cur)
			}
			cur.add(b)
		case cur != nil && cur.tx != uuid.Nil:
			if b.tx != cur.tx || b.seq != cur.seq || b.count != count || b.index != want {
				return fail(b.off, "transaction %s (batch %d of %d) interrupted by %s batch %d of %d", cur.tx, want, count, b.tx, b.index, b.count)
			}
			cur.add(b)
			want++
			if want == count {
				cur.incomplete = false
				cur = nil
			}
		default:
			if b.index != 0 {
				return fail(b.off, "transaction %s starts at batch %d of %d", b.tx, b.index, b.count)
			}
			cur = &txn{tx: b.tx, seq: b.seq, off: b.off, incomplete: true}
			cur.add(b)
			out = append(out, cur)
			want, count = 1, b.count
			if want == count {
				cur.incomplete = false
				cur = nil
			}
		}
	}
	if cur != nil && cur.incomplete && c.tail == tailEOS {
		return fail(cur.off, "transaction %s incomplete before the end-of-stream marker", cur.tx)
	}
	return out, nil
}

// readFile reads a whole file into a buffer sized from Stat.
func readFile(f vfs.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+512))
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}
