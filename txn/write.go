package txn

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/wal"
)

// WriteOptions tune one Write.
type WriteOptions struct {
	Durability wal.Durability
	// BeforeAppend, if set, runs before the WAL append with the batches as
	// they will be published (ids assigned). If it fails, nothing is written.
	// If the write fails after it ran, AfterFailure runs with the same batches.
	BeforeAppend func([]Batch) error
	AfterFailure func([]Batch)
	// BatchIDs, if set, are the ids of the batches (from AllocBatchIDs), one
	// per batch; the caller mirrored them already.
	BatchIDs []uint64
	// Merge lets a small write (at most mergeMaxRows rows, no BeforeAppend
	// or AfterFailure) share one WAL transaction and one buffered batch
	// with the small writes that other goroutines make to the table at the
	// same time (see writeMerged). The caller must not rely on batch ids:
	// the result has no Batches, and BatchIDs are not used.
	Merge bool
	// Deletes, if set, are committed rows the transaction deletes (claimed
	// with Claim): a delete record joins the WAL transaction ahead of the
	// batches, so that an UPDATE's old and new row versions change in one
	// transaction. It is not among WriteResult.Batches.
	Deletes *Deletes
}

// AllocBatchIDs reserves n batch ids for a later Write.
func (t *Table) AllocBatchIDs(n int) []uint64 {
	last := t.nextID.Add(uint64(n))
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = last - uint64(n) + 1 + uint64(i)
	}
	return ids
}

// WriteResult describes an acknowledged write.
type WriteResult struct {
	TxID    uuid.UUID
	Seq     uint64
	Rows    int64
	Batches []Batch // nil for a merged write
}

// Write writes recs as one transaction. It returns once the transaction is
// durable per opts.Durability and visible to every reader. The caller keeps
// its references to recs (Write retains what it keeps).
func (t *Table) Write(ctx context.Context, recs []arrow.RecordBatch, opts WriteOptions) (WriteResult, error) {
	if len(recs) == 0 && opts.Deletes.Empty() {
		return WriteResult{}, nil
	}
	for _, r := range recs {
		if !r.Schema().Equal(t.arrow) {
			return WriteResult{}, fmt.Errorf("txn: write to %s: batch schema %s does not match table schema %s", t.opts.Prefix, r.Schema(), t.arrow)
		}
	}
	if err := t.waitForRoom(ctx); err != nil {
		return WriteResult{}, err
	}
	if opts.Merge && opts.BeforeAppend == nil && opts.AfterFailure == nil && opts.Deletes.Empty() {
		if rows := totalRows(recs); rows <= mergeMaxRows {
			return t.writeMerged(ctx, recs, rows, opts.Durability)
		}
	}
	return t.write(ctx, recs, opts)
}

// write is Write without merging.
func (t *Table) write(ctx context.Context, recs []arrow.RecordBatch, opts WriteOptions) (WriteResult, error) {
	t.maint.RLock()
	if t.closed.Load() {
		t.maint.RUnlock()
		return WriteResult{}, ErrClosed
	}
	res := WriteResult{TxID: t.txids.New()}
	res.Batches = make([]Batch, len(recs))
	if opts.BatchIDs != nil && len(opts.BatchIDs) != len(recs) {
		t.maint.RUnlock()
		return WriteResult{}, fmt.Errorf("BUG: txn: %d batch ids for %d batches", len(opts.BatchIDs), len(recs))
	}
	for i, r := range recs {
		id := uint64(0)
		if opts.BatchIDs != nil {
			id = opts.BatchIDs[i]
		} else {
			id = t.nextID.Add(1)
		}
		res.Batches[i] = Batch{ID: id, TxID: res.TxID, Rec: r, Ord: int32(i)}
		res.Rows += r.NumRows()
	}
	if opts.BeforeAppend != nil {
		if err := opts.BeforeAppend(res.Batches); err != nil {
			t.maint.RUnlock()
			return WriteResult{}, err
		}
	}
	walRecs, aux, delBatches, unlock, err := t.withDeletes(ctx, res.TxID, recs, opts.Deletes)
	if err != nil {
		t.maint.RUnlock()
		if opts.AfterFailure != nil {
			opts.AfterFailure(res.Batches)
		}
		return WriteResult{}, err
	}
	for _, b := range delBatches {
		defer b.Rec.Release()
	}
	seq, err := t.wal.AppendAux(ctx, res.TxID, walRecs, aux, opts.Durability)
	if err != nil {
		unlock()
		t.maint.RUnlock()
		if opts.AfterFailure != nil {
			opts.AfterFailure(res.Batches)
		}
		return WriteResult{}, fmt.Errorf("txn: write to %s: %w", t.opts.Prefix, err)
	}
	res.Seq = seq
	buffered := res.Batches
	if delBatches != nil {
		buffered = append(delBatches, res.Batches...)
	}
	full := t.appendBuffer(buffered)
	unlock()
	t.maint.RUnlock()
	if full {
		t.requestFlush()
	}
	return res, nil
}

// withDeletes returns the WAL batches and payloads of a transaction: its
// delete record (if d deletes anything) ahead of recs. The delete record's
// buffered batch is returned too (the caller releases its record).
//
// When d deletes rows of buffered batches, the returned unlock must be
// called once the delete record is in the buffer (or the write failed).
func (t *Table) withDeletes(ctx context.Context, tx uuid.UUID, recs []arrow.RecordBatch, d *Deletes) ([]arrow.RecordBatch, [][]byte, []Batch, func(), error) {
	if d.Empty() {
		return recs, nil, nil, func() {}, nil
	}
	unlock, err := t.checkDeletable(ctx, d)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var dels []Batch
	var walRecs []arrow.RecordBatch
	var aux [][]byte
	for _, part := range splitDeletes(d, deleteRecordRows) {
		b := Batch{ID: t.nextID.Add(1), TxID: tx, Rec: t.emptyRecord(), Del: part}
		dels = append(dels, b)
		walRecs = append(walRecs, b.Rec)
		aux = append(aux, encodeDeletes(part))
	}
	walRecs = append(walRecs, recs...)
	aux = append(aux, make([][]byte, len(recs))...)
	return walRecs, aux, dels, unlock, nil
}

// deleteRecordRows bounds the positions of one delete record: at most 10
// bytes each in the payload, within wal.MaxAuxBytes.
const deleteRecordRows = wal.MaxAuxBytes / 10

// splitDeletes cuts d into pieces of at most n positions.
func splitDeletes(d *Deletes, n int) []*Deletes {
	var out []*Deletes
	cur := &Deletes{}
	room := n
	for _, f := range d.Files {
		pos := f.Pos
		for len(pos) > 0 {
			k := min(room, len(pos))
			cur.Files = append(cur.Files, FileDeletes{File: f.File, Pos: pos[:k]})
			pos = pos[k:]
			room -= k
			if room == 0 {
				out = append(out, cur)
				cur, room = &Deletes{}, n
			}
		}
	}
	if len(cur.Files) > 0 || len(out) == 0 {
		out = append(out, cur)
	}
	// Rows of buffered batches (bounded by the buffer) go with the first.
	out[0].Bufs = d.Bufs
	return out
}

// appendBuffer makes durable batches visible: they join the active buffer
// (retained). It reports whether the buffer reached the commit threshold.
func (t *Table) appendBuffer(batches []Batch) (full bool) {
	var n int64
	for _, b := range batches {
		b.Rec.Retain()
		n += recordBytes(b.Rec)
	}
	t.pwMu.Lock()
	defer t.pwMu.Unlock()
	if len(t.pw.batches) == 0 {
		t.pw.oldest = time.Now()
	}
	t.pw.batches = append(t.pw.batches, batches...)
	t.pw.bytes += n
	return t.pw.bytes >= t.opts.FlushBytes
}

// waitForRoom applies backpressure: while the buffer holds more than twice
// the commit threshold (commits are not keeping up), writers wait for a
// commit to drain it. The buffer, and memory, stay bounded.
func (t *Table) waitForRoom(ctx context.Context) error {
	for {
		t.pwMu.RLock()
		full := t.pw.bytes > 2*t.opts.FlushBytes
		t.pwMu.RUnlock()
		if !full {
			return nil
		}
		t.requestFlush()
		t.drainMu.Lock()
		ch := t.drained
		t.drainMu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if t.closed.Load() {
			return ErrClosed
		}
	}
}

// signalDrained wakes writers waiting for room.
func (t *Table) signalDrained() {
	t.drainMu.Lock()
	close(t.drained)
	t.drained = make(chan struct{})
	t.drainMu.Unlock()
}

// BufferedBytes returns the bytes held in the active buffer.
func (t *Table) BufferedBytes() int64 {
	t.pwMu.RLock()
	defer t.pwMu.RUnlock()
	return t.pw.bytes
}
