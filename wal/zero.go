package wal

import (
	"errors"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// Zero-filling the preallocated space of the active segment.
//
// fallocate(2) reserves blocks as "unwritten" extents: an append into them
// marks its blocks written, a metadata change that the commit's fdatasync
// must put through the filesystem journal, on ext4 about one journal
// commit per new 4 KiB block. PostgreSQL avoids it by writing its WAL
// segments full of zeros before use. So do we, in the background: after
// space is allocated, a zeroer goroutine overwrites it with zeros, in
// chunks, ahead of the appends, and waits for each chunk to reach the
// device (vfs.Zeroer: data only, it never syncs or consumes a write-back
// error, so the commits' fdatasyncs keep reporting every failure). Appends
// into zeroed blocks then overwrite written blocks and their fdatasync
// carries no metadata (measured on this machine's disk: see the commit).
//
// The zeroer never writes where an append may be: it publishes the lowest
// offset it may still write (zfloor) before writing there, and only moves
// it up; an append whose end passes the floor stops the zeroer first
// (waiting for the chunk in flight). The rest stays allocated, unzeroed:
// slower to sync, equally correct, and the segment gets no more zeros:
// appends that outrun the zeroer are large ones, whose fdatasync carries
// many blocks anyway. Recovery reads zeros after the last frame as the
// end of the stream either way.

//
// Only a segment that is being filled gets zeros, and only a window ahead
// of its appends: zeroing starts once the segment holds zeroStartBytes
// and keeps the zeroed space zeroWindow ahead, so a table that takes a row
// now and then (a new segment after each of its commits) writes no zeros,
// and a busy one about as many bytes of zeros as of WAL.

// zeroChunk is the bytes the zeroer writes (and waits for) at a time: an
// append that overtakes the zeroer waits for at most one chunk.
const zeroChunk = 256 << 10

// zeroSlack is the distance between the end of the appends and the first
// byte a new zeroer writes, so that the next appends do not stop it at once.
const zeroSlack = 256 << 10

// zeroStartBytes: a segment smaller than this gets no zeros.
const zeroStartBytes = 256 << 10

// zeroWindow is how far ahead of the appends the space is zeroed; a new
// zeroer starts when less than half of it is left.
const zeroWindow = 4 << 20

// zeroJob is one zeroer goroutine's range. stop is guarded by segment.zmu.
type zeroJob struct{ stop bool }

// zeroState is a segment's zero-filling state.
type zeroState struct {
	zmu    sync.Mutex // held while a chunk is written
	zjob   *zeroJob   // the running zeroer, or nil (guarded by zmu)
	zfloor atomic.Int64
	zeroed atomic.Int64 // bytes zeroed by finished chunks (stats, tests)
	zto    atomic.Int64 // end of the zeroed space (0: none yet)
	zoff   bool         // appends overtook a zeroer: no more zeros (guarded by WAL.mu)
}

func (z *zeroState) init() { z.zfloor.Store(math.MaxInt64) }

// maybeStartZeroingLocked starts a zeroer over the next window of the
// allocated space past the appends, if the segment is busy enough, the
// zeroed space ahead is short, the file supports it and none runs.
// REQUIRES: WAL.mu held.
func (s *segment) maybeStartZeroingLocked() {
	if s.wal.opts.UnsafeNoSync || s.zoff || s.alloc <= 0 || s.size < zeroStartBytes || s.zto.Load()-s.size >= zeroWindow/2 {
		return
	}
	zf, ok := s.f.(vfs.Zeroer)
	if !ok {
		return
	}
	from := max(s.zto.Load(), (s.size+zeroSlack+4095)&^4095)
	to := min(s.alloc, from+zeroWindow)
	if from >= to {
		return
	}
	s.zmu.Lock()
	defer s.zmu.Unlock()
	if s.zjob != nil {
		return
	}
	job := &zeroJob{}
	s.zjob = job
	s.zfloor.Store(from)
	go s.zeroer(zf, job, from, to)
}

func (s *segment) zeroer(zf vfs.Zeroer, job *zeroJob, from, to int64) {
	for off := from; off < to; off += zeroChunk {
		n := min(int64(zeroChunk), to-off)
		s.zmu.Lock()
		if job.stop {
			s.zmu.Unlock()
			return
		}
		s.zfloor.Store(off)
		err := zf.WriteZeros(off, n)
		s.zmu.Unlock()
		if err != nil {
			if errors.Is(err, vfs.ErrNoZeros) {
				break
			}
			s.wal.opts.Logger.Warn("wal: zero-filling preallocated space failed; appends there sync slower", slog.String("segment", s.name), slog.Any("err", err))
			break
		}
		s.zeroed.Add(n)
		s.zto.Store(off + n)
	}
	s.zmu.Lock()
	if s.zjob == job {
		s.zjob = nil
		s.zfloor.Store(math.MaxInt64)
	}
	s.zmu.Unlock()
}

// stopZeroing stops the zeroer, if one runs, after its chunk in flight: no
// zeros are written once it returns.
func (s *segment) stopZeroing() {
	s.zmu.Lock()
	if s.zjob != nil {
		s.zjob.stop = true
		s.zjob = nil
		s.zfloor.Store(math.MaxInt64)
	}
	s.zmu.Unlock()
}
