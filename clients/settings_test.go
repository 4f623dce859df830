package clients

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// TestSettingsMatchPostgres: every parameter the common clients and
// pg_dump/pg_restore SET is accepted, SHOW prints it as PostgreSQL does
// (units: 65536 for work_mem shows as 64MB), the errors for values and for
// parameters a session cannot change are PostgreSQL's, and pg_settings
// describes those parameters with PostgreSQL's columns
// (testdata/settings_script.sql, one transcript on each server).
func TestSettingsMatchPostgres(t *testing.T) {
	b, err := os.ReadFile("testdata/settings_script.sql")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "--") {
			lines = append(lines, l)
		}
	}
	script := strings.Join(lines, "\n")
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	want := transcript(t, refURL, script)
	got := transcript(t, s.url("postgres"), script)
	if got != want {
		t.Errorf("transcripts differ (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg's transcript:\n%s", lineDiff(got, want), got)
	}
}

// TestStartupClientEncodingQuoted: asyncpg sends client_encoding 'utf-8'
// with its quotes in the startup packet; PostgreSQL ignores case and
// everything but letters and digits in an encoding name, and so do we.
func TestStartupClientEncodingQuoted(t *testing.T) {
	s := startServer(t)
	cfg, err := pgconn.ParseConfig(s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["client_encoding"] = "'utf-8'"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect with client_encoding 'utf-8': %v", err)
	}
	defer conn.Close(ctx)
	if got := conn.ParameterStatus("client_encoding"); got != "UTF8" {
		t.Errorf("ParameterStatus client_encoding = %q, want UTF8", got)
	}
	res, err := conn.Exec(ctx, "SELECT setting, source FROM pg_settings WHERE name = 'client_encoding'").ReadAll()
	if err != nil || len(res) != 1 || len(res[0].Rows) != 1 || string(res[0].Rows[0][0]) != "UTF8" || string(res[0].Rows[0][1]) != "client" {
		t.Errorf("pg_settings client_encoding: %v %v", res, err)
	}
}
