package clients

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// internalText matches what must never reach a client in an error: the
// query engine's, Go's or a Go library's own words.
var internalText = regexp.MustCompile(`(?i)sql: |does not exist!|Binder Error|Catalog Error|Parser Error|` +
	`Conversion Error|Invalid Input Error|Not implemented Error|INTERNAL Error|duckdb|runtime error|` +
	`goroutine \d|panic[:(]|nil pointer|index out of range`)

// pgOwnInternal are the messages PostgreSQL 15 itself sends as XX000
// (ereport without an errcode), which bsdb-pg reproduces.
var pgOwnInternal = regexp.MustCompile(`^role "pg_database_owner" cannot (have explicit members|be a member of any role)$`)

// checkErrorTexts fails on an error whose message, detail or hint shows
// internal text, or whose SQLSTATE is XX000 (PostgreSQL's "internal
// error", never the answer to a client's input).
func checkErrorTexts(t *testing.T, where string, errs []*pgconn.PgError) {
	t.Helper()
	for _, e := range errs {
		all := e.Message + "\n" + e.Detail + "\n" + e.Hint
		if m := internalText.FindString(all); m != "" {
			t.Errorf("%s: error shows internal text %q: %s %s (detail %q, hint %q)", where, m, e.Code, e.Message, e.Detail, e.Hint)
		}
		if e.Code == "XX000" && !pgOwnInternal.MatchString(e.Message) {
			t.Errorf("%s: internal error XX000 sent to the client: %s", where, e.Message)
		}
	}
}

// errorLogLine is the server's debug log of each error it sends
// (pgwire: "error sent"); serverErrors reads them back from its output.
var errorLogLine = regexp.MustCompile(`msg="pgwire: error sent" .*code=(\S+) message=("(?:[^"\\]|\\.)*"|\S+)`)

// checkServerErrors applies checkErrorTexts to every error the server
// logged (it runs with BSDB_LOG_LEVEL=debug): errors that clients swallow
// (pgcli's completion refresher, asyncpg's introspection fallbacks) are
// seen too.
func checkServerErrors(t *testing.T, s *server) {
	t.Helper()
	checkErrorTexts(t, "server log", serverErrors(s))
}

// serverErrors are the errors the server logged having sent.
func serverErrors(s *server) []*pgconn.PgError { return parseErrorLog(s.Output()) }

// parseErrorLog reads the "error sent" lines of a server's output.
func parseErrorLog(out string) []*pgconn.PgError {
	var errs []*pgconn.PgError
	for _, line := range strings.Split(out, "\n") {
		if m := errorLogLine.FindStringSubmatch(line); m != nil {
			msg := m[2]
			if u, err := strconv.Unquote(msg); err == nil {
				msg = u // slog's text handler quotes with Go's rules
			}
			errs = append(errs, &pgconn.PgError{Code: m[1], Message: msg})
		}
	}
	return errs
}

// TestInternalTextPattern: the pattern catches the texts the issue saw.
func TestInternalTextPattern(t *testing.T) {
	for _, bad := range []string{
		"sql: expected 0 arguments, got 4",
		`Catalog Error: Type with name regtype does not exist!`,
		"Binder Error: No function matches the given name and argument types 'list_contains(VARCHAR, VARCHAR)'",
		"runtime error: index out of range [3] with length 3",
	} {
		if !internalText.MatchString(bad) {
			t.Errorf("not caught: %s", bad)
		}
	}
	log := `time=2026-12-02T13:59:46.618Z level=DEBUG msg="pgwire: error sent" pid=29 code=XX000 message="Type VARCHAR with value '{r,p,f}' can't be cast"` + "\n" +
		`time=2026-12-02T13:59:46.618Z level=DEBUG msg="pgwire: error sent" pid=29 code=42P01 message="relation \"t\" does not exist"`
	errs := parseErrorLog(log)
	if len(errs) != 2 || errs[0].Code != "XX000" || errs[1].Message != `relation "t" does not exist` {
		t.Errorf("parseErrorLog: %+v", errs)
	}
	for _, ok := range []string{
		`function list_contains(text, text) does not exist`,
		`relation "t" does not exist`,
		`column "sqlx" does not exist`,
	} {
		if internalText.MatchString(ok) {
			t.Errorf("PostgreSQL's own text flagged: %s", ok)
		}
	}
}
