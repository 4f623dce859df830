package pgwire

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestPanicInSessionIsContained(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	for _, tc := range []struct {
		name string
		msgs []pgproto3.FrontendMessage
	}{
		{"SimpleQuery", []pgproto3.FrontendMessage{&pgproto3.Query{String: "select panic()"}}},
		{"Prepare", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "select panic_prepare()"}, &pgproto3.Sync{}}},
		{"Execute", []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "select panic()"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connectRaw(t, ts.addr)
			c.send(tc.msgs...)
			_, m := c.until('E')
			if e := m.(*pgproto3.ErrorResponse); e.Code != pgerr.InternalError || e.Severity != "FATAL" {
				t.Errorf("got %+v", e)
			}
			c.expectClosed()
		})
	}
	if !strings.Contains(ts.logs.String(), "boom in SimpleQuery") || !strings.Contains(ts.logs.String(), "goroutine") {
		t.Error("panic and its stack not logged")
	}
	// NewSession panicking is contained too.
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "database": "panicdb"}})
	if got, _ := c.until('E'); got != "R E(XX000)" {
		t.Errorf("got %s", got)
	}
	// The server goes on, and every panicked session was closed.
	c = connectRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select generate_series(1, 1)"})
	if got, _ := c.until('Z'); got != "T D(1) C(SELECT 1) Z(I)" {
		t.Errorf("got %s", got)
	}
	waitFor(t, "panicked sessions closed", func() bool { return ts.b.live.Load() == 1 })
}

// A client that closes its socket while a statement runs cancels it.
func TestClientDisconnectCancelsStatement(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select pg_sleep(60)"})
	<-ts.b.started
	c.nc.Close()
	waitFor(t, "statement canceled and session closed", func() bool { return ts.b.live.Load() == 0 })
}

// The same after a stream of short statements, which left the one watch
// timer armed for a statement that has ended (withStmt, startWatch).
func TestClientDisconnectCancelsStatementAfterShortOnes(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	for end := time.Now().Add(3 * clientCheckDelay); time.Now().Before(end); {
		c.send(&pgproto3.Query{String: "select generate_series(1, 1)"})
		c.until('Z')
	}
	c.send(&pgproto3.Query{String: "select pg_sleep(60)"})
	<-ts.b.started
	c.nc.Close()
	waitFor(t, "statement canceled and session closed", func() bool { return ts.b.live.Load() == 0 })
}

func TestShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	b := newTestBackend()
	ts := startServer(t, Config{}, b)
	idle := connectRaw(t, ts.addr)
	busy := connectRaw(t, ts.addr)
	busy.send(&pgproto3.Query{String: "select pg_sleep(60)"})
	<-b.started
	starting := dialRaw(t, ts.addr) // connected, no startup packet yet
	waitFor(t, "3 connections", func() bool { return len(ts.srv.Sessions()) == 3 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-ts.done; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	ts.done <- ErrServerClosed // for the cleanup
	for name, c := range map[string]*rawClient{"idle": idle, "busy": busy} {
		_, m := c.until('E')
		if e := m.(*pgproto3.ErrorResponse); e.Code != pgerr.AdminShutdown || e.Severity != "FATAL" {
			t.Errorf("%s: got %+v", name, e)
		}
		c.expectClosed()
	}
	if got, _ := starting.until('E'); got != "E(57P01)" {
		t.Errorf("connection in startup: %s", got)
	}
	starting.expectClosed()
	if n := b.live.Load(); n != 0 {
		t.Errorf("%d sessions open after Shutdown", n)
	}
	if len(ts.srv.Sessions()) != 0 {
		t.Errorf("Sessions after Shutdown: %+v", ts.srv.Sessions())
	}
	// No goroutine outlives its connection.
	idle.nc.Close()
	busy.nc.Close()
	starting.nc.Close()
	waitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before+2 })
}

func TestShutdownForcesStuckWriters(t *testing.T) {
	b := newTestBackend()
	ts := startServer(t, Config{}, b)
	c := connectRaw(t, ts.addr)
	// A client that never reads while the server writes a large result.
	// The statement ignores cancellation: only closing the socket stops it.
	c.send(&pgproto3.Query{String: "select flood()"})
	<-b.started
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want DeadlineExceeded after forcing", err)
	}
	if n := b.live.Load(); n != 0 {
		t.Errorf("%d sessions open after forced Shutdown", n)
	}
}

func TestListenAndServe(t *testing.T) {
	b := newTestBackend()
	srv := NewServer(Config{Listen: "127.0.0.1:0", ServerVersion: "15.18 (bsdb-pg test)"}, b)
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe() }()
	waitFor(t, "listener", func() bool { return srv.Addr() != nil })
	c := connectRaw(t, srv.Addr().String())
	c.send(&pgproto3.Query{String: "select generate_series(1, 2)"})
	if got, _ := c.until('Z'); got != "T D(1) D(2) C(SELECT 2) Z(I)" {
		t.Errorf("got %s", got)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Errorf("ListenAndServe = %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(ln); !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve after Shutdown = %v", err)
	}
	if err := srv.Serve(nil); err == nil {
		t.Error("Serve(nil) succeeded")
	}
}
