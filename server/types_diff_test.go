package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
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

// resultType is what a client sees of expr's type: the column type of
// "SELECT expr" in RowDescription, or the error's SQLSTATE.
func resultType(t *testing.T, c *pgconn.PgConn, expr string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rr := c.ExecParams(ctx, "SELECT "+expr+" AS x", nil, nil, nil, nil)
	fds := rr.FieldDescriptions()
	var oid uint32
	if len(fds) > 0 {
		oid = fds[0].DataTypeOID
	}
	for rr.NextRow() {
	}
	if _, err := rr.Close(); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return "ERROR " + pe.Code
		}
		t.Fatalf("%s: %v", expr, err)
	}
	return pgtypes.FormatType(oid, -1)
}

// typeMatrix returns connections to bsdb-pg and to the reference
// PostgreSQL.
func typeMatrix(t *testing.T) (ours, ref *pgconn.PgConn) {
	ts := startServer(t, "")
	ctx := context.Background()
	var err error
	if ours, err = pgconn.Connect(ctx, ts.url()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.Close(ctx) })
	if ref, err = pgconn.Connect(ctx, pgref.Start(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close(ctx) })
	return ours, ref
}

// TestOperatorTypesMatchPostgres: the type a client sees for every binary
// operator of a list over every pair of storable types (and an untyped
// NULL), as PostgreSQL types it. Known differences are listed in
// testdata/operator_types.known: the test fails on any new one and says
// when one is gone (run with -update-known to rewrite the list).
func TestOperatorTypesMatchPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
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
		return resultType(t, ours, expr), resultType(t, ref, expr)
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

// TestFunctionTypesMatchPostgres: the type a client sees for calls of
// common functions over the storable types (one argument, and two where
// the second is an integer, text or the same type), as PostgreSQL types
// them. Known differences are in testdata/function_types.known.
func TestFunctionTypesMatchPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
	fns := []string{"abs", "length", "lower", "upper", "round", "trunc", "floor", "ceil", "sqrt", "sign", "md5",
		"to_char", "date_trunc", "date_part", "array_length", "sum", "avg", "min", "max", "count", "stddev",
		"variance", "array_agg", "string_agg", "bool_and", "to_json", "to_jsonb", "jsonb_typeof", "isfinite", "age",
		"text", "int4", "float8", "quote_literal", "quote_ident", "reverse", "ascii", "chr", "exp", "ln", "log",
		"encode", "decode", "octet_length", "char_length", "lpad", "concat", "format", "num_nulls", "left", "repeat",
		"substr", "split_part", "mod", "power", "greatest", "coalesce", "nullif", "justify_days", "extract"}
	types := append([]string{""}, storedTypes...)
	var cases []string
	for _, fn := range fns {
		for _, ty := range types {
			a := typedNull(ty)
			switch fn {
			case "extract":
				cases = append(cases, "extract(epoch from "+a+")")
				continue
			}
			cases = append(cases, fmt.Sprintf("%s(%s)", fn, a),
				fmt.Sprintf("%s(%s, NULL::integer)", fn, a),
				fmt.Sprintf("%s(%s, NULL::text)", fn, a),
				fmt.Sprintf("%s(%s, %s)", fn, a, a))
		}
	}
	checkKnown(t, "function_types", cases, func(expr string) (string, string) {
		return resultType(t, ours, expr), resultType(t, ref, expr)
	})
}
