package testserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The harness is tested against this test binary re-executed as a stand-in
// server (TESTSERVER_FAKE=mode): the real bsdb-pg is built by other packages'
// tests, and the harness's own mechanics (readiness, signals, restart on the
// same port, output capture) are what is under test here.
func TestMain(m *testing.M) {
	if mode := os.Getenv("TESTSERVER_FAKE"); mode != "" {
		os.Exit(fakeServer(mode))
	}
	Main(m)
}

func fakeServer(mode string) int {
	dir := os.Getenv("BSDB_DATA_DIR")
	f, err := os.OpenFile(filepath.Join(dir, "starts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(f, "durability=%s\n", os.Getenv("BSDB_WAL_DURABILITY"))
	f.Close()
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "fatal: cannot open WAL: boom")
		return 3
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	if mode == "slow" {
		time.Sleep(300 * time.Millisecond) // not ready at once
	}
	l, err := net.Listen("tcp", os.Getenv("BSDB_LISTEN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "listening on %s\n", l.Addr())
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for range sigs {
		if mode == "hang" {
			fmt.Fprintln(os.Stderr, "ignoring SIGTERM")
			continue
		}
		fmt.Fprintln(os.Stderr, "shutting down")
		return 0
	}
	return 0
}

func fakeOptions(mode string) Options {
	return Options{
		Binary:      os.Args[0],
		Env:         []string{"TESTSERVER_FAKE=" + mode, "BSDB_WAL_DURABILITY=sync"},
		StopTimeout: 2 * time.Second,
	}
}

func dial(s *Server) error {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err == nil {
		c.Close()
	}
	return err
}

func starts(t *testing.T, s *Server) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.DataDir, "starts"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func TestStartStopRestart(t *testing.T) {
	t.Setenv("BSDB_DATA_DIR", "/nonexistent/inherited") // must not leak into the server
	s := Start(t, fakeOptions("slow"))
	if err := dial(s); err != nil {
		t.Fatalf("Start returned before the server accepts connections: %v", err)
	}
	want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
	if s.URL != want {
		t.Errorf("URL = %q, want %q", s.URL, want)
	}
	if got := starts(t, s); len(got) != 1 || got[0] != "durability=sync" {
		t.Errorf("server environment: starts file %q, want one start with durability=sync", got)
	}
	port, url := s.Port, s.URL
	s.Restart()
	if s.Port != port || s.URL != url {
		t.Errorf("Restart moved the server: %d %s -> %d %s", port, url, s.Port, s.URL)
	}
	if err := dial(s); err != nil {
		t.Fatalf("after Restart: %v", err)
	}
	if got := starts(t, s); len(got) != 2 {
		t.Errorf("Restart did not reuse the data dir: %d starts recorded", len(got))
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !strings.Contains(s.Output(), "shutting down") {
		t.Errorf("Stop did not send SIGTERM; output:\n%s", s.Output())
	}
	if err := dial(s); err == nil {
		t.Errorf("server still accepts connections after Stop")
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestKillThenRestart(t *testing.T) {
	s := Start(t, fakeOptions("run"))
	s.Kill()
	if err := dial(s); err == nil {
		t.Fatalf("server accepts connections after Kill")
	}
	var ee *exec.ExitError
	if err := s.exitErr(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("Kill: exit status %v, want killed by SIGKILL", err)
	}
	s.Restart()
	if err := dial(s); err != nil {
		t.Fatalf("Restart after Kill: %v", err)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	s := Start(t, fakeOptions("hang"))
	start := time.Now()
	err := s.Stop()
	if err == nil || !strings.Contains(err.Error(), "did not exit") {
		t.Fatalf("Stop of a server ignoring SIGTERM = %v, want a did-not-exit error", err)
	}
	if _, alive := s.running(); alive {
		t.Fatalf("server still running after Stop")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Stop took %v with StopTimeout 2s", d)
	}
}

func TestEarlyExitReportsOutput(t *testing.T) {
	opts := fakeOptions("exit")
	opts.DataDir, opts.ReadyTimeout = t.TempDir(), 12*time.Second
	s := &Server{t: t, opts: opts, binary: opts.Binary, DataDir: opts.DataDir, out: &syncBuffer{}}
	var err error
	if s.Port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.launch()
	if err == nil || !strings.Contains(err.Error(), "exited before accepting connections") {
		t.Fatalf("launch of a crashing server = %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("early exit detected only after %v", time.Since(start))
	}
	if !strings.Contains(s.Output(), "cannot open WAL: boom") {
		t.Errorf("server stderr not captured: %q", s.Output())
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}

func TestPrebuiltBinary(t *testing.T) {
	t.Setenv("BSDB_TEST_BINARY", os.Args[0])
	path, dir, err := buildBinary()
	if err != nil || dir != "" || !filepath.IsAbs(path) {
		t.Fatalf("BSDB_TEST_BINARY=%s: path %q dir %q err %v; want the binary itself, nothing built", os.Args[0], path, dir, err)
	}
	t.Setenv("BSDB_TEST_BINARY", filepath.Join(t.TempDir(), "missing"))
	if _, _, err := buildBinary(); err == nil {
		t.Fatalf("a missing BSDB_TEST_BINARY was accepted")
	}
}
