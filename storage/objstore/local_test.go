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
