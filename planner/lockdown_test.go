package planner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockdown: whatever reaches the engine's DuckDB (the second layer
// under package sql's function guard) cannot read or write a file outside
// the server's directories, install or load an extension, or change a
// setting other than the per-session ones — on the engine's own handle and
// on a new connection.
func TestLockdown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.csv")
	if err := os.WriteFile(secret, []byte("a\nsecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{DataDir: dir, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	conn, err := e.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := func(s string) error {
		rows, err := conn.QueryContext(ctx, s)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	}
	for _, s := range []string{
		"SELECT * FROM read_text('/etc/passwd')",
		"SELECT * FROM read_csv('" + secret + "')",
		"SELECT * FROM read_blob('" + secret + "')",
		"SELECT * FROM glob('" + outside + "/*')",
		"SELECT * FROM read_csv('" + filepath.Join(dir, "..", filepath.Base(outside), "secret.csv") + "')",
		"COPY (SELECT 1) TO '" + filepath.Join(outside, "x.csv") + "'",
		"ATTACH '" + filepath.Join(outside, "x.duckdb") + "' AS x",
		"INSTALL httpfs",
		"LOAD httpfs",
		"SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')",
		"SET enable_external_access = true",
		"SET lock_configuration = false",
		"SET allowed_directories = ['/']",
		"SET autoinstall_known_extensions = true",
		"SET memory_limit = '1GB'",
		"RESET enable_external_access",
	} {
		if err := q(s); err == nil {
			t.Errorf("%s: allowed", s)
		}
	}
	for _, s := range []string{"SET TimeZone = 'Europe/Paris'", "SET integer_division = true",
		"SET default_null_order = 'nulls_last_on_asc_first_on_desc'"} {
		if err := q(s); err != nil {
			t.Errorf("%s (a session setting): %v", s, err)
		}
	}
	var lock, access, autoload string
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('lock_configuration')::text, current_setting('enable_external_access')::text, current_setting('autoload_known_extensions')::text").Scan(&lock, &access, &autoload); err != nil {
		t.Fatal(err)
	}
	if lock != "true" || access != "false" || autoload != "false" {
		t.Errorf("lock_configuration=%s enable_external_access=%s autoload_known_extensions=%s", lock, access, autoload)
	}
	// The server's own directories stay usable (the warehouse is read by
	// every query; the tests of this package and server/ exercise it).
	if err := q("SELECT * FROM read_csv('" + filepath.Join(dir, "warehouse", "missing.csv") + "')"); err == nil || strings.Contains(err.Error(), "disabled by configuration") {
		t.Errorf("a file of the data directory: %v, want only 'no such file'", err)
	}
}
