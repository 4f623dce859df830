package objstore_test

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Creating a key that exists needs no disk space: a server restarting on
// a full disk re-creates its default database's record. The disk is
// "full" for this process by RLIMIT_FSIZE = 0 (every write of a byte fails
// with EFBIG; Go ignores SIGXFSZ), so any write attempt would show.
func TestLocalPutIfAbsentExistingWritesNothing(t *testing.T) {
	ctx := context.Background()
	s, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutIfAbsent(ctx, "_catalog/databases/postgres.json", []byte(`{"name":"postgres"}`)); err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: old.Max}); err != nil {
		t.Skip(err)
	}
	_, existing := s.PutIfAbsent(ctx, "_catalog/databases/postgres.json", []byte(`{"name":"postgres","again":1}`))
	_, fresh := s.PutIfAbsent(ctx, "_catalog/databases/other.json", []byte(`{"name":"other"}`))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(existing, objstore.ErrExists) {
		t.Fatalf("PutIfAbsent of an existing key with no space: %v, want ErrExists", existing)
	}
	if fresh == nil || errors.Is(fresh, objstore.ErrExists) {
		t.Fatalf("PutIfAbsent of a new key with no space: %v, want the write's error", fresh)
	}
	got, _, err := s.Get(ctx, "_catalog/databases/postgres.json")
	if err != nil || string(got) != `{"name":"postgres"}` {
		t.Fatalf("the existing object: %q, %v", got, err)
	}
}
