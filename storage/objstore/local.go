package objstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Local is a Store on a local filesystem directory. See the package
// documentation for the durability protocol of each operation.
type Local struct {
	root string // absolute, cleaned
}

var (
	_ Store       = (*Local)(nil)
	_ LocalPather = (*Local)(nil)
	_ FileMover   = (*Local)(nil)
)

// lockName is the per-directory lock file PutIfMatch, Put and Delete take.
const lockName = reservedPrefix + "lock"

// NewLocal opens (creating if needed) a store rooted at root.
func NewLocal(root string) (*Local, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("objstore: local root %q: %w", root, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("objstore: local root %q: %w", root, err)
	}
	return &Local{root: filepath.Clean(abs)}, nil
}

// Root is the absolute root directory.
func (l *Local) Root() string { return l.root }

// LocalPath implements LocalPather.
func (l *Local) LocalPath(key string) string {
	return filepath.Join(l.root, filepath.FromSlash(key))
}

// URI implements Store.
func (l *Local) URI(key string) string {
	p := l.root
	if key != "" {
		p = l.LocalPath(key)
	}
	return "file://" + filepath.ToSlash(p)
}

// contentVersion is the Version of data on local disk and in memory: the hex
// SHA-256 of the content.
func contentVersion(data []byte) Version {
	h := sha256.Sum256(data)
	return Version(hex.EncodeToString(h[:]))
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, key string) ([]byte, Version, error) {
	if err := l.check(ctx, "get", key); err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(l.LocalPath(key))
	if err != nil {
		return nil, "", opErr("get", key, mapFSErr(err))
	}
	return data, contentVersion(data), nil
}

// Put implements Store: temp file, fsync, rename, fsync of the directory.
func (l *Local) Put(ctx context.Context, key string, data []byte) error {
	if err := l.check(ctx, "put", key); err != nil {
		return err
	}
	tmp, err := l.writeTemp(key, func(f *os.File) error { _, err := f.Write(data); return err })
	if err != nil {
		return opErr("put", key, err)
	}
	return l.withDirLock(key, func() error { return l.publishRename(key, tmp, "put") })
}

// PutFile implements Store: the file is copied (never moved) with the same
// protocol as Put.
func (l *Local) PutFile(ctx context.Context, key string, localPath string) error {
	if err := l.check(ctx, "putfile", key); err != nil {
		return err
	}
	src, err := os.Open(localPath)
	if err != nil {
		return opErr("putfile", key, mapFSErr(err))
	}
	defer src.Close()
	tmp, err := l.writeTemp(key, func(f *os.File) error { _, err := io.Copy(f, src); return err })
	if err != nil {
		return opErr("putfile", key, err)
	}
	return l.withDirLock(key, func() error { return l.publishRename(key, tmp, "putfile") })
}

// MoveFile implements FileMover: the file is fsynced and renamed into the
// key's directory as the temp file of Put's protocol (no copy), then
// published as Put publishes. A file on another file system is copied
// (PutFile) instead.
func (l *Local) MoveFile(ctx context.Context, key string, localPath string) error {
	if err := l.check(ctx, "movefile", key); err != nil {
		return err
	}
	if err := syncFile(localPath); err != nil {
		return opErr("movefile", key, mapFSErr(err))
	}
	dir := filepath.Dir(l.LocalPath(key))
	if err := mkdirAllSync(dir, l.root); err != nil {
		return opErr("movefile", key, err)
	}
	tmp := l.tempName(dir)
	if err := os.Rename(localPath, tmp); err != nil {
		if errors.Is(err, syscall.EXDEV) {
			return l.PutFile(ctx, key, localPath)
		}
		return opErr("movefile", key, mapFSErr(err))
	}
	return l.withDirLock(key, func() error { return l.publishRename(key, tmp, "movefile") })
}

// syncFile fsyncs the file at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// PutIfAbsent implements Store: temp file + fsync, then link(2) to the final
// name, which fails with EEXIST if the key exists; the temp name is removed
// and the directory synced.
func (l *Local) PutIfAbsent(ctx context.Context, key string, data []byte) (Version, error) {
	if err := l.check(ctx, "putifabsent", key); err != nil {
		return "", err
	}
	// An existing key is refused before anything is written: creating what
	// exists must work on a full disk (a restart re-creates the default
	// database's record). link(2) below still decides a race.
	if _, err := os.Lstat(l.LocalPath(key)); err == nil {
		return "", opErr("putifabsent", key, ErrExists)
	}
	tmp, err := l.writeTemp(key, func(f *os.File) error { _, err := f.Write(data); return err })
	if err != nil {
		return "", opErr("putifabsent", key, err)
	}
	linkErr := os.Link(tmp, l.LocalPath(key))
	// Whatever the outcome, drop the temp name. If this fails the object is
	// still published (or not) correctly; a stray temp file is never listed.
	_ = os.Remove(tmp)
	if linkErr != nil {
		if errors.Is(linkErr, fs.ErrExist) {
			return "", opErr("putifabsent", key, ErrExists)
		}
		return "", opErr("putifabsent", key, linkErr)
	}
	if err := syncDir(filepath.Dir(l.LocalPath(key))); err != nil {
		return "", opErr("putifabsent", key, err)
	}
	return contentVersion(data), nil
}

// PutIfMatch implements Store: under an exclusive flock(2) of the
// directory's lock file (so it is a CAS across processes too), compare the
// current content hash with v, then write as Put does.
func (l *Local) PutIfMatch(ctx context.Context, key string, data []byte, v Version) (Version, error) {
	if err := l.check(ctx, "putifmatch", key); err != nil {
		return "", err
	}
	err := l.withDirLock(key, func() error {
		cur, err := os.ReadFile(l.LocalPath(key))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return opErr("putifmatch", key, fmt.Errorf("%w: object is missing", ErrPrecondition))
			}
			return opErr("putifmatch", key, err)
		}
		if got := contentVersion(cur); got != v {
			return opErr("putifmatch", key, fmt.Errorf("%w: version is %.12s, want %.12s", ErrPrecondition, got, v))
		}
		tmp, err := l.writeTemp(key, func(f *os.File) error { _, err := f.Write(data); return err })
		if err != nil {
			return opErr("putifmatch", key, err)
		}
		return l.publishRename(key, tmp, "putifmatch")
	})
	if err != nil {
		return "", err
	}
	return contentVersion(data), nil
}

// Delete implements Store.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := l.check(ctx, "delete", key); err != nil {
		return err
	}
	p := l.LocalPath(key)
	if _, err := os.Stat(filepath.Dir(p)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return l.withDirLock(key, func() error {
		if err := os.Remove(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return opErr("delete", key, err)
		}
		if err := syncDir(filepath.Dir(p)); err != nil {
			return opErr("delete", key, err)
		}
		return nil
	})
}

// List implements Store. Temporary and lock files are never listed.
func (l *Local) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := ctxErr(ctx, "list", prefix); err != nil {
		return nil, err
	}
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	// Walk from the deepest directory the prefix names completely.
	start := l.root
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = filepath.Join(l.root, filepath.FromSlash(prefix[:i]))
	}
	var out []Info
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // the directory vanished or never existed
			}
			return err
		}
		if strings.HasPrefix(d.Name(), reservedPrefix) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(l.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		out = append(out, Info{Key: key, Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, opErr("list", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (l *Local) check(ctx context.Context, op, key string) error {
	if err := ctxErr(ctx, op, key); err != nil {
		return err
	}
	if err := ValidateKey(key); err != nil {
		return opErr(op, key, err)
	}
	return nil
}

// writeTemp creates the key's directory, writes a uniquely named temp file
// in it with fill, fsyncs and closes it, and returns its path.
func (l *Local) writeTemp(key string, fill func(*os.File) error) (string, error) {
	dir := filepath.Dir(l.LocalPath(key))
	if err := mkdirAllSync(dir, l.root); err != nil {
		return "", err
	}
	tmp := l.tempName(dir)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// tempName is a new temporary name in dir (never listed).
func (l *Local) tempName(dir string) string {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	return filepath.Join(dir, reservedPrefix+"tmp-"+hex.EncodeToString(rnd[:]))
}

// publishRename renames tmp over the key and fsyncs the directory.
func (l *Local) publishRename(key, tmp, op string) error {
	p := l.LocalPath(key)
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
		return opErr(op, key, err)
	}
	if err := syncDir(filepath.Dir(p)); err != nil {
		return opErr(op, key, err)
	}
	return nil
}

// withDirLock runs fn holding an exclusive flock on the lock file of the
// key's directory. flock locks belong to the open file description, so this
// excludes other goroutines of this process as well as other processes.
func (l *Local) withDirLock(key string, fn func() error) error {
	dir := filepath.Dir(l.LocalPath(key))
	if err := mkdirAllSync(dir, l.root); err != nil {
		return opErr("lock", key, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return opErr("lock", key, err)
	}
	defer f.Close()
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return opErr("lock", key, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it anyway
	return fn()
}

// mkdirAllSync creates dir and its missing parents below root, fsyncing each
// parent whose entries changed so that the new directories survive a crash.
func mkdirAllSync(dir, root string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir && len(parent) >= len(root) {
		if err := mkdirAllSync(parent, root); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	return syncDir(parent)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

func mapFSErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
