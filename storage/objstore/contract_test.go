package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// runContract runs the Store contract against stores made by newStore. Every
// implementation (Local, Mem, S3) must pass it unchanged.
func runContract(t *testing.T, newStore func(t *testing.T) objstore.Store) {
	ctx := context.Background()
	t.Run("GetMissing", func(t *testing.T) {
		s := newStore(t)
		if _, _, err := s.Get(ctx, "nope/x"); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("Get missing: %v, want ErrNotFound", err)
		}
	})
	t.Run("PutGetOverwrite", func(t *testing.T) {
		s := newStore(t)
		mustPut(t, s, "a/b/c.txt", "one")
		expect(t, s, "a/b/c.txt", "one")
		mustPut(t, s, "a/b/c.txt", "two")
		expect(t, s, "a/b/c.txt", "two")
		mustPut(t, s, "empty", "")
		expect(t, s, "empty", "")
	})
	t.Run("PutFile", func(t *testing.T) {
		s := newStore(t)
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte("file body"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.PutFile(ctx, "d/f.parquet", p); err != nil {
			t.Fatal(err)
		}
		expect(t, s, "d/f.parquet", "file body")
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("PutFile must not consume the source: %v", err)
		}
		if err := s.PutFile(ctx, "d/g", filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Fatal("PutFile of a missing local file succeeded")
		}
	})
	t.Run("MoveFile", func(t *testing.T) {
		s := newStore(t)
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte("moved body"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := objstore.MoveFile(ctx, s, "d/m.parquet", p); err != nil {
			t.Fatal(err)
		}
		expect(t, s, "d/m.parquet", "moved body")
		mustPut(t, s, "d/n", "old")
		if err := os.WriteFile(p, []byte("replaces"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := objstore.MoveFile(ctx, s, "d/n", p); err != nil {
			t.Fatal(err)
		}
		expect(t, s, "d/n", "replaces")
		if got := keys(t, s, "d/"); strings.Join(got, ",") != "d/m.parquet,d/n" {
			t.Fatalf("List after MoveFile: %v", got)
		}
		if err := objstore.MoveFile(ctx, s, "d/g", filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Fatal("MoveFile of a missing local file succeeded")
		}
	})
	t.Run("PutIfAbsent", func(t *testing.T) {
		s := newStore(t)
		v, err := s.PutIfAbsent(ctx, "m/v1.json", []byte("first"))
		if err != nil {
			t.Fatal(err)
		}
		_, gv, _ := s.Get(ctx, "m/v1.json")
		if gv != v {
			t.Fatalf("PutIfAbsent version %q, Get version %q", v, gv)
		}
		if _, err := s.PutIfAbsent(ctx, "m/v1.json", []byte("second")); !errors.Is(err, objstore.ErrExists) {
			t.Fatalf("second PutIfAbsent: %v, want ErrExists", err)
		}
		expect(t, s, "m/v1.json", "first")
	})
	t.Run("PutIfMatch", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.PutIfMatch(ctx, "hint", []byte("1"), "whatever"); !errors.Is(err, objstore.ErrPrecondition) {
			t.Fatalf("PutIfMatch on missing key: %v, want ErrPrecondition", err)
		}
		v1, err := s.PutIfAbsent(ctx, "hint", []byte("1"))
		if err != nil {
			t.Fatal(err)
		}
		v2, err := s.PutIfMatch(ctx, "hint", []byte("2"), v1)
		if err != nil {
			t.Fatalf("PutIfMatch with current version: %v", err)
		}
		if _, gv, _ := s.Get(ctx, "hint"); gv != v2 {
			t.Fatalf("PutIfMatch returned %q, Get says %q", v2, gv)
		}
		if _, err := s.PutIfMatch(ctx, "hint", []byte("3"), v1); !errors.Is(err, objstore.ErrPrecondition) {
			t.Fatalf("PutIfMatch with stale version: %v, want ErrPrecondition", err)
		}
		expect(t, s, "hint", "2")
	})
	t.Run("Delete", func(t *testing.T) {
		s := newStore(t)
		mustPut(t, s, "x/y", "z")
		for i := 0; i < 2; i++ { // idempotent
			if err := s.Delete(ctx, "x/y"); err != nil {
				t.Fatalf("Delete #%d: %v", i, err)
			}
		}
		if _, _, err := s.Get(ctx, "x/y"); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("Get after Delete: %v", err)
		}
		if err := s.Delete(ctx, "never/was"); err != nil {
			t.Fatalf("Delete of a never-created key: %v", err)
		}
	})
	t.Run("List", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"t/data/b.parquet", "t/data/a.parquet", "t/_manifest/v10.json", "t/_manifest/v9.json", "t2/x", "tz"} {
			mustPut(t, s, k, k)
		}
		if _, err := s.PutIfAbsent(ctx, "t/data/c.parquet", []byte("c")); err != nil {
			t.Fatal(err)
		}
		got := keys(t, s, "t/")
		want := []string{"t/_manifest/v10.json", "t/_manifest/v9.json", "t/data/a.parquet", "t/data/b.parquet", "t/data/c.parquet"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("List t/ = %v, want %v", got, want)
		}
		if got := keys(t, s, "t/data/a"); fmt.Sprint(got) != "[t/data/a.parquet]" {
			t.Fatalf("List with a partial name = %v", got)
		}
		if got := keys(t, s, "t"); len(got) != 7 {
			t.Fatalf("List t (partial first segment) = %v", got)
		}
		if got := keys(t, s, "nothing/"); len(got) != 0 {
			t.Fatalf("List of an empty prefix = %v", got)
		}
		infos, _ := s.List(ctx, "t/data/a")
		if len(infos) != 1 || infos[0].Size != int64(len("t/data/a.parquet")) {
			t.Fatalf("List size: %+v", infos)
		}
	})
	t.Run("InvalidKeys", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"", "/abs", "a//b", "a/../b", "..", "a/", ".bsdb-lock", "a/.bsdb-tmp-1"} {
			if err := s.Put(ctx, k, []byte("x")); !errors.Is(err, objstore.ErrInvalidKey) {
				t.Errorf("Put(%q) = %v, want ErrInvalidKey", k, err)
			}
		}
	})
	t.Run("ConcurrentPutIfAbsentOneWinner", func(t *testing.T) {
		s := newStore(t)
		for round := 0; round < 5; round++ {
			key := fmt.Sprintf("race/v%d.json", round)
			const n = 8
			var wg sync.WaitGroup
			wins := make(chan int, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					_, err := s.PutIfAbsent(ctx, key, []byte(fmt.Sprintf("writer-%d", i)))
					switch {
					case err == nil:
						wins <- i
					case !errors.Is(err, objstore.ErrExists):
						t.Errorf("writer %d: %v", i, err)
					}
				}(i)
			}
			wg.Wait()
			close(wins)
			var winners []int
			for w := range wins {
				winners = append(winners, w)
			}
			if len(winners) != 1 {
				t.Fatalf("round %d: %d winners %v, want exactly 1", round, len(winners), winners)
			}
			expect(t, s, key, fmt.Sprintf("writer-%d", winners[0]))
		}
	})
	t.Run("ConcurrentPutIfMatchOneWinnerPerVersion", func(t *testing.T) {
		s := newStore(t)
		v, err := s.PutIfAbsent(ctx, "cas/hint", []byte("0"))
		if err != nil {
			t.Fatal(err)
		}
		for round := 1; round <= 5; round++ {
			const n = 8
			var wg sync.WaitGroup
			type win struct {
				i int
				v objstore.Version
			}
			wins := make(chan win, n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					nv, err := s.PutIfMatch(ctx, "cas/hint", []byte(fmt.Sprintf("%d-%d", round, i)), v)
					switch {
					case err == nil:
						wins <- win{i, nv}
					case !errors.Is(err, objstore.ErrPrecondition):
						t.Errorf("writer %d: %v", i, err)
					}
				}(i)
			}
			wg.Wait()
			close(wins)
			var all []win
			for w := range wins {
				all = append(all, w)
			}
			if len(all) != 1 {
				t.Fatalf("round %d: %d winners, want exactly 1", round, len(all))
			}
			expect(t, s, "cas/hint", fmt.Sprintf("%d-%d", round, all[0].i))
			v = all[0].v
		}
	})
}

func mustPut(t *testing.T, s objstore.Store, key, body string) {
	t.Helper()
	if err := s.Put(context.Background(), key, []byte(body)); err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
}

func expect(t *testing.T, s objstore.Store, key, body string) {
	t.Helper()
	got, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get %s: %v", key, err)
	}
	if !bytes.Equal(got, []byte(body)) {
		t.Fatalf("Get %s = %q, want %q", key, got, body)
	}
}

func keys(t *testing.T, s objstore.Store, prefix string) []string {
	t.Helper()
	infos, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatalf("List %q: %v", prefix, err)
	}
	out := make([]string, 0, len(infos))
	for _, i := range infos {
		out = append(out, i.Key)
	}
	return out
}

func TestMemContract(t *testing.T) {
	runContract(t, func(t *testing.T) objstore.Store { return objstore.NewMem() })
}

func TestLocalContract(t *testing.T) {
	runContract(t, func(t *testing.T) objstore.Store {
		s, err := objstore.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Two Local handles on one root behave as two processes would: PutIfMatch is
// a CAS across them (flock, not an in-process mutex).
func TestLocalContractTwoHandles(t *testing.T) {
	runContract(t, func(t *testing.T) objstore.Store {
		dir := t.TempDir()
		a, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		return &alternating{a: a, b: b}
	})
}

// alternating sends each call to one of two stores in turn.
type alternating struct {
	mu   sync.Mutex
	n    int
	a, b objstore.Store
}

func (s *alternating) pick() objstore.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n%2 == 0 {
		return s.a
	}
	return s.b
}

func (s *alternating) Get(ctx context.Context, k string) ([]byte, objstore.Version, error) {
	return s.pick().Get(ctx, k)
}
func (s *alternating) Put(ctx context.Context, k string, d []byte) error {
	return s.pick().Put(ctx, k, d)
}
func (s *alternating) PutFile(ctx context.Context, k, p string) error {
	return s.pick().PutFile(ctx, k, p)
}
func (s *alternating) PutIfAbsent(ctx context.Context, k string, d []byte) (objstore.Version, error) {
	return s.pick().PutIfAbsent(ctx, k, d)
}
func (s *alternating) PutIfMatch(ctx context.Context, k string, d []byte, v objstore.Version) (objstore.Version, error) {
	return s.pick().PutIfMatch(ctx, k, d, v)
}
func (s *alternating) Delete(ctx context.Context, k string) error { return s.pick().Delete(ctx, k) }
func (s *alternating) List(ctx context.Context, p string) ([]objstore.Info, error) {
	return s.pick().List(ctx, p)
}
func (s *alternating) URI(k string) string { return s.a.URI(k) }
