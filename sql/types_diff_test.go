package sql

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgtypes"
)

var updateKnown = flag.Bool("update-known", false, "rewrite testdata/*.known with today's differences")

// typeCase is one expression whose result type (or resolution error) is
// compared with PostgreSQL's.
type typeCase struct{ expr string }

// storedTypes are the column types a table may have here (the operands of
// the type matrix).
var storedTypes = []string{"smallint", "integer", "bigint", "real", "double precision", "numeric", "text",
	"character varying", "character", "boolean", "date", "time without time zone", "timestamp without time zone",
	"timestamp with time zone", "interval", "bytea", "uuid", "json", "jsonb"}

// resultType is what a client sees of expr's type through the translator:
// the column type of "SELECT expr" in RowDescription (the inferred type,
// else DuckDB's), or the error's SQLSTATE.
func resultType(t *testing.T, e *env, expr string) string {
	r := runDuck(t, e, "SELECT "+expr+" AS x")
	if r.code != "" {
		return "ERROR " + r.code
	}
	oid := r.oids[0]
	if len(r.inferred) > 0 && r.inferred[0] != 0 {
		oid = r.inferred[0]
	}
	return pgtypes.FormatType(oid, -1)
}

// pgResultType is PostgreSQL's answer for the same expression.
func pgResultType(t *testing.T, pg *pgconn.PgConn, expr string) string {
	r := runPG(t, pg, "SELECT "+expr+" AS x")
	if r.code != "" {
		return "ERROR " + r.code
	}
	return pgtypes.FormatType(r.oids[0], -1)
}

// TestOperatorTypesMatchPostgres: the type a client sees for every binary
// operator of a list over every pair of storable types (and an untyped
// NULL), as PostgreSQL types it. Known differences are listed in
// testdata/operator_types.known: the test fails on any new one and says
// when one is gone (run with -update-known to rewrite the list).
func TestOperatorTypesMatchPostgres(t *testing.T) {
	pg := newPG(t)
	duck := newDuck(t)
	ops := []string{"+", "-", "*", "/", "%", "^", "||", "=", "<", "~~", "->", "->>"}
	types := append([]string{""}, storedTypes...)
	var cases []string
	for _, op := range ops {
		for _, l := range types {
			for _, r := range types {
				cases = append(cases, fmt.Sprintf("%s %s %s", typedNull(l), op, typedNull(r)))
			}
		}
	}
	checkKnown(t, "operator_types", cases, func(expr string) (string, string) {
		return resultType(t, duck, expr), pgResultType(t, pg, expr)
	})
}

func typedNull(ty string) string {
	if ty == "" {
		return "NULL"
	}
	return "NULL::" + ty
}

// checkKnown compares got with want for each case against the list of
// known differences in testdata/<name>.known.
func checkKnown(t *testing.T, name string, cases []string, answers func(string) (got, want string)) {
	path := filepath.Join("testdata", name+".known")
	known := map[string]bool{}
	if data, err := os.ReadFile(path); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				known[strings.SplitN(l, "\t", 2)[0]] = true
			}
		}
	}
	var diffs []string
	fixed := 0
	for _, c := range cases {
		got, want := answers(c)
		// A resolution error must be PostgreSQL's; past resolution, only
		// the type is compared (an error of the engine's evaluating a
		// NULL is not a type).
		same := got == want || strings.HasPrefix(want, "ERROR") && strings.HasPrefix(got, "ERROR") && got == want
		if same {
			if known[c] {
				fixed++
			}
			continue
		}
		diffs = append(diffs, c+"\t"+got+" (PostgreSQL: "+want+")")
		if !known[c] && !*updateKnown {
			t.Errorf("%s: %s, PostgreSQL %s", c, got, want)
		}
	}
	sort.Strings(diffs)
	t.Logf("%s: %d cases, %d differ from PostgreSQL (%d known differences are gone)", name, len(cases), len(diffs), fixed)
	if *updateKnown {
		body := "# Expressions whose type differs from PostgreSQL's today (go test -run " + name + " -update-known rewrites it).\n" + strings.Join(diffs, "\n") + "\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if fixed > 0 {
		t.Logf("%d known differences are gone: run with -update-known to shorten %s", fixed, path)
	}
}
