package pgwire

import (
	"context"
	"syscall"
	"time"
)

// Reading the socket.
//
// The command loop reads the client's messages itself, between statements,
// as a PostgreSQL backend does: a message is decoded and executed by the
// same goroutine, so a statement costs no hand-off between threads (with a
// reader goroutine feeding the loop, every statement woke a second thread:
// on a 2-core VM about 1.4 more context switches per statement, ~50 us of a
// single-row INSERT). Three things a reader goroutine did are done here
// instead:
//
//   - A read blocked while the connection ends (Shutdown, a write to the
//     client that failed) returns: endReads sets a read deadline in the
//     past once the connection's context is done.
//   - A client that hangs up while a statement runs cancels it:
//     watchClient, started once a statement has run for clientCheckDelay
//     (to twice that: one timer serves all statements, see withStmt),
//     polls the socket for the peer's hang-up (POLLRDHUP; PostgreSQL's
//     client_connection_check_interval does the same) without reading.
//   - A COPY FROM STDIN that is canceled (CancelRequest, statement_timeout)
//     while it waits for the client's data stops waiting: the COPY's reader
//     arms interruptCopyReads, which the statement's end disarms. A read
//     interrupted by a deadline keeps what it read so far (pgproto3 resumes
//     a partial message; crypto/tls keeps no error for a timeout), so the
//     loop goes on reading the stream where it stopped.

// clientCheckDelay is how long a statement runs before it watches for the
// client hanging up; clientCheckEvery is how often it looks then.
const (
	clientCheckDelay = 100 * time.Millisecond
	clientCheckEvery = 100 * time.Millisecond
)

// aLongTimeAgo is a read deadline that fails reads at once.
var aLongTimeAgo = time.Unix(1, 0)

// endReads makes every read of the socket fail from now on (the
// connection's context is done).
func (c *conn) endReads() {
	c.deadline.Lock()
	defer c.deadline.Unlock()
	c.deadline.ended = true
	_ = c.raw.SetReadDeadline(aLongTimeAgo)
}

// interruptCopyReads makes a read blocked for the running COPY's data
// return once ctx (the statement's) is done; the statement's end calls the
// disarm function it returns, which lets reads block again unless the
// connection itself ended.
func (c *conn) interruptCopyReads(ctx context.Context) (disarm func()) {
	armed := true
	stop := context.AfterFunc(ctx, func() {
		c.deadline.Lock()
		defer c.deadline.Unlock()
		if armed {
			_ = c.raw.SetReadDeadline(aLongTimeAgo)
		}
	})
	return func() {
		if stop() {
			return // never fired
		}
		c.deadline.Lock()
		defer c.deadline.Unlock()
		armed = false
		if !c.deadline.ended {
			_ = c.raw.SetReadDeadline(time.Time{})
		}
	}
}

// watchClient cancels the connection's context (and so ctx, the running
// statement's) if the client hangs up before ctx is done.
func (c *conn) watchClient(ctx context.Context) {
	sc, ok := c.raw.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	t := time.NewTicker(clientCheckEvery)
	defer t.Stop()
	for {
		if peerHungUp(rc) {
			c.cancel(errClientGone)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
