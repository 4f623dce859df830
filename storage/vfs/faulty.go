package vfs

import (
	"fmt"
	"io"
	"os"
)

// Op names an operation of FS or File, for fault injection.
type Op uint8

// Operations. OpCreate..OpLock are FS methods; the rest are File methods.
const (
	OpCreate Op = iota
	OpOpen
	OpOpenReadWrite
	OpRemove
	OpRename
	OpMkdirAll
	OpReadDir
	OpStat
	OpSyncDir
	OpLock
	OpRead
	OpReadAt
	OpWrite
	OpSync
	OpSyncData
	OpFileStat
	OpTruncate
	OpClose
	OpAllocate
	OpWriteZeros
	numOps
)

var opNames = [numOps]string{
	OpCreate: "create", OpOpen: "open", OpOpenReadWrite: "open-rw", OpRemove: "remove",
	OpRename: "rename", OpMkdirAll: "mkdirall", OpReadDir: "readdir", OpStat: "stat",
	OpSyncDir: "syncdir", OpLock: "lock", OpRead: "read", OpReadAt: "readat",
	OpWrite: "write", OpSync: "sync", OpSyncData: "syncdata", OpFileStat: "file-stat",
	OpTruncate: "truncate", OpClose: "close", OpAllocate: "allocate", OpWriteZeros: "write-zeros",
}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// InjectFunc decides whether op on path fails: a non-nil error is returned
// to the caller instead of performing the operation. For Rename, path is the
// old name. It may be called concurrently.
type InjectFunc func(op Op, path string) error

// Faulty wraps an FS and fails operations chosen by an InjectFunc (after
// Pebble's vfs/errorfs). A failed Write writes nothing; a failed Close still
// closes the inner file (like the OS, a descriptor is gone after close).
type Faulty struct {
	inner  FS
	inject InjectFunc
}

var _ FS = (*Faulty)(nil)

// NewFaulty returns inner with faults injected by inject.
func NewFaulty(inner FS, inject InjectFunc) *Faulty {
	return &Faulty{inner: inner, inject: inject}
}

func (f *Faulty) check(op Op, path string) error {
	if f.inject == nil {
		return nil
	}
	if err := f.inject(op, path); err != nil {
		return &os.PathError{Op: op.String(), Path: path, Err: err}
	}
	return nil
}

func (f *Faulty) wrap(name string, file File, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	return &faultyFile{fs: f, name: name, inner: file}, nil
}

func (f *Faulty) Create(name string) (File, error) {
	if err := f.check(OpCreate, name); err != nil {
		return nil, err
	}
	file, err := f.inner.Create(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) Open(name string) (File, error) {
	if err := f.check(OpOpen, name); err != nil {
		return nil, err
	}
	file, err := f.inner.Open(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) OpenReadWrite(name string) (File, error) {
	if err := f.check(OpOpenReadWrite, name); err != nil {
		return nil, err
	}
	file, err := f.inner.OpenReadWrite(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) Remove(name string) error {
	if err := f.check(OpRemove, name); err != nil {
		return err
	}
	return f.inner.Remove(name)
}

func (f *Faulty) Rename(oldname, newname string) error {
	if err := f.check(OpRename, oldname); err != nil {
		return err
	}
	return f.inner.Rename(oldname, newname)
}

func (f *Faulty) MkdirAll(dir string, perm os.FileMode) error {
	if err := f.check(OpMkdirAll, dir); err != nil {
		return err
	}
	return f.inner.MkdirAll(dir, perm)
}

func (f *Faulty) ReadDir(dir string) ([]string, error) {
	if err := f.check(OpReadDir, dir); err != nil {
		return nil, err
	}
	return f.inner.ReadDir(dir)
}

func (f *Faulty) Stat(name string) (os.FileInfo, error) {
	if err := f.check(OpStat, name); err != nil {
		return nil, err
	}
	return f.inner.Stat(name)
}

func (f *Faulty) SyncDir(dir string) error {
	if err := f.check(OpSyncDir, dir); err != nil {
		return err
	}
	return f.inner.SyncDir(dir)
}

func (f *Faulty) Lock(name string) (io.Closer, error) {
	if err := f.check(OpLock, name); err != nil {
		return nil, err
	}
	return f.inner.Lock(name)
}

type faultyFile struct {
	fs    *Faulty
	name  string
	inner File
}

var _ File = (*faultyFile)(nil)

func (f *faultyFile) Read(p []byte) (int, error) {
	if err := f.fs.check(OpRead, f.name); err != nil {
		return 0, err
	}
	return f.inner.Read(p)
}

func (f *faultyFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.fs.check(OpReadAt, f.name); err != nil {
		return 0, err
	}
	return f.inner.ReadAt(p, off)
}

func (f *faultyFile) Write(p []byte) (int, error) {
	if err := f.fs.check(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.inner.Write(p)
}

func (f *faultyFile) Close() error {
	err := f.fs.check(OpClose, f.name)
	cerr := f.inner.Close()
	if err != nil {
		return err
	}
	return cerr
}

func (f *faultyFile) Sync() error {
	if err := f.fs.check(OpSync, f.name); err != nil {
		return err
	}
	return f.inner.Sync()
}

func (f *faultyFile) SyncData() error {
	if err := f.fs.check(OpSyncData, f.name); err != nil {
		return err
	}
	return f.inner.SyncData()
}

func (f *faultyFile) Stat() (os.FileInfo, error) {
	if err := f.fs.check(OpFileStat, f.name); err != nil {
		return nil, err
	}
	return f.inner.Stat()
}

func (f *faultyFile) Allocate(size int64) error {
	if err := f.fs.check(OpAllocate, f.name); err != nil {
		return err
	}
	return Allocate(f.inner, size)
}

func (f *faultyFile) WriteZeros(off, n int64) error {
	if err := f.fs.check(OpWriteZeros, f.name); err != nil {
		return err
	}
	z, ok := f.inner.(Zeroer)
	if !ok {
		return ErrNoZeros
	}
	return z.WriteZeros(off, n)
}

func (f *faultyFile) Truncate(size int64) error {
	if err := f.fs.check(OpTruncate, f.name); err != nil {
		return err
	}
	return f.inner.Truncate(size)
}
