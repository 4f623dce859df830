package pgwire

import (
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// startup sends a StartupMessage for user and returns the transcript up to
// the first ReadyForQuery, ErrorResponse or password request ("p"), and
// the last message.
func (c *rawClient) startup(user string) (string, pgproto3.BackendMessage) {
	c.t.Helper()
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": user, "database": "db"}})
	var tr string
	for {
		m := c.recv()
		if tr != "" {
			tr += " "
		}
		if _, ok := m.(*pgproto3.AuthenticationCleartextPassword); ok {
			tr += "p"
		} else {
			tr += msgLetter(m)
		}
		switch m.(type) {
		case *pgproto3.ReadyForQuery, *pgproto3.ErrorResponse, *pgproto3.AuthenticationCleartextPassword:
			return tr, m
		}
	}
}

// expectFatal asserts m is FATAL code with message msg and that the server
// then closes the connection.
func (c *rawClient) expectFatal(m pgproto3.BackendMessage, code, msg string) {
	c.t.Helper()
	e, ok := m.(*pgproto3.ErrorResponse)
	if !ok {
		c.t.Fatalf("got %s, want FATAL %s", msgLetter(m), code)
	}
	if e.Severity != "FATAL" || e.Code != code || e.Message != msg {
		c.t.Fatalf("got %s %s %q, want FATAL %s %q", e.Severity, e.Code, e.Message, code, msg)
	}
	c.expectClosed()
}

func (s *Server) counts() (sockets, slots int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.sockets, s.mu.slots
}

// max_connections: the connection past it gets PostgreSQL's FATAL 53300
// right after its startup packet (no authentication exchange first), and
// a slot comes back when a connection ends.
func TestMaxConnections(t *testing.T) {
	ts := startServer(t, Config{MaxConnections: 5, ReservedConnections: -1}, nil)
	var conns []*rawClient
	for i := 0; i < 5; i++ {
		conns = append(conns, connectRaw(t, ts.addr))
	}
	c := dialRaw(t, ts.addr)
	tr, m := c.startup("alice")
	if tr != "E(53300)" {
		t.Fatalf("connection 6: %s, want E(53300) before any authentication message", tr)
	}
	c.expectFatal(m, "53300", "sorry, too many clients already")

	conns[0].send(&pgproto3.Terminate{})
	conns[0].expectClosed()
	waitFor(t, "the slot to come back", func() bool { _, slots := ts.srv.counts(); return slots == 4 })
	if tr, _ := dialRaw(t, ts.addr).startup("alice"); tr[len(tr)-4:] != "Z(I)" {
		t.Fatalf("after one left: %s, want a session", tr)
	}
}

// A client that sent its startup packet holds its slot while it
// authenticates, until authentication_timeout; sockets that sent nothing
// hold none (as in PostgreSQL: no backend slot before the startup packet).
func TestMaxConnectionsCountsAuthenticating(t *testing.T) {
	ts := startServer(t, Config{MaxConnections: 2, ReservedConnections: -1, AuthTimeout: 700 * time.Millisecond,
		Auth: AuthConfig{Method: AuthPassword, Users: map[string]string{"alice": "x"}}}, nil)
	for i := 0; i < 2; i++ {
		if tr, _ := dialRaw(t, ts.addr).startup("alice"); tr != "p" {
			t.Fatalf("client %d: %s, want the password request", i, tr)
		}
	}
	c := dialRaw(t, ts.addr)
	_, m := c.startup("alice")
	c.expectFatal(m, "53300", "sorry, too many clients already")

	waitFor(t, "authentication_timeout to free the slots", func() bool { _, slots := ts.srv.counts(); return slots == 0 })
	for i := 0; i < 4; i++ { // idle sockets: no slot
		dialRaw(t, ts.addr)
	}
	waitFor(t, "the idle sockets", func() bool { sockets, _ := ts.srv.counts(); return sockets == 4 })
	if tr, _ := dialRaw(t, ts.addr).startup("alice"); tr != "p" {
		t.Fatalf("with idle sockets open: %s, want the password request", tr)
	}
}

// Past MaxSockets a new socket gets the FATAL and is closed at once,
// without waiting for its startup packet: thousands of idle sockets cost
// the server MaxSockets descriptors, not thousands. A CancelRequest still
// gets through while the slots are full.
func TestMaxSocketsBoundsDescriptors(t *testing.T) {
	ts := startServer(t, Config{MaxConnections: 3, MaxSockets: 20, ReservedConnections: -1}, nil)
	slow, key := connectWithKey(t, ts.addr)
	for i := 0; i < 2; i++ {
		connectRaw(t, ts.addr)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	before := fds()
	const idle = 400
	var refused int
	var socks []net.Conn
	for i := 0; i < idle; i++ {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, nc)
	}
	defer func() {
		for _, nc := range socks {
			nc.Close()
		}
	}()
	waitFor(t, "the server to take its sockets", func() bool { sockets, _ := ts.srv.counts(); return sockets >= 20 })
	// Every socket past the bound was answered and closed by the server;
	// the others wait for their startup packet.
	// Sockets are accepted in order: once the last one is answered, every
	// one is, and a refused socket's answer is already in its buffer.
	check := func(nc net.Conn, wait time.Duration) bool {
		_ = nc.SetReadDeadline(time.Now().Add(wait))
		fe := pgproto3.NewFrontend(nc, nc)
		m, err := fe.Receive()
		e, ok := m.(*pgproto3.ErrorResponse)
		if !ok || err != nil {
			return false
		}
		if e.Code != "53300" || e.Severity != "FATAL" || e.Message != "sorry, too many clients already" {
			t.Fatalf("refused socket got %s %s %q", e.Severity, e.Code, e.Message)
		}
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := fe.Receive(); err != io.EOF && err != io.ErrUnexpectedEOF {
			t.Fatalf("refused socket not closed: %v", err)
		}
		return true
	}
	if !check(socks[idle-1], 10*time.Second) {
		t.Fatal("the last socket was not refused")
	}
	refused = 1
	for _, nc := range socks[:idle-1] {
		if check(nc, 20*time.Millisecond) {
			refused++
		}
	}
	if want := idle - (20 - 3); refused != want {
		t.Fatalf("%d sockets refused, want %d", refused, want)
	}
	// Our side holds idle client descriptors; the server's side at most 17.
	if got := fds() - before; got > idle+20 {
		t.Fatalf("%d descriptors more after %d sockets, want at most %d", got, idle, idle+20)
	}
	// The bound frees as sockets close: a cancel request and a session get in.
	for _, nc := range socks {
		nc.Close()
	}
	socks = nil
	waitFor(t, "the idle sockets to close", func() bool { sockets, _ := ts.srv.counts(); return sockets == 3 })
	slow.send(&pgproto3.Query{String: "select pg_sleep(60)"})
	<-ts.b.started
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	if tr, _ := slow.until('Z'); tr != "T E(57014) Z(I)" {
		t.Fatalf("cancel with every slot taken: %s", tr)
	}
	c := dialRaw(t, ts.addr)
	_, m := c.startup("alice")
	c.expectFatal(m, "53300", "sorry, too many clients already")
}

// superBackend is a testBackend whose superusers are known.
type superBackend struct {
	*testBackend
	supers map[string]bool
}

func (b superBackend) IsSuperuser(user string) bool { return b.supers[user] }

// The last superuser_reserved_connections slots are for superusers: a
// non-superuser that would leave fewer free is refused after
// authentication, with PostgreSQL's message.
func TestReservedConnections(t *testing.T) {
	tb := newTestBackend()
	b := superBackend{testBackend: tb, supers: map[string]bool{"postgres": true}}
	ts := startServerBackend(t, Config{MaxConnections: 4, ReservedConnections: 2}, b, tb)
	for i := 0; i < 2; i++ {
		if tr, _ := dialRaw(t, ts.addr).startup("alice"); tr[len(tr)-4:] != "Z(I)" {
			t.Fatalf("alice %d: %s", i, tr)
		}
	}
	c := dialRaw(t, ts.addr)
	tr, m := c.startup("alice")
	if tr != "R E(53300)" {
		t.Fatalf("third alice: %s, want R E(53300) (refused after authentication)", tr)
	}
	c.expectFatal(m, "53300", "remaining connection slots are reserved for non-replication superuser connections")
	for i := 0; i < 2; i++ {
		if tr, _ := dialRaw(t, ts.addr).startup("postgres"); tr[len(tr)-4:] != "Z(I)" {
			t.Fatalf("superuser %d: %s", i, tr)
		}
	}
	c = dialRaw(t, ts.addr)
	_, m = c.startup("postgres")
	c.expectFatal(m, "53300", "sorry, too many clients already")
}
