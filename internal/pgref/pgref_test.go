package pgref_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { pgref.Main(m) }

func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close(ctx)
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	last := res[len(res)-1]
	if len(last.Rows) == 0 {
		return ""
	}
	return string(last.Rows[0][0])
}

func TestSharedServer(t *testing.T) {
	u1 := pgref.Start(t)
	u2 := pgref.Start(t)
	if u1 != u2 {
		t.Fatalf("under Main, Start must share one server: %q vs %q", u1, u2)
	}
	if v := query(t, u1, "SHOW server_version_num"); v < "150000" {
		t.Fatalf("server_version_num = %s", v)
	}
	if v := query(t, u1, "SHOW server_encoding"); v != "UTF8" {
		t.Fatalf("server_encoding = %s", v)
	}
}

func TestNewDatabase(t *testing.T) {
	u := pgref.NewDatabase(t, pgref.Start(t))
	query(t, u, "CREATE TABLE x(a int)")
	if v := query(t, u, "SELECT current_database() LIKE 'pgref_%'"); v != "t" {
		t.Fatalf("not in a fresh database: %s", v)
	}
}

func TestStopRemovesDir(t *testing.T) {
	if os.Getenv(pgref.EnvURL) != "" {
		t.Skip("external server")
	}
	srv, err := pgref.StartServer(pgref.Options{})
	if err != nil {
		t.Skipf("no postgres: %v", err)
	}
	query(t, srv.URL, "SELECT 1")
	srv.Stop()
	if _, err := os.Stat(srv.Dir); !os.IsNotExist(err) {
		t.Fatalf("dir %s not removed: %v", srv.Dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c, err := pgconn.Connect(ctx, srv.URL); err == nil {
		c.Close(ctx)
		t.Fatal("server still accepting after Stop")
	}
}

// TestKilledOwnerLeavesNoServer: when the test process dies without Stop
// (SIGKILL, a timeout), its postmaster dies too (parent-death signal) and the
// next StartServer sweeps the directory.
func TestKilledOwnerLeavesNoServer(t *testing.T) {
	if os.Getenv("PGREF_HELPER") == "1" {
		srv, err := pgref.StartServer(pgref.Options{})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Printf("READY %s %s\n", srv.DataDir, srv.Dir)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if os.Getenv(pgref.EnvURL) != "" {
		t.Skip("external server")
	}
	if testing.Short() {
		t.Skip("starts two servers")
	}
	if _, err := pgref.FindBinDir(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledOwnerLeavesNoServer$")
	cmd.Env = append(os.Environ(), "PGREF_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %q %v", line, err)
	}
	parts := strings.Fields(line)
	dataDir, dir := parts[1], parts[2]
	pidText, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(pidText), "\n", 2)[0])
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("postmaster %d survived its killed owner", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv, err := pgref.StartServer(pgref.Options{}) // sweeps stale directories
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		os.RemoveAll(dir)
		t.Fatalf("stale directory %s not swept: %v", dir, err)
	}
}
