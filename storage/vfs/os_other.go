//go:build !linux

package vfs

import "os"

// fdatasync falls back to fsync where fdatasync is not available.
func fdatasync(f *os.File) error { return f.Sync() }

// Allocate is not available here: callers carry on without preallocating.
func (f osFile) Allocate(size int64) error { return ErrNoAllocate }

// startWriteback is a no-op where sync_file_range does not exist.
func startWriteback(f *os.File, off, n int64) error { return nil }
