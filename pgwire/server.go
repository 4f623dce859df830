package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown.
var ErrServerClosed = errors.New("pgwire: server closed")

// Causes of a connection's context cancellation.
var (
	errShutdown   = errors.New("pgwire: server shutting down")
	errClientGone = errors.New("pgwire: client connection closed")
	errCancelReq  = errors.New("pgwire: statement canceled by CancelRequest")
	errConnDone   = errors.New("pgwire: connection finished")
)

// Server accepts PostgreSQL connections and runs each one against a Session
// of its Backend.
//
// Lock order: Server.mu before conn.mu.
type Server struct {
	cfg     Config
	backend Backend
	log     *slog.Logger
	scram   *scramCache

	wg sync.WaitGroup // one per accepted connection

	mu struct {
		sync.Mutex
		listeners map[net.Listener]struct{}
		first     net.Addr
		conns     map[*conn]struct{} // every live connection, also during startup
		byPID     map[uint32]*conn   // connections that sent BackendKeyData
		nextPID   uint32
		closing   bool
		sockets   int // accepted sockets not yet closed (Config.MaxSockets)
		slots     int // connections holding a slot (Config.MaxConnections)
		refused   int // sockets refused at accept since the last log line
		refusedAt time.Time
	}
}

// NewServer returns a Server for cfg whose sessions come from b.
func NewServer(cfg Config, b Backend) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, backend: b, log: cfg.Logger, scram: newSCRAMCache()}
	s.mu.listeners = make(map[net.Listener]struct{})
	s.mu.conns = make(map[*conn]struct{})
	s.mu.byPID = make(map[uint32]*conn)
	var seed [4]byte
	_, _ = rand.Read(seed[:])
	// Start somewhere random below 2^30 so pids look like pids and never
	// collide with a live one (the counter would have to wrap around).
	s.mu.nextPID = 1000 + binary.BigEndian.Uint32(seed[:])%(1<<30)
	return s
}

// ListenAndServe listens on Config.Listen and serves until Shutdown.
func (s *Server) ListenAndServe() error {
	addr := s.cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:5433"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pgwire: listen %s: %w", addr, err)
	}
	return s.Serve(ln)
}

// Serve accepts connections on ln until Shutdown (returns ErrServerClosed)
// or a permanent accept error. ln is closed on return.
func (s *Server) Serve(ln net.Listener) error {
	if ln == nil {
		return errors.New("pgwire: Serve: nil listener")
	}
	s.mu.Lock()
	if s.mu.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.mu.listeners[ln] = struct{}{}
	if s.mu.first == nil {
		s.mu.first = ln.Addr()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.mu.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("pgwire: accept failed; retrying", "err", err, "backoff", backoff)
				time.Sleep(backoff)
				continue
			}
			return fmt.Errorf("pgwire: accept: %w", err)
		}
		backoff = 0
		if !s.admitSocket() {
			s.refuseSocket(nc)
			continue
		}
		c := newConn(s, nc)
		if !s.track(c) {
			s.socketClosed()
			nc.Close()
			return ErrServerClosed
		}
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			c.run()
		}()
	}
}

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// Addr returns the address of the first listener Serve was given, or nil.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.first
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.closing
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closing {
		return false
	}
	s.mu.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.conns, c)
	if s.mu.byPID[c.pid] == c {
		delete(s.mu.byPID, c.pid)
	}
	if c.slot {
		c.slot = false
		s.mu.slots--
	}
	s.mu.sockets--
}

// releaseSlot gives back c's connection slot before c is closed: a
// connection refused after it took one (the superusers' reserve) frees it
// before the client reads its FATAL, so a client that reconnects at once
// finds it free.
func (s *Server) releaseSlot(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.slot {
		c.slot = false
		s.mu.slots--
	}
}

// tooManyClients is PostgreSQL's FATAL when no connection slot is free.
func tooManyClients() *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: codeTooManyConnections, Message: "sorry, too many clients already"}
}

// codeTooManyConnections is SQLSTATE too_many_connections.
const codeTooManyConnections = "53300"

// admitSocket counts a new socket, or reports that Config.MaxSockets are
// open already.
func (s *Server) admitSocket() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.sockets >= s.cfg.MaxSockets {
		s.mu.refused++
		return false
	}
	s.mu.sockets++
	return true
}

func (s *Server) socketClosed() {
	s.mu.Lock()
	s.mu.sockets--
	s.mu.Unlock()
}

// refuseSocket answers a socket past Config.MaxSockets with the FATAL and
// closes it at once, on the accept loop: it costs no goroutine, and a new
// socket's empty send buffer takes the message without waiting (the
// deadline is for a peer that already vanished). PostgreSQL sends the same
// error, after reading the startup packet, from a child it forks for it.
func (s *Server) refuseSocket(nc net.Conn) {
	_ = nc.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	if b, err := errorResponse(tooManyClients()).Encode(nil); err == nil {
		_, _ = nc.Write(b)
	}
	nc.Close()
	// One log line per second at most: a flood must not flood the log.
	s.mu.Lock()
	n, now := s.mu.refused, time.Now()
	if now.Sub(s.mu.refusedAt) < time.Second {
		n = 0
	} else {
		s.mu.refused, s.mu.refusedAt = 0, now
	}
	s.mu.Unlock()
	if n > 0 {
		s.log.Warn("pgwire: too many sockets open; refusing new ones", "refused", n, "max_sockets", s.cfg.MaxSockets)
	}
}

// takeSlot gives c one of the Config.MaxConnections slots, if one is free.
func (s *Server) takeSlot(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.slots >= s.cfg.MaxConnections {
		return false
	}
	s.mu.slots++
	c.slot = true
	return true
}

// reservedForSuperusers reports whether the slot c holds is one of those
// kept for superusers (PostgreSQL's check after authentication: fewer than
// superuser_reserved_connections slots would remain free).
func (s *Server) reservedForSuperusers(user string) bool {
	if s.cfg.ReservedConnections <= 0 {
		return false
	}
	s.mu.Lock()
	free := s.cfg.MaxConnections - s.mu.slots
	s.mu.Unlock()
	if free >= s.cfg.ReservedConnections {
		return false
	}
	sc, ok := s.backend.(SuperuserChecker)
	return ok && !sc.IsSuperuser(user)
}

// assignPID gives c a pid unique among live connections and registers it
// for CancelRequest.
func (s *Server) assignPID(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		s.mu.nextPID++
		if s.mu.nextPID == 0 || s.mu.nextPID > 1<<31-1 {
			s.mu.nextPID = 1000
		}
		if _, taken := s.mu.byPID[s.mu.nextPID]; !taken {
			break
		}
	}
	c.pid = s.mu.nextPID
	s.mu.byPID[c.pid] = c
}

// cancelRequest cancels the running statement of the connection with pid if
// secret matches. Like PostgreSQL it reports nothing either way.
func (s *Server) cancelRequest(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.mu.byPID[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret[:], secret) != 1 {
		s.log.Info("pgwire: CancelRequest ignored: no such backend or wrong key", "pid", pid)
		return
	}
	c.cancelStatement()
}

// Shutdown stops accepting, cancels running statements (clients get FATAL
// 57P01), and waits for every connection to end. If ctx ends first, the
// remaining connections are closed forcibly and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.mu.closing = true
	for ln := range s.mu.listeners {
		ln.Close()
	}
	conns := make([]*conn, 0, len(s.mu.conns))
	for c := range s.mu.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.cancel(errShutdown)
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.mu.conns {
			c.raw.Close()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// Sessions returns one SessionInfo per live connection, ordered by pid.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.mu.conns))
	for c := range s.mu.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := make([]SessionInfo, 0, len(conns))
	for _, c := range conns {
		out = append(out, c.sessionInfo())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
