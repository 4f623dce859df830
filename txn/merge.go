package txn

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bsdb/bsdb-pg/storage/parquet"
	"github.com/bsdb/bsdb-pg/wal"
)

// Merged writes. Many connections inserting a row each (autocommit) would
// each pay a WAL transaction: an Arrow IPC encoding with its metadata, a
// checksum, a write, a buffered batch, and later a batch to scan and to
// mirror. Most of that is per transaction, not per row. So small writes
// that arrive while another one of the table is being made durable queue
// up, and the next one to go takes the whole queue: their rows are
// concatenated into one batch, written as ONE WAL transaction (one append,
// one fdatasync) and published as one buffered batch; then every writer of
// the group gets the result.
//
// Nothing changes for a writer: its rows are acknowledged only after the
// group's transaction is durable (per the strongest durability asked for
// in the group) and visible, and a failure fails every write of the group
// (each gets the error, none is acknowledged; as for Write, the rows may
// still be recovered if they reached the disk). A group is atomic: after a
// crash all of its rows are replayed or none, and none of them was
// acknowledged unless all were durable.
//
// The queue is led by one writer at a time: the first to arrive at an idle
// queue leads at once (no waiting: a lone writer pays two mutex operations
// more than Write), the others wait for their group's result or for being
// handed the lead. There is no timer: a group is what arrived while the
// previous one was encoded, written and synced, which is the group commit
// of the WAL moved up to where whole batches can be merged.

// mergeMaxRows: writes of at most this many rows are merged (the copying
// of a concatenation pays for itself only for small batches).
const mergeMaxRows = 256

// mergeMaxGroupRows bounds the rows of one group.
const mergeMaxGroupRows = 64 << 10

// mergeQueue is a table's queue of small writes. Guarded by mu.
type mergeQueue struct {
	busy bool // a leader is committing a group
	reqs []*mergeReq
}

// mergeReq is one queued write.
type mergeReq struct {
	recs []arrow.RecordBatch
	rows int64
	d    wal.Durability
	// Set before done is closed.
	lead bool // handed the lead: commit the queue's next group
	res  WriteResult
	err  error
	done chan struct{}
}

func totalRows(recs []arrow.RecordBatch) int64 {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	return n
}

// writeMerged queues recs and returns the result of the group that took
// them. ctx is checked before the write is queued; once queued, the write
// is made or failed with its group (an abandoned wait would leave its
// outcome unknown to the client anyway).
func (t *Table) writeMerged(ctx context.Context, recs []arrow.RecordBatch, rows int64, d wal.Durability) (WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return WriteResult{}, err
	}
	req := &mergeReq{recs: recs, rows: rows, d: d, done: make(chan struct{})}
	t.mq.mu.Lock()
	t.mq.q.reqs = append(t.mq.q.reqs, req)
	if t.mq.q.busy {
		t.mq.mu.Unlock()
		<-req.done
		if !req.lead {
			return req.res, req.err
		}
	} else {
		t.mq.q.busy = true
		t.mq.mu.Unlock()
	}
	// Leading: req is at the head of the queue, so in the group taken now.
	defer t.handOver()
	t.mq.mu.Lock()
	group := t.takeGroupLocked()
	t.mq.mu.Unlock()
	t.commitGroup(context.WithoutCancel(ctx), group, req)
	return req.res, req.err
}

// handOver ends a leader's turn (also when its group panicked): the lead
// goes to the oldest waiter, or the queue becomes idle.
func (t *Table) handOver() {
	t.mq.mu.Lock()
	defer t.mq.mu.Unlock()
	if len(t.mq.q.reqs) > 0 {
		next := t.mq.q.reqs[0]
		next.lead = true
		close(next.done)
		return
	}
	t.mq.q.busy = false
}

// takeGroupLocked removes the next group from the queue: its head and the
// writes after it up to mergeMaxGroupRows rows.
// REQUIRES: t.mq.mu held.
func (t *Table) takeGroupLocked() []*mergeReq {
	q := &t.mq.q
	n, rows := 1, q.reqs[0].rows
	for n < len(q.reqs) && rows+q.reqs[n].rows <= mergeMaxGroupRows {
		rows += q.reqs[n].rows
		n++
	}
	group := make([]*mergeReq, n)
	copy(group, q.reqs)
	rest := copy(q.reqs, q.reqs[n:])
	clear(q.reqs[rest:])
	q.reqs = q.reqs[:rest]
	return group
}

// commitGroup writes the group as one transaction and tells every member
// but self (the leader) its result. A panic fails the group before it
// goes on up.
func (t *Table) commitGroup(ctx context.Context, group []*mergeReq, self *mergeReq) {
	finish := func(res WriteResult, err error) {
		for _, r := range group {
			r.res, r.err = res, err
			r.res.Rows = r.rows
			if r != self {
				close(r.done)
			}
		}
	}
	defer func() {
		if p := recover(); p != nil {
			finish(WriteResult{}, fmt.Errorf("txn: merged write to %s: panic: %v", t.opts.Prefix, p))
			panic(p)
		}
	}()
	d := wal.DurabilityAsync
	var recs []arrow.RecordBatch
	for _, r := range group {
		if r.d == wal.DurabilitySync {
			d = wal.DurabilitySync
		}
		recs = append(recs, r.recs...)
	}
	if len(recs) > 1 {
		merged, err := parquet.ConcatBatches(recs, memory.DefaultAllocator)
		if err != nil {
			finish(WriteResult{}, fmt.Errorf("txn: merged write to %s: %w", t.opts.Prefix, err))
			return
		}
		defer merged.Release()
		recs = []arrow.RecordBatch{merged}
	}
	res, err := t.write(ctx, recs, WriteOptions{Durability: d})
	res.Batches = nil
	finish(res, err)
}
