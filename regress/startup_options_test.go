package regress

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
)

// startupOptionsCases are PGOPTIONS values: settings for the session
// (-c name=value, --name=value, backslash-escaped spaces) and the ones
// PostgreSQL refuses at startup with FATAL. synchronous_commit is set to
// local, which is neither server's default (the reference runs with off,
// bsdb-pg's is on).
var startupOptionsCases = []string{
	"-c synchronous_commit=local",
	"--synchronous_commit=local",
	"--synchronous-commit=local",
	"-c search_path=so_psql",
	"-csearch_path=so_psql",
	`-c search_path=so_psql,\ public -c DateStyle=German`,
	"-c application_name=overridden_by_PGAPPNAME",
	"-e",
	"-c my.custom=5",
	"",
	"-c nosuch=1",
	"-c statement_timeout=bogus",
	"-c server_version=1",
	"-c noequals",
	"--noequals",
	"-c",
	"foo",
	"-x",
}

// TestStartupOptionsPsql runs psql with each PGOPTIONS value against
// bsdb-pg and against the reference PostgreSQL and compares what psql
// prints: the settings, a table found through search_path, or the FATAL
// error that refused the connection.
func TestStartupOptionsPsql(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	psql := findPsql(t)
	base := *pgURL
	if base == "" {
		base = pgref.Start(t)
	}
	pg := freshDatabase(t, base)
	srv := testserver.Start(t, testserver.Options{})
	for _, u := range []string{pg, srv.URL} {
		ctx := testContext(t)
		conn := connect(t, u)
		mustExec(t, ctx, conn, "CREATE SCHEMA so_psql")
		mustExec(t, ctx, conn, "CREATE TABLE so_psql.so_t (a integer)")
		mustExec(t, ctx, conn, "INSERT INTO so_psql.so_t VALUES (7)")
	}
	for _, opts := range startupOptionsCases {
		t.Run(opts, func(t *testing.T) {
			want := runPsqlOptions(t, psql, pg, opts)
			got := runPsqlOptions(t, psql, srv.URL, opts)
			if !bytes.Equal(got, want) {
				t.Errorf("PGOPTIONS=%q\n--- PostgreSQL:\n%s\n--- bsdb-pg:\n%s", opts, want, got)
			}
		})
	}
}

// serverAddress is the part of libpq's connection errors that names the
// server (host and port differ between the two servers).
var serverAddress = regexp.MustCompile(`connection to server at "[^"]*", port \d+ failed: `)

func runPsqlOptions(t *testing.T, psql, url, options string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psql, "-X", "-At", "-d", url,
		"-c", "SHOW search_path", "-c", "SELECT current_setting('synchronous_commit') = 'local' AS sync_local", "-c", "SHOW DateStyle",
		"-c", "SHOW application_name", "-c", "SELECT a FROM so_t")
	cmd.Env = append(psqlEnv(), "PGOPTIONS="+options)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("psql: %v", ctx.Err())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("psql: %v", err)
	}
	return serverAddress.ReplaceAll(out, nil)
}
