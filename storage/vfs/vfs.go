package vfs

import (
	"errors"
	"io"
	"os"
)

// File is an open file. Implementations must be safe for concurrent use of
// Sync/SyncData/Stat with Write (the WAL syncs while another goroutine
// appends); concurrent Writes are serialised by the caller.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Closer
	// Sync is fsync: file data and metadata are durable when it returns nil.
	Sync() error
	// SyncData is fdatasync: file data (and the size) are durable when it
	// returns nil. Implementations without fdatasync fall back to Sync.
	SyncData() error
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
}

// Allocator is implemented by files that can reserve disk space.
type Allocator interface {
	// Allocate makes the file at least size bytes long, the new bytes
	// reading as zeros, with their disk blocks reserved (fallocate(2)
	// mode 0 on Linux). It never shrinks the file and does not move the
	// offset. Writes into allocated space do not change the file size, so
	// an fdatasync after them need not carry metadata.
	Allocate(size int64) error
}

// Zeroer is implemented by files that can turn allocated space into
// written zeros ahead of the appends that will overwrite it.
type Zeroer interface {
	// WriteZeros writes n zero bytes at off without moving the file offset
	// (pwrite; safe while another goroutine appends below off) and waits
	// until they reached the device, data only (Linux: sync_file_range).
	// It neither syncs metadata nor consumes a write-back error: a later
	// SyncData still reports any. off+n must not exceed the file size.
	WriteZeros(off, n int64) error
}

// ErrNoZeros is returned by a Zeroer wrapping a file that is none.
var ErrNoZeros = errors.New("vfs: writing zeros ahead not supported")

// ErrNoAllocate is returned by Allocate for files and filesystems that
// cannot reserve space; callers carry on without preallocating.
var ErrNoAllocate = errors.New("vfs: preallocation not supported")

// Allocate calls f's Allocate, or returns ErrNoAllocate.
func Allocate(f File, size int64) error {
	if a, ok := f.(Allocator); ok {
		return a.Allocate(size)
	}
	return ErrNoAllocate
}

// FS is a filesystem. Names are slash-or-OS separated paths as accepted by
// the os package; MemFS cleans them with path/filepath.
type FS interface {
	// Create creates a new file for reading and writing
	// (O_CREATE|O_EXCL|O_RDWR): it fails with an error satisfying
	// errors.Is(err, fs.ErrExist) if the name exists.
	Create(name string) (File, error)
	// Open opens a file read-only.
	Open(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing.
	OpenReadWrite(name string) (File, error)
	Remove(name string) error
	Rename(oldname, newname string) error
	MkdirAll(dir string, perm os.FileMode) error
	// ReadDir returns the names of the entries of dir, sorted.
	ReadDir(dir string) ([]string, error)
	Stat(name string) (os.FileInfo, error)
	// SyncDir makes the entries of dir durable: creations, renames and
	// removals done before it are not lost by a crash after it returns.
	SyncDir(dir string) error
	// Lock takes an exclusive advisory lock on name, creating the file if
	// it does not exist. It fails with ErrLocked, without blocking, if the
	// lock is held elsewhere (another process, or another Lock call on the
	// OS: flock locks belong to open file descriptions). Closing the
	// returned Closer releases the lock; it does not remove the file.
	Lock(name string) (io.Closer, error)
}

// ErrLocked is returned by FS.Lock when the lock is held elsewhere.
var ErrLocked = errors.New("vfs: lock held elsewhere")

// Default is the operating system's filesystem.
var Default FS = osFS{}
