package pgwire

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// psqlPath finds psql, skipping the test when it is missing unless
// BSDB_REQUIRE_CLIENTS=1, in which case a missing client is a failure.
func psqlPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/lib/postgresql/15/bin/psql", "/usr/bin/psql"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if os.Getenv("BSDB_REQUIRE_CLIENTS") == "1" {
		t.Fatal("psql not found and BSDB_REQUIRE_CLIENTS=1")
	}
	t.Skip("psql not found (set BSDB_REQUIRE_CLIENTS=1 to make this a failure)")
	return ""
}

// runPsql runs psql against ts and returns stdout, stderr and the exit code.
func runPsql(t *testing.T, ts *testServer, user, password, stdin string, args ...string) (string, string, int) {
	t.Helper()
	host, port, _ := net.SplitHostPort(ts.addr)
	cmd := exec.Command(psqlPath(t), append([]string{"-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-h", host, "-p", port, "-U", user, "-d", "db"}, args...)...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=10", "PGSSLMODE=prefer")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestPsql(t *testing.T) {
	psqlPath(t)
	ts := startServer(t, Config{}, nil)
	out, stderr, code := runPsql(t, ts, "alice", "", "", "-c", "select generate_series(1, 3)")
	if code != 0 || out != "1\n2\n3\n" {
		t.Errorf("select: code %d out %q err %q", code, out, stderr)
	}
	out, stderr, code = runPsql(t, ts, "alice", "", "1\tone\n2\ttwo\n\\.\n", "-c", "copy t from stdin")
	if code != 0 || out != "COPY 2\n" {
		t.Errorf("copy from: code %d out %q err %q", code, out, stderr)
	}
	out, stderr, code = runPsql(t, ts, "alice", "", "", "-c", "copy t to stdout")
	if code != 0 || out != "1\tone\n2\ttwo\n" {
		t.Errorf("copy to: code %d out %q err %q", code, out, stderr)
	}
	_, stderr, code = runPsql(t, ts, "alice", "", "", "-c", "select error()")
	if code != 1 || !strings.Contains(stderr, "ERROR:  division by zero") || !strings.Contains(stderr, "DETAIL:  some detail") {
		t.Errorf("error: code %d err %q", code, stderr)
	}
	// A script through the simple protocol, with a transaction.
	out, stderr, code = runPsql(t, ts, "alice", "", "begin;\ninsert into t values (3, 'three');\ncommit;\nselect a, b from t;\n")
	if code != 0 || !strings.HasSuffix(out, "1|one\n2|two\n3|three\n") {
		t.Errorf("script: code %d out %q err %q", code, out, stderr)
	}
}

func TestPsqlAuth(t *testing.T) {
	psqlPath(t)
	for _, method := range []AuthMethod{AuthPassword, AuthMD5, AuthSCRAM} {
		t.Run(string(method), func(t *testing.T) {
			ts := startServer(t, Config{Auth: AuthConfig{Method: method, Users: map[string]string{"alice": "pw1"}}}, nil)
			out, stderr, code := runPsql(t, ts, "alice", "pw1", "", "-c", "select generate_series(1, 1)")
			if code != 0 || out != "1\n" {
				t.Errorf("good password: code %d out %q err %q", code, out, stderr)
			}
			_, stderr, code = runPsql(t, ts, "alice", "nope", "", "-w", "-c", "select generate_series(1, 1)")
			if code != 2 || !strings.Contains(stderr, `password authentication failed for user "alice"`) {
				t.Errorf("bad password: code %d err %q", code, stderr)
			}
		})
	}
}
