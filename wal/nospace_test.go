package wal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// A full disk fails the reservation (fallocate ENOSPC), not the append: a
// new segment without room for its reservation, and a segment whose
// reservation cannot be extended, take plain appends; the next segment
// reserves again once there is room; sealing trims whatever the failed
// fallocate left; every acknowledged transaction is recovered.
func TestPreallocateFallsBackOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	const chunk = 64 << 10
	var full, partial atomic.Bool
	fs := vfs.NewFaulty(vfs.Default, func(op vfs.Op, path string) error {
		if op == vfs.OpAllocate && full.Load() {
			if partial.Load() {
				// fallocate may reserve part of the range before it fails.
				if fi, err := os.Stat(path); err == nil {
					_ = os.Truncate(path, fi.Size()+10000)
				}
			}
			return syscall.ENOSPC
		}
		return nil
	})
	opts := Options{Dir: dir, FS: fs, Schema: testSchema, Logger: testLogger(t), Preallocate: chunk}
	w, _ := mustOpen(t, opts, nil)
	var txs []uuid.UUID
	appendOne := func(rows int) {
		t.Helper()
		tx := uuid.New()
		if _, err := appendTx(t, w, tx, int64(len(txs))<<20, 1, rows, DurabilitySync); err != nil {
			t.Fatalf("append with fallocate failing ENOSPC: %v", err)
		}
		txs = append(txs, tx)
	}
	active := func() (SegmentInfo, int64) {
		t.Helper()
		for _, s := range w.Segments() {
			if !s.Sealed {
				fi, err := os.Stat(filepath.Join(dir, s.Name))
				if err != nil {
					t.Fatal(err)
				}
				return s, fi.Size()
			}
		}
		t.Fatal("no active segment")
		return SegmentInfo{}, 0
	}

	// No room for a new segment's reservation.
	full.Store(true)
	appendOne(10)
	if s, size := active(); size != s.Size {
		t.Fatalf("segment without room: %d bytes on disk, stream %d: want no reservation", size, s.Size)
	}
	// Room again: the next segment reserves.
	full.Store(false)
	if err := w.Rotate(); err != nil {
		t.Fatal(err)
	}
	appendOne(10)
	if s, size := active(); size != chunk {
		t.Fatalf("segment with room: %d bytes on disk (stream %d), want the %d-byte reservation", size, s.Size, chunk)
	}
	// The reservation runs out while the disk is full, and the failed
	// fallocate reserved a part: plain appends past it.
	full.Store(true)
	partial.Store(true)
	for {
		s, _ := active()
		if s.Size > 2*chunk {
			break
		}
		appendOne(200)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.arrow"))
	if err != nil || len(names) != 2 {
		t.Fatalf("segments %v (%v), want 2", names, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(data, eosMarker) {
			t.Fatalf("segment %s: %d bytes, not trimmed to its stream and end-of-stream marker", filepath.Base(name), len(data))
		}
	}
	w2, recs := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	expectTxs(t, recs, txs)
	w2.Close()
}

// A write that does not fit fails the append with the file system's error
// in the chain (a caller reports "disk full", not an internal error), and
// appends work again once there is room.
func TestAppendNoSpaceError(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	fs := vfs.NewFaulty(vfs.Default, func(op vfs.Op, path string) error {
		if op == vfs.OpWrite && full.Load() && strings.HasSuffix(path, ".arrow") {
			return syscall.ENOSPC
		}
		return nil
	})
	w, _ := mustOpen(t, Options{Dir: dir, FS: fs, Schema: testSchema, Logger: testLogger(t)}, nil)
	ok1 := uuid.New()
	if _, err := appendTx(t, w, ok1, 0, 1, 10, DurabilitySync); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	_, err := appendTx(t, w, uuid.New(), 100, 1, 10, DurabilitySync)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v, want an error wrapping ENOSPC", err)
	}
	full.Store(false)
	ok2 := uuid.New()
	if _, err := appendTx(t, w, ok2, 200, 1, 10, DurabilitySync); err != nil {
		t.Fatalf("append after room came back: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, recs := mustOpen(t, Options{Dir: dir, Schema: testSchema, Logger: testLogger(t)}, nil)
	expectTxs(t, recs, []uuid.UUID{ok1, ok2})
	w2.Close()
}
