package server

import (
	"context"
	"database/sql/driver"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/bsdb/bsdb-pg/pgerr"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// Advisory locks (pg_advisory_lock and its family), with PostgreSQL's
// semantics: one lock table for the server, keyed by database and key (a
// bigint key and a pair of integer keys are distinct locks, as in
// PostgreSQL's locktag); exclusive and shared modes; session-level locks
// held until unlocked (counted: locked twice, unlocked twice) or until the
// session ends, transaction-level ones (the _xact_ functions) until the
// transaction ends. A blocked pg_advisory_lock waits until the lock is
// free, the statement is canceled (CancelRequest, statement_timeout) or
// the session ends. Known gap: no deadlock detection (PostgreSQL's 40P01
// after deadlock_timeout); a deadlock waits for a cancel or timeout.

type advKey struct {
	db     string
	k1, k2 uint32
	pair   bool // (int4, int4) rather than int8
}

type advHold struct{ excl, shared int } // counts, per session and level

type advLock struct {
	holders map[*session]*[2]advHold // [0] session level, [1] transaction level
	changed chan struct{}            // closed (and replaced) when released
}

type advisoryTable struct {
	mu    sync.Mutex
	locks map[advKey]*advLock
}

var advisory = &advisoryTable{locks: map[advKey]*advLock{}}

// free reports whether s may take the lock in the mode.
func (l *advLock) free(s *session, excl bool) bool {
	for o, h := range l.holders {
		if o == s {
			continue
		}
		if h[0].excl+h[1].excl > 0 || excl && h[0].shared+h[1].shared > 0 {
			return false
		}
	}
	return true
}

// acquire takes the lock; wait=false returns false at once if it is taken.
func (t *advisoryTable) acquire(ctx context.Context, s *session, k advKey, excl, xact, wait bool) (bool, error) {
	for {
		t.mu.Lock()
		l := t.locks[k]
		if l == nil {
			l = &advLock{holders: map[*session]*[2]advHold{}, changed: make(chan struct{})}
			t.locks[k] = l
		}
		if l.free(s, excl) {
			h := l.holders[s]
			if h == nil {
				h = &[2]advHold{}
				l.holders[s] = h
			}
			lvl := 0
			if xact {
				lvl = 1
			}
			if excl {
				h[lvl].excl++
			} else {
				h[lvl].shared++
			}
			t.mu.Unlock()
			return true, nil
		}
		ch := l.changed
		t.mu.Unlock()
		if !wait {
			return false, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// release drops one session-level hold; false when s holds none.
func (t *advisoryTable) release(s *session, k advKey, excl bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.locks[k]
	if l == nil || l.holders[s] == nil {
		return false
	}
	h := &l.holders[s][0]
	if excl && h.excl == 0 || !excl && h.shared == 0 {
		return false
	}
	if excl {
		h.excl--
	} else {
		h.shared--
	}
	t.tidy(k, l, s)
	return true
}

// releaseAll drops every hold of s at a level (0: session, 1: transaction).
func (t *advisoryTable) releaseAll(s *session, lvl int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, l := range t.locks {
		if h := l.holders[s]; h != nil && h[lvl] != (advHold{}) {
			h[lvl] = advHold{}
			t.tidy(k, l, s)
		}
	}
}

// tidy wakes the waiters of l and forgets what is no longer held.
func (t *advisoryTable) tidy(k advKey, l *advLock, s *session) {
	if h := l.holders[s]; h != nil && *h == ([2]advHold{}) {
		delete(l.holders, s)
	}
	close(l.changed)
	l.changed = make(chan struct{})
	if len(l.holders) == 0 {
		delete(t.locks, k)
	}
}

// releaseXactAdvisory ends the transaction-level advisory locks of s.
func (s *session) releaseXactAdvisory() { advisory.releaseAll(s, 1) }

// releaseAdvisory ends every advisory lock of s (the session ends).
func (s *session) releaseAdvisory() {
	advisory.releaseAll(s, 0)
	advisory.releaseAll(s, 1)
}

// advisoryFunc is one PostgreSQL advisory lock function.
type advisoryFunc struct {
	excl, xact, try, unlock bool
}

// advisoryFuncs maps each function name to its behaviour; every one takes
// (bigint) or (integer, integer).
var advisoryFuncs = map[string]advisoryFunc{
	"pg_advisory_lock":                 {excl: true},
	"pg_advisory_lock_shared":          {},
	"pg_try_advisory_lock":             {excl: true, try: true},
	"pg_try_advisory_lock_shared":      {try: true},
	"pg_advisory_xact_lock":            {excl: true, xact: true},
	"pg_advisory_xact_lock_shared":     {xact: true},
	"pg_try_advisory_xact_lock":        {excl: true, xact: true, try: true},
	"pg_try_advisory_xact_lock_shared": {xact: true, try: true},
	"pg_advisory_unlock":               {excl: true, unlock: true},
	"pg_advisory_unlock_shared":        {unlock: true},
}

// advisoryFuncSets builds the DuckDB overloads of the advisory functions
// and pg_advisory_unlock_all.
func advisoryFuncSets() (map[string][]duckdb.ScalarFunc, error) {
	vc, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if err != nil {
		return nil, err
	}
	bo, _ := duckdb.NewTypeInfo(duckdb.TYPE_BOOLEAN)
	bi, _ := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	in, _ := duckdb.NewTypeInfo(duckdb.TYPE_INTEGER)
	out := map[string][]duckdb.ScalarFunc{}
	for name, f := range advisoryFuncs {
		f := f
		res := vc // void: an empty value
		if f.try || f.unlock {
			res = bo
		}
		fn := func(ctx context.Context, s *session, args []driver.Value) (any, error) {
			k := advKey{db: s.db}
			switch len(args) {
			case 1:
				v, ok := args[0].(int64)
				if !ok {
					return nil, nil // strict: NULL in, NULL out
				}
				k.k1, k.k2 = uint32(uint64(v)>>32), uint32(v)
			case 2:
				a, ok1 := args[0].(int32)
				b, ok2 := args[1].(int32)
				if !ok1 || !ok2 {
					return nil, nil
				}
				k.k1, k.k2, k.pair = uint32(a), uint32(b), true
			}
			if f.unlock {
				if advisory.release(s, k, f.excl) {
					return true, nil
				}
				mode := "ShareLock"
				if f.excl {
					mode = "ExclusiveLock"
				}
				s.notices = append(s.notices, &pgerr.Error{Severity: pgerr.SeverityWarn, Code: pgerr.Warning,
					Message: "you don't own a lock of type " + mode})
				return false, nil
			}
			// Outside a block, a transaction-level lock ends with the
			// statement (runStatement releases it).
			ok, err := advisory.acquire(ctx, s, k, f.excl, f.xact, !f.try)
			if err != nil {
				return nil, err
			}
			if f.try {
				return ok, nil
			}
			return "", nil
		}
		out[name] = []duckdb.ScalarFunc{
			&sessionFunc{in: []duckdb.TypeInfo{bi}, out: res, fn: fn},
			&sessionFunc{in: []duckdb.TypeInfo{in, in}, out: res, fn: fn},
		}
	}
	out["pg_advisory_unlock_all"] = []duckdb.ScalarFunc{&sessionFunc{out: vc, fn: func(_ context.Context, s *session, _ []driver.Value) (any, error) {
		advisory.releaseAll(s, 0)
		return "", nil
	}}}
	return out, nil
}

// planListen accepts LISTEN ch, UNLISTEN ch and UNLISTEN * (asyncpg's
// connection reset sends UNLISTEN *). Known gap: NOTIFY is not
// supported, so a listener never receives a notification.
func (s *session) planListen(st *bsql.Statement) (plan, bool) {
	switch {
	case st.Tree.GetListenStmt() != nil:
		return tagOnly("LISTEN", func(context.Context) error { return nil }), true
	case st.Tree.GetUnlistenStmt() != nil:
		return tagOnly("UNLISTEN", func(context.Context) error { return nil }), true
	}
	return nil, false
}
