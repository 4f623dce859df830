package pgcatalog

import (
	"context"
	"strings"
	"testing"
)

// TestProcFunctions: pg_proc, pg_description and the functions reading
// them answer as PostgreSQL 15 does for built-in functions (the expected
// values are PostgreSQL's).
func TestProcFunctions(t *testing.T) {
	conn := openDuck(t)
	cases := []struct{ q, want string }{
		{"SELECT proname, pronargs, CAST(proargtypes AS VARCHAR), prorettype, proretset, provolatile, prokind, prosrc FROM __bsdb_pgc.__bsdb_pgc_pg_proc WHERE oid IN (1299, 1397, 1066) ORDER BY oid",
			"[[generate_series 3 [23, 23, 23] 23 true i f generate_series_step_int4] [now 0 [] 1184 false s f now] [abs 1 [23] 23 false i f int4abs]]"},
		{"SELECT CAST(proargnames AS VARCHAR), CAST(proargmodes AS VARCHAR), CAST(proallargtypes AS VARCHAR) FROM __bsdb_pgc.__bsdb_pgc_pg_proc WHERE oid = 1689",
			"[[[acl, grantor, grantee, privilege_type, is_grantable] [i, o, o, o, o] [1034, 26, 26, 25, 16]]]"},
		{"SELECT __bsdb_f_regproc_out(1299), __bsdb_f_regproc_out(1397), __bsdb_f_regproc_out('array_in'), __bsdb_f_regproc_out(0)",
			"[[now pg_catalog.abs array_in -]]"},
		{"SELECT __bsdb_f_regproc_in('pg_catalog.now'), __bsdb_f_regproc_in('1299')", "[[now now]]"},
		{"SELECT __bsdb_f_regprocedure_in('abs(int4)'), __bsdb_f_regprocedure_in('pg_catalog.abs( integer )'), __bsdb_f_regprocedure_out(1397), __bsdb_f_regprocedure_out(1299)",
			"[[1397 1397 abs(integer) now()]]"},
		{"SELECT __bsdb_f_pg_get_function_arguments(3464), __bsdb_f_pg_get_function_identity_arguments(3464), __bsdb_f_pg_get_function_result(1067)",
			"[[years integer DEFAULT 0, months integer DEFAULT 0, weeks integer DEFAULT 0, days integer DEFAULT 0, hours integer DEFAULT 0, mins integer DEFAULT 0, secs double precision DEFAULT 0.0 years integer, months integer, weeks integer, days integer, hours integer, mins integer, secs double precision SETOF integer]]"},
		{"SELECT __bsdb_f_obj_description(1397, 'pg_proc'), __bsdb_f_obj_description(23, 'pg_catalog.pg_type'), __bsdb_f_obj_description(1397, 'pg_type'), __bsdb_f_obj_description(2200)",
			"[[absolute value -2 billion to 2 billion integer, 4-byte storage NULL standard public schema]]"},
		{"SELECT __bsdb_f_shobj_description(4, 'pg_database'), __bsdb_f_shobj_description(5, 'pg_database')", "[[unmodifiable empty database default administrative connection database]]"},
		{"SELECT datname, oid, datistemplate, datallowconn, CAST(datacl AS VARCHAR) FROM temp.__bsdb_pgc_pg_database ORDER BY datname",
			"[[postgres 5 false true NULL] [sales " + itoa(DatabaseOID("sales")) + " false true ['=c/alice', 'alice=CTc/alice']] [template0 4 true false ['=c/postgres', 'postgres=CTc/postgres']] [template1 1 true true ['=c/postgres', 'postgres=CTc/postgres']]]"},
		{"SELECT lanname FROM __bsdb_pgc.__bsdb_pgc_pg_language ORDER BY oid", "[[internal] [c] [sql] [plpgsql]]"},
	}
	for _, c := range cases {
		if got := fmtRows(queryStrings(t, conn, c.q)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.q, got, c.want)
		}
	}
	for q, want := range map[string]string{
		"SELECT __bsdb_f_regproc_in('abs')":            `more than one function named "abs"`,
		"SELECT __bsdb_f_regproc_in('nosuch')":         `function "nosuch" does not exist`,
		"SELECT __bsdb_f_regprocedure_in('abs(text)')": `function "abs(text)" does not exist`,
	} {
		_, err := conn.ExecContext(context.Background(), q)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got error %v, want %q", q, err, want)
		}
	}
}

// TestGeneratedProcs: every generated line parses, and the table holds
// PostgreSQL's built-in functions.
func TestGeneratedProcs(t *testing.T) {
	ps := procs()
	if len(ps) < 3000 {
		t.Fatalf("%d functions, want PostgreSQL 15's ~3200", len(ps))
	}
	seen := map[int64]bool{}
	for _, p := range ps {
		if seen[p.int(pOID)] {
			t.Errorf("duplicate OID %d", p.int(pOID))
		}
		seen[p.int(pOID)] = true
		if n, ok := p.oids(pArgTypes).([]int64); !ok || int64(len(n)) != p.int(pNArgs) {
			t.Errorf("%s: proargtypes %v, pronargs %d", p.f[pName], p.oids(pArgTypes), p.int(pNArgs))
		}
	}
	if got := unescape(`a\\b\tc\nd`); got != "a\\b\tc\nd" {
		t.Errorf("unescape: %q", got)
	}
}

// TestLoadText: both ways of loading rows (VALUES for a few rows, the
// load text for many) round-trip NULLs, empty lists, empty strings,
// quotes and line breaks.
func TestLoadText(t *testing.T) {
	conn := openDuck(t)
	for _, filler := range []int{0, bulkRows} {
		r := &relation{schema: "bsdb_internal", name: "loadtest", static: true, cols: parseCols("a:text b:text[] c:oid[] d:int4 e:bool"),
			rows: func(*Snapshot, *Facts) [][]any {
				rows := [][]any{
					{"it's\n\ta", []string{"", "x"}, []int64{}, int32(-1), true},
					{"", []string{}, nil, nil, false},
					{nil, nil, []int64{1, 2}, int32(7), nil},
				}
				for i := 0; i < filler; i++ {
					rows = append(rows, []any{"f", nil, nil, int32(1000 + i), true})
				}
				return rows
			}}
		stmts := build(r, nil, nil)
		if bulk := strings.Contains(stmts[1], "string_split"); bulk != (filler > 0) {
			t.Errorf("%d rows: loaded from text %v", 3+filler, bulk)
		}
		for _, q := range stmts {
			if _, err := conn.ExecContext(context.Background(), q); err != nil {
				t.Fatalf("%v\n%.200s", err, q)
			}
		}
		got := fmtRows(queryStrings(t, conn, "SELECT a IS NULL, a = 'it''s'||chr(10)||chr(9)||'a', len(b), b[1] = '', len(c), CAST(c AS VARCHAR), d, e FROM __bsdb_pgc.__bsdb_pgc_loadtest WHERE coalesce(d, 0) < 1000 ORDER BY d NULLS FIRST"))
		if want := "[[false false 0 NULL NULL NULL NULL false] [false true 2 true 0 [] -1 true] [true NULL NULL NULL 2 [1, 2] 7 NULL]]"; got != want {
			t.Errorf("%d rows: got  %s\nwant %s", 3+filler, got, want)
		}
	}
}
