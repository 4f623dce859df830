package planner

import (
	"context"
	"sync"

	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// Schema locks order writes against ALTER TABLE within a process, as
// PostgreSQL's relation locks do: a statement that writes a table holds
// its lock shared from before it reads the table's schema until its
// transaction ends (ROW EXCLUSIVE); ALTER TABLE and RENAME take it
// exclusively (ACCESS EXCLUSIVE), so they wait for the writing
// transactions to end and the writes that come after them wait for the
// ALTER, then run on the new schema. (Another process is told of a
// change by its snapshots instead: see bindMode.) The lock waits once an
// exclusive request is pending, so a stream of writers does not starve an
// ALTER; a transaction already holding the lock does not ask again (the
// session keeps what it holds), so it cannot wait behind an ALTER that
// waits for it.

// schemaLock returns the lock of table id.
func (e *Engine) schemaLock(id catalog.TableID) *sync.RWMutex {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.schemaLocks == nil {
		e.schemaLocks = map[catalog.TableID]*sync.RWMutex{}
	}
	l := e.schemaLocks[id]
	if l == nil {
		l = &sync.RWMutex{}
		e.schemaLocks[id] = l
	}
	return l
}

// LockForWrite takes table id's schema lock shared, waiting for an ALTER
// in progress or pending; the caller releases it with the returned
// function (at its transaction's end). ctx ends the wait.
func (e *Engine) LockForWrite(ctx context.Context, id catalog.TableID) (func(), error) {
	l := e.schemaLock(id)
	if err := acquire(ctx, l.RLock, l.RUnlock); err != nil {
		return nil, err
	}
	return l.RUnlock, nil
}

// lockForAlter takes table id's schema lock exclusively (see LockForWrite).
func (e *Engine) lockForAlter(ctx context.Context, id catalog.TableID) (func(), error) {
	l := e.schemaLock(id)
	if err := acquire(ctx, l.Lock, l.Unlock); err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

// acquire runs lock, or gives up when ctx ends first (the lock, once
// taken, is released at once).
func acquire(ctx context.Context, lock, unlock func()) error {
	done := make(chan struct{})
	go func() {
		lock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		go func() {
			<-done
			unlock()
		}()
		return ctx.Err()
	}
}
