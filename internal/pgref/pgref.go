package pgref

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Environment variables read by this package.
const (
	EnvURL     = "BSDB_PG_URL"
	EnvBin     = "BSDB_PG_BIN"
	EnvRequire = "BSDB_REQUIRE_PG"
)

// RunAsUser is the system user the server runs as when tests run as root.
const RunAsUser = "pgtest"

// TB is the part of testing.TB that Start needs (testing.T, B and F satisfy it).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Cleanup(func())
	Logf(format string, args ...any)
}

var shared struct {
	mainActive atomic.Bool
	mu         sync.Mutex
	srv        *Server
	err        error // sticky start failure
}

// Main runs the package's tests with one shared reference server (started on
// first use) and exits with their status. Call it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without os.Exit: it runs m, stops the shared server if one was
// started, and returns the exit code.
func Run(m *testing.M) int {
	shared.mainActive.Store(true)
	code := m.Run()
	shared.mu.Lock()
	if shared.srv != nil {
		shared.srv.Stop()
		shared.srv = nil
	}
	shared.mu.Unlock()
	return code
}

// Start returns the URL of a reference PostgreSQL: BSDB_PG_URL if set, the
// shared server under Main, else a server private to t. When PostgreSQL is
// unavailable it skips t, or fails it if BSDB_REQUIRE_PG=1.
func Start(t TB) string {
	t.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	if shared.mainActive.Load() {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if shared.srv == nil && shared.err == nil {
			shared.srv, shared.err = StartServer(Options{})
		}
		if shared.err != nil {
			unavailable(t, shared.err)
		}
		return shared.srv.URL
	}
	srv, err := StartServer(Options{})
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(srv.Stop)
	return srv.URL
}

func unavailable(t TB, err error) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("pgref: reference PostgreSQL required (%s=1) but unavailable: %v", EnvRequire, err)
	}
	t.Skipf("pgref: reference PostgreSQL unavailable (set %s=1 to fail instead): %v", EnvRequire, err)
}

var dbSeq atomic.Int64

// NewDatabase creates a fresh database on the server at url and returns a URL
// for it; the database is dropped in t.Cleanup.
func NewDatabase(t TB, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatalf("pgref: connect %s: %v", url, err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("pgref_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, dbSeq.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name).ReadAll(); err != nil {
		t.Fatalf("pgref: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Logf("pgref: drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)").ReadAll(); err != nil {
			t.Logf("pgref: drop database %s: %v", name, err)
		}
	})
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatalf("pgref: parse %s: %v", url, err)
	}
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", cfg.User, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), name)
}

// Options tune StartServer. The zero value is what Start uses.
type Options struct {
	// BinDir holds initdb and postgres; "" means BSDB_PG_BIN or autodetect.
	BinDir string
	// Settings are extra "-c name=value" server settings.
	Settings map[string]string
	// StartTimeout bounds initdb + startup; 0 means 90s (2 shared cores).
	StartTimeout time.Duration
}

// Server is a running reference PostgreSQL.
type Server struct {
	URL     string
	Port    int
	DataDir string // PGDATA; its parent Dir is deleted by Stop
	Dir     string
	cmd     *exec.Cmd
	done    chan struct{}
	once    sync.Once
}

// FindBinDir returns the directory holding initdb and postgres.
func FindBinDir() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		return d, nil
	}
	for _, v := range []string{"17", "16", "15"} {
		d := "/usr/lib/postgresql/" + v + "/bin"
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	p, err := exec.LookPath("postgres")
	if err != nil {
		return "", fmt.Errorf("no postgres binary (set %s): %w", EnvBin, err)
	}
	return filepath.Dir(p), nil
}

// StartServer runs initdb and starts a server; Stop it when done.
func StartServer(opts Options) (*Server, error) {
	bin := opts.BinDir
	if bin == "" {
		var err error
		if bin, err = FindBinDir(); err != nil {
			return nil, err
		}
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	cred, err := credential()
	if err != nil {
		return nil, err
	}
	sweepStale()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("pgref: temp dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgref: owner file: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("pgref: chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgref: initdb: %w\n%s", err, tail(out))
	}

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		srv, err := launch(ctx, bin, dir, data, port, cred, opts.Settings)
		if err == nil {
			ok = true
			return srv, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func launch(ctx context.Context, bin, dir, data string, port int, cred *syscall.Credential, settings map[string]string) (*Server, error) {
	logPath := filepath.Join(dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgref: log file: %w", err)
	}
	defer logf.Close()
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=40", "-c", "shared_buffers=32MB", "-c", "max_wal_senders=0",
		"-c", "wal_level=minimal", "-c", "log_min_messages=warning", "-c", "TimeZone=UTC"}
	for k, v := range settings {
		args = append(args, "-c", k+"="+v)
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = dir
	// SIGQUIT is PostgreSQL's immediate shutdown: children exit too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgref: start postgres: %w", err)
	}
	srv := &Server{
		URL:     fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
		Port:    port,
		DataDir: data,
		Dir:     dir,
		cmd:     cmd,
		done:    make(chan struct{}),
	}
	go func() { cmd.Wait(); close(srv.done) }()
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgconn.Connect(cctx, srv.URL)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return srv, nil
		}
		select {
		case <-srv.done:
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("pgref: postgres exited during startup on port %d: %w\n%s", port, err, tail(log))
		case <-ctx.Done():
			srv.kill()
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("pgref: postgres not ready: %w (last: %v)\n%s", ctx.Err(), err, tail(log))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Server) kill() {
	s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Stop shuts the server down (fast shutdown, then immediate) and deletes its
// directory. Safe to call more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.kill()
		}
		os.RemoveAll(s.Dir)
	})
}

const (
	dirPrefix = "pgref-"
	ownerFile = "owner.pid" // pid of the test process that created the directory
)

// sweepStale removes directories left by test processes that died before
// Stop (a panic, a timeout kill): their owner pid no longer exists. The
// servers themselves died with their owner (parent-death signal).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created right now, or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgref: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var credOnce struct {
	sync.Once
	cred *syscall.Credential
	err  error
}

// credential is nil when not root, else the pgtest user's (created if missing).
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	credOnce.Do(func() {
		u, err := user.Lookup(RunAsUser)
		if err != nil {
			var unknown user.UnknownUserError
			if !errors.As(err, &unknown) {
				credOnce.err = fmt.Errorf("pgref: look up user %s: %w", RunAsUser, err)
				return
			}
			if out, err := exec.Command("useradd", "-m", RunAsUser).CombinedOutput(); err != nil {
				credOnce.err = fmt.Errorf("pgref: useradd %s: %w: %s", RunAsUser, err, out)
				return
			}
			if u, err = user.Lookup(RunAsUser); err != nil {
				credOnce.err = fmt.Errorf("pgref: look up user %s: %w", RunAsUser, err)
				return
			}
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			credOnce.err = fmt.Errorf("pgref: bad uid/gid %s/%s for %s", u.Uid, u.Gid, RunAsUser)
			return
		}
		credOnce.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	})
	return credOnce.cred, credOnce.err
}

func tail(b []byte) string {
	const n = 2000
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
