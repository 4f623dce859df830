package resolve_test

import (
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/sql/resolve"
	"github.com/bsdb/bsdb-pg/sql/resolve/resolvetest"
)

func TestMain(m *testing.M) { pgref.Main(m) }

// The rules over the catalogs of the PostgreSQL they are compared with:
// any difference is a difference of the rules.
func TestRulesMatchPostgres(t *testing.T) {
	conn := resolvetest.Connect(t)
	live := resolvetest.LoadLive(t, conn)
	r := resolve.New(live)
	t.Run("operators", func(t *testing.T) { resolvetest.CheckOperators(t, r, live, conn) })
	t.Run("prefix", func(t *testing.T) { resolvetest.CheckPrefixOperators(t, r, live, conn) })
	t.Run("functions", func(t *testing.T) { resolvetest.CheckFunctions(t, r, live, conn) })
	t.Run("common", func(t *testing.T) { resolvetest.CheckCommonType(t, r, live, conn) })
	t.Run("special", func(t *testing.T) { resolvetest.CheckSpecialCalls(t, r, live, conn) })
}
