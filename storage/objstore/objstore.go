package objstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Implementations wrap them (test with errors.Is) and add
// the operation and key.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("objstore: not found")
	// ErrExists: PutIfAbsent lost, the key already exists.
	ErrExists = errors.New("objstore: already exists")
	// ErrPrecondition: PutIfMatch lost, the object's version is not the
	// expected one (or the object no longer exists).
	ErrPrecondition = errors.New("objstore: precondition failed")
	// ErrInvalidKey: the key is not a clean relative slash path.
	ErrInvalidKey = errors.New("objstore: invalid key")
)

// Version is an opaque object version: the ETag on S3, a content hash on
// local disk and in memory. Compare versions only for equality.
type Version string

// Info describes one listed object.
type Info struct {
	Key  string
	Size int64
}

// Store is the object store contract. Every write is durable when it returns
// nil. A write that returns an error may or may not have happened (an
// ambiguous outcome); callers that care re-read.
type Store interface {
	// Get returns the content and version of key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, Version, error)
	// Put writes key unconditionally.
	Put(ctx context.Context, key string, data []byte) error
	// PutFile uploads (or copies) the local file at localPath to key.
	PutFile(ctx context.Context, key string, localPath string) error
	// PutIfAbsent creates key with data only if it does not exist; the
	// content appears atomically and whole. ErrExists when the key exists.
	PutIfAbsent(ctx context.Context, key string, data []byte) (Version, error)
	// PutIfMatch replaces key only if its current version is v: a
	// compare-and-swap. ErrPrecondition when the version differs or the key
	// is missing.
	PutIfMatch(ctx context.Context, key string, data []byte, v Version) (Version, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List returns every object whose key starts with prefix (recursively),
	// sorted by key.
	List(ctx context.Context, prefix string) ([]Info, error)
	// URI is the absolute URI of key: file:///abs/path or s3://bucket/prefix/key.
	URI(key string) string
}

// FileMover is an optional capability of stores that can take a local file
// without copying it (Local, for a file on its file system).
type FileMover interface {
	// MoveFile stores the file at localPath under key with PutFile's
	// guarantees, and may consume the file: after it returns, with or
	// without an error, localPath may be gone. The caller removes it if
	// it is not.
	MoveFile(ctx context.Context, key string, localPath string) error
}

// MoveFile stores the local file at localPath under key: moved when s is a
// FileMover, uploaded or copied (PutFile) otherwise. The caller removes
// localPath afterwards if it still exists.
func MoveFile(ctx context.Context, s Store, key, localPath string) error {
	if m, ok := s.(FileMover); ok {
		return m.MoveFile(ctx, key, localPath)
	}
	return s.PutFile(ctx, key, localPath)
}

// LocalPather is an optional capability of stores backed by local disk.
type LocalPather interface {
	// LocalPath is the absolute filesystem path of key.
	LocalPath(key string) string
}

// reservedPrefix marks names the Local store uses for its own temporary and
// lock files; no key segment may start with it.
const reservedPrefix = ".bsdb-"

// ValidateKey reports whether key is a clean relative slash path: not empty,
// no leading or trailing slash, no empty, "." or ".." segment, no NUL or
// backslash, and no segment starting with ".bsdb-" (reserved).
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if strings.ContainsAny(key, "\x00\\") {
		return fmt.Errorf("%w: %q: NUL or backslash", ErrInvalidKey, key)
	}
	for _, seg := range strings.Split(key, "/") {
		switch {
		case seg == "", seg == ".", seg == "..":
			return fmt.Errorf("%w: %q: empty, '.' or '..' segment", ErrInvalidKey, key)
		case strings.HasPrefix(seg, reservedPrefix):
			return fmt.Errorf("%w: %q: segment uses the reserved prefix %q", ErrInvalidKey, key, reservedPrefix)
		}
	}
	return nil
}

// validatePrefix accepts "" or anything that could prefix a valid key.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if strings.HasPrefix(prefix, "/") || strings.ContainsAny(prefix, "\x00\\") {
		return fmt.Errorf("%w: bad list prefix %q", ErrInvalidKey, prefix)
	}
	segs := strings.Split(prefix, "/")
	for _, seg := range segs[:len(segs)-1] { // the last segment may be partial
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: bad list prefix %q", ErrInvalidKey, prefix)
		}
	}
	return nil
}

func opErr(op, key string, err error) error {
	return fmt.Errorf("objstore: %s %q: %w", op, key, err)
}

func ctxErr(ctx context.Context, op, key string) error {
	if err := ctx.Err(); err != nil {
		return opErr(op, key, err)
	}
	return nil
}
