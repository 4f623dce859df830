package server

import (
	"fmt"
	"strings"

	"github.com/bsdb/bsdb-pg/pgcatalog"
)

// stmtGen generates random PostgreSQL statements from a grammar, its
// choices read from a byte string (the fuzzer's input), so that the
// fuzzer's mutations of the bytes are mutations of the statement's
// structure. When the bytes run out every choice is 0, which always picks
// a short, terminating alternative.
type stmtGen struct {
	src []byte
	pos int
	b   strings.Builder
	// forbidden: the statement calls a function PostgreSQL does not have
	// (it must then fail, whatever else happens).
	forbidden bool
	depth     int
}

func (g *stmtGen) byte() byte {
	if g.pos >= len(g.src) {
		return 0
	}
	c := g.src[g.pos]
	g.pos++
	return c
}

// intn returns a choice in [0, n).
func (g *stmtGen) intn(n int) int {
	if n <= 1 {
		return 0
	}
	if n <= 256 {
		return int(g.byte()) % n
	}
	return (int(g.byte())<<8 | int(g.byte())) % n
}

func (g *stmtGen) pick(opts ...string) string { return opts[g.intn(len(opts))] }

func (g *stmtGen) w(s ...string) {
	for _, x := range s {
		g.b.WriteString(x)
	}
}

// fuzzTables are the tables every fuzzed server has (fuzzSetup), with
// their columns.
var fuzzTables = map[string][]string{
	"ft1": {"a", "b", "c", "d", "e", "f", "g", "h", "j"},
	"ft2": {"k", "v", "ts", "arr"},
}

const fuzzSetup = `CREATE TABLE ft1 (a int, b text, c float8, d numeric(12,3), e timestamptz, f bool, g bigint, h date, j jsonb);
CREATE TABLE ft2 (k int, v varchar(20), ts timestamp, arr text);
INSERT INTO ft1 VALUES (1, 'one', 1.5, 1.250, '2024-01-02 03:04:05+00', true, 10, '2024-01-02', '{"x": 1}'),
 (2, 'two', -0.0, -2.5, '1999-12-31 23:59:59+00', false, -9223372036854775807, '0001-01-01', '[1, "a", null]'),
 (NULL, NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL), (2147483647, '', 'Infinity', 999999999.999, 'infinity', true, 0, 'infinity', 'null');
INSERT INTO ft2 VALUES (1, 'a', '2024-01-01', '{1,2,NULL}'), (2, NULL, NULL, '{}'), (NULL, 'z', '2000-02-29 12:00', NULL);`

var fuzzTypes = []string{"int", "int2", "int4", "int8", "bigint", "smallint", "text", "varchar(3)", "char(2)", "numeric",
	"numeric(5,2)", "float4", "float8", "real", "double precision", "bool", "date", "time", "timestamp", "timestamptz",
	"interval", "bytea", "json", "jsonb", "uuid", "int[]", "text[]", "numeric[]", "oid", "regclass", "regtype", "name",
	"\"char\"", "bit(3)", "inet", "money", "xml", "point",
	// DuckDB's own, not PostgreSQL's: refused.
	"hugeint", "varint", "ubigint", "blob", "struct", "map"}

var fuzzOps = []string{"+", "-", "*", "/", "%", "^", "||", "=", "<>", "!=", "<", ">", "<=", ">=", "~", "!~", "~*", "!~*",
	"~~", "!~~", "&", "|", "#", "<<", ">>", "@>", "<@", "&&", "->", "->>", "#>", "#>>", "?", "?|", "?&", "@@", "<->",
	"//", "**", "^@", "!", "@", "|/", "||/", "==", "<=>", "@-@"}

var fuzzForbidden = []string{"read_text", "read_blob", "read_csv", "read_csv_auto", "read_parquet", "parquet_scan",
	"glob", "query", "query_table", "duckdb_settings", "duckdb_tables", "enable_logging", "write_log", "checkpoint",
	"sqlite_scan", "read_json", "list_value", "struct_pack", "getvariable", "__bsdb_div", "bsdb_interval",
	"__bsdb_s_current_setting", "__bsdb_f_version", "main.abs", "memory.main.abs"}

var fuzzCommonFuncs = []string{"abs", "length", "lower", "upper", "substr", "substring", "coalesce", "nullif", "greatest",
	"least", "round", "trunc", "floor", "ceil", "sqrt", "power", "mod", "concat", "concat_ws", "replace", "split_part",
	"lpad", "rpad", "repeat", "reverse", "md5", "to_char", "to_date", "to_timestamp", "date_trunc", "date_part",
	"extract", "age", "now", "current_date", "array_length", "array_agg", "string_agg", "count", "sum", "avg", "min",
	"max", "bool_and", "bool_or", "stddev", "variance", "row_number", "rank", "lag", "lead", "first_value",
	"generate_series", "unnest", "format", "chr", "ascii", "encode", "decode", "json_build_object", "jsonb_typeof",
	"to_json", "regexp_replace", "regexp_matches", "pg_typeof", "current_setting", "set_config", "version",
	"current_query", "width_bucket", "make_interval", "gen_random_uuid", "quote_ident", "quote_literal", "initcap",
	"num_nulls", "pg_sleep", "has_table_privilege", "pg_get_userbyid", "obj_description", "format_type"}

var builtinNames = func() []string {
	// A sample of pg_proc's names: every 7th name of a fixed list, so that
	// rarely used built-ins get called too.
	var out []string
	for _, n := range pgcatalogSample {
		if pgcatalog.IsBuiltinFunction(n) {
			out = append(out, n)
		}
	}
	return out
}()

var pgcatalogSample = []string{"int4pl", "textcat", "byteacat", "array_append", "array_cat", "array_position",
	"array_to_string", "string_to_array", "cardinality", "bit_length", "octet_length", "btrim", "ltrim", "rtrim",
	"strpos", "starts_with", "translate", "to_hex", "gcd", "lcm", "factorial", "log", "ln", "exp", "sign", "cbrt",
	"degrees", "radians", "sin", "atan2", "div", "numeric_inc", "int8inc", "float8_accum", "timezone", "justify_days",
	"isfinite", "make_date", "make_time", "make_timestamp", "date_bin", "overlaps", "jsonb_array_length",
	"jsonb_extract_path", "json_object", "row_to_json", "to_jsonb", "jsonb_set", "txid_current", "pg_backend_pid",
	"inet_client_addr", "pg_postmaster_start_time", "pg_read_file", "pg_ls_dir", "lo_import", "pg_terminate_backend",
	"pg_reload_conf", "setseed", "random", "uuid_in", "textin", "int4in", "boolout", "enum_range", "regexp_split_to_array",
	"get_byte", "set_byte", "convert_from", "convert_to", "sha256", "pg_size_pretty", "pg_column_size", "current_schemas"}

// statement generates one statement.
func (g *stmtGen) statement() string {
	g.b.Reset()
	g.depth = 0
	switch g.intn(16) {
	case 0, 1, 2, 3, 4, 5, 6:
		g.query()
	case 7:
		g.w("EXPLAIN ")
		if g.intn(2) == 0 {
			g.w("ANALYZE ")
		}
		g.query()
	case 8:
		g.w("INSERT INTO ft1 (a, b, c) ")
		if g.intn(2) == 0 {
			g.w("VALUES (")
			g.expr()
			g.w(", ")
			g.expr()
			g.w(", ")
			g.expr()
			g.w(")")
		} else {
			g.w("SELECT ")
			g.expr()
			g.w(", ")
			g.expr()
			g.w(", ")
			g.expr()
			g.from()
		}
		if g.intn(3) == 0 {
			g.w(" RETURNING ")
			g.expr()
		}
	case 9:
		g.w("COPY (")
		g.query()
		g.w(") TO STDOUT")
		if g.intn(2) == 0 {
			g.w(" WITH (FORMAT csv)")
		}
	case 10:
		g.w("PREPARE fz AS ")
		g.query()
		g.w("; EXECUTE fz; DEALLOCATE fz")
	case 11:
		g.w("SET ", g.pick("TimeZone", "DateStyle", "IntervalStyle", "extra_float_digits", "search_path",
			"statement_timeout", "bytea_output", "enable_external_access", "memory_limit"), " = ")
		g.w(g.pick("'UTC'", "'Europe/Paris'", "'ISO, DMY'", "'postgres_verbose'", "3", "-15", "public", "'2s'",
			"'escape'", "true", "'1GB'", "DEFAULT"))
	case 12:
		g.w("WITH ", g.pick("w", "recursive r(n)"), " AS (")
		g.query()
		g.w(") ")
		g.query()
	case 13:
		g.w("VALUES (")
		g.expr()
		g.w("), (")
		g.expr()
		g.w(")")
	case 14:
		g.w("BEGIN; ")
		g.query()
		g.w("; ", g.pick("COMMIT", "ROLLBACK", "SELECT 1/0; ROLLBACK"))
	case 15:
		g.w(g.pick("CREATE TABLE fz_t (x ", "CREATE TEMP TABLE fz_t (x ", "ALTER TABLE ft1 ADD COLUMN z ",
			"CREATE TABLE fz_t AS SELECT 1::"))
		g.w(fuzzTypes[g.intn(len(fuzzTypes))])
		if g.intn(2) == 0 {
			g.w(" DEFAULT ")
			g.expr()
		}
		g.w(")")
	}
	return g.b.String()
}

func (g *stmtGen) query() {
	g.depth++
	defer func() { g.depth-- }()
	g.w("SELECT ")
	if g.intn(6) == 0 {
		g.w("DISTINCT ")
	}
	n := 1 + g.intn(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.w(", ")
		}
		g.expr()
		if g.intn(4) == 0 {
			g.w(" AS x", fmt.Sprint(i))
		}
	}
	g.from()
	if g.intn(2) == 0 {
		g.w(" WHERE ")
		g.expr()
	}
	if g.intn(4) == 0 {
		g.w(" GROUP BY ")
		g.expr()
		if g.intn(2) == 0 {
			g.w(" HAVING ")
			g.expr()
		}
	}
	if g.intn(3) == 0 {
		g.w(" ORDER BY ")
		g.expr()
		g.w(g.pick("", " DESC", " NULLS FIRST", " USING <"))
	}
	if g.intn(3) == 0 {
		g.w(" LIMIT ", g.pick("0", "1", "3", "ALL", "-1", "NULL", "2147483648"))
	}
	if g.intn(8) == 0 {
		g.w(g.pick(" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "))
		g.w("SELECT ")
		for i := 0; i < n; i++ {
			if i > 0 {
				g.w(", ")
			}
			g.expr()
		}
	}
}

func (g *stmtGen) from() {
	switch g.intn(8) {
	case 0:
		return
	case 1, 2, 3:
		g.w(" FROM ft1")
		if g.intn(3) == 0 {
			g.w(g.pick(" JOIN ft2 ON a = k", " LEFT JOIN ft2 ON ", " CROSS JOIN ft2", " NATURAL JOIN ft2", " JOIN ft1 x USING (a)"))
			if strings.HasSuffix(g.b.String(), "ON ") {
				g.expr()
			}
		}
	case 4:
		g.w(" FROM ft2")
	case 5:
		g.w(" FROM generate_series(", g.pick("1", "-2", "0.5", "'2024-01-01'::date", "NULL"), ", ",
			g.pick("3", "10", "-5", "1.5", "'2024-01-03'::date"), g.pick("", ", 1", ", 0", ", -1", ", '1 day'"), ") gs")
	case 6:
		g.w(" FROM (")
		g.query()
		g.w(") sub")
	case 7:
		g.w(" FROM ")
		g.call(true)
		g.w(" fn")
	}
}

// expr writes an expression; deep ones are rare, and occasionally a long
// chain tests the nesting bounds.
func (g *stmtGen) expr() {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 6 {
		g.atom()
		return
	}
	switch g.intn(22) {
	case 0, 1, 2, 3, 4:
		g.atom()
	case 5, 6, 7:
		g.expr()
		g.w(" ", fuzzOps[g.intn(len(fuzzOps))], " ")
		g.expr()
	case 8:
		g.w(g.pick("-", "+", "~", "NOT ", "@", "|/", "!!"), " ")
		g.expr()
	case 9, 10:
		g.call(false)
	case 11:
		g.w("CAST(")
		g.expr()
		g.w(" AS ", fuzzTypes[g.intn(len(fuzzTypes))], ")")
	case 12:
		g.w("(")
		g.expr()
		g.w(")::", fuzzTypes[g.intn(len(fuzzTypes))])
	case 13:
		g.w("CASE WHEN ")
		g.expr()
		g.w(" THEN ")
		g.expr()
		if g.intn(2) == 0 {
			g.w(" ELSE ")
			g.expr()
		}
		g.w(" END")
	case 14:
		g.w("(")
		g.query()
		g.w(")")
	case 15:
		g.w(g.pick("EXISTS (", "1 IN (", "a = ANY (", "b NOT IN ("))
		g.query()
		g.w(")")
	case 16:
		g.expr()
		g.w(g.pick(" IS NULL", " IS NOT NULL", " IS TRUE", " IS DISTINCT FROM 1", " BETWEEN 1 AND 2", " LIKE 'o%'",
			" ILIKE '%E'", " SIMILAR TO '(a|b)%'", " IN (1, 2, NULL)", " COLLATE \"C\"", " AT TIME ZONE 'UTC'"))
	case 17:
		g.w("ARRAY[")
		g.expr()
		g.w(", ")
		g.expr()
		g.w("]")
		if g.intn(2) == 0 {
			g.w("[", g.pick("1", "0", "-1", "1:2", "NULL"), "]")
		}
	case 18:
		g.w(g.pick("count(*) OVER ()", "row_number() OVER (ORDER BY a)", "sum(a) OVER (PARTITION BY b ORDER BY c ROWS 1 PRECEDING)",
			"rank() OVER w", "lag(a, 2) OVER (ORDER BY e)"))
	case 19:
		g.w(g.pick("count(DISTINCT ", "sum(", "avg(", "string_agg(", "array_agg(", "max(", "json_agg("))
		g.expr()
		if strings.HasSuffix(g.b.String(), "string_agg(") {
			g.w(", ','")
		}
		g.w(")")
		if g.intn(3) == 0 {
			g.w(" FILTER (WHERE ")
			g.expr()
			g.w(")")
		}
	case 20:
		// A long chain: the nesting bounds, just below or above them.
		n := []int{10, 500, 999, 1001, 3000, 4100, 20000}[g.intn(7)]
		g.w("1", strings.Repeat(g.pick("+1", "::int", " || 'a'", " AND true"), n))
	case 21:
		g.w(strings.Repeat("(", 1+g.intn(40)))
		g.atom()
		g.w(strings.Repeat(")", 1+g.intn(40)))
	}
}

func (g *stmtGen) atom() {
	switch g.intn(14) {
	case 0, 1:
		cols := fuzzTables["ft1"]
		g.w(cols[g.intn(len(cols))])
	case 2:
		g.w(g.pick("0", "1", "-1", "2147483647", "-2147483648", "9223372036854775807", "-9223372036854775808",
			"32767", "1e308", "1e-320", "0.1", "123456789012345678901234567890.123", "'NaN'::float8", "'-Infinity'::numeric"))
	case 3:
		g.w(g.pick("'one'", "''", "'a''b'", "E'\\\\x41'", "E'\\n'", "'%'", "U&'\\0041'", "$$dollar$$", "'  true '",
			"'{1,2}'", "'{{1,2},{3,4}}'", "'[1,2]'", "'{\"k\": [1]}'", "'2024-02-30'", "'1 year 2 mons'", "'allballs'"))
	case 4:
		g.w(g.pick("NULL", "true", "false", "DEFAULT"))
	case 5:
		g.w(g.pick("now()", "current_date", "current_timestamp", "localtime", "current_user", "session_user",
			"current_schema", "current_catalog", "CURRENT_ROLE"))
	case 6:
		g.w(g.pick("'2024-01-01'::date", "'12:34:56.789'::time", "'2024-01-01 00:00:00+05'::timestamptz",
			"interval '1 day 2 hours'", "'\\xdeadbeef'::bytea", "'{\"a\":1}'::jsonb", "'00000000-0000-0000-0000-000000000000'::uuid",
			"'{a,b,NULL,\"Null\"}'::text[]", "B'101'", "X'1F'"))
	case 7:
		g.w(g.pick("$1", "ft1.a", "ft2.k", "x.a", "sub.x0", "gs", "fn", "*", "ft1.*", "excluded.a"))
	case 8:
		cols := fuzzTables["ft2"]
		g.w(cols[g.intn(len(cols))])
	case 9:
		g.w(g.pick("e - '1 day'::interval", "h + 1", "j -> 'x'", "j ->> 0", "arr[1]", "arr || 3", "b || 1",
			"d * 1000000000000000", "a / 0", "c::int", "g + g", "-a::int2", "(-32768)::int2 / (-1)::int2"))
	default:
		g.call(false)
	}
}

// call writes a function call: mostly PostgreSQL's functions, sometimes a
// DuckDB function PostgreSQL does not have (which must be refused).
func (g *stmtGen) call(from bool) {
	var name string
	switch k := g.intn(10); {
	case k < 6:
		name = fuzzCommonFuncs[g.intn(len(fuzzCommonFuncs))]
	case k < 8:
		name = builtinNames[g.intn(len(builtinNames))]
	default:
		name = fuzzForbidden[g.intn(len(fuzzForbidden))]
		g.forbidden = true
	}
	if g.intn(8) == 0 {
		switch q := g.pick("pg_catalog.", "\"", "public."); q {
		case "\"":
			name = q + name + q
		case "public.":
			name = q + name
			g.forbidden = true // no function of ours lives in public
		default:
			name = q + name
		}
	}
	g.w(name, "(")
	if from && (name == "generate_series" || name == "unnest") && g.intn(2) == 0 {
		g.w("1, 3)")
		return
	}
	n := g.intn(4)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.w(", ")
		}
		if g.intn(6) == 0 {
			g.w(g.pick("x", "path", "level"), " => ")
		}
		g.expr()
	}
	g.w(")")
}
