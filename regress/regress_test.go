package regress

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	update = flag.Bool("update", false, "regenerate regress/expected/*.out from the reference PostgreSQL")
	pgURL  = flag.String("pgurl", "", "reference PostgreSQL URL (default: BSDB_PG_URL, else one started by internal/pgref)")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := pgref.Run(m)
	testserver.Cleanup()
	os.Exit(code)
}

// TestRegress runs every script against bsdb-pg and compares the output with
// expected/. On a mismatch the failure shows the unified diff; the actual
// output of every script is in results/.
func TestRegress(t *testing.T) {
	if *update {
		t.Skip("-update: expected files are generated from PostgreSQL by TestRegressAgainstPostgres")
	}
	psql := findPsql(t)
	names := scripts(t)
	known := knownFailures(t)
	srv := testserver.Start(t, testserver.Options{})
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out, err := runScript(psql, srv.URL, name)
			if reason, ok := known[name]; ok {
				checkKnownFailure(t, name, reason, out, err)
				return
			}
			check(t, name, out, err)
		})
	}
}

// knownFailures reads known_failures.txt: script name -> reason.
func knownFailures(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("known_failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		m[name] = strings.TrimSpace(reason)
	}
	return m
}

// checkKnownFailure logs the diff of a known failure and fails when the
// script unexpectedly matches PostgreSQL (the list must stay current).
func checkKnownFailure(t *testing.T, name, reason string, out []byte, err error) {
	t.Helper()
	if werr := writeResult(name, out); werr != nil {
		t.Error(werr)
	}
	diff, derr := diffExpected(resultsDir, name, out)
	if derr != nil {
		t.Fatal(derr)
	}
	if err == nil && diff == "" {
		t.Errorf("%s now matches PostgreSQL: remove it from known_failures.txt", name)
		return
	}
	t.Logf("KNOWN FAILURE %s (%s):\n%s", name, reason, diff)
}

// TestRegressAgainstPostgres runs every script against the reference
// PostgreSQL, each in a fresh database: the expected files must still be
// exactly what PostgreSQL prints (the suite is honest). With -update it
// rewrites them instead.
func TestRegressAgainstPostgres(t *testing.T) {
	psql := findPsql(t)
	names := scripts(t)
	base := *pgURL
	if base == "" {
		base = pgref.Start(t) // BSDB_PG_URL, or a private cluster; skips unless BSDB_REQUIRE_PG=1
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dbURL := freshDatabase(t, base)
			out, err := runScript(psql, dbURL, name)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if *update {
				if err := os.WriteFile(filepath.Join("expected", name+".out"), out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			// PostgreSQL's own output goes to results/postgres/, never over ours.
			compare(t, filepath.Join(resultsDir, "postgres"), name, out)
		})
	}
}

// check fails t with the psql error or the diff against expected/.
func check(t *testing.T, name string, out []byte, err error) {
	t.Helper()
	if werr := writeResult(name, out); werr != nil {
		t.Error(werr)
	}
	if err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out)
	}
	compare(t, resultsDir, name, out)
}

func compare(t *testing.T, dir, name string, out []byte) {
	t.Helper()
	diff, err := diffExpected(dir, name, out)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%s", diff)
	}
}

// diffExpected compares out with expected/name.out. It returns "" when they
// are byte-identical; otherwise it writes out to dir/name.out and returns a
// report with the unified diff.
func diffExpected(dir, name string, out []byte) (string, error) {
	expPath := filepath.Join("expected", name+".out")
	exp, err := os.ReadFile(expPath)
	if err != nil {
		return "", fmt.Errorf("%w (generate with: make regress-update)", err)
	}
	if bytes.Equal(exp, out) {
		return "", nil
	}
	resPath, err := resultPath(dir, name)
	if err == nil {
		err = os.WriteFile(resPath, out, 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("output differs from %s, and saving it failed: %w", expPath, err)
	}
	return fmt.Sprintf("output differs from %s (actual in %s):\n%s", expPath, resPath, unifiedDiff(expPath, resPath, exp, out)), nil
}

// resultsDir holds the actual output of the last run (regress/results).
const resultsDir = "results"

func resultPath(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".out"), nil
}

func writeResult(name string, out []byte) error {
	p, err := resultPath(resultsDir, name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, out, 0o644)
}

// freshDatabase creates a database with C collation and UTF8 encoding on
// the server at base, drops it at cleanup, and returns its URL.
func freshDatabase(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, base)
	if err != nil {
		t.Fatalf("reference PostgreSQL %s: %v", base, err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("bsdb_regress_%d_%d", os.Getpid(), time.Now().UnixNano())
	sql := "CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
	if _, err := conn.Exec(ctx, sql).ReadAll(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgconn.Connect(ctx, base)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)").ReadAll(); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("reference PostgreSQL URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
