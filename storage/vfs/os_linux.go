//go:build linux

package vfs

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fdatasync flushes file data and the size. It falls back to fsync only when
// the kernel or filesystem does not implement fdatasync (EINVAL/ENOSYS); any
// other error is returned as is and must not be retried on the same
// descriptor (a failed flush may have dropped the dirty pages).
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(serr, syscall.EINVAL) || errors.Is(serr, syscall.ENOSYS) {
		return f.Sync()
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// zeros is the source of WriteZeros.
var zeros = make([]byte, 256<<10)

// WriteZeros implements Zeroer.
func (f osFile) WriteZeros(off, n int64) error {
	for done := int64(0); done < n; {
		k := min(n-done, int64(len(zeros)))
		if _, err := f.File.WriteAt(zeros[:k], off+done); err != nil {
			return err
		}
		done += k
	}
	rc, err := f.File.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "sync_file_range", Path: f.Name(), Err: serr}
	}
	return nil
}

// Allocate reserves blocks with fallocate(2) mode 0; filesystems without it
// (EOPNOTSUPP) report ErrNoAllocate.
func (f osFile) Allocate(size int64) error {
	if fi, err := f.File.Stat(); err == nil && fi.Size() >= size {
		return nil
	}
	rc, err := f.File.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fallocate(int(fd), 0, 0, size)
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(serr, syscall.EOPNOTSUPP) || errors.Is(serr, syscall.ENOSYS) {
		return ErrNoAllocate
	}
	if serr != nil {
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: serr}
	}
	return nil
}
