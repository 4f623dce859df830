package objstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

func TestLocalLeavesNoTempFilesAndHidesLocks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "t/a", "1")
	v, err := s.PutIfAbsent(ctx, "t/b", []byte("2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutIfAbsent(ctx, "t/b", []byte("lost")); !errors.Is(err, objstore.ErrExists) {
		t.Fatal(err)
	}
	if _, err := s.PutIfMatch(ctx, "t/b", []byte("3"), v); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "t"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
	if got := keys(t, s, ""); strings.Join(got, ",") != "t/a,t/b" {
		t.Fatalf("List shows internal files: %v", got)
	}
	if got, want := s.URI("t/a"), "file://"+filepath.ToSlash(filepath.Join(dir, "t", "a")); got != want {
		t.Fatalf("URI = %q, want %q", got, want)
	}
	if got := s.LocalPath("t/a"); got != filepath.Join(dir, "t", "a") {
		t.Fatalf("LocalPath = %q", got)
	}
}

// A lost PutIfAbsent must not disturb the winner's content, even when the
// loser's payload is larger (no partial overwrite).
func TestLocalPutIfAbsentIsAtomicWhole(t *testing.T) {
	ctx := context.Background()
	s, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutIfAbsent(ctx, "k", []byte("short")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutIfAbsent(ctx, "k", []byte(strings.Repeat("x", 1<<16))); !errors.Is(err, objstore.ErrExists) {
		t.Fatal(err)
	}
	expect(t, s, "k", "short")
}

// MoveFile on Local renames the file into the store (the source is gone and
// the object is the same inode: no copy), and copies a file that lives on
// another file system.
func TestLocalMoveFileRenames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "staging")
	if err := os.WriteFile(src, []byte("parquet bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MoveFile(ctx, "tbl/data/f.parquet", src); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("source after MoveFile: %v, want it gone", err)
	}
	after, err := os.Stat(s.LocalPath("tbl/data/f.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatal("MoveFile copied the file instead of renaming it")
	}
	expect(t, s, "tbl/data/f.parquet", "parquet bytes")
	ents, err := os.ReadDir(filepath.Join(dir, "tbl", "data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}

	// Another file system: /dev/shm is a tmpfs on Linux.
	other, err := os.MkdirTemp("/dev/shm", "bsdb-move-")
	if err != nil {
		t.Logf("no second file system to move from (%v): cross-device fallback not exercised", err)
		return
	}
	defer os.RemoveAll(other)
	src = filepath.Join(other, "f")
	if err := os.WriteFile(src, []byte("from tmpfs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveFile(ctx, "tbl/data/g.parquet", src); err != nil {
		t.Fatalf("MoveFile across file systems: %v", err)
	}
	expect(t, s, "tbl/data/g.parquet", "from tmpfs")
}
