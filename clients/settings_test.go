package clients

import (
	"os"
	"strings"
	"testing"

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
