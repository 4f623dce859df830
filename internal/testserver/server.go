package testserver

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options configures Start. The zero value is a server with a fresh data
// directory and the server's own defaults for everything else.
type Options struct {
	// DataDir is the server's BSDB_DATA_DIR; empty means a new t.TempDir().
	DataDir string
	// Env holds extra KEY=VALUE entries for the server (BSDB_WAL_DURABILITY=sync,
	// BSDB_CRASH_AT=..., ...). They override the inherited environment and
	// may override BSDB_LISTEN / BSDB_DATA_DIR too.
	Env []string
	// Args are extra command-line arguments.
	Args []string
	// User and Database go into URL; default "postgres" and "postgres"
	// (a fresh data directory has the superuser "postgres" and the
	// database "postgres", as initdb -U postgres makes them; the server
	// trusts its roles on loopback).
	User, Database string
	// Binary is the executable to run; empty means Build(t).
	Binary string
	// ReadyTimeout bounds the wait for the first accepted connection
	// (default 60 s).
	ReadyTimeout time.Duration
	// StopTimeout bounds the wait after SIGTERM before SIGKILL (default 60 s).
	StopTimeout time.Duration
}

// Server is one running (or stopped) bsdb-pg subprocess.
type Server struct {
	// URL is postgres://user@127.0.0.1:port/db?sslmode=disable.
	URL string
	// Port is the TCP port on 127.0.0.1 the server listens on.
	Port int
	// DataDir is the server's data directory; it survives Stop, Kill and
	// Restart, and is removed with the test's temp dirs when Start chose it.
	DataDir string
	// Cmd is the current process (replaced by Restart).
	Cmd *exec.Cmd

	t      testing.TB
	opts   Options
	binary string
	out    *syncBuffer

	mu      sync.Mutex
	done    chan struct{} // closed when the current process has exited
	waitErr error         // valid after done is closed
}

// ReadyLogLine is what the server writes to stderr once it accepts
// connections ("listening on 127.0.0.1:5433").
const ReadyLogLine = "listening on"

const (
	readyGrace          = 5 * time.Second
	defaultReadyTimeout = 60 * time.Second
	defaultStopTimeout  = 60 * time.Second
)

// Start builds (once) and starts the server and waits until it accepts
// connections. It registers a cleanup that stops the server and, if the
// test failed, logs everything the server wrote.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Binary == "" {
		opts.Binary = Build(t)
	}
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if opts.User == "" {
		opts.User = "postgres"
	}
	if opts.Database == "" {
		opts.Database = "postgres"
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = defaultReadyTimeout
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = defaultStopTimeout
	}
	s := &Server{t: t, opts: opts, binary: opts.Binary, DataDir: opts.DataDir, out: &syncBuffer{}}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("testserver: stop at cleanup: %v", err)
		}
		if t.Failed() {
			t.Logf("testserver: output of bsdb-pg (%s):\n%s", s.DataDir, s.Output())
		}
	})
	// A free port found by listening on :0 can be taken by someone else
	// before the server binds it; try a few ports before giving up.
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		s.Port, err = freePort()
		if err != nil {
			t.Fatalf("testserver: %v", err)
		}
		if err = s.launch(); err == nil {
			break
		}
		if !strings.Contains(err.Error(), "exited") || !strings.Contains(strings.ToLower(s.out.String()), "address already in use") {
			break
		}
	}
	if err != nil {
		t.Fatalf("testserver: %v (the server's output follows at cleanup)", err)
	}
	s.URL = (&url.URL{
		Scheme:   "postgres",
		User:     url.User(opts.User),
		Host:     s.Addr(),
		Path:     "/" + opts.Database,
		RawQuery: "sslmode=disable",
	}).String()
	return s
}

// Addr is "127.0.0.1:port".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Output returns everything the server wrote to stdout and stderr so far,
// across restarts.
func (s *Server) Output() string { return s.out.String() }

// launch starts a process on s.Port and waits for it to accept connections.
func (s *Server) launch() error {
	cmd := exec.Command(s.binary, s.opts.Args...)
	cmd.Env = s.environ()
	cmd.Dir = s.DataDir
	cmd.Stdout, cmd.Stderr = s.out, s.out
	cmd.SysProcAttr = sysProcAttr()
	fmt.Fprintf(s.out, "--- testserver: starting %s on %s (data dir %s)\n", s.binary, s.Addr(), s.DataDir)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.binary, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.Cmd, s.done, s.waitErr = cmd, done, nil
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(done)
	}()
	return s.waitReady(done)
}

func (s *Server) environ() []string {
	env := make([]string, 0, len(os.Environ())+len(s.opts.Env)+2)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BSDB_LISTEN=") || strings.HasPrefix(kv, "BSDB_DATA_DIR=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "BSDB_LISTEN="+s.Addr(), "BSDB_DATA_DIR="+s.DataDir)
	// exec.Cmd keeps the last value of a duplicated key: Options.Env wins.
	return append(env, s.opts.Env...)
}

// waitReady polls a TCP connect until it succeeds, the process exits, or
// the ready timeout passes.
func (s *Server) waitReady(done <-chan struct{}) error {
	start := time.Now()
	deadline := start.Add(s.opts.ReadyTimeout)
	for {
		select {
		case <-done:
			return fmt.Errorf("bsdb-pg exited before accepting connections: %v", s.exitErr())
		default:
		}
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			c.Close()
			// Another process may hold the port we picked (then ours exits
			// with "address already in use"): trust the connection once the
			// server has said it listens, or after a grace period for a
			// server whose log line we do not recognise.
			if strings.Contains(s.out.String(), ReadyLogLine) || time.Since(start) > readyGrace {
				return nil
			}
			err = errors.New("connected, waiting for the " + strconv.Quote(ReadyLogLine) + " log line")
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("bsdb-pg did not accept connections on %s within %v: %w", s.Addr(), s.opts.ReadyTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) exitErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waitErr
}

// running reports whether the current process has not exited yet.
func (s *Server) running() (chan struct{}, bool) {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return nil, false
	}
	select {
	case <-done:
		return done, false
	default:
		return done, true
	}
}

// Stop sends SIGTERM and waits for the process to exit. It returns an error
// if the server did not exit cleanly (non-zero status, or it had to be
// killed after StopTimeout). Stopping a stopped server returns nil.
func (s *Server) Stop() error {
	done, alive := s.running()
	if !alive {
		return nil
	}
	fmt.Fprintf(s.out, "--- testserver: SIGTERM\n")
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGTERM: %w", err)
	}
	select {
	case <-done:
	case <-time.After(s.opts.StopTimeout):
		s.kill()
		return fmt.Errorf("bsdb-pg did not exit within %v of SIGTERM; killed", s.opts.StopTimeout)
	}
	if err := s.exitErr(); err != nil {
		return fmt.Errorf("bsdb-pg shutdown: %w", err)
	}
	return nil
}

// Kill sends SIGKILL and waits for the process to exit: no shutdown code
// runs, as in a power cut for everything not yet written to the kernel.
func (s *Server) Kill() {
	if _, alive := s.running(); alive {
		fmt.Fprintf(s.out, "--- testserver: SIGKILL\n")
	}
	s.kill()
}

func (s *Server) kill() {
	done, alive := s.running()
	if !alive {
		return
	}
	_ = s.Cmd.Process.Kill()
	<-done
}

// Restart stops the server if it runs (t.Error if that shutdown is not
// clean) and starts it again on the same port and data directory.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.Stop(); err != nil {
		s.t.Errorf("testserver: restart: %v", err)
	}
	if err := s.launch(); err != nil {
		s.t.Fatalf("testserver: restart: %v (the server's output follows at cleanup)", err)
	}
}

// freePort asks the kernel for an unused 127.0.0.1 TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is an append-only buffer safe for the two copy goroutines of
// exec.Cmd and readers in the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
