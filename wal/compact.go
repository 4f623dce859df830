package wal

import (
	"fmt"
	"log/slog"
	"slices"
)

// compactLarge rewrites each recovered segment larger than CompactBytes
// that holds committed transactions: its uncommitted transactions (same
// ids, same sequence numbers, same auxiliary payloads) go to a new segment
// that is sealed, synced and dir-synced before the old one is removed. A
// crash in between leaves both; recovery returns each transaction id
// once, so nothing is duplicated. A torn segment is kept as <name>.broken
// instead of being removed (repairs keep the original). Segments with
// untagged data or a schema other than Options.Schema are left alone.
//
// REQUIRES: called from Open only (no concurrent use yet).
func (w *WAL) compactLarge(recs []Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, old := range slices.Clone(w.mu.sealed) {
		if old.size <= w.opts.CompactBytes || old.untagged {
			continue
		}
		var keep []int
		for i := range recs {
			if recs[i].Segment == old.name {
				keep = append(keep, i)
			}
		}
		if len(keep) == len(old.txs) {
			continue // nothing committed: a rewrite would not shrink it
		}
		schemaOK := true
		for _, i := range keep {
			for _, b := range recs[i].Batches {
				if !b.Schema().Equal(w.opts.Schema) {
					schemaOK = false
				}
			}
		}
		if !schemaOK {
			continue
		}
		torn := old.torn
		var seg *segment
		var err error
		if len(keep) > 0 {
			seg, err = w.createSegmentLocked()
			if err != nil {
				return fmt.Errorf("wal: compact %s: %w", old.name, err)
			}
			w.mu.active = seg
			for _, i := range keep {
				r := recs[i]
				crcs := make([]uint32, len(r.Batches))
				for j, b := range r.Batches {
					if crcs[j], err = dataCRC(b); err != nil {
						return fmt.Errorf("wal: compact %s: %w", old.name, err)
					}
				}
				buf, err := w.encodeLocked(seg, r.TxID, r.Seq, r.Batches, r.Aux, crcs)
				if err != nil {
					return fmt.Errorf("wal: compact %s: %w", old.name, err)
				}
				if err := seg.writeLocked(buf); err != nil {
					return fmt.Errorf("wal: compact %s: %w", old.name, err)
				}
				seg.txs[r.TxID] = struct{}{}
			}
			if err := w.sealLocked(seg); err != nil {
				return fmt.Errorf("wal: compact %s: %w", old.name, err)
			}
		}
		// The rewrite is durable: retire the original.
		if torn {
			err = w.fs.Rename(old.path, old.path+brokenSuffix)
		} else {
			err = w.fs.Remove(old.path)
		}
		if err != nil {
			return fmt.Errorf("wal: compact: retire %s: %w", old.name, err)
		}
		if !w.opts.UnsafeNoSync {
			if err := w.fs.SyncDir(w.opts.Dir); err != nil {
				return fmt.Errorf("wal: compact: sync dir: %w", err)
			}
		}
		_ = w.fs.Remove(old.path + lockSuffix)
		_ = old.lock.Close()
		w.mu.sealed = slices.DeleteFunc(w.mu.sealed, func(s *sealedSegment) bool { return s == old })
		for _, i := range keep {
			recs[i].Segment = seg.name
		}
		w.opts.Logger.Info("wal: compacted segment", slog.String("segment", old.name),
			slog.Int("kept_txs", len(keep)), slog.Int("dropped_txs", len(old.txs)-len(keep)), slog.Bool("kept_broken_copy", torn))
	}
	return nil
}
