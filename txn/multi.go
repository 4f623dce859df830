package txn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/wal"
)

// Coordinator commits transactions that write several tables atomically
// (see TxLog for the protocol) and gives readers of several tables a
// consistent cut: Publish and ReadLock exclude each other.
type Coordinator struct {
	log *TxLog
	// vis: held exclusively while a multi-table transaction's batches are
	// published to its tables' buffers; shared by a statement while it
	// takes the snapshots of the tables it reads.
	vis sync.RWMutex
}

// NewCoordinator returns a coordinator over log (the same log must be in
// the Options of every table it commits to).
func NewCoordinator(log *TxLog) *Coordinator { return &Coordinator{log: log} }

// Log returns the transaction log.
func (c *Coordinator) Log() *TxLog { return c.log }

// ReadLock is held by a statement while it snapshots the tables it reads:
// a multi-table transaction is then in all of the snapshots or in none.
func (c *Coordinator) ReadLock() { c.vis.RLock() }

// ReadUnlock releases ReadLock.
func (c *Coordinator) ReadUnlock() { c.vis.RUnlock() }

// Part is one table's share of a multi-table transaction.
type Part struct {
	Table *Table
	Recs  []arrow.RecordBatch
	// BatchIDs as in WriteOptions (nil: assigned here).
	BatchIDs []uint64
	// Merge as in WriteOptions; only a single part is merged.
	Merge bool
	// Deletes as in WriteOptions.
	Deletes *Deletes
}

// Commit writes parts as one transaction: once it returns nil, the
// batches of every part are durable and visible in every table; if it
// fails, none is visible and none is replayed by a recovery unless the
// commit record reached the disk (an ambiguous error, as with Write). Each
// table's batches must have its schema. A single part is a plain Write.
func (c *Coordinator) Commit(ctx context.Context, parts []Part, d wal.Durability) ([]WriteResult, error) {
	if len(parts) == 1 {
		res, err := parts[0].Table.Write(ctx, parts[0].Recs, WriteOptions{Durability: d, BatchIDs: parts[0].BatchIDs, Merge: parts[0].Merge, Deletes: parts[0].Deletes})
		return []WriteResult{res}, err
	}
	// Take the tables' maintenance locks in one global order (the prefix):
	// two transactions over the same tables cannot deadlock with a
	// truncate queued on each.
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return parts[order[a]].Table.opts.Prefix < parts[order[b]].Table.opts.Prefix })
	preps := make([]*prepared, len(parts))
	// A panic (a session's panic is recovered by the server) must not leave
	// the tables' maintenance locks held. Nothing is published or marked:
	// whether the transaction committed is for a restart to decide.
	defer func() {
		if r := recover(); r != nil {
			for _, p := range preps {
				if p != nil {
					p.release()
				}
			}
			panic(r)
		}
	}()
	abort := func() {
		for _, p := range preps {
			if p != nil {
				p.abort()
			}
		}
	}
	for _, i := range order {
		p := parts[i]
		if p.Table.opts.TxLog != c.log {
			abort()
			return nil, fmt.Errorf("BUG: txn: table %s is not opened with the coordinator's transaction log", p.Table.opts.Prefix)
		}
		pr, err := p.Table.beginPrepare(ctx, p.Recs, p.BatchIDs, p.Deletes)
		if err != nil {
			abort()
			return nil, err
		}
		preps[i] = pr
	}
	// The participants' WAL appends run concurrently: the commit costs one
	// fdatasync per table in parallel, then the log's.
	errs := make([]error, len(preps))
	var wg sync.WaitGroup
	for i, p := range preps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.append(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		abort()
		return nil, err
	}
	crash.Point(crash.TxAfterPrepare)
	txParts := make([]TxPart, len(preps))
	for i, p := range preps {
		txParts[i] = TxPart{Prefix: p.t.opts.Prefix, TxID: p.res.TxID}
	}
	if err := c.log.Commit(txParts, d == wal.DurabilitySync); err != nil {
		// Ambiguous: the record may be durable. The frames stay in the
		// WALs (not marked aborted) so that a restart decides from the
		// log; nothing is published now.
		for _, p := range preps {
			p.release()
		}
		return nil, err
	}
	crash.Point(crash.TxAfterLog)
	c.vis.Lock()
	for _, p := range preps {
		p.publish()
	}
	c.vis.Unlock()
	out := make([]WriteResult, len(preps))
	for i, p := range preps {
		out[i] = p.res
		p.finish()
	}
	return out, nil
}

// prepared is a table's part of a multi-table transaction between its
// WAL append and its publication. It holds the table's maintenance lock
// (shared) throughout: a truncate or close cannot come in between.
type prepared struct {
	t    *Table
	recs []arrow.RecordBatch
	aux  [][]byte
	dels []Batch // the part's delete records (buffered ahead of res.Batches)
	// unlockStage ends withDeletes' hold on staging (after publish).
	unlockStage func()
	res         WriteResult
	appended    bool
	done        bool
	full        bool
}

// beginPrepare waits for room in the buffer, takes the maintenance lock
// (shared) and assigns the part's tx id and batch ids.
func (t *Table) beginPrepare(ctx context.Context, recs []arrow.RecordBatch, ids []uint64, del *Deletes) (*prepared, error) {
	if len(recs) == 0 && del.Empty() {
		return nil, fmt.Errorf("BUG: txn: empty part of a multi-table transaction for %s", t.opts.Prefix)
	}
	for _, r := range recs {
		if !r.Schema().Equal(t.arrow) {
			return nil, fmt.Errorf("txn: write to %s: batch schema %s does not match table schema %s", t.opts.Prefix, r.Schema(), t.arrow)
		}
	}
	if ids != nil && len(ids) != len(recs) {
		return nil, fmt.Errorf("BUG: txn: %d batch ids for %d batches", len(ids), len(recs))
	}
	if err := t.waitForRoom(ctx); err != nil {
		return nil, err
	}
	t.maint.RLock()
	if t.closed.Load() {
		t.maint.RUnlock()
		return nil, ErrClosed
	}
	p := &prepared{t: t, recs: recs, res: WriteResult{TxID: t.txids.NewMulti()}}
	p.res.Batches = make([]Batch, len(recs))
	for i, r := range recs {
		id := uint64(0)
		if ids != nil {
			id = ids[i]
		} else {
			id = t.nextID.Add(1)
		}
		p.res.Batches[i] = Batch{ID: id, TxID: p.res.TxID, Rec: r, Ord: int32(i)}
		p.res.Rows += r.NumRows()
	}
	walRecs, aux, dels, unlock, err := t.withDeletes(ctx, p.res.TxID, recs, del)
	if err != nil {
		t.maint.RUnlock()
		return nil, err
	}
	p.recs, p.aux, p.dels, p.unlockStage = walRecs, aux, dels, unlock
	return p, nil
}

// append writes the part to the table's WAL and syncs it, whatever the
// session's durability: the commit record must never reach the disk before
// a participant's frames (async commits skip only the log's sync).
func (p *prepared) append(ctx context.Context) error {
	seq, err := p.t.wal.AppendAux(ctx, p.res.TxID, p.recs, p.aux, wal.DurabilitySync)
	if err != nil {
		return fmt.Errorf("txn: write to %s: %w", p.t.opts.Prefix, err)
	}
	p.appended = true
	p.res.Seq = seq
	return nil
}

// publish moves the batches into the active buffer (visible to readers).
// REQUIRES: the coordinator's vis lock held exclusively.
func (p *prepared) publish() {
	p.full = p.t.appendBuffer(append(append([]Batch(nil), p.dels...), p.res.Batches...))
}

// finish releases the maintenance lock after publish.
func (p *prepared) finish() {
	p.release()
	if p.full {
		p.t.requestFlush()
	}
}

// abort ends a part whose transaction will never commit (no commit record
// was written): its frames, if any, are marked so that pruning does not
// wait for them.
func (p *prepared) abort() {
	if p.appended {
		p.t.markAborted(p.res.TxID)
	}
	p.release()
}

func (p *prepared) release() {
	if !p.done {
		p.done = true
		if p.unlockStage != nil {
			p.unlockStage()
		}
		for _, b := range p.dels {
			b.Rec.Release()
		}
		p.t.maint.RUnlock()
	}
}

// markAborted records a flagged transaction that will never commit: its
// WAL frames do not keep a segment from being pruned.
func (t *Table) markAborted(id uuid.UUID) {
	t.abortedMu.Lock()
	if t.aborted == nil {
		t.aborted = map[uuid.UUID]struct{}{}
	}
	t.aborted[id] = struct{}{}
	t.abortedMu.Unlock()
}

func (t *Table) isAborted(id uuid.UUID) bool {
	if !manifest.IsMultiTx(id) {
		return false
	}
	t.abortedMu.Lock()
	defer t.abortedMu.Unlock()
	_, ok := t.aborted[id]
	return ok
}

// resolveLog tells the transaction log which of the table's multi-table
// transactions m holds: their records are no longer needed.
func (t *Table) resolveLog(m *manifest.Manifest) {
	if l := t.opts.TxLog; l != nil && l.HasTable(t.opts.Prefix) {
		l.ResolveTable(t.opts.Prefix, m.Committed().Has)
	}
}
