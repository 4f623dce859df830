//go:build unix

package wal

import (
	"syscall"

	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// mapFile maps f read-only; ok is false if it cannot (not an OS file,
// empty, or mmap failed: the caller reads it instead).
func mapFile(f vfs.File) ([]byte, *mapping, bool) {
	fd, isOS := f.(fder)
	if !isOS {
		return nil, nil, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() <= 0 || int64(int(fi.Size())) != fi.Size() {
		return nil, nil, false
	}
	// MAP_POPULATE maps every page-cache page in one call (no fault per
	// page); MAP_SHARED: nothing is copied.
	data, err := syscall.Mmap(int(fd.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, false
	}
	return data, newMapping(data), true
}

func unmap(b []byte) { _ = syscall.Munmap(b) }
