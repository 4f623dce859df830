package objstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Op names a Store operation for fault rules.
type Op uint8

// Operations.
const (
	OpGet Op = iota + 1
	OpPut
	OpPutFile
	OpPutIfAbsent
	OpPutIfMatch
	OpDelete
	OpList
)

var opNames = [...]string{"invalid", "get", "put", "putfile", "putifabsent", "putifmatch", "delete", "list"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// IsWrite reports whether o changes the store.
func (o Op) IsWrite() bool { return o != OpGet && o != OpList }

// Phase says when a rule fires relative to the real operation.
type Phase uint8

// Phases.
const (
	// Before: the rule fires before the operation; if it injects an error,
	// the operation does not happen.
	Before Phase = iota
	// After: the rule fires after the operation succeeded; an injected error
	// makes the outcome ambiguous (the write happened, the caller sees an
	// error). After rules do not fire when the operation itself failed.
	After
)

// ErrInjected is the default error injected by rules without Err.
var ErrInjected = errors.New("objstore: injected fault")

// Rule is one scripted fault. The zero value of a field means "any".
// Rules are evaluated in order; every matching rule's Hook runs, and the
// first matching rule with Fail set decides the injected error.
type Rule struct {
	// Ops restricts the rule to these operations (empty: all).
	Ops []Op
	// Key restricts the rule to keys (for List: the prefix) it accepts.
	Key func(key string) bool
	// Phase: Before or After the real operation.
	Phase Phase
	// Nth fires the rule only on the nth matching call (1-based); 0 fires
	// on every matching call. Counting is per rule.
	Nth int64
	// Fail injects an error: Err, or ErrInjected when Err is nil.
	Fail bool
	Err  error
	// Hook, if set, runs when the rule fires (before any injected error is
	// returned). Hooks run on the caller's goroutine and may be concurrent.
	Hook func(ctx context.Context, op Op, key string)

	hits atomic.Int64
}

func (r *Rule) matches(op Op, key string, ph Phase) bool {
	if r.Phase != ph {
		return false
	}
	if len(r.Ops) > 0 {
		found := false
		for _, o := range r.Ops {
			found = found || o == op
		}
		if !found {
			return false
		}
	}
	if r.Key != nil && !r.Key(key) {
		return false
	}
	n := r.hits.Add(1)
	return r.Nth == 0 || n == r.Nth
}

// FailBefore is a rule that fails ops on matching keys before they run.
func FailBefore(key func(string) bool, ops ...Op) *Rule {
	return &Rule{Ops: ops, Key: key, Phase: Before, Fail: true}
}

// FailAfter is a rule that makes ops on matching keys ambiguous: they
// happen, then an error is returned.
func FailAfter(key func(string) bool, ops ...Op) *Rule {
	return &Rule{Ops: ops, Key: key, Phase: After, Fail: true}
}

// HookAt is a rule that runs fn at phase for ops on matching keys.
func HookAt(ph Phase, key func(string) bool, fn func(ctx context.Context, op Op, key string), ops ...Op) *Rule {
	return &Rule{Ops: ops, Key: key, Phase: ph, Hook: fn}
}

// Faulty wraps a Store and applies scripted rules to every call. It is the
// fault-injection seam for tests (modelled on Pebble's vfs/errorfs).
type Faulty struct {
	inner Store
	mu    struct {
		sync.Mutex
		rules []*Rule
	}
	calls [len(opNames)]atomic.Int64
}

var _ Store = (*Faulty)(nil)

// NewFaulty wraps inner with rules.
func NewFaulty(inner Store, rules ...*Rule) *Faulty {
	f := &Faulty{inner: inner}
	f.mu.rules = rules
	return f
}

// AddRule appends a rule.
func (f *Faulty) AddRule(r *Rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.rules = append(f.mu.rules, r)
}

// ClearRules removes every rule.
func (f *Faulty) ClearRules() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.rules = nil
}

// Calls returns how many times op was called.
func (f *Faulty) Calls(op Op) int64 { return f.calls[op].Load() }

// Inner returns the wrapped store.
func (f *Faulty) Inner() Store { return f.inner }

func (f *Faulty) fire(ctx context.Context, op Op, key string, ph Phase) error {
	if ph == Before {
		f.calls[op].Add(1)
	}
	f.mu.Lock()
	rules := append([]*Rule(nil), f.mu.rules...)
	f.mu.Unlock()
	var injected error
	for _, r := range rules {
		if !r.matches(op, key, ph) {
			continue
		}
		if r.Hook != nil {
			r.Hook(ctx, op, key)
		}
		if r.Fail && injected == nil {
			injected = r.Err
			if injected == nil {
				injected = ErrInjected
			}
		}
	}
	if injected != nil {
		return fmt.Errorf("objstore: faulty %s %q (%s): %w", op, key, phaseName(ph), injected)
	}
	return nil
}

func phaseName(ph Phase) string {
	if ph == After {
		return "after"
	}
	return "before"
}

// Get implements Store.
func (f *Faulty) Get(ctx context.Context, key string) ([]byte, Version, error) {
	if err := f.fire(ctx, OpGet, key, Before); err != nil {
		return nil, "", err
	}
	data, v, err := f.inner.Get(ctx, key)
	if err != nil {
		return nil, "", err
	}
	if err := f.fire(ctx, OpGet, key, After); err != nil {
		return nil, "", err
	}
	return data, v, nil
}

// Put implements Store.
func (f *Faulty) Put(ctx context.Context, key string, data []byte) error {
	return f.write(ctx, OpPut, key, func() error { return f.inner.Put(ctx, key, data) })
}

// PutFile implements Store.
func (f *Faulty) PutFile(ctx context.Context, key string, localPath string) error {
	return f.write(ctx, OpPutFile, key, func() error { return f.inner.PutFile(ctx, key, localPath) })
}

// PutIfAbsent implements Store.
func (f *Faulty) PutIfAbsent(ctx context.Context, key string, data []byte) (Version, error) {
	var v Version
	err := f.write(ctx, OpPutIfAbsent, key, func() (err error) { v, err = f.inner.PutIfAbsent(ctx, key, data); return err })
	if err != nil {
		return "", err
	}
	return v, nil
}

// PutIfMatch implements Store.
func (f *Faulty) PutIfMatch(ctx context.Context, key string, data []byte, want Version) (Version, error) {
	var v Version
	err := f.write(ctx, OpPutIfMatch, key, func() (err error) { v, err = f.inner.PutIfMatch(ctx, key, data, want); return err })
	if err != nil {
		return "", err
	}
	return v, nil
}

// Delete implements Store.
func (f *Faulty) Delete(ctx context.Context, key string) error {
	return f.write(ctx, OpDelete, key, func() error { return f.inner.Delete(ctx, key) })
}

// List implements Store.
func (f *Faulty) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := f.fire(ctx, OpList, prefix, Before); err != nil {
		return nil, err
	}
	out, err := f.inner.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if err := f.fire(ctx, OpList, prefix, After); err != nil {
		return nil, err
	}
	return out, nil
}

// URI implements Store.
func (f *Faulty) URI(key string) string { return f.inner.URI(key) }

func (f *Faulty) write(ctx context.Context, op Op, key string, do func() error) error {
	if err := f.fire(ctx, op, key, Before); err != nil {
		return err
	}
	if err := do(); err != nil {
		return err
	}
	return f.fire(ctx, op, key, After)
}
