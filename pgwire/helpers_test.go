package pgwire

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	srv  *Server
	b    *testBackend
	addr string
	logs *syncBuffer
	done chan error
}

// startServer serves b (a fresh test backend if nil) on 127.0.0.1. Cleanup
// shuts it down and checks that every session was closed.
func startServer(t testing.TB, cfg Config, b *testBackend) *testServer {
	t.Helper()
	if b == nil {
		b = newTestBackend()
	}
	return startServerBackend(t, cfg, b, b)
}

// startServerBackend serves be, a Backend wrapping the test backend b.
func startServerBackend(t testing.TB, cfg Config, be Backend, b *testBackend) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: NewServer(cfg, be), b: b, addr: ln.Addr().String(), logs: logs, done: make(chan error, 1)}
	go func() { ts.done <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ts.done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if n := b.live.Load(); n != 0 {
			t.Errorf("%d sessions not closed after Shutdown", n)
		}
		if strings.Contains(logs.String(), "called twice") {
			t.Error("a Session was closed twice")
		}
	})
	return ts
}

func (ts *testServer) url(user, password, extra string) string {
	host, port, _ := net.SplitHostPort(ts.addr)
	u := "postgres://" + user
	if password != "" {
		u += ":" + password
	}
	u += "@" + host + ":" + port + "/db?sslmode=disable"
	if extra != "" {
		u += "&" + extra
	}
	return u
}

// rawClient is a pgproto3 Frontend on a plain socket, for scripted
// protocol exchanges.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// connectRaw dials and completes a trust startup up to ReadyForQuery.
func connectRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "alice", "database": "db"}})
	c.until('Z')
	return c
}

// connectWithKey completes a trust startup as user u up to ReadyForQuery
// and returns the connection's cancel key.
func connectWithKey(t testing.TB, addr string) (*rawClient, *pgproto3.BackendKeyData) {
	t.Helper()
	c := dialRaw(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
	var key *pgproto3.BackendKeyData
	for {
		switch m := c.recv().(type) {
		case *pgproto3.BackendKeyData:
			key = m
		case *pgproto3.ReadyForQuery:
			if key == nil {
				t.Fatal("no BackendKeyData before ReadyForQuery")
			}
			return c, key
		}
	}
}

// sendCancel sends a CancelRequest for (pid, secret) on a new connection,
// which the server closes.
func sendCancel(t testing.TB, addr string, pid uint32, secret []byte) {
	t.Helper()
	cc := dialRaw(t, addr)
	cc.send(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret})
	cc.expectClosed()
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *rawClient) recv() pgproto3.BackendMessage {
	c.t.Helper()
	m, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	return m
}

// until receives messages up to and including one of type typ, and returns
// a transcript of their type letters (DataRow values included) and the
// last message.
func (c *rawClient) until(typ byte) (string, pgproto3.BackendMessage) {
	c.t.Helper()
	var sb strings.Builder
	for {
		m := c.recv()
		l := msgLetter(m)
		sb.WriteString(l)
		if l[0] == typ {
			return sb.String(), m
		}
		sb.WriteByte(' ')
	}
}

// msgLetter names a backend message by its wire type byte, with the
// interesting payload: Z(I), C(SELECT 1), E(42601), D(1,a).
func msgLetter(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.ReadyForQuery:
		return "Z(" + string(m.TxStatus) + ")"
	case *pgproto3.CommandComplete:
		return "C(" + string(m.CommandTag) + ")"
	case *pgproto3.ErrorResponse:
		return "E(" + m.Code + ")"
	case *pgproto3.DataRow:
		vals := make([]string, len(m.Values))
		for i, v := range m.Values {
			if v == nil {
				vals[i] = "NULL"
			} else {
				vals[i] = string(v)
			}
		}
		return "D(" + strings.Join(vals, ",") + ")"
	case *pgproto3.ParseComplete:
		return "1"
	case *pgproto3.BindComplete:
		return "2"
	case *pgproto3.CloseComplete:
		return "3"
	case *pgproto3.NoData:
		return "n"
	case *pgproto3.PortalSuspended:
		return "s"
	case *pgproto3.ParameterDescription:
		return "t"
	case *pgproto3.RowDescription:
		return "T"
	case *pgproto3.EmptyQueryResponse:
		return "I"
	case *pgproto3.NoticeResponse:
		return "N"
	case *pgproto3.CopyInResponse:
		return "G"
	case *pgproto3.CopyOutResponse:
		return "H"
	case *pgproto3.CopyData:
		return "d(" + strings.TrimSuffix(string(m.Data), "\n") + ")"
	case *pgproto3.CopyDone:
		return "c"
	case *pgproto3.ParameterStatus:
		return "S"
	case *pgproto3.BackendKeyData:
		return "K"
	case *pgproto3.AuthenticationOk:
		return "R"
	case *pgproto3.NegotiateProtocolVersion:
		return "v"
	default:
		return "?"
	}
}

// expectClosed asserts the server closes the connection.
func (c *rawClient) expectClosed() {
	c.t.Helper()
	for {
		m, err := c.fe.Receive()
		if err != nil {
			return
		}
		c.t.Logf("after expected close: %s", msgLetter(m))
	}
}

// waitFor polls cond for up to 10s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
