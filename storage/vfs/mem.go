package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// MemFS is an in-memory, crashable filesystem (after Pebble's vfs.MemFS).
//
// It tracks two views of every directory and file:
//   - the current view, what a running process sees;
//   - the durable view, what survives a crash: file data as of the last
//     Sync/SyncData of that file, directory entries as of the last SyncDir
//     of their directory.
//
// CrashClone returns a new MemFS holding only the durable view. Directories
// themselves are durable as soon as MkdirAll creates them (a simplification:
// callers still SyncDir the parent, which MemFS accepts).
//
// Locks are per MemFS and per name; two WALs on one MemFS model two
// processes. A clone starts with no lock held (the process died).
type MemFS struct {
	mu    sync.Mutex
	dirs  map[string]*memDir // cleaned path -> directory
	locks map[string]bool
}

type memDir struct {
	entries map[string]*memNode // current view
	durable map[string]*memNode // as of the last SyncDir
}

type memNode struct {
	mu      sync.Mutex
	data    []byte
	synced  []byte
	modTime time.Time
}

var _ FS = (*MemFS)(nil)

// NewMem returns an empty MemFS with the root and "." directories.
func NewMem() *MemFS {
	m := &MemFS{dirs: map[string]*memDir{}, locks: map[string]bool{}}
	m.dirs["/"] = newMemDir()
	m.dirs["."] = newMemDir()
	return m
}

func newMemDir() *memDir {
	return &memDir{entries: map[string]*memNode{}, durable: map[string]*memNode{}}
}

// CrashClone returns a MemFS holding only what was durable in m: synced file
// data under directory entries made durable by SyncDir.
func (m *MemFS) CrashClone() *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := NewMem()
	clones := map[*memNode]*memNode{}
	for p, d := range m.dirs {
		nd := newMemDir()
		for name, n := range d.durable {
			cn, ok := clones[n]
			if !ok {
				n.mu.Lock()
				data := append([]byte(nil), n.synced...)
				cn = &memNode{data: data, synced: append([]byte(nil), data...), modTime: n.modTime}
				n.mu.Unlock()
				clones[n] = cn
			}
			nd.entries[name] = cn
			nd.durable[name] = cn
		}
		c.dirs[p] = nd
	}
	return c
}

func clean(name string) string { return filepath.Clean(name) }

// splitLocked returns the directory of name, which must exist.
// REQUIRES: m.mu held.
func (m *MemFS) splitLocked(op, name string) (*memDir, string, error) {
	name = clean(name)
	d, ok := m.dirs[filepath.Dir(name)]
	if !ok {
		return nil, "", &os.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return d, filepath.Base(name), nil
}

func (m *MemFS) Create(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.splitLocked("create", name)
	if err != nil {
		return nil, err
	}
	if _, ok := d.entries[base]; ok || m.dirs[clean(name)] != nil {
		return nil, &os.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	n := &memNode{modTime: time.Now()}
	d.entries[base] = n
	return &memFile{name: clean(name), n: n, write: true}, nil
}

func (m *MemFS) open(op, name string, write bool) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.splitLocked(op, name)
	if err != nil {
		return nil, err
	}
	n, ok := d.entries[base]
	if !ok {
		return nil, &os.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{name: clean(name), n: n, write: write}, nil
}

func (m *MemFS) Open(name string) (File, error) { return m.open("open", name, false) }

func (m *MemFS) OpenReadWrite(name string) (File, error) { return m.open("open", name, true) }

func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.splitLocked("remove", name)
	if err != nil {
		return err
	}
	if _, ok := d.entries[base]; ok {
		delete(d.entries, base)
		return nil
	}
	p := clean(name)
	if sub, ok := m.dirs[p]; ok {
		if len(sub.entries) > 0 || len(m.childDirsLocked(p)) > 0 {
			return &os.PathError{Op: "remove", Path: name, Err: errors.New("directory not empty")}
		}
		delete(m.dirs, p)
		return nil
	}
	return &os.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
}

func (m *MemFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	od, ob, err := m.splitLocked("rename", oldname)
	if err != nil {
		return err
	}
	nd, nb, err := m.splitLocked("rename", newname)
	if err != nil {
		return err
	}
	n, ok := od.entries[ob]
	if !ok {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: fs.ErrNotExist}
	}
	delete(od.entries, ob)
	nd.entries[nb] = n
	return nil
}

func (m *MemFS) MkdirAll(dir string, perm os.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(dir)
	var chain []string
	for {
		if _, ok := m.dirs[p]; ok {
			break
		}
		if d, ok := m.dirs[filepath.Dir(p)]; ok {
			if _, isFile := d.entries[filepath.Base(p)]; isFile {
				return &os.PathError{Op: "mkdir", Path: p, Err: errors.New("not a directory")}
			}
		}
		chain = append(chain, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for _, c := range chain {
		m.dirs[c] = newMemDir()
	}
	return nil
}

// childDirsLocked returns the base names of the directories directly in p.
// REQUIRES: m.mu held.
func (m *MemFS) childDirsLocked(p string) []string {
	var out []string
	for q := range m.dirs {
		if q != p && filepath.Dir(q) == p {
			out = append(out, filepath.Base(q))
		}
	}
	return out
}

func (m *MemFS) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(dir)
	d, ok := m.dirs[p]
	if !ok {
		return nil, &os.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	names := m.childDirsLocked(p)
	for n := range d.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func (m *MemFS) Stat(name string) (os.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	if _, ok := m.dirs[p]; ok {
		return memInfo{name: filepath.Base(p), dir: true}, nil
	}
	d, base, err := m.splitLocked("stat", name)
	if err != nil {
		return nil, err
	}
	n, ok := d.entries[base]
	if !ok {
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return n.info(base), nil
}

func (m *MemFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.dirs[clean(dir)]
	if !ok {
		return &os.PathError{Op: "syncdir", Path: dir, Err: fs.ErrNotExist}
	}
	d.durable = make(map[string]*memNode, len(d.entries))
	for k, v := range d.entries {
		d.durable[k] = v
	}
	return nil
}

func (m *MemFS) Lock(name string) (io.Closer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	d, base, err := m.splitLocked("lock", name)
	if err != nil {
		return nil, err
	}
	if m.locks[p] {
		return nil, fmt.Errorf("vfs: lock %s: %w", name, ErrLocked)
	}
	if _, ok := d.entries[base]; !ok {
		d.entries[base] = &memNode{modTime: time.Now()}
	}
	m.locks[p] = true
	return &memLock{m: m, name: p}, nil
}

type memLock struct {
	m    *MemFS
	name string
	once sync.Once
}

func (l *memLock) Close() error {
	l.once.Do(func() {
		l.m.mu.Lock()
		delete(l.m.locks, l.name)
		l.m.mu.Unlock()
	})
	return nil
}

// memFile is an open MemFS file. Like an OS file it has one offset shared by
// Read and Write; Write appends at the offset.
type memFile struct {
	name   string
	n      *memNode
	write  bool
	mu     sync.Mutex // guards pos, closed
	pos    int64
	closed bool
}

var _ File = (*memFile)(nil)

var errClosed = errors.New("vfs: file already closed")

func (f *memFile) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	n, err := f.n.readAt(p, f.pos)
	f.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &os.PathError{Op: "readat", Path: f.name, Err: errors.New("negative offset")}
	}
	return f.n.readAt(p, off)
}

func (n *memNode) readAt(p []byte, off int64) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if off >= int64(len(n.data)) {
		return 0, io.EOF
	}
	c := copy(p, n.data[off:])
	if c < len(p) {
		return c, io.EOF
	}
	return c, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errClosed
	}
	if !f.write {
		return 0, &os.PathError{Op: "write", Path: f.name, Err: errors.New("file opened read-only")}
	}
	n := f.n
	n.mu.Lock()
	end := f.pos + int64(len(p))
	if end > int64(len(n.data)) {
		grown := make([]byte, end)
		copy(grown, n.data)
		n.data = grown
	}
	copy(n.data[f.pos:], p)
	n.modTime = time.Now()
	n.mu.Unlock()
	f.pos = end
	return len(p), nil
}

func (f *memFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errClosed
	}
	f.closed = true
	return nil
}

func (f *memFile) Sync() error { return f.SyncData() }
func (f *memFile) SyncData() error {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return errClosed
	}
	f.n.mu.Lock()
	f.n.synced = append(f.n.synced[:0:0], f.n.data...)
	f.n.mu.Unlock()
	return nil
}

func (f *memFile) Stat() (os.FileInfo, error) { return f.n.info(filepath.Base(f.name)), nil }

// Allocate grows the file with zeros (MemFS has no blocks to reserve).
// The zeros are durable at the next SyncData, like a size change.
func (f *memFile) Allocate(size int64) error {
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	if size > int64(len(f.n.data)) {
		grown := make([]byte, size)
		copy(grown, f.n.data)
		f.n.data = grown
	}
	return nil
}

func (f *memFile) Truncate(size int64) error {
	if size < 0 {
		return &os.PathError{Op: "truncate", Path: f.name, Err: errors.New("negative size")}
	}
	f.n.mu.Lock()
	defer f.n.mu.Unlock()
	if size <= int64(len(f.n.data)) {
		f.n.data = f.n.data[:size:size]
	} else {
		grown := make([]byte, size)
		copy(grown, f.n.data)
		f.n.data = grown
	}
	return nil
}

func (n *memNode) info(name string) memInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return memInfo{name: name, size: int64(len(n.data)), mod: n.modTime}
}

type memInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return i.mod }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() os.FileMode {
	if i.dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}
