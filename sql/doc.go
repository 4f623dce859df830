// Package sql turns PostgreSQL statements into something the planner can
// execute: it parses with pg_query (the real PostgreSQL 17 grammar),
// classifies each statement, and translates queries into DuckDB SQL that
// gives PostgreSQL's results. PostgreSQL's behaviour is the specification;
// DuckDB (1.5.6, embedded) is only the engine.
//
// # What it owns
//
//   - Parse: split + parse a query string into Statements (Kind, Tag, Tree,
//     own Text). Syntax errors are 42601 with PostgreSQL's message and
//     1-based character Position (libpg_query's cursorpos).
//   - Translate*: one function per statement family. TranslateQuery (SELECT,
//     VALUES, set operations, also the query of COPY (q) TO and EXPLAIN),
//     TranslateInsert, TranslateCreateTable, TranslateCopy, and small specs
//     for DDL/utility statements (DropTable, Truncate, schemas, databases,
//     Set/Show/Reset, Explain, Prepare/Execute/Deallocate).
//   - Setup: statements run on every new DuckDB connection.
//   - MapError: DuckDB error -> *pgerr.Error with PostgreSQL's SQLSTATE and
//     message.
//   - DuckDBType / PGTypeOfDuckDB / ResolveTypeName: the type-name mapping
//     (one place; to be unified with pgtypes).
//
// It knows nothing of storage: tables are resolved through the Catalog
// interface, which the planner implements (optionally also SettingsSource,
// the session's pgtypes.Settings for literal input); each table comes with FromSQL,
// a DuckDB FROM item producing its rows.
//
// # Translation pipeline (TranslateQuery)
//
//  1. Clone the tree (the caller's tree is never modified; a prepared
//     statement is translated again on each execution if it wants).
//  2. Walk it scope by scope (translator.selectStmt): WITH first (CTE names
//     shadow tables, RECURSIVE ones are visible in their own body), then
//     FROM items, then the select list, WHERE, GROUP BY, HAVING, windows,
//     ORDER BY, LIMIT. Each FROM item registers its alias and column types,
//     so expressions get PostgreSQL types by a small inference
//     (expr.go/funcs.go): column types from the catalog, literal types as
//     the PostgreSQL grammar assigns them, promotion rules for arithmetic,
//     result types of common functions and aggregates. Unknown = 0.
//  3. Rewrite the tree in place (list below).
//  4. Cast every $n to its final type, pg_query.Deparse, and replace each
//     table placeholder with the table's FromSQL.
//
// Table references: a RangeVar that is not a CTE and not a system schema is
// looked up in the Catalog (42P01 with the reference's position if
// missing), renamed to a placeholder __bsdb_rel_<i>__ and given its alias
// (the table name when the user gave none), so `FROM t` becomes
// `FROM <FromSQL> t` and every qualified column reference still binds.
// pg_catalog.* / information_schema.* (and unqualified pg_* names, which
// PostgreSQL finds in pg_catalog first) are looked up in the Catalog too,
// with the schema "pg_catalog" / "information_schema"; the server serves
// them from package pgcatalog (syscat.go). An unqualified pg_* name that is
// no system relation is then looked up as an ordinary table. syscat.go also
// rewrites the idioms of catalog queries before translation (catalog
// functions -> pgcatalog's macros, reg* casts, OPERATOR(pg_catalog.~),
// COLLATE pg_catalog.default, = ANY(array), 0-based int2vector subscripts).
//
// Views: a RangeVar that the Catalog resolves as a view (ViewCatalog, asked
// before LookupTable) is replaced in place by the view's stored query as a
// subquery in FROM aliased with the view's name and column names; the query
// is translated in a scope of its own (the CTEs around the reference are
// invisible) between EnterView and LeaveView, so the catalog checks the
// relations it reads with the view owner's privileges (view.go).
// TranslateView makes the text to store for CREATE VIEW: the query with
// every relation it reads qualified by the schema it was found in.
//
// Parameters: $n keeps DuckDB's $n. Its type is the declared one if the
// client declared it; else inferred from context: the other operand of a
// comparison or arithmetic, the IN list's left side (or the list, for
// $n IN (...)), an explicit cast, the target column of INSERT ... VALUES,
// LIMIT/OFFSET (int8), a CASE/COALESCE sibling, text for $n = 'literal' and
// $n || anything but an array; else text (PostgreSQL resolves unknown to
// text). As in PostgreSQL the first such context decides (SELECT $1::int,
// $1::text is integer); a bare $n of a select list that was still untyped
// becomes text at the end of its SELECT and conflicts with a later
// deduction: 42P08 "inconsistent types deduced for parameter $1"
// (params.go). The final type is written into the SQL as CAST($n AS <duck
// type>) so DuckDB binds the value as PostgreSQL would have.
//
// Result columns: every select-list item without an alias gets
// PostgreSQL's FigureColname name as an explicit alias (DuckDB would say
// "count_star()" or "1" where PostgreSQL says "count" and "?column?"),
// except bare column references (same name in both; an alias there would
// change DuckDB's "column not found" error). Query.Columns carries the
// inferred PostgreSQL types; TypeOID 0 = ask DuckDB (PGTypeOfDuckDB).
//
// # Literal folding (literal.go)
//
// A string literal cast to a type ('03/04/2024'::date, DATE '...',
// interval '1 year 2 mons', '\x0102'::bytea, 'NaN'::numeric, '1.5'::int,
// 'maybe'::boolean, '{..}'::jsonb), a number cast to numeric (1e3::numeric),
// and a constant in INSERT ... VALUES assigned to a typed column are
// evaluated at translation time by pgtypes.ParseText (PostgreSQL's input
// function and typmod) and replaced by a DuckDB literal in canonical form:
// '2024-03-04'::date, an ISO timestamp with +00, 'M months D days U
// microseconds'::interval, unhex('0102'), '1.005'::decimal(4,3) (the
// smallest precision holding the value, so that DuckDB's VALUES type
// unification never cuts digits), 'NaN'::double for numeric NaN/±Infinity
// (DuckDB's DECIMAL has none; the column stays numeric and pgtypes encodes
// the float as numeric). Input errors are PostgreSQL's (22P02, 22007,
// 22008, 22003, 22023, json's DETAIL/CONTEXT) with the literal's position;
// typmod errors (22001 value too long, numeric field overflow) carry no
// position, as in PostgreSQL. Text types are not folded (identity input),
// except VALUES items for varchar(n)/char(n), which get PostgreSQL's length
// check and silent cut of trailing blanks (char values are passed without
// padding; storage pads). Input depends on the session (DateStyle's field
// order, TimeZone, IntervalStyle): a Catalog that also implements
// SettingsSource supplies them (the server's binder does); otherwise
// pgtypes.DefaultSettings().
//
// # Rewrites, and why (each has a differential test in diff_test.go or
// literal_test.go)
//
//   - a / b -> __bsdb_div(a, b), a % b -> __bsdb_mod(a, b) (macros, Setup):
//     DuckDB returns NULL on division by zero; PostgreSQL raises 22012 for
//     integer, numeric and float. With integer_division (Setup) DuckDB's
//     integer / truncates toward zero like PostgreSQL, and % takes the
//     dividend's sign in both.
//   - numeric / numeric -> CAST(... AS DECIMAL(38,16)) inside
//     expressions (DuckDB divides DECIMALs in DOUBLE); as a top-level
//     select-list item of the outermost query (and avg(integer|numeric) =
//     sum / count) -> __bsdb_numdiv(x, y, fallback): the exact quotient
//     with PostgreSQL's value-dependent scale (select_div_scale), as numeric
//     text (numdiv.go explains when it applies).
//   - Integer literals are pinned: 1 -> 1::integer, 3000000000 -> ::bigint
//     (PostgreSQL's literal typing). DuckDB types literals as flexible
//     INTEGER_LITERALs that adapt to the other operand (smallint + 1 stays
//     smallint and overflows at 32767; PostgreSQL computes int4). Positional
//     ORDER BY / GROUP BY / DISTINCT ON numbers are not touched.
//   - sum(int2|int4) -> CAST(sum(x) AS BIGINT) (DuckDB: HUGEINT; PostgreSQL
//     bigint). sum(int8) stays HUGEINT, reported as numeric like
//     PostgreSQL's. avg(integer|numeric) -> CAST(avg(x) AS DECIMAL(38,16))
//     (DuckDB: DOUBLE; PostgreSQL: numeric), or the exact sum / count form
//     of division when top-level.
//   - date_trunc(text, date) -> date_trunc(text, date::timestamptz):
//     PostgreSQL has no date variant and returns timestamptz.
//   - A scalar set-returning function in FROM (generate_series, unnest of
//     one array) gets PostgreSQL's column names as an explicit column alias
//     list: generate_series(1, 3) g -> ... AS g(g) (the alias, else the
//     function name; WITH ORDINALITY adds "ordinality"); DuckDB would make
//     a bare g a STRUCT of the row. A whole-row reference to such a relation
//     whose column is named otherwise (x in ... AS x(g)) becomes x.g.
//     generate_series gets PostgreSQL's result type: over int4 a subselect
//     casts DuckDB's BIGINT column to integer (so g * 7919 overflows as in
//     PostgreSQL); over numeric the table macro
//     __bsdb_generate_series_numeric; date arguments become timestamptz
//     and an untyped step interval (srf.go).
//   - A set-returning function in the select list (also ORDER BY,
//     DISTINCT ON, a single-row INSERT ... VALUES): generate_series(...) ->
//     unnest(<DuckDB list of the series>), cast to PostgreSQL's result type
//     where DuckDB's differs, which DuckDB expands like PostgreSQL 10+ (a
//     row per value, several in lockstep padded with NULLs); a zero step
//     is 22023 (macro __bsdb_generate_series, which also keeps DuckDB from
//     folding a constant series into one huge LIST value), numeric uses the
//     list macro __bsdb_generate_series_numeric_list. Where PostgreSQL refuses a
//     set-returning function (WHERE, HAVING, LIMIT, JOIN ... ON, VALUES,
//     RETURNING, CASE, COALESCE, aggregate and window arguments, operands of
//     AND/OR/NOT) its error is raised at translation (srf.go).
//   - x || y where one side is a non-string type: that side is cast to text
//     (PostgreSQL's anynonarray || text); with an untyped side (NULL) the
//     result is cast to text (DuckDB would type it after the NULL).
//   - length/char_length/octet_length/position/strpos -> CAST(... AS
//     INTEGER) (DuckDB: BIGINT). date - date -> CAST(... AS INTEGER).
//   - extract(f FROM x) -> CAST(... AS DECIMAL(38,s)) with PostgreSQL's
//     scale (6 for second/epoch, 3 for milliseconds, else 0), date_part ->
//     CAST(... AS DOUBLE); the "second" field is computed from microseconds
//     / 1e6 because DuckDB's second field drops the fraction.
//   - float arithmetic (+ - *) -> __bsdb_fchk(x op y, x, y): DuckDB gives
//     ±Infinity on overflow, PostgreSQL raises 22003 "value out of range:
//     overflow" unless an operand was infinite. float4 op integer/numeric
//     computes in float8 (PostgreSQL resolves to float8 op float8): the
//     float4 side is cast to DOUBLE.
//   - Operators PostgreSQL lacks: a string type (text/varchar/char) with a
//     number in arithmetic or comparison is 42883 "operator does not exist:
//     text = integer" at the operator (DuckDB would cast implicitly).
//   - Column names are case-sensitive: a reference that matches a column
//     only case-insensitively ("MixedCase"."Id" vs id) is 42703 with
//     PostgreSQL's hint, when every relation in scope has known columns
//     (DuckDB binds case-insensitively). Output-column names referenced by
//     ORDER BY are accepted.
//   - octet_length(text) -> strlen (bytes; DuckDB's octet_length takes
//     only BLOB); octet_length(char(n)) counts the padding (rpad to n);
//     length(char(n)) ignores trailing blanks; length(bytea) ->
//     octet_length. char(n) -> text casts and char(n) || text drop the
//     padding (rtrim), as PostgreSQL's bpchar-to-text conversion.
//   - json/jsonb -> and #> keep the operand's type (jsonb output is
//     normalized by pgtypes); ->> and #>> are text.
//   - round(float8) -> round_even(x, 0): PostgreSQL rounds floats half to
//     even (rint), DuckDB half away from zero. round(numeric[, n]) is half
//     away from zero in both.
//   - VALUES ... -> SELECT * FROM (VALUES ...) AS "*VALUES*"(column1, ...):
//     PostgreSQL's column names (DuckDB: col0, col1).
//   - Casts: type names are resolved to PostgreSQL OIDs and re-spelled as
//     DuckDB types (jsonb -> json, bytea -> blob, numeric without typmod ->
//     DECIMAL(38,10): gap, PostgreSQL's numeric is unbounded).
//   - pg_catalog.f(...) -> f(...) unless the call uses SQL syntax (EXTRACT,
//     SUBSTRING ... FROM ... FOR, POSITION ... IN, TRIM), which Deparse
//     prints in SQL form and DuckDB parses.
//   - numeric without a precision: tables expose it as its stored text;
//     references are cast to DECIMAL(38,10) where computed with, and
//     outputs print with PostgreSQL's display scale (rawnum.go).
//   - JSON constructors (to_json[b], json[b]_build_object/array,
//     json[b]_agg, json[b]_object_agg, row_to_json of a whole row) -> text
//     built with PostgreSQL's layout and value formats (json.go).
//   - chr(n) -> __bsdb_chr, convert_from(b, 'UTF8') -> __bsdb_convert_from
//     (planner's Go functions): DuckDB's chr(0) and decode make a NUL or
//     refuse in their own words; these give PostgreSQL's 54000 / 22021.
//   - PostgreSQL functions DuckDB lacks or runs differently (pgfuncs.go)
//     -> Go functions of pgtypes registered by the planner
//     (planner/udf_pgfuncs.go): to_char of numbers, to_number, the regexp
//     family (regexp_matches / regexp_split_to_table as unnest of the list
//     of their rows), scale/min_scale/trim_scale/div, unistr, overlay,
//     bytea's substr/get_byte/set_byte, float4send/float8send; numeric
//     arguments travel as their text (the value's own digits and scale) and
//     a numeric result as text too (printed as is at the top level, its
//     DECIMAL elsewhere: rawnum.go's raw casts). The operators ~ ~* !~ !~*
//     and SIMILAR TO become regexp_like (syscat.go), booleq(a, b) and the
//     like their operators.
//   - ARRAY[...] nested deeper than 6 (MAXDIM) -> 54000 at translation,
//     before a deep nest reaches the deparser. A scanner error for an
//     escape that made invalid UTF-8 (E'\xff', E'\000') is 22021 without a
//     position, as PostgreSQL reports it (parseError).
//
// Session setup (Setup): integer_division = true; default_null_order =
// nulls_last_on_asc_first_on_desc (PostgreSQL sorts NULL as the largest
// value: last ascending, first descending); the division macros; the float
// overflow check __bsdb_fchk; the exact numeric division __bsdb_numdiv and
// its helpers (numdiv.go); the INSERT check macros __bsdb_check_len / __bsdb_check_not_null;
// the table macro __bsdb_generate_series_numeric and the list macros
// __bsdb_generate_series / __bsdb_generate_series_numeric_list with their
// helper __bsdb_unfolded (srf.go). Macros are
// TEMP (connection-local) so no two connections contend on the catalog.
//
// Semantics that need no rewrite (verified by the differential test):
// LIKE/ILIKE, CASE, IN lists and subqueries, EXISTS, scalar subqueries,
// CTEs including RECURSIVE, window functions, UNION/INTERSECT/EXCEPT,
// LIMIT/OFFSET, FETCH FIRST n ROWS ONLY, DISTINCT ON, coalesce, nullif,
// greatest/least, string_agg, array_agg, upper/lower/substring/trim,
// round(numeric, int), count(*) (bigint), interval arithmetic, now(),
// current_date, random(), string comparison (C order),
// overflow errors of int2/int4/int8 arithmetic (DuckDB raises; MapError
// gives 22003 "integer out of range" etc.), boolean results.
//
// # INSERT (TranslateInsert)
//
// The user's source (VALUES or SELECT, DEFAULT items replaced by the
// column default parsed as an expression) is translated like a query with
// parameters typed from the target columns, then wrapped:
//
//	SELECT __bsdb_check_not_null(CAST(__bsdb_src.c1 AS INTEGER), '...') AS "a",
//	       CAST((SELECT <default>) AS VARCHAR) AS "b", ...
//	FROM (<source>) AS __bsdb_src(c1, ...)
//
// so the planner gets every table column in table order, already of the
// column's DuckDB type, with varchar(n)/char(n) length (22001) and NOT NULL
// (23502) checked with PostgreSQL's messages. RETURNING becomes a SELECT
// over the relation __bsdb_returning (ReturningRelation) aliased as the
// table, which the planner binds to the inserted rows.
//
// # Known gaps
//
//   - String ordering is DuckDB's byte order, i.e. PostgreSQL's "C"
//     collation (COLLATE "C" gives identical results; a database created
//     with a linguistic locale would sort differently).
//   - numeric: 38 digits at most; unconstrained numeric columns are
//     computed as DECIMAL(38,10), so a value with more than 28 integer
//     digits cannot be computed with (its stored text is printed as is);
//     the display scale PostgreSQL gives each value is reproduced where
//     rawnum.go can track it (a column, + - *, sum/min/max, coalesce/CASE,
//     casts to text, at the outermost level, in FROM subqueries and
//     CTEs), elsewhere values print with scale 10. A division nested in
//     an expression (or referenced by ORDER BY/GROUP BY) goes through
//     DOUBLE with a fixed scale 16, where PostgreSQL's result scale
//     depends on the values — only top-level results get the exact form
//     (numdiv.go).
//   - Literal folding covers casts of constants only; a column cast
//     (t::date) is still DuckDB's parser (DateStyle-independent ISO input).
//   - Float overflow of / (1e308 / 1e-10) is not checked (only + - *).
//   - Error messages: 42803 names the column unqualified ("i" where
//     PostgreSQL says "nums.i"); 42883 for an unknown function cannot always
//     name the argument types.
//   - Volatile expressions used as divisors are evaluated twice by the
//     division macro (random() / random() differs from PostgreSQL); so are
//     the step of a select-list generate_series and the bounds of a numeric
//     one.
//   - UPDATE, DELETE, ON CONFLICT, SELECT ... FOR UPDATE, SELECT INTO are
//     classified but not translated.
//   - Set-returning functions in GROUP BY, in a window's PARTITION BY /
//     ORDER BY, or nested in another's arguments are 0A000 (PostgreSQL
//     runs them); unnest of a multi-dimensional array expands one level.
//
// # Error positions
//
// Parse's syntax errors carry PostgreSQL's position (1-based characters in
// the whole query string). Parse re-parses each statement of a
// multi-statement string on its own, so the tree's locations are relative
// to Statement.Text; errors from Translate* and MapError(err, st.Text)
// carry 1 + a byte offset in Text, and Statement.Locate converts them to
// PostgreSQL's character position in the whole query.
//
// # Debugging
//
// Every Query carries the DuckDB SQL: log it next to the user's text. The
// differential test prints both, plus the PostgreSQL and DuckDB results.
// Run it with a reference server: BSDB_PG_URL=postgres://... or let
// internal/pgref start one (go test -tags duckdb_arrow ./sql/).
package sql
