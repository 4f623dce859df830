package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Locking DuckDB down.
//
// DuckDB can read and write any file the server's user can, install and
// load extensions from the network, log to files, and change its own
// settings. No client statement is meant to reach any of that (package
// sql lets clients call only PostgreSQL's functions, guard.go), but that
// is one layer; this is the second. Before the first client statement:
//
//   - file access is limited to the directories the engine itself reads:
//     the local warehouse, the data directory's cache (native cache
//     database, files fetched from S3) and DuckDB's spill directory;
//   - extensions are never installed or loaded on demand (the statically
//     linked ones — parquet, json, icu, core_functions — are all we use);
//   - logging stays off;
//   - the configuration is locked, except for the settings each session
//     sets on its own connection (sessionConfigs).
//
// The lock is DuckDB's own and cannot be lifted by a statement
// (TestLockdown checks every item through the engine's own handle).

// sessionConfigs are the DuckDB settings a session changes on its own
// connection after the lock (sql.SessionSettings, the session's TimeZone).
var sessionConfigs = []string{"TimeZone", "integer_division", "default_null_order"}

// lockDown applies the settings above. dirs are the directories DuckDB
// may read and write.
func (e *Engine) lockDown(ctx context.Context, dirs []string) error {
	allowed := make([]string, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		// A trailing separator: /data/warehouse must not also allow
		// /data/warehouse2.
		allowed = append(allowed, quoteLiteral(strings.TrimSuffix(abs, string(filepath.Separator))+string(filepath.Separator)))
	}
	configs := make([]string, len(sessionConfigs))
	for i, c := range sessionConfigs {
		configs[i] = quoteLiteral(c)
	}
	for _, q := range []string{
		// allowed_directories first: it cannot change once external
		// access is off.
		fmt.Sprintf("SET allowed_directories = [%s]", strings.Join(allowed, ", ")),
		"SET enable_external_access = false",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET allow_community_extensions = false",
		"SET enable_logging = false",
		fmt.Sprintf("SET allowed_configs = [%s]", strings.Join(configs, ", ")),
		// Last: it locks itself.
		"SET lock_configuration = true",
	} {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("duckdb lockdown %q: %w", q, err)
		}
	}
	return nil
}
