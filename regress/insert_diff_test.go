package regress

// TestInsertValuesDifferential runs the same INSERT ... VALUES statements
// (constants, NULL, DEFAULT, parameters in text and binary, through the
// simple and the extended protocol) on bsdb-pg and on the reference
// PostgreSQL, and compares each statement's outcome (command tag, or
// SQLSTATE and message) and the table contents as text. Constant and
// parameter VALUES are evaluated by bsdb-pg without DuckDB
// (sql.Insert.Direct); mixed ones by DuckDB: both must be PostgreSQL's.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type insertCase struct {
	sql  string
	args []any
	// mode: "" simple protocol with literals (args must be empty), "text"
	// or "binary" parameters through the extended protocol.
	mode string
}

var insertCases = []insertCase{
	{sql: `INSERT INTO ins_d VALUES (1, 2, 3, 1.5, 2.25, 12.345, 'text', 'vc', 'ch', true, '2024-02-29', '12:34:56.789', '2024-02-29 01:02:03.456789', '2024-02-29 01:02:03+05', '1 day 02:03:04', '\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": 1, "a": 2}', 7)`},
	{sql: `INSERT INTO ins_d (c_int, c_text) VALUES (10, 'a'), (11, NULL), (12, DEFAULT)`},
	{sql: `INSERT INTO ins_d (c_int, c_numeric) VALUES (20, 1), (21, 99999.994), (22, '-0.005')`},
	{sql: `INSERT INTO ins_d (c_int, c_numeric) VALUES (23, 100000)`},
	{sql: `INSERT INTO ins_d (c_int, c_varchar) VALUES (30, 'abcde'), (31, 'abcdef   ')`},
	{sql: `INSERT INTO ins_d (c_int, c_varchar) VALUES (32, 'abcdefgh')`},
	{sql: `INSERT INTO ins_d (c_int, c_char) VALUES (33, 'ab'), (34, 'abcd  ')`},
	{sql: `INSERT INTO ins_d (c_int, c_char) VALUES (35, 'abcde')`},
	{sql: `INSERT INTO ins_d (c_int, c_small) VALUES (40, 32767)`},
	{sql: `INSERT INTO ins_d (c_int, c_small) VALUES (41, 32768)`},
	{sql: `INSERT INTO ins_d (c_int) VALUES (2147483648)`},
	{sql: `INSERT INTO ins_d (c_int, c_big) VALUES (42, 9223372036854775807), (43, -9223372036854775808)`},
	{sql: `INSERT INTO ins_d (c_int, c_big) VALUES (44, 9223372036854775808)`},
	{sql: `INSERT INTO ins_d (c_int, c_big) VALUES (45, 1.5)`},
	{sql: `INSERT INTO ins_d (c_int, c_double, c_real) VALUES (46, 1e308, 3.4e38), (47, '-Infinity', 'NaN'), (48, 0.1, 0.1)`},
	{sql: `INSERT INTO ins_d (c_int, c_double) VALUES (49, 1e309)`},
	{sql: `INSERT INTO ins_d (c_int, c_bool) VALUES (50, 'yes'), (51, 'off'), (52, false)`},
	{sql: `INSERT INTO ins_d (c_int, c_bool) VALUES (53, 'maybe')`},
	{sql: `INSERT INTO ins_d (c_int, c_date) VALUES (54, '2024-13-01')`},
	{sql: `INSERT INTO ins_d (c_int, c_ts, c_tstz, c_date) VALUES (55, 'infinity', '-infinity', 'epoch')`},
	{sql: `INSERT INTO ins_d (c_int, c_interval) VALUES (56, '1 year 2 months -3 days'), (57, 'P1Y2M3DT4H5M6S')`},
	{sql: `INSERT INTO ins_d (c_int, c_uuid) VALUES (58, 'not-a-uuid')`},
	{sql: `INSERT INTO ins_d (c_int, c_nn) VALUES (59, NULL)`},
	{sql: `INSERT INTO ins_d (c_int) VALUES (60), (61)`},
	{sql: `INSERT INTO ins_d (c_text, c_int) VALUES ('reordered', 62)`},
	{sql: `INSERT INTO ins_d (c_int, c_text) VALUES (63, 'x' || 'y'), (64, 'z')`},
	{sql: `INSERT INTO ins_d (c_int, c_json, c_jsonb) VALUES (65, '[1,   2]', '{"z": null,   "a": [true]}')`},
	{sql: `INSERT INTO ins_d (c_int, c_jsonb) VALUES (66, '{bad')`},
	{sql: `INSERT INTO ins_d (c_int, c_text) VALUES (67, 5)`},
	{sql: `INSERT INTO ins_d (c_int, c_numeric, c_double) VALUES ($1, $2, $3)`, args: []any{"70", "3.14159", "2.5"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_numeric) VALUES ($1, $2)`, args: []any{"71", "123456.7"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_varchar, c_char) VALUES ($1, $2, $3)`, args: []any{"72", "abcde", "x"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_varchar) VALUES ($1, $2)`, args: []any{"73", "abcdefg"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_small) VALUES ($1, $2)`, args: []any{"74", "40000"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_ts, c_tstz, c_date, c_time) VALUES ($1, $2, $3, $4, $5)`, args: []any{"75", "2001-02-03 04:05:06.7", "2001-02-03 04:05:06.7-08", "2001-02-03", "23:59:59.999999"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_nn) VALUES ($1, $2)`, args: []any{"76", nil}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_text, c_bytea, c_uuid) VALUES ($1, $2, $3, $4)`, args: []any{"77", nil, `\x0001ff`, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12"}, mode: "text"},
	{sql: `INSERT INTO ins_d (c_int, c_big, c_double, c_bool, c_text) VALUES ($1, $2, $3, $4, $5)`, args: []any{int32(80), int64(-5), float64(-0.0), true, "bin"}, mode: "binary"},
	{sql: `INSERT INTO ins_d (c_int, c_small) VALUES ($1, $2)`, args: []any{int32(81), int16(-7)}, mode: "binary"},
	{sql: `INSERT INTO ins_d (c_int, c_text) VALUES ($1, $2), ($1 + 1, $2)`, args: []any{int32(82), "same"}, mode: "binary"},
}

const insertTable = `CREATE TABLE ins_d (
	c_small smallint, c_int integer, c_big bigint, c_real real, c_double double precision,
	c_numeric numeric(7,2), c_text text, c_varchar varchar(5), c_char char(4), c_bool boolean,
	c_date date, c_time time, c_ts timestamp, c_tstz timestamptz, c_interval interval,
	c_bytea bytea, c_uuid uuid, c_json json, c_jsonb jsonb, c_nn integer NOT NULL DEFAULT 0)`

// The NOT NULL column has a default; the direct path must leave such
// statements to DuckDB, the outcome must not differ either way.

func runInsertCases(t *testing.T, url string) []string {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "SET TimeZone = 'UTC'")
	mustExec(t, ctx, conn, insertTable)
	var out []string
	for _, c := range insertCases {
		var tag pgconn.CommandTag
		var err error
		switch c.mode {
		case "":
			tag, err = conn.Exec(ctx, c.sql, pgx.QueryExecModeSimpleProtocol)
		case "text":
			// pgx sends string arguments as text.
			tag, err = conn.Exec(ctx, c.sql, c.args...)
		case "binary":
			tag, err = conn.Exec(ctx, c.sql, c.args...)
		}
		out = append(out, fmt.Sprintf("%s -> %s", c.sql, outcome(tag, err)))
	}
	rows, err := conn.Query(ctx, `SELECT c_small::text, c_int::text, c_big::text, c_real::text, c_double::text,
		c_numeric::text, c_text, c_varchar::text, c_char::text, length(c_char)::text, c_bool::text, c_date::text, c_time::text,
		c_ts::text, c_tstz::text, c_interval::text, c_bytea::text, c_uuid::text, c_json::text, c_jsonb::text,
		c_nn::text FROM ins_d ORDER BY c_int, c_text`)
	if err != nil {
		t.Fatalf("select: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("select: %v", err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, "row: "+strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("select: %v", err)
	}
	return out
}

func outcome(tag pgconn.CommandTag, err error) string {
	if err != nil {
		if pe, ok := err.(*pgconn.PgError); ok {
			return "ERROR " + pe.Code + ": " + pe.Message
		}
		return "ERROR " + err.Error()
	}
	return tag.String()
}

func TestInsertValuesDifferential(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	base := *pgURL
	if base == "" {
		base = pgref.Start(t)
	}
	want := runInsertCases(t, freshDatabase(t, base))
	srv := testserver.Start(t, testserver.Options{Env: []string{"BSDB_WAL_DURABILITY=sync"}})
	got := runInsertCases(t, srv.URL)
	n := max(len(want), len(got))
	bad := 0
	for i := 0; i < n; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			bad++
			t.Errorf("differs from PostgreSQL:\n  postgres: %s\n  bsdb-pg:  %s", w, g)
		}
	}
	if bad == 0 {
		t.Logf("%d outcomes identical to PostgreSQL's", n)
	}
}
