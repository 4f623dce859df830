package sql

import (
	"testing"

	"github.com/bsdb/bsdb-pg/sql/resolve/resolvetest"
)

// TestBuiltinsMatchPostgres runs the rules' differential checks over the
// catalogs generated into package pgcatalog (what the server uses), so a
// row missing or wrong there shows as a difference from PostgreSQL.
func TestBuiltinsMatchPostgres(t *testing.T) {
	conn := resolvetest.Connect(t)
	live := resolvetest.LoadLive(t, conn)
	t.Run("operators", func(t *testing.T) { resolvetest.CheckOperators(t, Builtins, live, conn) })
	t.Run("prefix", func(t *testing.T) { resolvetest.CheckPrefixOperators(t, Builtins, live, conn) })
	t.Run("functions", func(t *testing.T) { resolvetest.CheckFunctions(t, Builtins, live, conn) })
	t.Run("common", func(t *testing.T) { resolvetest.CheckCommonType(t, Builtins, live, conn) })
	t.Run("special", func(t *testing.T) { resolvetest.CheckSpecialCalls(t, Builtins, live, conn) })
}
