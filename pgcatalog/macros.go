package pgcatalog

import (
	"fmt"
	"strings"
	"sync"
)

// MacroPrefix prefixes the DuckDB macro implementing a PostgreSQL function:
// the SQL translator renames calls of every name in Functions to
// MacroPrefix + name, so PostgreSQL's functions never collide with DuckDB's
// built-ins of the same name (current_database, version, ...).
const MacroPrefix = "__bsdb_f_"

// IsFunction reports whether the PostgreSQL function name (lower case) is
// implemented as a macro.
func IsFunction(name string) bool {
	functionsOnce.Do(func() {
		functions = map[string]bool{}
		for _, d := range macros(Facts{}) {
			n := strings.TrimPrefix(d, "CREATE OR REPLACE TEMP MACRO "+MacroPrefix)
			n = n[:strings.IndexByte(n, '(')]
			if !strings.HasSuffix(n, "_in") && !strings.HasSuffix(n, "_out") {
				functions[n] = true
			}
		}
	})
	return functions[name]
}

var (
	functionsOnce sync.Once
	functions     map[string]bool
)

// RegCast names the macros that implement casts to reg* types:
// <type>_in(text) -> oid, <type>_out(oid) -> name text.
var regTypes = []string{"regclass", "regtype", "regnamespace", "regproc", "regprocedure", "regrole", "regoper", "regoperator"}

// IsRegType reports whether a type name is one of the OID alias types.
func IsRegType(name string) bool {
	for _, r := range regTypes {
		if r == name {
			return true
		}
	}
	return false
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// catalogOID is SQL mapping a catalog's name (the expression c, e.g.
// 'pg_proc', as obj_description takes it) to its OID (NULL if unknown).
func catalogOID(c string) string {
	var b strings.Builder
	b.WriteString("CASE regexp_replace(" + c + ", '^pg_catalog\\.', '')")
	for _, k := range sortedKeys() {
		if o, ok := systemRelOIDs[k]; ok {
			fmt.Fprintf(&b, " WHEN %s THEN %d", lit(strings.TrimPrefix(k, "pg_catalog.")), o)
		}
	}
	b.WriteString(" END")
	return b.String()
}

// macros returns the CREATE MACRO statements, with the connection's facts
// baked in.
func macros(f Facts) []string {
	cls, ns, typ, fmtT := tn("pg_catalog", "pg_class"), tn("pg_catalog", "pg_namespace"),
		tn("pg_catalog", "pg_type"), tn("bsdb_internal", "typefmt")
	vis, defs, rl := tn("bsdb_internal", "visible"), tn("bsdb_internal", "defs"), tn("pg_catalog", "pg_roles")
	proc, pfmt, ofmt := tn("pg_catalog", "pg_proc"), tn("bsdb_internal", "procfmt"), tn("bsdb_internal", "operfmt")
	desc, shdesc := tn("pg_catalog", "pg_description"), tn("pg_catalog", "pg_shdescription")
	version := fmt.Sprintf("PostgreSQL %s (bsdb-pg) on x86_64-pc-linux-gnu, compiled by Go, 64-bit", f.ServerVersion)
	defsList := []struct{ name, body string }{
		{"pg_get_userbyid", fmt.Sprintf("(o) AS coalesce((SELECT rolname FROM %s _mr WHERE _mr.oid = o), 'unknown (OID=' || o || ')')", rl)},
		{"pg_table_is_visible", fmt.Sprintf("(o) AS EXISTS (SELECT 1 FROM %s _mv WHERE _mv.oid = o)", vis)},
		{"pg_type_is_visible", "(o) AS true"},
		{"pg_function_is_visible", "(o) AS true"},
		// Every operator, operator class and family is a built-in one of
		// pg_catalog, which is searched first.
		{"pg_operator_is_visible", "(o) AS true"},
		{"pg_opclass_is_visible", "(o) AS true"},
		{"pg_opfamily_is_visible", "(o) AS true"},
		{"format_type", fmt.Sprintf(`(t, m) AS CASE WHEN t IS NULL THEN NULL
			WHEN m IS NULL OR m < 0 THEN coalesce((SELECT fmt FROM %[1]s _mx WHERE _mx.oid = t), '???')
			WHEN t = 1043 THEN 'character varying(' || (m - 4) || ')'
			WHEN t = 1042 THEN 'character(' || (m - 4) || ')'
			WHEN t = 1700 THEN 'numeric(' || ((m - 4) >> 16) || ',' || ((m - 4) & 65535) || ')'
			WHEN t = 1114 THEN 'timestamp(' || m || ') without time zone'
			WHEN t = 1184 THEN 'timestamp(' || m || ') with time zone'
			WHEN t = 1083 THEN 'time(' || m || ') without time zone'
			WHEN t = 1266 THEN 'time(' || m || ') with time zone'
			ELSE coalesce((SELECT fmt FROM %[1]s _mx WHERE _mx.oid = t), '???') END`, fmtT)},
		{"pg_get_expr", "(e, r) AS e, (e, r, p) AS e"},
		// o may be a regproc column (pg_operator.oprcode), which holds the
		// function's name: the name is looked up.
		{"obj_description", fmt.Sprintf(`(o) AS (SELECT description FROM %[1]s _md WHERE _md.objoid = %[3]s AND _md.objsubid = 0 ORDER BY _md.classoid LIMIT 1),
			(o, c) AS (SELECT description FROM %[1]s _md WHERE _md.objoid = %[3]s AND _md.objsubid = 0 AND _md.classoid = %[2]s LIMIT 1)`,
			desc, catalogOID("c"), fmt.Sprintf("coalesce(TRY_CAST(o AS BIGINT), (SELECT min(_mf.oid) FROM %s _mf WHERE _mf.regproc = CAST(o AS VARCHAR)))", pfmt))},
		{"col_description", fmt.Sprintf("(o, n) AS (SELECT description FROM %s _md WHERE _md.objoid = o AND _md.classoid = %d AND _md.objsubid = n LIMIT 1)", desc, OIDPgClassClass)},
		{"shobj_description", fmt.Sprintf("(o, c) AS (SELECT description FROM %s _md WHERE _md.objoid = o AND _md.classoid = %s LIMIT 1)", shdesc, catalogOID("c"))},
		// Pretty (p): a partial index's predicate without its outer
		// parentheses, the table's schema only when it is not visible.
		{"pg_get_indexdef", fmt.Sprintf(`(o) AS (SELECT def FROM %[1]s _md WHERE _md.oid = o),
			(o, c, p) AS (SELECT CASE WHEN p THEN regexp_replace(CASE WHEN o IN (SELECT _mv.oid FROM %[2]s _mv)
				THEN regexp_replace(def, ' ON ("[^"]*"|[^ ."]+)\.', ' ON ') ELSE def END, ' WHERE \((.*)\)$', ' WHERE \1') ELSE def END
				FROM %[1]s _md WHERE _md.oid = o)`, defs, vis)},
		// Pretty (p): a CHECK's condition without its extra parentheses.
		{"pg_get_constraintdef", fmt.Sprintf(`(o) AS (SELECT def FROM %[1]s _md WHERE _md.oid = o),
			(o, p) AS (SELECT CASE WHEN p THEN regexp_replace(def, '^CHECK \(\((.*)\)\)( NOT VALID)?$', 'CHECK (\1)\2') ELSE def END FROM %[1]s _md WHERE _md.oid = o)`, defs)},
		{"has_function_privilege", "(a, b) AS true, (a, b, c) AS true"},
		{"has_sequence_privilege", "(a, b) AS true, (a, b, c) AS true"},
		{"current_database", "() AS " + lit(f.Database)},
		{"version", "() AS " + lit(version)},
		{"pg_backend_pid", fmt.Sprintf("() AS CAST(%d AS INTEGER)", f.PID)},
		{"pg_encoding_to_char", "(e) AS CASE e WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END"},
		{"pg_char_to_encoding", "(e) AS CASE upper(e) WHEN 'UTF8' THEN 6 WHEN 'SQL_ASCII' THEN 0 ELSE -1 END"},
		{"pg_postmaster_start_time", "() AS TIMESTAMPTZ " + lit(f.StartTime.UTC().Format("2006-01-02 15:04:05.999999")+"+00")},
		{"pg_relation_is_publishable", "(o) AS false"},
		{"pg_is_in_recovery", "() AS false"},
		// pg_default and pg_global, the only tablespaces, are in the data
		// directory: PostgreSQL gives '' for them.
		{"pg_tablespace_location", "(o) AS CAST('' AS VARCHAR)"},
		{"pg_get_triggerdef", "(o) AS CAST(NULL AS VARCHAR), (o, p) AS CAST(NULL AS VARCHAR)"},
		// acldefault(type, owner): the ACL an object of that type has when
		// its ACL is NULL (acl.c's acldefault), as aclitem text.
		{"acldefault", fmt.Sprintf(`(t, o) AS CASE t
			WHEN 'c' THEN CAST([] AS VARCHAR[])
			WHEN 'r' THEN [%[1]s || '=arwdDxt/' || %[1]s]
			WHEN 's' THEN [%[1]s || '=rwU/' || %[1]s]
			WHEN 'd' THEN ['=Tc/' || %[1]s, %[1]s || '=CTc/' || %[1]s]
			WHEN 'f' THEN ['=X/' || %[1]s, %[1]s || '=X/' || %[1]s]
			WHEN 'l' THEN ['=U/' || %[1]s, %[1]s || '=U/' || %[1]s]
			WHEN 'L' THEN [%[1]s || '=rw/' || %[1]s]
			WHEN 'n' THEN [%[1]s || '=UC/' || %[1]s]
			WHEN 't' THEN [%[1]s || '=C/' || %[1]s]
			WHEN 'F' THEN [%[1]s || '=U/' || %[1]s]
			WHEN 'S' THEN [%[1]s || '=U/' || %[1]s]
			WHEN 'T' THEN ['=U/' || %[1]s, %[1]s || '=U/' || %[1]s]
			WHEN 'p' THEN CAST([] AS VARCHAR[])
			ELSE error('unrecognized object type abbreviation: ' || t) END`,
			fmt.Sprintf(`coalesce((SELECT CASE WHEN regexp_full_match(_mr.rolname, '[A-Za-z0-9_]+') THEN _mr.rolname
				ELSE '"' || replace(_mr.rolname, '"', '""') || '"' END FROM %s _mr WHERE _mr.oid = o), CAST(o AS VARCHAR))`, rl))},
		{"pg_get_statisticsobjdef_columns", "(o) AS CAST(NULL AS VARCHAR)"},
		{"pg_get_function_result", fmt.Sprintf("(o) AS (SELECT result FROM %s _mf WHERE _mf.oid = o)", pfmt)},
		{"pg_get_function_arguments", fmt.Sprintf("(o) AS (SELECT args FROM %s _mf WHERE _mf.oid = o)", pfmt)},
		{"pg_get_function_identity_arguments", fmt.Sprintf("(o) AS (SELECT identity FROM %s _mf WHERE _mf.oid = o)", pfmt)},
		{"pg_get_function_sqlbody", "(o) AS CAST(NULL AS VARCHAR)"},
		{"pg_get_partkeydef", "(o) AS CAST(NULL AS VARCHAR)"},
		{"pg_relation_size", "(o) AS CAST(0 AS BIGINT), (o, f) AS CAST(0 AS BIGINT)"},
		{"pg_total_relation_size", "(o) AS CAST(0 AS BIGINT)"},
		{"pg_table_size", "(o) AS CAST(0 AS BIGINT)"},
		{"pg_indexes_size", "(o) AS CAST(0 AS BIGINT)"},
		// information_schema._pg_expandarray(a): set of (x, n) per element
		// (a struct; (f(a)).x works the same).
		{"_pg_expandarray", "(a) AS unnest(list_transform(range(1, len(a) + 1), __i -> {'x': a[__i], 'n': CAST(__i AS INTEGER)}))"},
		{"array_upper", "(a, d) AS CASE WHEN len(a) = 0 THEN NULL ELSE len(a) END"},
		{"array_lower", "(a, d) AS CASE WHEN len(a) = 0 THEN NULL ELSE 1 END"},
		{"regclass_in", fmt.Sprintf(`(s) AS coalesce(
			(SELECT _mc.oid FROM %[1]s _mc JOIN %[2]s _mn ON _mn.oid = _mc.relnamespace
			 WHERE CASE WHEN contains(s, '.') THEN _mn.nspname = trim(split_part(s, '.', 1), '"') AND _mc.relname = trim(split_part(s, '.', 2), '"')
			 ELSE _mc.relname = trim(s, '"') AND EXISTS (SELECT 1 FROM %[3]s _mv WHERE _mv.oid = _mc.oid) END
			 ORDER BY _mc.oid LIMIT 1),
			CASE WHEN regexp_full_match(s, '[0-9]+') THEN CAST(s AS BIGINT) ELSE error('relation "' || s || '" does not exist') END)`, cls, ns, vis)},
		{"pg_get_viewdef", fmt.Sprintf("(o) AS (SELECT def FROM %[1]s _md WHERE _md.oid = %[2]s), (o, p) AS (SELECT def FROM %[1]s _md WHERE _md.oid = %[2]s)",
			defs, "coalesce(TRY_CAST(o AS BIGINT), "+MacroPrefix+"regclass_in(CAST(o AS VARCHAR)))")},
		{"regclass_out", fmt.Sprintf(`(o) AS coalesce((SELECT CASE WHEN EXISTS (SELECT 1 FROM %[3]s _mv WHERE _mv.oid = _mc.oid) THEN _mc.relname
			ELSE _mn.nspname || '.' || _mc.relname END FROM %[1]s _mc JOIN %[2]s _mn ON _mn.oid = _mc.relnamespace WHERE _mc.oid = o), CAST(o AS VARCHAR))`, cls, ns, vis)},
		{"regtype_in", fmt.Sprintf(`(s) AS coalesce((SELECT _mx.oid FROM %[1]s _mx WHERE _mx.fmt = lower(s) ORDER BY _mx.oid LIMIT 1),
			(SELECT _mt.oid FROM %[2]s _mt WHERE _mt.typname = lower(s) ORDER BY _mt.oid LIMIT 1),
			CASE WHEN regexp_full_match(s, '[0-9]+') THEN CAST(s AS BIGINT) ELSE error('type "' || s || '" does not exist') END)`, fmtT, typ)},
		{"regtype_out", fmt.Sprintf("(o) AS coalesce((SELECT fmt FROM %s _mx WHERE _mx.oid = o), CAST(o AS VARCHAR))", fmtT)},
		// x::regtype[] of an oid[] / oidvector (pgcli: proargtypes::regtype[]):
		// each element's name, in order.
		{"regtype_array_out", fmt.Sprintf(`(a) AS CASE WHEN a IS NULL THEN NULL ELSE coalesce((SELECT list(coalesce(_mx.fmt, CAST(_u.o AS VARCHAR)) ORDER BY _u.i)
			FROM (SELECT unnest(a) AS o, generate_subscripts(a, 1) AS i) _u LEFT JOIN %s _mx ON _mx.oid = _u.o), CAST([] AS VARCHAR[])) END`, fmtT)},
		{"regnamespace_in", fmt.Sprintf(`(s) AS coalesce((SELECT _mn.oid FROM %s _mn WHERE _mn.nspname = trim(s, '"')),
			CASE WHEN regexp_full_match(s, '[0-9]+') THEN CAST(s AS BIGINT) ELSE error('schema "' || s || '" does not exist') END)`, ns)},
		{"regnamespace_out", fmt.Sprintf("(o) AS coalesce((SELECT nspname FROM %s _mn WHERE _mn.oid = o), CAST(o AS VARCHAR))", ns)},
		{"regrole_in", fmt.Sprintf(`(s) AS coalesce((SELECT _mr.oid FROM %s _mr WHERE _mr.rolname = trim(s, '"')),
			error('role "' || s || '" does not exist'))`, rl)},
		{"regrole_out", fmt.Sprintf("(o) AS coalesce((SELECT rolname FROM %s _mr WHERE _mr.oid = o), CAST(o AS VARCHAR))", rl)},
		// regproc values are stored as names (pg_type.typinput...):
		// 'name'::regproc checks that the name is one function's and
		// gives the name (pg_catalog. prefix dropped), an OID gives the
		// function's name as regprocout prints it.
		{"regproc_in", fmt.Sprintf(`(s) AS CASE WHEN CAST(s AS VARCHAR) = '-' THEN '-'
			WHEN regexp_full_match(CAST(s AS VARCHAR), '[0-9]+') THEN coalesce((SELECT regproc FROM %[1]s _mf WHERE _mf.oid = TRY_CAST(s AS BIGINT)), CAST(s AS VARCHAR))
			ELSE CASE (SELECT count(*) FROM %[2]s _mp WHERE _mp.proname = %[3]s)
				WHEN 1 THEN %[3]s WHEN 0 THEN error('function "' || s || '" does not exist')
				ELSE error('more than one function named "' || s || '"') END END`, pfmt, proc,
			`trim(regexp_replace(trim(CAST(s AS VARCHAR)), '^pg_catalog\.', ''), '"')`)},
		// regproc_oid_in(name): the OID of the function a regproc value
		// (a name here) names, 0 for '-' (regproc::oid).
		{"regproc_oid_in", fmt.Sprintf(`(s) AS CASE WHEN CAST(s AS VARCHAR) = '-' THEN CAST(0 AS BIGINT)
			WHEN regexp_full_match(CAST(s AS VARCHAR), '[0-9]+') THEN CAST(s AS BIGINT)
			ELSE (SELECT min(_mf.oid) FROM %s _mf WHERE _mf.regproc = CAST(s AS VARCHAR)) END`, pfmt)},
		{"regproc_out", fmt.Sprintf(`(o) AS CASE WHEN TRY_CAST(o AS BIGINT) IS NULL THEN CAST(o AS VARCHAR) WHEN TRY_CAST(o AS BIGINT) = 0 THEN '-'
			ELSE coalesce((SELECT regproc FROM %s _mf WHERE _mf.oid = TRY_CAST(o AS BIGINT)), CAST(o AS VARCHAR)) END`, pfmt)},
		// regprocedure values are OIDs: 'abs(integer)'::regprocedure
		// (or abs(int4)) is the function's OID.
		{"regprocedure_in", fmt.Sprintf(`(s) AS CASE WHEN regexp_full_match(CAST(s AS VARCHAR), '[0-9]+') THEN TRY_CAST(s AS BIGINT)
			ELSE coalesce((SELECT _mf.oid FROM %s _mf WHERE regexp_replace(regexp_replace(lower(CAST(s AS VARCHAR)), '^\s*pg_catalog\.', ''), '\s', '', 'g') IN (_mf.sigkey, _mf.typkey)
				ORDER BY _mf.oid LIMIT 1), error('function "' || s || '" does not exist')) END`, pfmt)},
		{"regprocedure_out", fmt.Sprintf(`(o) AS CASE WHEN TRY_CAST(o AS BIGINT) IS NULL THEN CAST(o AS VARCHAR) WHEN TRY_CAST(o AS BIGINT) = 0 THEN '-'
			ELSE coalesce((SELECT sig FROM %s _mf WHERE _mf.oid = TRY_CAST(o AS BIGINT)), CAST(o AS VARCHAR)) END`, pfmt)},
		// regoper and regoperator values are OIDs (no catalog column has
		// these types): the texts are operfmt's.
		{"regoper_in", fmt.Sprintf(`(s) AS CASE WHEN regexp_full_match(CAST(s AS VARCHAR), '[0-9]+') THEN TRY_CAST(s AS BIGINT)
			ELSE CASE (SELECT count(*) FROM %[1]s _mo WHERE _mo.name = %[2]s)
				WHEN 1 THEN (SELECT min(_mo.oid) FROM %[1]s _mo WHERE _mo.name = %[2]s)
				WHEN 0 THEN error('operator does not exist: ' || s)
				ELSE error('more than one operator named ' || s) END END`, ofmt,
			`regexp_replace(trim(CAST(s AS VARCHAR)), '^pg_catalog\.', '')`)},
		{"regoper_out", fmt.Sprintf(`(o) AS CASE WHEN TRY_CAST(o AS BIGINT) IS NULL THEN CAST(o AS VARCHAR)
			ELSE coalesce((SELECT regoper FROM %s _mo WHERE _mo.oid = TRY_CAST(o AS BIGINT)), CAST(o AS VARCHAR)) END`, ofmt)},
		{"regoperator_in", fmt.Sprintf(`(s) AS CASE WHEN regexp_full_match(CAST(s AS VARCHAR), '[0-9]+') THEN TRY_CAST(s AS BIGINT)
			ELSE coalesce((SELECT _mo.oid FROM %s _mo WHERE regexp_replace(regexp_replace(lower(CAST(s AS VARCHAR)), '^\s*pg_catalog\.', ''), '\s', '', 'g') IN (_mo.sigkey, _mo.typkey)
				ORDER BY _mo.oid LIMIT 1), error('operator does not exist: ' || s)) END`, ofmt)},
		{"regoperator_out", fmt.Sprintf(`(o) AS CASE WHEN TRY_CAST(o AS BIGINT) IS NULL THEN CAST(o AS VARCHAR)
			ELSE coalesce((SELECT regoperator FROM %s _mo WHERE _mo.oid = TRY_CAST(o AS BIGINT)), CAST(o AS VARCHAR)) END`, ofmt)},
	}
	out := make([]string, 0, len(defsList))
	for _, d := range defsList {
		out = append(out, "CREATE OR REPLACE TEMP MACRO "+MacroPrefix+d.name+d.body)
	}
	return out
}
