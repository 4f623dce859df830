package sql

import (
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestLexicalDepth(t *testing.T) {
	chain := func(n int) string { return "SELECT 1" + strings.Repeat("+1", n) }
	conds := make([]string, 10000)
	for i := range conds {
		conds[i] = "a = 1"
	}
	tuples := strings.Repeat("(1, 'x', 2.5),", 100000)
	for _, c := range []struct {
		name string
		q    string
		ok   bool
	}{
		{"40,000 terms", chain(40000), false},
		{"5,000 terms", chain(5000), false},
		{"3,000 terms", chain(3000), true},
		{"30,000 unions", "SELECT 1" + strings.Repeat(" UNION SELECT 1", 30000), false},
		{"30,000 joins", "SELECT 1 FROM a" + strings.Repeat(" JOIN a ON true", 30000), false},
		{"30,000 casts", "SELECT 1" + strings.Repeat("::int", 30000), false},
		{"20,000 NOTs", "SELECT " + strings.Repeat("NOT ", 20000) + "true", false},
		// Flat constructs of any length: ANDed conditions, VALUES rows,
		// select-list items, IN lists.
		{"10,000 ANDed comparisons", "SELECT 1 FROM t WHERE " + strings.Join(conds, " AND "), true},
		{"10,000 ORed comparisons", "SELECT 1 FROM t WHERE " + strings.Join(conds, " OR "), true},
		{"100,000 VALUES rows", "INSERT INTO t VALUES " + strings.TrimSuffix(tuples, ","), true},
		{"an IN list of 100,000", "SELECT 1 WHERE 1 IN (" + strings.Repeat("-1,", 100000) + "1)", true},
		{"50,000 select items", "SELECT " + strings.Repeat("a + 1, ", 50000) + "1", true},
		{"CASE ... END closes its run", "SELECT " + strings.Repeat("CASE WHEN a > 1 THEN 1 ELSE 2 END + ", 1000) + "1", true},
		// Operators inside strings, identifiers, comments and dollar
		// quotes are not operators.
		{"operators in a literal", "SELECT '" + strings.Repeat("+-", 50000) + "'", true},
		{"operators in an E literal", `SELECT E'\'` + strings.Repeat("+", 50000) + "'", true},
		{"operators in a quoted identifier", `SELECT 1 AS "` + strings.Repeat("+", 50000) + `"`, true},
		{"operators in a comment", "SELECT 1 -- " + strings.Repeat("+", 50000) + "\n", true},
		{"operators in a nested comment", "SELECT 1 /* /* */ " + strings.Repeat("+", 50000) + " */", true},
		{"operators in a dollar quote", "SELECT $q$" + strings.Repeat("+", 50000) + "$q$", true},
		{"a parameter is no dollar quote", "SELECT $1" + strings.Repeat("+$1", 5000), false},
	} {
		err := checkLexicalDepth(c.q)
		if c.ok && err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
		}
		if !c.ok {
			e, isPG := pgerr.As(err)
			if !isPG || e.Code != pgerr.StatementTooComplex || e.Message != "stack depth limit exceeded" {
				t.Errorf("%s: %v, want 54001 stack depth limit exceeded", c.name, err)
			}
		}
	}
}

// Parse refuses the statements that killed the server (pg_query's C code
// overflowing its stack) before pg_query sees them.
func TestParseRefusesDeepStatements(t *testing.T) {
	for _, q := range []string{
		"SELECT 1" + strings.Repeat("+1", 40000),
		"SELECT 1" + strings.Repeat(" UNION SELECT 1", 40000),
		"SELECT 'a'" + strings.Repeat(" || 'a'", 40000),
	} {
		_, err := Parse(q)
		e, ok := pgerr.As(err)
		if !ok || e.Code != pgerr.StatementTooComplex {
			t.Errorf("%.40s...: %v, want 54001", q, err)
		}
	}
	// Deep right-nested constructs are refused by the grammar's own stack,
	// as in PostgreSQL.
	_, err := Parse("SELECT " + strings.Repeat("(SELECT ", 6000) + "1" + strings.Repeat(")", 6000))
	if e, ok := pgerr.As(err); !ok || (e.Code != pgerr.SyntaxError && e.Code != pgerr.StatementTooComplex) {
		t.Errorf("6,000 nested subqueries: %v", err)
	}
}

func TestAllowedFunctions(t *testing.T) {
	for _, c := range []struct {
		q       string
		allowed bool
	}{
		{"SELECT abs(-1)", true},
		{"SELECT pg_catalog.abs(-1)", true},
		{"SELECT count(*) FROM t", true},
		{"SELECT * FROM generate_series(1, 3)", true},
		{"SELECT * FROM information_schema._pg_expandarray('{1}'::int[])", true},
		{"SELECT read_text('/etc/shadow')", false},
		{"SELECT * FROM read_text('/etc/shadow')", false},
		{"SELECT * FROM read_csv('/etc/passwd')", false},
		{"SELECT * FROM glob('/etc/*')", false},
		{"SELECT * FROM duckdb_settings()", false},
		{"SELECT * FROM enable_logging()", false},
		{"SELECT query('SELECT 1')", false},
		{"SELECT pg_catalog.read_text('x')", false},
		{"SELECT main.read_text('x')", false},
		{"SELECT memory.main.read_text('x')", false},
		{`SELECT "read_text"('x')`, false},
		{`SELECT "ABS"(-1)`, false}, // PostgreSQL's names are lower case
		{"SELECT __bsdb_div(1, 0)", false},
		{"SELECT bsdb_interval('x')", false},
		{"SELECT information_schema.read_text('x')", false},
		{"SELECT 1 FROM t WHERE a = (SELECT max(x) FROM read_csv('/etc/passwd') r(x))", false},
		{"WITH c AS (SELECT * FROM read_blob('/etc/shadow')) SELECT * FROM c", false},
		{"PREPARE p AS SELECT * FROM read_text($1)", false},
		{"INSERT INTO t SELECT length(content) FROM read_text('/etc/passwd')", false},
		{"CREATE TABLE t (a text DEFAULT read_text('/etc/passwd'))", false},
		{"EXPLAIN SELECT * FROM read_text('/etc/passwd')", false},
		{"COPY (SELECT * FROM read_text('/etc/passwd')) TO STDOUT", false},
	} {
		stmts, err := Parse(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		refused := false
		for _, st := range stmts {
			walkNodes(st.Tree, func(n *pg_query.Node) bool {
				if fc := n.GetFuncCall(); fc != nil && isRefused(fc) {
					refused = true
				}
				return true
			})
		}
		if refused == c.allowed {
			t.Errorf("%s: refused = %v, want %v", c.q, refused, !c.allowed)
		}
	}
}

// A refused call is reported as PostgreSQL reports an unknown function,
// with the argument types it resolved.
func TestUndefinedFunctionError(t *testing.T) {
	for _, c := range []struct {
		q, code, msg string
		pos          int
	}{
		{"SELECT read_text('/etc/shadow')", "42883", "function read_text(unknown) does not exist", 8},
		{"SELECT * FROM read_text('x', 1, 2.5, true, NULL)", "42883", "function read_text(unknown, integer, numeric, boolean, unknown) does not exist", 15},
		{"SELECT pg_catalog.read_text('x'::text)", "42883", "function pg_catalog.read_text(text) does not exist", 8},
		{`SELECT "ABS"(-1)`, "42883", `function "ABS"(integer) does not exist`, 8},
		{"SELECT a.b.c.d(1)", "42601", "improper qualified name (too many dotted names): a.b.c.d", 8},
		{"SELECT a.b.c(1)", "0A000", "cross-database references are not implemented: a.b.c", 8},
	} {
		stmts, err := Parse(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		_, err = TranslateQuery(stmts[0].Tree, nil, nil)
		e, ok := pgerr.As(err)
		if !ok || e.Code != c.code || e.Message != c.msg || e.Position != c.pos {
			t.Errorf("%s: %v (position %d), want %s %q at %d", c.q, err, func() int {
				if ok {
					return e.Position
				}
				return -1
			}(), c.code, c.msg, c.pos)
		}
		if ok && c.code == "42883" && !strings.HasPrefix(e.Hint, "No function matches") {
			t.Errorf("%s: hint %q", c.q, e.Hint)
		}
	}
}

// A column default kept by an older version, from before the guard, is
// guarded when an INSERT uses it.
func TestStoredDefaultIsGuarded(t *testing.T) {
	_, err := defaultSQL(ColumnInfo{Name: "a", Default: "read_text('/etc/passwd')"}, nil)
	if e, ok := pgerr.As(err); !ok || e.Code != pgerr.UndefinedFunction {
		t.Fatalf("a stored default calling read_text: %v, want 42883", err)
	}
	if _, err := defaultExpr(ColumnInfo{Name: "a", Default: "1" + strings.Repeat("+1", 40000)}); err == nil {
		t.Fatal("a stored default 40,000 terms deep was parsed")
	}
}
