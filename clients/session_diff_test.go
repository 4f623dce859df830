package clients

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// loadScripts parses testdata/session_scripts.sql: sections start with a
// "-- name" line; every other non-empty line is one Query message.
func loadScripts(t *testing.T) []namedQuery {
	t.Helper()
	b, err := os.ReadFile("testdata/session_scripts.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []namedQuery
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "-- "):
			if len(out) == 0 || out[len(out)-1].sql != "" {
				out = append(out, namedQuery{name: strings.TrimPrefix(line, "-- ")})
			} else {
				out[len(out)-1].name = strings.TrimPrefix(line, "-- ")
			}
		case strings.TrimSpace(line) != "" && len(out) > 0:
			out[len(out)-1].sql += line + "\n"
		}
	}
	return out
}

// transcript runs each line of script as one Query message on a new
// connection and renders what the client sees: columns with type OIDs,
// rows, command tags, errors with SQLSTATE. Notices are left out.
func transcript(t *testing.T, url, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
		fmt.Fprintf(&out, "> %s\n", line)
		results, err := conn.Exec(ctx, line).ReadAll()
		for _, r := range results {
			if len(r.FieldDescriptions) > 0 {
				var cols []string
				for _, fd := range r.FieldDescriptions {
					cols = append(cols, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
				}
				fmt.Fprintf(&out, "  columns %s\n", strings.Join(cols, ", "))
			}
			for _, row := range r.Rows {
				cells := make([]string, len(row))
				for i, v := range row {
					if v == nil {
						cells[i] = "NULL"
					} else {
						cells[i] = string(v)
					}
				}
				fmt.Fprintf(&out, "  row %s\n", strings.Join(cells, "|"))
			}
			if r.Err == nil {
				fmt.Fprintf(&out, "  %s\n", r.CommandTag)
			}
		}
		if err != nil {
			if pe, ok := err.(*pgconn.PgError); ok {
				fmt.Fprintf(&out, "  ERROR %s: %s\n", pe.Code, pe.Message)
			} else {
				fmt.Fprintf(&out, "  ERROR %v\n", err)
			}
		}
		fmt.Fprintf(&out, "  status %c\n", conn.TxStatus())
	}
	return out.String()
}

// TestSessionScriptsMatchPostgres: cursors (DECLARE / FETCH / MOVE /
// CLOSE), PREPARE / EXECUTE / DEALLOCATE and the session functions
// (set_config, current_setting, current_schema[s]) give PostgreSQL's
// transcripts.
func TestSessionScriptsMatchPostgres(t *testing.T) {
	base := pgref.Start(t)
	s := startServer(t)
	for _, sc := range loadScripts(t) {
		t.Run(sc.name, func(t *testing.T) {
			refURL := pgref.NewDatabase(t, base)
			_, refDB := hostAndDB(t, refURL)
			db := "d" + strings.ToLower(strings.NewReplacer(" ", "_", "-", "_").Replace(sc.name))
			execSQL(t, s.url("postgres"), "CREATE DATABASE "+db)
			want := strings.ReplaceAll(transcript(t, refURL, sc.sql), refDB, db)
			got := transcript(t, s.url(db), sc.sql)
			if got != want {
				t.Errorf("transcripts differ (bsdb-pg vs PostgreSQL):\n%s\nbsdb-pg's transcript:\n%s", lineDiff(got, want), got)
			}
		})
	}
}
