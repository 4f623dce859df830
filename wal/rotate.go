package wal

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/internal/crash"
)

// Rotate seals the active segment (end-of-stream marker, fdatasync, close,
// directory sync) and registers it with its transaction ids. The next
// Append opens a new segment, so writers arriving while the caller commits
// the sealed data never wait for that commit. An append racing with Rotate
// lands, and is registered, in exactly one of the two segments (both
// happen under WAL.mu). Rotate with no active segment does nothing.
//
// If sealing fails the segment is still retired into the registry (its
// data stays on disk and is recovered by the next Open) and the error is
// returned: the caller must not treat its transactions as durable.
func (w *WAL) Rotate() error {
	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	s := w.mu.active
	if s == nil {
		w.mu.Unlock()
		return nil
	}
	err := w.sealLocked(s)
	w.mu.Unlock()
	if err == nil {
		crash.Point(crash.WALAfterRotateSeal)
	}
	return err
}

// sealLocked finishes the stream of s and moves it to the registry.
// REQUIRES: w.mu held; s == w.mu.active.
func (w *WAL) sealLocked(s *segment) error {
	var err error
	if s.failed == nil {
		if tail, cerr := w.endStreamLocked(s); cerr != nil {
			err = fmt.Errorf("wal: seal %s: finish stream: %w", s.name, cerr)
		} else if werr := s.writeLocked(tail); werr != nil {
			err = fmt.Errorf("wal: seal: %w", werr)
		} else if terr := s.trimLocked(); terr != nil {
			err = fmt.Errorf("wal: seal: %w", terr)
		} else if serr := s.waitSynced(s.size); serr != nil {
			err = fmt.Errorf("wal: seal: %w", serr)
		}
	} else {
		err = fmt.Errorf("wal: seal: %w", s.failed)
	}
	if cerr := s.close(); cerr != nil && err == nil {
		err = fmt.Errorf("wal: seal %s: close: %w", s.name, cerr)
	}
	if err == nil && !w.opts.UnsafeNoSync {
		if derr := w.fs.SyncDir(w.opts.Dir); derr != nil {
			err = fmt.Errorf("wal: seal %s: sync dir: %w", s.name, derr)
		}
	}
	w.registerLocked(s)
	w.mu.active = nil
	return err
}

// Prune deletes every sealed segment that holds no untagged data and whose
// every transaction id satisfies committed, then syncs the directory. It
// never touches the active segment. committed is called without any WAL
// lock held. It returns the names removed.
func (w *WAL) Prune(committed func(uuid.UUID) bool) ([]string, error) {
	w.pruneMu.Lock()
	defer w.pruneMu.Unlock()

	w.mu.Lock()
	if w.mu.closed {
		w.mu.Unlock()
		return nil, ErrClosed
	}
	snapshot := slices.Clone(w.mu.sealed)
	w.mu.Unlock()

	// Sealed entries are immutable and only Prune removes them (pruneMu),
	// so deciding outside w.mu is safe.
	var victims []*sealedSegment
	for _, s := range snapshot {
		if s.untagged {
			continue
		}
		all := true
		for id := range s.txs {
			if !committed(id) {
				all = false
				break
			}
		}
		if all {
			victims = append(victims, s)
		}
	}
	if len(victims) == 0 {
		return nil, nil
	}

	var removed []string
	var errs []error
	gone := map[*sealedSegment]bool{}
	for _, s := range victims {
		if err := w.fs.Remove(s.path); err != nil {
			errs = append(errs, fmt.Errorf("wal: prune %s: %w", s.name, err))
			continue
		}
		gone[s] = true
		removed = append(removed, s.name)
	}
	w.mu.Lock()
	w.mu.sealed = slices.DeleteFunc(w.mu.sealed, func(s *sealedSegment) bool { return gone[s] })
	w.mu.Unlock()
	if len(removed) > 0 && !w.opts.UnsafeNoSync {
		if err := w.fs.SyncDir(w.opts.Dir); err != nil {
			errs = append(errs, fmt.Errorf("wal: prune: sync dir: %w", err))
		}
	}
	for _, s := range victims {
		if gone[s] {
			// The segment is gone: drop its lock file, then the lock.
			_ = w.fs.Remove(s.path + lockSuffix)
			_ = s.lock.Close()
		}
	}
	return removed, errors.Join(errs...)
}
