package clients

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

func TestMain(m *testing.M) {
	code := pgref.Run(m)
	testserver.Cleanup()
	os.Exit(code)
}

// EnvRequire makes a missing client a test failure instead of a skip.
const EnvRequire = "BSDB_REQUIRE_CLIENTS"

// need returns the path of a client program, or skips (fails under
// BSDB_REQUIRE_CLIENTS=1) when it is not installed.
func need(t *testing.T, prog string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		missing(t, prog, err)
	}
	return p
}

func missing(t *testing.T, what string, err error) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("client %s required (%s=1) but unavailable: %v", what, EnvRequire, err)
	}
	t.Skipf("client %s unavailable (set %s=1 to fail instead): %v", what, EnvRequire, err)
}

// server is one bsdb-pg under test plus its connection facts.
type server struct {
	*testserver.Server
	host string
	port string
}

// startServer starts a server that logs every error it sends; when the
// test ends, none may show internal text or be XX000 (checkServerErrors).
func startServer(t *testing.T) *server {
	t.Helper()
	s := testserver.Start(t, testserver.Options{Env: []string{"BSDB_LOG_LEVEL=debug"}})
	host, port, _ := strings.Cut(s.Addr(), ":")
	srv := &server{Server: s, host: host, port: port}
	t.Cleanup(func() { checkServerErrors(t, srv) })
	return srv
}

// url is a libpq URL for database db.
func (s *server) url(db string) string {
	return "postgres://postgres@" + s.Addr() + "/" + db + "?sslmode=disable"
}

// exec runs statements on url through pgx (simple protocol).
func execSQL(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// runCmd runs a client program with a timeout and returns its stdout;
// a non-zero exit fails the test with stderr.
func runCmd(t *testing.T, env []string, stdin string, name string, args ...string) string {
	t.Helper()
	return runCmdOut(t, false, env, stdin, name, args...)
}

// runCmdOut is runCmd; combined interleaves stderr into the output.
func runCmdOut(t *testing.T, combined bool, env []string, stdin string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if combined {
		cmd.Stderr = &out
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// lineDiff returns the lines that differ between a and b, with line
// numbers ("" when equal).
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "line %d:\n  bsdb-pg:  %q\n  postgres: %q\n", i+1, x, y)
		}
	}
	return out.String()
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
