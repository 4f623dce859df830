package regress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// scriptTimeout bounds one psql run: a hung server must fail the test, not
// the whole test binary's -timeout.
const scriptTimeout = 3 * time.Minute

// findPsql returns the psql binary, or skips (fails with
// BSDB_REQUIRE_CLIENTS=1) when there is none.
func findPsql(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql"); len(m) > 0 {
		sort.Strings(m)
		return m[len(m)-1]
	}
	if os.Getenv("BSDB_REQUIRE_CLIENTS") == "1" {
		t.Fatal("psql not found and BSDB_REQUIRE_CLIENTS=1 (apt-get install postgresql-client)")
	}
	t.Skip("psql not found (set BSDB_REQUIRE_CLIENTS=1 to make this a failure)")
	return ""
}

// scripts lists sql/*.sql by base name, sorted.
func scripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("sql", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts in regress/sql")
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".sql")
	}
	sort.Strings(names)
	return names
}

// psqlEnv is the environment psql runs with: ours, minus every libpq
// variable that could change the connection or the output, plus pinned
// values.
func psqlEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LC_") || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PGAPPNAME=pg_regress", "PGCLIENTENCODING=UTF8", "LC_ALL=C.UTF-8")
}

// runScript runs sql/name.sql through psql against url the way pg_regress
// does and returns stdout and stderr interleaved. psql's own exit status is
// not an error (a script that ends in an error still produced its output);
// failing to run psql, or a timeout, is.
func runScript(psql, url, name string) ([]byte, error) {
	in, err := os.Open(filepath.Join("sql", name+".sql"))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psql, "-X", "-a", "-q", "-d", url,
		"-v", "HIDE_TABLEAM=on", "-v", "HIDE_TOAST_COMPRESSION=on")
	cmd.Env = psqlEnv()
	cmd.Stdin = in
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return out.Bytes(), fmt.Errorf("psql %s: timed out after %v", name, scriptTimeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return out.Bytes(), fmt.Errorf("psql %s: %w", name, err)
	}
	// psql exits 2 when the connection is lost: the server died mid-script.
	if ee != nil && ee.ExitCode() == 2 {
		return out.Bytes(), fmt.Errorf("psql %s: connection lost (exit 2)", name)
	}
	return out.Bytes(), nil
}

// unifiedDiff returns `diff -U3 expected actual` (files on disk), or a
// minimal first-difference report when diff(1) is not available.
func unifiedDiff(expectedPath, actualPath string, expected, actual []byte) string {
	if d, err := exec.LookPath("diff"); err == nil {
		out, _ := exec.Command(d, "-U3", expectedPath, actualPath).CombinedOutput()
		return string(out)
	}
	el, al := strings.Split(string(expected), "\n"), strings.Split(string(actual), "\n")
	for i := 0; i < len(el) || i < len(al); i++ {
		var e, a string
		if i < len(el) {
			e = el[i]
		}
		if i < len(al) {
			a = al[i]
		}
		if e != a {
			return fmt.Sprintf("--- %s\n+++ %s\n@@ line %d @@\n-%s\n+%s\n", expectedPath, actualPath, i+1, e, a)
		}
	}
	return ""
}
