package pgwire

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// conn is one client connection. Its phases: startup (negotiate,
// authenticate, NewSession, first ReadyForQuery), then the command loop,
// which reads the socket itself (reading.go), then close (socket close,
// Session.Close).
//
// Fields below mu are owned by the command loop goroutine.
type conn struct {
	srv *Server
	log *slog.Logger
	raw net.Conn // the accepted socket, never replaced (Shutdown closes it)
	tls bool

	ior *ioErrReader
	rd  *bufio.Reader
	in  *pgproto3.Backend // decodes; used by startup, then by the command loop
	bw  *bufio.Writer
	out *pgproto3.Backend // encodes into bw; used by the command loop only

	ctx    context.Context // connection lifetime; cause says why it ended
	cancel context.CancelCauseFunc

	pid    uint32
	secret [4]byte
	slot   bool        // holds a Config.MaxConnections slot; guarded by Server.mu
	info   StartupInfo // written once under mu during startup
	sess   Session
	start  time.Time

	pending command // a command a COPY reader took that the loop must see; owns its data
	scratch scratchCommands
	// Reused so that a statement's usual answer allocates nothing: the
	// writer of the running Execute, and backend messages (pgproto3
	// encodes a message at Send and keeps no reference to it).
	rw   resultWriter
	msgs struct {
		dataRow  pgproto3.DataRow
		complete pgproto3.CommandComplete
		ready    pgproto3.ReadyForQuery
		tag      []byte
	}
	// deadline guards the read deadline that interrupts a blocked read
	// (reading.go).
	deadline struct {
		sync.Mutex
		ended bool // the connection's context is done: reads fail from now on
	}
	copyIntr func() // disarms the running COPY's read interrupt, or nil
	// cycle is the statement context of the command cycle (withStmt).
	cycle struct {
		ctx    context.Context
		cancel context.CancelCauseFunc
	}
	watch *time.Timer // starts watchClient for a long statement (withStmt); never nil

	stmts          map[string]*stmtEntry
	portals        map[string]portalEntry
	ignoreTillSync bool  // skip messages until Sync (after an extended-protocol error)
	stop           bool  // a FATAL error was sent: close
	writeErr       error // the socket failed: close

	mu struct {
		sync.Mutex
		stmtCtx     context.Context         // the running statement's, or nil
		stmtSeq     uint64                  // counts statements
		watchArmed  bool                    // the watch timer is set
		watchSeq    uint64                  // stmtSeq when it was set
		watched     bool                    // watchClient watches the running statement
		stmtCancel  context.CancelCauseFunc // cancels the running statement
		state       string
		query       string
		queryStart  time.Time
		stateChange time.Time
		appName     string
	}
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		srv:     s,
		log:     s.log,
		raw:     nc,
		start:   time.Now(),
		stmts:   make(map[string]*stmtEntry),
		portals: make(map[string]portalEntry),
	}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	c.watch = time.AfterFunc(time.Hour, c.startWatch)
	c.watch.Stop()
	c.mu.state = "starting"
	c.mu.stateChange = c.start
	c.setTransport(nc)
	return c
}

// ioErrReader remembers whether the transport itself failed, which tells
// an I/O error (client gone) from a decode error (malformed bytes).
type ioErrReader struct {
	r   io.Reader
	bad atomic.Bool
}

func (r *ioErrReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		r.bad.Store(true) // a deadline is ours: an interrupted read (reading.go)
	}
	return n, err
}

func (r *ioErrReader) failed() bool { return r.bad.Load() }

// run serves the connection until it ends.
func (c *conn) run() {
	defer func() {
		c.cancel(errConnDone)
		c.raw.Close()
		c.watch.Stop()
	}()
	if !c.startup() {
		c.closeSession()
		return
	}
	// Once the connection's context is done (Shutdown, the client gone),
	// a read blocked on the socket returns.
	context.AfterFunc(c.ctx, c.endReads)
	c.loop()
	c.raw.Close()
	c.closeSession()
}

// loop is the command loop.
func (c *conn) loop() {
	for !c.stop && c.writeErr == nil {
		cmd, ok := c.next()
		if !ok {
			if context.Cause(c.ctx) == errShutdown {
				c.sendError(shutdownError())
			}
			return
		}
		c.handle(cmd)
	}
}

// handle executes one command. "Skip to Sync after an error" is the
// ignoreTillSync flag: a cursor move over the queued commands.
func (c *conn) handle(cmd command) {
	switch cmd := cmd.(type) {
	case cmdReadError:
		if !cmd.io {
			c.log.Info("pgwire: protocol violation; closing connection", "pid", c.pid, "err", cmd.err)
			c.sendError(protocolErrorf("invalid frontend message: %v", cmd.err))
		}
		c.stop = true
		return
	case cmdTerminate:
		c.stop = true
		return
	case cmdCopyData, cmdCopyDone, cmdCopyFail:
		// The rest of a COPY FROM STDIN that failed: PostgreSQL accepts
		// and ignores these.
		return
	case cmdSync:
		c.ignoreTillSync = false
		c.sync()
		return
	}
	if c.ignoreTillSync {
		return
	}
	var err error
	switch cmd := cmd.(type) {
	case cmdQuery:
		c.simpleQuery(cmd.sql)
		return
	case cmdOther:
		if cmd.typ == 'F' {
			c.sendError(c.protocolFail(pgerr.New(pgerr.FeatureNotSupported, "fastpath function calls are not supported")))
			c.readyForQuery()
			return
		}
		c.sendError(protocolErrorf("invalid frontend message type %d", cmd.typ))
		return
	case cmdFlush:
		err = c.flush()
	case cmdParse:
		err = c.parse(cmd)
	case *cmdBind:
		err = c.bind(cmd)
	case *cmdDescribe:
		err = c.describe(cmd)
	case *cmdExecute:
		err = c.execute(cmd)
	case cmdClose:
		err = c.closeObject(cmd)
	default:
		err = protocolErrorf("BUG: unhandled command %T", cmd)
	}
	if err != nil {
		c.sendError(err)
		c.ignoreTillSync = true
	}
}

// withStmt runs f as one statement: under a context that CancelRequest,
// Shutdown and a vanished client cancel, with panics recovered. The error
// it returns is ready for the wire (see wireError).
//
// The statements of one command cycle (up to ReadyForQuery: Bind,
// Execute and Sync for a prepared statement) share a context, which saves
// a context and its cancel function per statement. It is still canceled
// when it must be: a statement that ends canceled (CancelRequest) or that
// was watched (watchClient ends with its context) ends it, and so does
// the cycle's end; the next statement makes a new one.
func (c *conn) withStmt(op string, f func(ctx context.Context) error) *pgerr.Error {
	if c.cycle.ctx == nil {
		c.cycle.ctx, c.cycle.cancel = context.WithCancelCause(c.ctx)
	}
	ctx, cancel := c.cycle.ctx, c.cycle.cancel
	// Nobody reads the socket while the statement runs: a statement that
	// outlasts clientCheckDelay watches it for the client hanging up. One
	// timer serves every statement, armed by a statement that finds it
	// idle and not stopped at the statement's end (see startWatch): a
	// stream of short statements costs a timer operation per
	// clientCheckDelay, not two per statement.
	c.mu.Lock()
	c.mu.stmtCtx, c.mu.stmtCancel = ctx, cancel
	c.mu.stmtSeq++
	arm := !c.mu.watchArmed
	if arm {
		c.mu.watchArmed, c.mu.watchSeq = true, c.mu.stmtSeq
	}
	c.mu.Unlock()
	if arm {
		c.watch.Reset(clientCheckDelay)
	}
	err := c.guard(op, func() error { return f(ctx) })
	if c.copyIntr != nil {
		c.copyIntr()
		c.copyIntr = nil
	}
	c.mu.Lock()
	c.mu.stmtCtx, c.mu.stmtCancel = nil, nil
	watched := c.mu.watched
	c.mu.watched = false
	c.mu.Unlock()
	var e *pgerr.Error
	if err != nil {
		e = c.wireError(err, ctx)
	}
	if watched || ctx.Err() != nil {
		c.endCycleContext()
	}
	return e
}

// endCycleContext cancels the command cycle's statement context, if any.
func (c *conn) endCycleContext() {
	if c.cycle.cancel != nil {
		c.cycle.cancel(nil)
		c.cycle.ctx, c.cycle.cancel = nil, nil
	}
}

// startWatch runs on the watch timer. If the statement that was running
// when the timer was armed still runs, it has run for clientCheckDelay: it
// is watched until it ends. If another one runs, the timer is armed again
// for it (so a statement is watched after clientCheckDelay to twice that).
// If none runs, the next statement arms the timer.
func (c *conn) startWatch() {
	c.mu.Lock()
	ctx, seq := c.mu.stmtCtx, c.mu.stmtSeq
	rearm := ctx != nil && seq != c.mu.watchSeq
	c.mu.watchArmed, c.mu.watchSeq = rearm, seq
	c.mu.watched = ctx != nil && !rearm // the statement ends the context
	c.mu.Unlock()
	switch {
	case rearm:
		c.watch.Reset(clientCheckDelay)
	case ctx != nil:
		c.watchClient(ctx)
	}
}

// call runs f, a session call that is not a statement (it does no I/O and
// takes no context), with panics recovered. The error it returns is ready
// for the wire.
func (c *conn) call(op string, f func() error) *pgerr.Error {
	if err := c.guard(op, f); err != nil {
		return c.wireError(err, nil)
	}
	return nil
}

// cancelStatement cancels the running statement, if any (CancelRequest).
func (c *conn) cancelStatement() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.stmtCancel != nil {
		c.mu.stmtCancel(errCancelReq)
	}
}

// closeSession closes portals, then statements, then the Session, once.
func (c *conn) closeSession() {
	for name, p := range c.portals {
		c.closePortal(name, p)
	}
	for name, s := range c.stmts {
		c.closeStmt(name, s)
	}
	if c.sess != nil {
		_ = c.guard("Close", func() error { c.sess.Close(); return nil })
		c.sess = nil
	}
}

// send encodes msg into the write buffer. Errors stick in writeErr.
func (c *conn) send(msg pgproto3.BackendMessage) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	c.out.Send(msg)
	if err := c.out.Flush(); err != nil { // into bw; reaches the socket when bw fills or at flush
		c.writeErr = err
		c.cancel(errClientGone)
	}
	return c.writeErr
}

// flush writes the buffered messages to the socket.
func (c *conn) flush() error {
	if c.writeErr != nil {
		return c.writeErr
	}
	if err := c.bw.Flush(); err != nil {
		c.writeErr = err
		c.cancel(errClientGone)
	}
	return c.writeErr
}

// sendError sends err as ErrorResponse (and flushes). A FATAL error stops
// the connection.
func (c *conn) sendError(err error) {
	e, ok := err.(*pgerr.Error)
	if !ok || e == nil {
		e = c.wireError(err, nil)
	}
	if e.Severity == pgerr.SeverityFatal {
		c.stop = true
	}
	// Every error a client is sent, at debug level: the client tests read
	// them back to check that none shows internal text (clients swallow
	// some, as pgcli's completion refresher does).
	c.log.Debug("pgwire: error sent", "pid", c.pid, "code", e.Code, "message", e.Message)
	_ = c.send(errorResponse(e))
	_ = c.flush()
}

// readyForQuery ends a command cycle: portals end with the transaction,
// then ReadyForQuery with the session's real transaction status.
func (c *conn) readyForQuery() {
	c.endCycleContext()
	st := c.txStatus()
	if c.stop {
		return
	}
	if st == 'I' {
		for name, p := range c.portals {
			c.closePortal(name, p)
		}
	}
	// State first: a client that saw ReadyForQuery must see it in Sessions.
	state := "idle"
	switch st {
	case 'T':
		state = "idle in transaction"
	case 'E':
		state = "idle in transaction (aborted)"
	}
	c.setState(state, "")
	c.msgs.ready.TxStatus = st
	_ = c.send(&c.msgs.ready)
	_ = c.flush()
}

// txStatus asks the session; a panic or an invalid status is FATAL.
func (c *conn) txStatus() byte {
	st := byte('I')
	if err := c.guard("TxStatus", func() error { st = c.sess.TxStatus(); return nil }); err != nil {
		c.sendError(err)
		return 'E'
	}
	switch st {
	case 'I', 'T', 'E':
		return st
	}
	e := c.wireError(errorf("BUG: Session.TxStatus returned %q", st), nil)
	e.Severity = pgerr.SeverityFatal
	c.sendError(e)
	return 'E'
}

// setState records the pg_stat_activity state; a non-empty query marks the
// start of a new query.
func (c *conn) setState(state, query string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.state != state {
		c.mu.state = state
		c.mu.stateChange = now
	}
	if query != "" {
		c.mu.query = query
		c.mu.queryStart = now
	}
}

func (c *conn) sessionInfo() SessionInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return SessionInfo{
		PID: c.info.PID, User: c.info.User, Database: c.info.Database, ApplicationName: c.mu.appName,
		State: c.mu.state, Query: c.mu.query, BackendStart: c.start, QueryStart: c.mu.queryStart,
		StateChange: c.mu.stateChange, ClientAddr: c.raw.RemoteAddr(),
	}
}
