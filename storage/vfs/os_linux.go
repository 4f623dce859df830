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
	serr, err := onFD(f, syscall.Fdatasync)
	if err != nil {
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

// onFD runs call on f's descriptor, again while it fails with EINTR. It
// returns call's error (serr) apart from the error of reaching the
// descriptor (err).
func onFD(f *os.File, call func(fd int) error) (serr, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	err = rc.Control(func(fd uintptr) {
		for {
			if serr = call(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	})
	return serr, err
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
	serr, err := onFD(f.File, func(fd int) error {
		return unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	})
	if err != nil {
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
	serr, err := onFD(f.File, func(fd int) error { return syscall.Fallocate(fd, 0, 0, size) })
	if err != nil {
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

// startWriteback asks the kernel to start writing [off, off+n) of f to the
// disk without waiting (sync_file_range SYNC_FILE_RANGE_WRITE). It makes no
// data durable: a later fsync still must.
func startWriteback(f *os.File, off, n int64) error {
	serr, err := onFD(f, func(fd int) error { return unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE) })
	if err != nil {
		return err
	}
	return serr
}
