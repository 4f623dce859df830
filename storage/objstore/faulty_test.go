package objstore_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

func hasSuffix(s string) func(string) bool {
	return func(k string) bool { return strings.HasSuffix(k, s) }
}

func TestFaultyBeforeDoesNotWrite(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	f := objstore.NewFaulty(mem, objstore.FailBefore(hasSuffix(".json"), objstore.OpPutIfAbsent))
	if _, err := f.PutIfAbsent(ctx, "m/v1.json", []byte("x")); !errors.Is(err, objstore.ErrInjected) {
		t.Fatalf("got %v, want ErrInjected", err)
	}
	if _, _, err := mem.Get(ctx, "m/v1.json"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("a Before fault must not perform the write: %v", err)
	}
	// Other ops and keys are untouched.
	if _, err := f.PutIfAbsent(ctx, "m/v1.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := f.Put(ctx, "m/v2.json", []byte("x")); err != nil {
		t.Fatal(err)
	}
}

func TestFaultyAfterIsAmbiguous(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	boom := errors.New("connection reset")
	r := objstore.FailAfter(nil, objstore.OpPutIfAbsent)
	r.Err = boom
	f := objstore.NewFaulty(mem, r)
	if _, err := f.PutIfAbsent(ctx, "k", []byte("x")); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the injected error", err)
	}
	expect(t, mem, "k", "x") // the write happened
	// After rules do not fire when the real op failed: the caller sees the
	// real ErrExists.
	if _, err := f.PutIfAbsent(ctx, "k", []byte("y")); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
}

func TestFaultyNthAndHook(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	var hooked atomic.Int64
	r := &objstore.Rule{Ops: []objstore.Op{objstore.OpPut}, Nth: 3, Fail: true}
	h := objstore.HookAt(objstore.After, nil, func(_ context.Context, op objstore.Op, key string) {
		hooked.Add(1)
		if op != objstore.OpPut {
			t.Errorf("hook got op %v", op)
		}
	}, objstore.OpPut)
	f := objstore.NewFaulty(mem, r, h)
	var failed []int
	for i := 1; i <= 5; i++ {
		if err := f.Put(ctx, "k", []byte{byte(i)}); err != nil {
			failed = append(failed, i)
		}
	}
	if len(failed) != 1 || failed[0] != 3 {
		t.Fatalf("failed calls %v, want [3]", failed)
	}
	if got := hooked.Load(); got != 4 {
		t.Fatalf("After hook ran %d times, want 4 (not on the failed call)", got)
	}
	if got := f.Calls(objstore.OpPut); got != 5 {
		t.Fatalf("Calls(put) = %d", got)
	}
}
