package sql

import (
	"fmt"
	"testing"

	"github.com/bsdb/bsdb-pg/pgtypes"
)

// settingsCatalog is a testCatalog that also gives the session settings
// (SettingsSource), as the server's binder does.
type settingsCatalog struct {
	testCatalog
	s *pgtypes.Settings
}

func (c settingsCatalog) TypeSettings() *pgtypes.Settings { return c.s }

// exactCase is a differential case whose error must match PostgreSQL's
// exactly: SQLSTATE, message, position and DETAIL.
type exactCase struct {
	name      string
	q         string
	dateStyle string // SET DateStyle on both sides first ("" = ISO, MDY)
	// text compares values as text (the harness otherwise compares numbers
	// by value): numeric display scale is what users see.
	text bool
}

// exactCases cover the mechanisms of literal.go (literal folding through
// pgtypes.ParseText), operand checks and column-name case (expr.go), the
// length-function and bpchar rewrites (funcs.go, expr.go), float4
// promotion and float overflow (expr.go, Setup).
var exactCases = []exactCase{
	// Input functions decide literal casts, with the session's DateStyle.
	{name: "date_mdy", q: "SELECT '03/04/2024'::date AS d"},
	{name: "date_dmy", q: "SELECT '03/04/2024'::date AS d", dateStyle: "ISO, DMY"},
	{name: "date_keyword_dmy", q: "SELECT DATE '03/04/2024' = DATE '2024-04-03' AS apr3", dateStyle: "SQL, DMY"},
	{name: "date_range", q: "SELECT 1, '2024-02-30'::date"},
	{name: "date_month_range", q: "SELECT '2024-13-01'::date"},
	{name: "time_range", q: "SELECT '25:00:00'::time"},
	{name: "timestamp_bad", q: "SELECT 'yesterday-ish'::timestamp"},
	{name: "timestamptz_literal", q: "SELECT '2024-01-02 03:04:05+02'::timestamptz AS t"},
	{name: "interval_literal", q: "SELECT interval '1 year 2 months 3 days 04:05:06.789' AS a, interval '-1 year -2 mons +3 days' AS b, interval '0.5 days' AS c, '36 hours'::interval AS d"},
	{name: "interval_bad", q: "SELECT 'fortnight'::interval"},
	{name: "int_fraction", q: "SELECT '1.5'::integer"},
	{name: "int_empty", q: "SELECT ''::integer"},
	{name: "int_overflow", q: "SELECT '99999999999'::integer"},
	{name: "int_ok", q: "SELECT ' 42 '::integer AS a, '-7'::smallint AS b, '9000000000'::bigint AS c"},
	{name: "bool_words", q: "SELECT 'yes'::boolean AS a, 'off'::boolean AS b, 'maybe'::boolean AS c"},
	{name: "bytea_hex", q: "SELECT '\\x0102ff'::bytea AS b, length('\\x0102'::bytea) AS n, octet_length('abc'::bytea) AS o"},
	{name: "bytea_bad", q: "SELECT '\\xZZ'::bytea"},
	{name: "uuid_bad", q: "SELECT 'not-a-uuid'::uuid"},
	{name: "uuid_ok", q: "SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid::text AS u"},
	{name: "jsonb_bad", q: "SELECT '{\"a\":'::jsonb"},
	{name: "json_bad_token", q: "SELECT '{bad'::json"},
	{name: "numeric_literal_scale", q: "SELECT 1e3::numeric AS a, '1.50'::numeric AS b, 123.456::numeric(5,1) AS c", text: true},
	{name: "numeric_typmod_overflow", q: "SELECT '12345.678'::numeric(5,2)"},
	{name: "numeric_cast_detail", q: "SELECT (99999999::numeric(8,0) + 1)::numeric(8,0)"},
	{name: "float_special", q: "SELECT 'NaN'::float8 AS a, 'Infinity'::float8 AS b, '-inf'::float4 AS c"},
	// Numeric division and avg: PostgreSQL's value-dependent scale.
	{name: "numdiv_scale", q: "SELECT n / 3 AS third, 1::numeric / 3 AS a, 2::numeric / 3 AS b, 10::numeric / 4 AS c, -0.0001 / 3 AS d, 12345678.9999 / 3 AS e FROM nums ORDER BY id", text: true},
	{name: "numdiv_avg", q: "SELECT avg(n) AS an, avg(i) AS ai, avg(b) AS ab FROM nums", text: true},
	{name: "numdiv_zero", q: "SELECT n / 0 FROM nums WHERE id = 1"},
	{name: "numdiv_nested", q: "SELECT (n / 3) * 3 AS x FROM nums WHERE id = 1"},
	{name: "numdiv_order_alias", q: "SELECT id, n / 7 AS q FROM nums WHERE n IS NOT NULL ORDER BY q"},
	// Operators PostgreSQL does not have (DuckDB would cast implicitly).
	{name: "text_plus_int", q: "SELECT 'a'::text + 1"},
	{name: "text_eq_int_col", q: "SELECT id FROM nums WHERE t = 1"},
	{name: "varchar_lt_int_col", q: "SELECT id FROM nums WHERE g < 5"},
	// float4 with an integer computes in float8; float overflow raises.
	{name: "float4_promotion", q: "SELECT 2/3::float4 AS a, 1 + 0.5::float4 AS b"},
	{name: "float_overflow", q: "SELECT 1e308::float8 * 10"},
	{name: "float_inf_operand", q: "SELECT 'Infinity'::float8 * 2 AS x"},
	// Identifiers are case-sensitive once folded.
	{name: "column_case", q: "SELECT ID FROM nums"},
	{name: "column_case_qualified", q: "SELECT nums.\"Id\" FROM nums"},
	{name: "column_case_output_alias", q: "SELECT i AS \"I\" FROM nums ORDER BY \"I\" LIMIT 2"},
	// Length functions per type; char(n) semantics.
	{name: "octet_length_text", q: "SELECT octet_length(t) AS o, octet_length('é'::text) AS e FROM nums WHERE id = 1"},
	{name: "bpchar_funcs", q: "SELECT octet_length('ab'::char(4)) AS o, length('ab  '::char(4)) AS l, 'ab  '::char(4) || '|' AS c, ('ab  '::char(4))::text || '|' AS t"},
}

func TestLiteralDifferential(t *testing.T) {
	pg := newPG(t)
	duck := newDuck(t)
	for _, c := range exactCases {
		t.Run(c.name, func(t *testing.T) {
			style := c.dateStyle
			if style == "" {
				style = "ISO, MDY"
			}
			runPG(t, pg, "SET DateStyle = '"+style+"'")
			defer runPG(t, pg, "SET DateStyle = 'ISO, MDY'")
			s := pgtypes.DefaultSettings()
			if err := s.SetDateStyle(style); err != nil {
				t.Fatal(err)
			}
			p := runPG(t, pg, c.q)
			d := runDuckCat(t, duck, settingsCatalog{testCatalog: duck.cat, s: s}, c.q)
			msg := compare(p, d, false)
			if msg == "" && p.code != "" && (p.epos != d.epos || p.detail != d.detail) {
				msg = fmt.Sprintf("error position/detail: pg %d %q / duck %d %q", p.epos, p.detail, d.epos, d.detail)
			}
			if msg == "" && c.text && fmt.Sprint(p.rows) != fmt.Sprint(d.rows) {
				msg = fmt.Sprintf("values as text: pg %v / duck %v", p.rows, d.rows)
			}
			if msg != "" {
				sqlText := ""
				if d.query != nil {
					sqlText = d.query.SQL
				}
				t.Errorf("%s\n  query: %s\n  duckdb sql: %s\n  pg:   %v\n  duck: %v", msg, c.q, sqlText, p, d)
			}
		})
	}
}

var litTable = &TableInfo{Name: "lit", FromSQL: "duck_lit", Columns: []ColumnInfo{
	{Name: "id", TypeOID: OIDInt4, TypeMod: -1},
	{Name: "b", TypeOID: OIDBytea, TypeMod: -1},
	{Name: "ok", TypeOID: OIDBool, TypeMod: -1},
	{Name: "c", TypeOID: OIDBpchar, TypeMod: 4 + 4},
	{Name: "u", TypeOID: OIDNumeric, TypeMod: -1},
	{Name: "j", TypeOID: OIDJSONB, TypeMod: -1},
}}

const litPGDDL = "CREATE TABLE lit (id integer, b bytea, ok boolean, c char(4), u numeric, j jsonb)"

// TestInsertLiteralDifferential: VALUES literals are converted by the
// target column's input function (PostgreSQL's assignment of an unknown
// literal), with PostgreSQL's errors and positions.
func TestInsertLiteralDifferential(t *testing.T) {
	pg := newPG(t)
	duck := newDuck(t)
	cat := testCatalog{"lit": litTable}
	cases := []string{
		`INSERT INTO lit VALUES (1, '\x0102', 'yes', 'ab   ', 1.005, '{"a": 1}')`,
		`INSERT INTO lit (id, u) VALUES (1, 1.005), (2, 0.10), (3, 0), (4, -12345678.9)`,
		`INSERT INTO lit (id, b) VALUES (1, ''), (2, 'abc'), (3, '\x00ff10')`,
		`INSERT INTO lit (id, ok) VALUES (1, 'maybe')`,
		`INSERT INTO lit (id, c) VALUES (1, 'abcde')`,
		`INSERT INTO lit (id, j) VALUES (1, '{bad')`,
		`INSERT INTO lit (id, b) VALUES (1, '\xZZ')`,
		`INSERT INTO lit (id) VALUES ('thirty')`,
		`INSERT INTO lit (id, b) VALUES (1, '\x01', 3)`,
		`INSERT INTO lit (id, b, ok) VALUES (1)`,
		`INSERT INTO lit VALUES (1, '\x01', true, 'a', 1, '{}', 'extra')`,
		`INSERT INTO lit (id, ok) VALUES (1, true), (2, false, 3)`,
		`INSERT INTO lit (id, u) SELECT 1::numeric / 2, 10::numeric / 4`, // numeric -> integer column
		`INSERT INTO lit (id, u) SELECT 7, avg(x) FROM (VALUES (1), (2)) AS v(x)`,
	}
	for _, q := range cases {
		t.Run(q, func(t *testing.T) {
			runPG(t, pg, "DROP TABLE IF EXISTS lit")
			runPG(t, pg, litPGDDL)
			p := runPG(t, pg, q)
			if p.code == "" {
				p = runPG(t, pg, "SELECT id, b, ok, c::text AS c, u, j::text AS j FROM lit")
			}
			d := runInsert(t, duck, cat, q)
			d.inferred = nil // PostgreSQL's side reads c and j as text
			msg := compare(p, d, true)
			if msg == "" && p.code != "" && (p.epos != d.epos || p.detail != d.detail) {
				msg = fmt.Sprintf("error position/detail: pg %d %q / duck %d %q", p.epos, p.detail, d.epos, d.detail)
			}
			if msg != "" {
				src := ""
				if d.query != nil {
					src = d.query.SQL
				}
				t.Errorf("%s\n  source: %s\n  pg:   %v\n  duck: %v", msg, src, p, d)
			}
		})
	}
}
