package wal

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

var errSegmentClosed = errors.New("wal: segment closed before its bytes were synced")

// segment is the active segment: an open Arrow IPC stream being appended to.
//
// Writes are serialised by WAL.mu. Syncing is group commit (after Pebble's
// record.LogWriter, in leader/follower form): a waiter whose bytes are not
// yet synced either becomes the leader, which samples the written offset
// and issues one fdatasync covering every write completed so far, or waits
// for the running leader and re-checks. All appenders that wrote before a
// leader sampled the offset share its fdatasync.
//
// A failed sync poisons the segment (serr): every waiter not already
// covered gets the error and the segment is never synced or written again
// (a failed fsync may have dropped dirty pages; retrying on the same
// descriptor can falsely succeed).
type segment struct {
	name string // base name
	path string
	lock io.Closer
	f    vfs.File
	wal  *WAL

	// Guarded by WAL.mu.
	size     int64 // bytes of the stream written; 0: the schema message is not written yet
	alloc    int64 // bytes reserved by Allocate; 0 = not preallocating
	allocOff bool  // a reservation failed for want of space: plain appends from now on
	txs      map[uuid.UUID]struct{}
	failed   error // a write or encode failed: no further appends

	zeroState // zero-filling of the preallocated space (zero.go)

	written atomic.Int64 // bytes whose Write has returned; sampled by sync leaders

	smu     sync.Mutex
	cond    sync.Cond // on smu
	synced  int64     // bytes covered by a successful fdatasync
	syncing bool      // a leader is in fdatasync
	serr    error     // sticky sync failure
	closed  bool
}

func newSegment(w *WAL, name, path string, lock io.Closer, f vfs.File) *segment {
	s := &segment{name: name, path: path, lock: lock, f: f, wal: w, txs: map[uuid.UUID]struct{}{}}
	s.cond.L = &s.smu
	s.zeroState.init()
	return s
}

// writeLocked writes p at the end of the segment.
// REQUIRES: WAL.mu held.
func (s *segment) writeLocked(p []byte) error {
	end := s.size + int64(len(p))
	if end > s.zfloor.Load() {
		s.stopZeroing() // it may write where p goes
		s.zoff = true
	}
	if s.alloc > 0 && end > s.alloc && !s.allocOff {
		want := end + s.wal.opts.Preallocate
		switch err := vfs.Allocate(s.f, want); {
		case err == nil:
			s.alloc = want
		case isNoSpace(err):
			// The disk cannot hold the reservation; the append itself may
			// still fit. The segment goes on with plain appends (no more
			// reservations, no zeros); the failed fallocate may have
			// reserved part of it, which sealing trims (alloc covers the
			// file's size).
			s.allocOff, s.zoff = true, true
			s.stopZeroing()
			if fi, serr := s.f.Stat(); serr == nil && fi.Size() > s.alloc {
				s.alloc = fi.Size()
			}
			s.wal.noSpace(s.name, err)
		default:
			s.failed = fmt.Errorf("%w: preallocate %s to %d bytes: %w", ErrSegmentFailed, s.name, want, err)
			return s.failed
		}
	}
	n, err := s.f.Write(p)
	s.size += int64(n)
	s.written.Store(s.size)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.failed = fmt.Errorf("%w: write %s at %d: %w", ErrSegmentFailed, s.name, s.size-int64(n), err)
		return s.failed
	}
	s.maybeStartZeroingLocked()
	return nil
}

// usableLocked reports whether appends may go to s.
// REQUIRES: WAL.mu held.
func (s *segment) usableLocked() bool {
	if s.failed != nil {
		return false
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.serr == nil && !s.closed
}

// waitSynced returns once an fdatasync covers the first target bytes, or
// with the error of the sync that should have covered them.
func (s *segment) waitSynced(target int64) error {
	if s.wal.opts.UnsafeNoSync {
		return nil
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	for s.synced < target {
		if s.serr != nil {
			return s.serr
		}
		if s.closed {
			return errSegmentClosed
		}
		if s.syncing {
			s.cond.Wait()
			continue
		}
		s.syncing = true
		upto := s.written.Load()
		s.smu.Unlock()
		start := time.Now()
		err := s.f.SyncData()
		d := time.Since(start)
		s.wal.stats.syncs.Add(1)
		if d > slowSync {
			s.wal.opts.Logger.Warn("wal: slow fdatasync", slog.String("segment", s.name), slog.Duration("took", d))
		}
		s.smu.Lock()
		s.syncing = false
		if err != nil {
			s.wal.stats.syncErrors.Add(1)
			s.serr = fmt.Errorf("%w: fdatasync %s: %w", ErrSegmentFailed, s.name, err)
			s.wal.opts.Logger.Error("wal: fdatasync failed; segment retired", slog.String("segment", s.name), slog.Any("err", err))
		} else if upto > s.synced {
			s.synced = upto
		}
		s.cond.Broadcast()
	}
	return nil
}

// close waits for a running leader and closes the file.
func (s *segment) close() error {
	s.stopZeroing()
	s.smu.Lock()
	for s.syncing {
		s.cond.Wait()
	}
	if s.closed {
		s.smu.Unlock()
		return nil
	}
	s.closed = true
	s.cond.Broadcast()
	s.smu.Unlock()
	return s.f.Close()
}

// trimLocked gives back the preallocated space after the stream (before
// the seal's fdatasync, which makes the new size durable with the data).
// REQUIRES: WAL.mu held.
func (s *segment) trimLocked() error {
	s.stopZeroing()
	if s.alloc <= s.size {
		return nil
	}
	if err := s.f.Truncate(s.size); err != nil {
		s.failed = fmt.Errorf("%w: truncate %s to %d: %w", ErrSegmentFailed, s.name, s.size, err)
		return s.failed
	}
	s.alloc = 0
	return nil
}
