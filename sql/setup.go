package sql

import "strings"

// Setup returns the statements that prepare a DuckDB connection for
// translated queries, in order. Each one is explained in doc.go ("Session
// setup"). Macros are TEMP here, so that creating them on a connection
// never conflicts with another connection's transaction; the server
// creates them once per database instead (SharedMacros) and runs only
// SessionSettings per connection.
func Setup() []string {
	return append([]string{
		// PostgreSQL: int / int is integer division truncating toward zero.
		"SET integer_division = true",
		// PostgreSQL: NULLs sort as larger than any value.
		"SET default_null_order = 'nulls_last_on_asc_first_on_desc'",
		// DuckDB returns NULL for x/0 and x%0; PostgreSQL raises 22012.
		// MapError turns the error() text into SQLSTATE 22012.
		// bytea -> text in bytea_output = hex (DuckDB's hex() is upper case).
		"CREATE OR REPLACE TEMP MACRO __bsdb_bytea_text(b) AS '\\x' || lower(hex(b))",
		// PostgreSQL functions DuckDB lacks (funcs.go renames the calls).
		"CREATE OR REPLACE TEMP MACRO __bsdb_width_bucket(op, b1, b2, n) AS CASE " +
			"WHEN n <= 0 THEN error('count must be greater than zero') " +
			"WHEN b1 = b2 THEN error('lower bound cannot equal upper bound') " +
			"WHEN b1 < b2 THEN CASE WHEN op < b1 THEN 0 WHEN op >= b2 THEN n + 1 " +
			"ELSE CAST(floor(CAST(op - b1 AS DOUBLE) * n / CAST(b2 - b1 AS DOUBLE)) AS INTEGER) + 1 END " +
			"ELSE CASE WHEN op > b1 THEN 0 WHEN op <= b2 THEN n + 1 " +
			"ELSE CAST(floor(CAST(b1 - op AS DOUBLE) * n / CAST(b1 - b2 AS DOUBLE)) AS INTEGER) + 1 END END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_json_typeof(j) AS CASE json_type(CAST(j AS JSON)) " +
			"WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' WHEN 'VARCHAR' THEN 'string' " +
			"WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' ELSE 'number' END",
		// jsonb ?, ?| and ?& (expr.go) test the strings a jsonb value offers:
		// the keys of an object, the string elements of an array, or the
		// string itself.
		"CREATE OR REPLACE TEMP MACRO __bsdb_jsonb_strings(j) AS CASE WHEN j IS NULL THEN NULL ELSE CASE json_type(CAST(j AS JSON)) " +
			"WHEN 'OBJECT' THEN json_keys(CAST(j AS JSON)) " +
			"WHEN 'ARRAY' THEN list_transform(list_filter(CAST(json_extract(CAST(j AS JSON), '$[*]') AS JSON[]), " +
			"lambda e: json_type(e) = 'VARCHAR'), lambda e: json_extract_string(e, '$')) " +
			"WHEN 'VARCHAR' THEN [json_extract_string(CAST(j AS JSON), '$')] ELSE CAST([] AS VARCHAR[]) END END",
		// text -> boolean as PostgreSQL's boolin reads it (expr.go): blanks
		// around the value, any case, a prefix of true/false/yes/no, on,
		// of(f), 1, 0; anything else is 22P02 (MapError reads the SQLSTATE).
		"CREATE OR REPLACE TEMP MACRO __bsdb_text_bool(x) AS CASE WHEN x IS NULL THEN NULL " +
			"WHEN list_contains(['t','tr','tru','true','y','ye','yes','on','1'], lower(trim(x, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)))) THEN true " +
			"WHEN list_contains(['f','fa','fal','fals','false','n','no','of','off','0'], lower(trim(x, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)))) THEN false " +
			"ELSE error('SQLSTATE 22P02: invalid input syntax for type boolean: \"' || x || '\"') END",
		// Integer shifts (expr.go) as PostgreSQL's int2/4/8shl and shr do
		// in C: the count taken modulo the width (cm: 31 or 63), a left
		// shift wrapping in two's complement at bits (DuckDB refuses a
		// negative operand and an overflow).
		"CREATE OR REPLACE TEMP MACRO __bsdb_wrap(r, bits) AS CASE WHEN r >= (CAST(1 AS HUGEINT) << (bits - 1)) THEN r - (CAST(1 AS HUGEINT) << bits) ELSE r END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_shl(a, b, bits, cm) AS __bsdb_wrap(((CAST(a AS HUGEINT) & ((CAST(1 AS HUGEINT) << bits) - 1)) " +
			"<< CAST(b & cm AS INTEGER)) & ((CAST(1 AS HUGEINT) << bits) - 1), bits)",
		"CREATE OR REPLACE TEMP MACRO __bsdb_shr(a, b, cm) AS a >> CAST(b & cm AS INTEGER)",
		// r within an integer type whose smallest value is lo (funcs.go).
		"CREATE OR REPLACE TEMP MACRO __bsdb_irange(r, lo, m) AS CASE WHEN r < lo OR r > -(CAST(lo AS HUGEINT) + 1) THEN error(m) ELSE r END",
		// array_remove(a, e): a without the elements not distinct from e.
		"CREATE OR REPLACE TEMP MACRO __bsdb_array_remove(a, e) AS CASE WHEN a IS NULL THEN NULL ELSE list_filter(a, __x -> __x IS DISTINCT FROM e) END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_div(a, b) AS CASE WHEN b = 0 THEN error('division by zero') ELSE a / b END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_mod(a, b) AS CASE WHEN b = 0 THEN error('division by zero') ELSE a % b END",
		// Integer division and modulo (expr.go): the type's smallest value
		// divided by -1 overflows with the type's message m; modulo -1 is
		// 0 (DuckDB raises "Overflow in division" for both).
		"CREATE OR REPLACE TEMP MACRO __bsdb_idiv(a, b, lo, m) AS CASE WHEN b = 0 THEN error('division by zero') WHEN b = -1 AND a = lo THEN error(m) ELSE a / b END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_imod(a, b) AS CASE WHEN b = 0 THEN error('division by zero') WHEN b = -1 THEN a - a ELSE a % b END",
		// float arithmetic: DuckDB gives ±Infinity on overflow; PostgreSQL
		// raises 22003 unless an operand was already infinite.
		"CREATE OR REPLACE TEMP MACRO __bsdb_fchk(r, a, b) AS CASE WHEN isinf(r) AND NOT isinf(CAST(a AS DOUBLE)) AND NOT isinf(CAST(b AS DOUBLE)) THEN error('value out of range: overflow') ELSE r END",
		// INSERT checks (TranslateInsert): varchar(n)/char(n) length and NOT NULL.
		"CREATE OR REPLACE TEMP MACRO __bsdb_check_len(v, n, msg) AS CASE WHEN length(v) > n THEN error(msg) ELSE v END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_check_not_null(v, msg) AS CASE WHEN v IS NULL THEN error(msg) ELSE v END",
		// ... with PostgreSQL's DETAIL (MapError's SQLSTATE form).
		"CREATE OR REPLACE TEMP MACRO __bsdb_check_not_null_row(v, msg, rowtext) AS CASE WHEN v IS NULL THEN error('SQLSTATE 23502: ' || msg || chr(31) || 'Failing row contains ' || rowtext || '.' || chr(31)) ELSE v END",
		// generate_series(numeric, numeric, numeric) (srf.go): DuckDB has
		// only integer and timestamp series. The arguments are evaluated
		// once (p); the count comes from a DOUBLE estimate that may be one
		// off either way, so two more steps are generated and the WHERE
		// keeps exactly those within the bound. Its second column is the
		// ordinality (a table macro takes no WITH ORDINALITY).
		"CREATE OR REPLACE TEMP MACRO __bsdb_generate_series_numeric(a, b, c) AS TABLE " +
			"SELECT p.s + r.i * p.st AS generate_series, r.i + 1 AS ordinality " +
			"FROM (SELECT a AS s, b AS e, c AS st) p, " +
			"range(0, CASE WHEN p.st = 0 THEN error('step size cannot equal zero') " +
			"ELSE CAST(floor(CAST(p.e - p.s AS DOUBLE) / CAST(p.st AS DOUBLE)) AS BIGINT) + 2 END) r(i) " +
			"WHERE CASE WHEN p.st > 0 THEN p.s + r.i * p.st <= p.e ELSE p.s + r.i * p.st >= p.e END",
		// generate_series in a select list (srf.go) is the unnest of a
		// list: DuckDB's list function, with PostgreSQL's error for a zero
		// step z (DuckDB returns an empty list), and a numeric variant with
		// the values of the table macro above. __bsdb_unfolded(x) is x,
		// through a volatile function without side effects, so that DuckDB
		// does not fold a constant series into one LIST value when
		// planning (about 1 us and 120 bytes per element: 5M elements took
		// 4 s and 600 MB instead of 0.2 s).
		"CREATE OR REPLACE TEMP MACRO __bsdb_unfolded(x) AS CASE WHEN current_query() IS NULL THEN x ELSE x END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_generate_series(a, b, c, z) AS " +
			"CASE WHEN c = z THEN error('step size cannot equal zero') ELSE generate_series(a, __bsdb_unfolded(b), c) END",
		"CREATE OR REPLACE TEMP MACRO __bsdb_generate_series_numeric_list(a, b, c) AS " +
			"CASE WHEN c = 0 THEN error('step size cannot equal zero') " +
			"ELSE list_filter(list_transform(range(0, __bsdb_unfolded(CAST(floor(CAST(b - a AS DOUBLE) / CAST(c AS DOUBLE)) AS BIGINT) + 2)), " +
			"lambda i: a + i * c), lambda v: CASE WHEN c > 0 THEN v <= b ELSE v >= b END) END",
	}, append(numdivMacros, rawMacros...)...) // numeric division with PostgreSQL's scale (numdiv.go), numeric text (rawnum.go)
}

// SessionSettings returns the part of Setup that is per connection (its
// SET statements).
func SessionSettings() []string {
	var out []string
	for _, q := range Setup() {
		if strings.HasPrefix(q, "SET ") {
			out = append(out, q)
		}
	}
	return out
}

// SharedMacros returns the macros of Setup as global (not TEMP) macros, for
// a server to create once per DuckDB database: creating them on every new
// connection was most of the cost of a client's connection.
func SharedMacros() []string {
	var out []string
	for _, q := range Setup() {
		if strings.HasPrefix(q, "CREATE OR REPLACE TEMP MACRO ") {
			out = append(out, "CREATE OR REPLACE MACRO "+strings.TrimPrefix(q, "CREATE OR REPLACE TEMP MACRO "))
		} else if !strings.HasPrefix(q, "SET ") {
			panic("sql: Setup statement neither SET nor TEMP MACRO: " + q)
		}
	}
	return out
}
