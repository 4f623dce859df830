package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// bsdbServer is one bsdb-pg subprocess on 127.0.0.1.
type bsdbServer struct {
	bin, dataDir, walDir string
	port, pprofPort      int
	env                  []string
	logPath              string

	cmd  *exec.Cmd
	done chan struct{}
}

// readyLine is what bsdb-pg writes to stderr once it accepts connections.
const readyLine = "listening on"

func newBSDB(bin, dataDir string, env []string) (*bsdbServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pp, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &bsdbServer{bin: bin, dataDir: dataDir, walDir: filepath.Join(dataDir, "wal"), port: port, pprofPort: pp, env: env,
		logPath: filepath.Join(dataDir, "server.log")}
	return s, os.MkdirAll(dataDir, 0o755)
}

func (s *bsdbServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

func (s *bsdbServer) pid() int { return s.cmd.Process.Pid }

// start runs the server and returns once it logged readiness.
func (s *bsdbServer) start(timeout time.Duration) error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("bsdb-pg log: %w", err)
	}
	cmd := exec.Command(s.bin)
	cmd.Env = append(os.Environ(),
		"BSDB_LISTEN=127.0.0.1:"+strconv.Itoa(s.port),
		"BSDB_DATA_DIR="+s.dataDir,
		"BSDB_WAL_DIR="+s.walDir,
		"BSDB_PPROF=127.0.0.1:"+strconv.Itoa(s.pprofPort))
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Dir = s.dataDir
	cmd.Stdout = logf
	cmd.SysProcAttr = sysProcAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logf.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var once sync.Once
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if strings.Contains(line, readyLine) {
				once.Do(func() { close(ready) })
			}
		}
		io.Copy(logf, stderr)
		cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	select {
	case <-ready:
		return nil
	case <-s.done:
		return fmt.Errorf("bsdb-pg exited during startup (log %s):\n%s", s.logPath, logTail(s.logPath))
	case <-time.After(timeout):
		s.kill()
		return fmt.Errorf("bsdb-pg not ready after %v (log %s):\n%s", timeout, s.logPath, logTail(s.logPath))
	}
}

// stop is a clean shutdown (SIGTERM: the server commits its buffers).
func (s *bsdbServer) stop() error {
	if s.cmd == nil {
		return nil
	}
	select {
	case <-s.done:
		return nil
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		if st := s.cmd.ProcessState; st != nil && !st.Success() {
			return fmt.Errorf("bsdb-pg shutdown: %s", st)
		}
		return nil
	case <-time.After(5 * time.Minute):
		s.kill()
		return errors.New("bsdb-pg did not stop within 5 minutes of SIGTERM; killed")
	}
}

// kill is SIGKILL: nothing is committed, the WAL is all there is.
func (s *bsdbServer) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
}

// walBytes is the data under the WAL directory: the size of every file
// less the zeros at its end (the active segment is preallocated ahead of
// its stream).
func (s *bsdbServer) walBytes() int64 { return dirBytes(s.walDir) }

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n += dataBytes(path)
		}
		return nil
	})
	return n
}

// dataBytes is the size of a file up to its last non-zero byte, read
// backwards in 1 MiB chunks (only the zero tail is read).
func dataBytes(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	end := fi.Size()
	buf := make([]byte, 1<<20)
	for end > 0 {
		off := max(end-int64(len(buf)), 0)
		chunk := buf[:end-off]
		if _, err := f.ReadAt(chunk, off); err != nil {
			return end
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] != 0 {
				return off + int64(i) + 1
			}
		}
		end = off
	}
	return 0
}

// peakRSS reads VmHWM (kB) of pid; resetPeakRSS clears it (Linux >= 4.0).
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("peak RSS: VmHWM %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("peak RSS: no VmHWM in /proc/%d/status", pid)
}

func resetPeakRSS(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func logTail(path string) string {
	b, _ := os.ReadFile(path)
	const n = 3000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// connect opens one pgx connection with a bounded wait.
func connect(ctx context.Context, url string) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(cctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	return c, nil
}
