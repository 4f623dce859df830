package resolvetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/sql/resolve"
)

func pgErr(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// The types the differential tests combine.
var testTypes = []string{"boolean", "smallint", "integer", "bigint", "real", "double precision", "numeric", "text",
	"character varying", "character", "name", "\"char\"", "date", "time without time zone", "time with time zone",
	"timestamp without time zone", "timestamp with time zone", "interval", "bytea", "json", "jsonb", "uuid", "oid",
	"bit", "bit varying", "inet", "money", "point", "integer[]", "text[]", "numeric[]", "int4range", "tstzrange"}

// compare checks the resolver's answer (a type or an error) with
// PostgreSQL's for one expression.
func compare(t *testing.T, c resolve.Catalog, expr string, got uint32, err error, pgType, pgCode, pgMsg string) bool {
	t.Helper()
	switch {
	case pgCode == "" && err == nil:
		if c.FormatType(got) != pgType {
			t.Errorf("%s: resolver %s, PostgreSQL %s", expr, c.FormatType(got), pgType)
			return false
		}
	case pgCode == "":
		t.Errorf("%s: resolver error %v, PostgreSQL %s", expr, err, pgType)
		return false
	case err == nil:
		// PostgreSQL may fail later than resolution (a cast of the result,
		// an I/O-coerced literal): only its resolution errors count.
		if pgCode == pgerr.UndefinedFunction || pgCode == pgerr.AmbiguousFunction || pgCode == pgerr.DatatypeMismatch {
			t.Errorf("%s: resolver %s, PostgreSQL %s %s", expr, c.FormatType(got), pgCode, pgMsg)
			return false
		}
	default:
		e, ok := pgerr.As(err)
		if !ok || e.Code != pgCode || e.Message != pgMsg {
			t.Errorf("%s: resolver %v, PostgreSQL %s %s", expr, err, pgCode, pgMsg)
			return false
		}
	}
	return true
}

func lit(c *Live, ty string) (string, uint32) {
	if ty == "" {
		return "NULL", resolve.Unknown
	}
	for oid, f := range c.format {
		if f == ty && oid < 16384 {
			return "NULL::" + ty, oid
		}
	}
	panic("no type " + ty)
}

// CheckOperators resolves every operator of a list over every pair of the
// test types (and an untyped NULL on either side) with r and compares the
// result type, or the error, with what PostgreSQL answers.
func CheckOperators(t *testing.T, r *resolve.Resolver, c *Live, conn *pgx.Conn) {
	ops := []string{"+", "-", "*", "/", "%", "^", "||", "=", "<>", "<", ">=", "~~", "~", "@>", "<@", "&&", "->", "->>", "#>", "?", "<<", "&", "|", "#", "@@"}
	types := append([]string{""}, testTypes...)
	n, bad := 0, 0
	for _, op := range ops {
		for _, lt := range types {
			for _, rt := range types {
				l, loid := lit(c, lt)
				rr, roid := lit(c, rt)
				expr := fmt.Sprintf("%s %s %s", l, op, rr)
				pgType, pgCode, pgMsg := pgAnswer(t, conn, expr)
				oc, err := r.ResolveOperator(op, loid, roid)
				var got uint32
				if oc != nil {
					got = oc.Ret
				}
				n++
				if !compare(t, r.Catalog(), expr, got, err, pgType, pgCode, pgMsg) {
					bad++
				}
				if bad > 40 {
					t.Fatalf("too many differences (%d of %d)", bad, n)
				}
			}
		}
	}
	t.Logf("%d operator expressions, %d differ", n, bad)
}

// CheckPrefixOperators: - + ~ @ |/ ||/ @-@ # !! over the test types.
func CheckPrefixOperators(t *testing.T, r *resolve.Resolver, c *Live, conn *pgx.Conn) {
	for _, op := range []string{"-", "+", "~", "@", "|/", "||/", "@-@", "#", "!!"} {
		for _, ty := range append([]string{""}, testTypes...) {
			l, oid := lit(c, ty)
			expr := fmt.Sprintf("%s %s", op, l)
			pgType, pgCode, pgMsg := pgAnswer(t, conn, "("+expr+")")
			oc, err := r.ResolveOperator(op, 0, oid)
			var got uint32
			if oc != nil {
				got = oc.Ret
			}
			compare(t, r.Catalog(), expr, got, err, pgType, pgCode, pgMsg)
		}
	}
}

// CheckFunctions resolves calls of common functions with arguments of the
// test types.
func CheckFunctions(t *testing.T, r *resolve.Resolver, c *Live, conn *pgx.Conn) {
	one := []string{"abs", "length", "lower", "upper", "round", "trunc", "floor", "ceil", "sqrt", "sign", "md5",
		"to_char", "date_trunc", "array_length", "array_to_string", "coalesce", "sum", "avg", "min", "max", "count",
		"stddev", "variance", "array_agg", "string_agg", "bool_and", "to_json", "to_jsonb", "jsonb_typeof",
		"unnest", "cardinality", "upper_inf", "lower", "isfinite", "age", "text", "int4", "float8",
		"date", "bpchar", "pg_typeof", "quote_literal", "quote_ident", "reverse", "ascii",
		"chr", "exp", "ln", "log", "factorial", "encode", "decode", "bit_length", "octet_length", "char_length", "int8", "name",
		"row_to_json", "json_agg", "jsonb_agg", "generate_series", "lpad", "concat", "format", "num_nulls"}
	types := append([]string{""}, testTypes...)
	n, bad := 0, 0
	for _, fn := range one {
		for _, ty := range types {
			a, oid := lit(c, ty)
			for _, args := range [][]uint32{{oid}, {oid, resolve.Int4}, {oid, oid}, {oid, resolve.Text}} {
				var sqlArgs string
				switch len(args) {
				case 1:
					sqlArgs = a
				default:
					second := a
					if args[1] == resolve.Int4 {
						second = "NULL::integer"
					} else if args[1] == resolve.Text {
						second = "NULL::text"
					}
					sqlArgs = a + ", " + second
				}
				expr := fmt.Sprintf("%s(%s)", fn, sqlArgs)
				if fn == "coalesce" { // SQL syntax, not a function call
					continue
				}
				pgType, pgCode, pgMsg := pgAnswer(t, conn, expr)
				fc, err := r.ResolveFunction(fn, args, nil, len(args) == 1 && oid == resolve.Unknown)
				var got uint32
				if fc != nil {
					got = fc.Ret
				}
				if pgCode == "42809" || pgCode == "0A000" || pgCode == "SRF" { // a set-returning function in pg_typeof, ...
					continue
				}
				n++
				if !compare(t, r.Catalog(), expr, got, err, pgType, pgCode, pgMsg) {
					bad++
				}
				if bad > 40 {
					t.Fatalf("too many differences (%d of %d)", bad, n)
				}
			}
		}
	}
	t.Logf("%d calls, %d differ", n, bad)
}

// CheckCommonType: CASE's result type over every pair of the test types.
func CheckCommonType(t *testing.T, r *resolve.Resolver, c *Live, conn *pgx.Conn) {
	types := append([]string{""}, testTypes...)
	for _, lt := range types {
		for _, rt := range types {
			l, loid := lit(c, lt)
			rr, roid := lit(c, rt)
			expr := fmt.Sprintf("CASE WHEN random() < 0.5 THEN %s ELSE %s END", l, rr)
			pgType, pgCode, pgMsg := pgAnswer(t, conn, expr)
			// transformCaseExpr puts the ELSE result first.
			got, err := r.SelectCommonType([]uint32{roid, loid}, "CASE")
			if err == nil && got != roid && roid != resolve.Unknown && !r.CanCoerce([]uint32{roid}, []uint32{got}, resolve.CoerceImplicit) {
				err = r.CoerceToCommonError("CASE/ELSE", roid, got)
			} else if err == nil && got != loid && loid != resolve.Unknown && !r.CanCoerce([]uint32{loid}, []uint32{got}, resolve.CoerceImplicit) {
				err = r.CoerceToCommonError("CASE/WHEN", loid, got)
			}
			compare(t, r.Catalog(), expr, got, err, pgType, pgCode, pgMsg)
		}
	}
}

// CheckSpecialCalls: named notation, defaults, VARIADIC, polymorphic and
// anycompatible functions.
func CheckSpecialCalls(t *testing.T, r *resolve.Resolver, c *Live, conn *pgx.Conn) {
	type arg struct {
		sql  string
		typ  string // "" = unknown
		name string
	}
	for _, call := range []struct {
		fn   string
		args []arg
	}{
		{"make_interval", []arg{{"NULL::integer", "integer", "days"}}},
		{"make_interval", []arg{{"NULL::integer", "integer", ""}, {"NULL::integer", "integer", "mins"}}},
		{"make_interval", []arg{{"NULL::integer", "integer", "nosuch"}}},
		{"make_interval", []arg{{"NULL::integer", "integer", ""}, {"NULL::integer", "integer", ""}}},
		{"make_interval", nil},
		{"concat", []arg{{"NULL::integer", "integer", ""}, {"NULL", "", ""}, {"NULL::numeric", "numeric", ""}}},
		{"format", []arg{{"NULL::text", "text", ""}, {"NULL::integer", "integer", ""}, {"NULL::date", "date", ""}}},
		{"jsonb_set", []arg{{"NULL::jsonb", "jsonb", ""}, {"NULL::text[]", "text[]", ""}, {"NULL::jsonb", "jsonb", ""}}},
		{"array_fill", []arg{{"NULL::integer", "integer", ""}, {"NULL::integer[]", "integer[]", ""}}},
		{"array_append", []arg{{"NULL::integer[]", "integer[]", ""}, {"NULL::bigint", "bigint", ""}}},
		{"array_append", []arg{{"NULL::integer[]", "integer[]", ""}, {"NULL", "", ""}}},
		{"array_cat", []arg{{"NULL::integer[]", "integer[]", ""}, {"NULL::numeric[]", "numeric[]", ""}}},
		{"array_position", []arg{{"NULL::text[]", "text[]", ""}, {"NULL", "", ""}}},
		{"width_bucket", []arg{{"NULL::numeric", "numeric", ""}, {"NULL::integer", "integer", ""}, {"NULL::integer", "integer", ""}, {"NULL::integer", "integer", ""}}},
		{"generate_series", []arg{{"NULL::integer", "integer", ""}, {"NULL::bigint", "bigint", ""}}},
		{"generate_series", []arg{{"NULL::timestamp", "timestamp without time zone", ""}, {"NULL", "", ""}, {"NULL", "", ""}}},
		{"to_char", []arg{{"NULL", "", ""}, {"NULL", "", ""}}},
		{"round", []arg{{"NULL", "", ""}}},
		{"round", []arg{{"NULL::integer", "integer", ""}, {"NULL", "", ""}}},
		{"lpad", []arg{{"NULL", "", ""}, {"NULL::integer", "integer", ""}}},
		{"substring", []arg{{"NULL::bytea", "bytea", ""}, {"NULL::integer", "integer", ""}}},
		{"string_agg", []arg{{"NULL::bytea", "bytea", ""}, {"NULL::bytea", "bytea", ""}}},
		{"div", []arg{{"NULL::integer", "integer", ""}, {"NULL::integer", "integer", ""}}},
		{"get_byte", []arg{{"NULL::bytea", "bytea", ""}, {"NULL::integer", "integer", ""}}},
		{"to_number", []arg{{"NULL", "", ""}, {"NULL", "", ""}}},
		{"regexp_matches", []arg{{"NULL::text", "text", ""}, {"NULL", "", ""}}},
		{"num_nonnulls", []arg{{"NULL", "", ""}, {"NULL::integer", "integer", ""}}},
		{"greatest", nil},
	} {
		var sqlArgs []string
		var types []uint32
		var names []string
		for _, a := range call.args {
			s := a.sql
			if a.name != "" {
				s = a.name + " => " + s
				names = append(names, a.name)
			}
			sqlArgs = append(sqlArgs, s)
			_, oid := lit(c, a.typ)
			types = append(types, oid)
		}
		expr := fmt.Sprintf("%s(%s)", call.fn, strings.Join(sqlArgs, ", "))
		if call.fn == "greatest" {
			continue // SQL syntax
		}
		pgType, pgCode, pgMsg := pgAnswer(t, conn, expr)
		if pgCode == "SRF" || pgCode == "42809" {
			continue
		}
		fc, err := r.ResolveFunction(call.fn, types, names, false)
		var got uint32
		if fc != nil {
			got = fc.Ret
		}
		compare(t, r.Catalog(), expr, got, err, pgType, pgCode, pgMsg)
	}
}
