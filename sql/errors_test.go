package sql

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// TestMapErrorDuckDB provokes real DuckDB errors and checks the mapping.
func TestMapErrorDuckDB(t *testing.T) {
	e := newDuck(t)
	cases := []struct {
		duckSQL, orig, code, msg string
		pos                      int
	}{
		{"SELECT CAST('abc' AS INTEGER)", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type integer: "abc"`, 0},
		{"SELECT CAST('x''y' AS BIGINT)", "", pgerr.InvalidTextRepresentation, `invalid input syntax for type bigint: "x'y"`, 0},
		{"SELECT CAST('nope' AS DATE)", "", pgerr.InvalidDatetimeFormat, `invalid input syntax for type date: "nope"`, 0},
		{"SELECT CAST(3000000000 AS INTEGER)", "", pgerr.NumericValueOutOfRange, "integer out of range", 0},
		{"SELECT CAST(70000 AS SMALLINT)", "", pgerr.NumericValueOutOfRange, "smallint out of range", 0},
		{"SELECT CAST(123.45 AS DECIMAL(4,2))", "", pgerr.NumericValueOutOfRange, "numeric field overflow", 0},
		{"SELECT 9223372036854775807::BIGINT + 1::BIGINT", "", pgerr.NumericValueOutOfRange, "bigint out of range", 0},
		{"SELECT __bsdb_div(1, 0)", "", pgerr.DivisionByZero, "division by zero", 0},
		{"SELECT nosuch FROM duck_tags", "SELECT nosuch FROM tags", pgerr.UndefinedColumn, `column "nosuch" does not exist`, 8},
		{"SELECT x.id FROM duck_tags", "SELECT x.id FROM tags", pgerr.UndefinedTable, `missing FROM-clause entry for table "x"`, 8},
		{"SELECT nosuchfn(1)", "SELECT nosuchfn(1)", pgerr.UndefinedFunction, "function nosuchfn does not exist", 8},
		{"SELECT lower(1::INTEGER)", "", pgerr.UndefinedFunction, "function lower(integer) does not exist", 0},
		{"SELECT id FROM duck_tags a, duck_tags b", "SELECT id FROM tags a, tags b", pgerr.AmbiguousColumn, `column reference "id" is ambiguous`, 8},
		{"SELECT id, tag FROM duck_tags GROUP BY id", "", pgerr.GroupingError, `column "tag" must appear in the GROUP BY clause or be used in an aggregate function`, 0},
		{"SELECT (SELECT id FROM duck_tags)", "", pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression", 0},
		{"SELECT * FROM nosuch_table", "", pgerr.UndefinedTable, `relation "nosuch_table" does not exist`, 0},
		{"SELECT nextval('noseq')", "", pgerr.UndefinedTable, `relation "noseq" does not exist`, 0},
		{"SELECT 1" + strings.Repeat("+1", 1200), "", pgerr.StatementTooComplex, "stack depth limit exceeded", 0},
		{"SELECT __bsdb_undefined_function.pg_catalog.read_text('x')", "", pgerr.UndefinedFunction, "function does not exist", 0},
	}
	for _, c := range cases {
		rows, err := e.db.Query(c.duckSQL)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err == nil {
			t.Errorf("%s: no error", c.duckSQL)
			continue
		}
		pe, ok := pgerr.As(MapError(err, c.orig))
		if !ok || pe.Code != c.code || pe.Message != c.msg || pe.Position != c.pos {
			t.Errorf("%s: DuckDB %q\n  mapped to %s %q pos %d, want %s %q pos %d", c.duckSQL, err, pe.Code, pe.Message, pe.Position, c.code, c.msg, c.pos)
		}
	}
}

func TestMapErrorOther(t *testing.T) {
	if MapError(nil, "") != nil {
		t.Error("nil must stay nil")
	}
	orig := pgerr.New(pgerr.UndefinedTable, "x")
	if MapError(orig, "") != error(orig) {
		t.Error("a *pgerr.Error must pass through")
	}
	if pgerr.Code(MapError(context.Canceled, "")) != pgerr.QueryCanceled {
		t.Error("context.Canceled must be 57014")
	}
	e, _ := pgerr.As(MapError(errors.New("Binder Error: something odd happened\n\nLINE 1: SELECT\n       ^"), ""))
	if e.Code != pgerr.InternalError || e.Message != "something odd happened" {
		t.Errorf("fallback: %+v", e)
	}
	if !errors.Is(e, e.Err) || !strings.Contains(e.Err.Error(), "Binder Error") {
		t.Error("the DuckDB error must be kept as the cause")
	}
}

func TestTypeMapping(t *testing.T) {
	cases := []struct {
		oid  uint32
		mod  int32
		duck string
	}{
		{OIDBool, -1, "BOOLEAN"}, {OIDInt2, -1, "SMALLINT"}, {OIDInt4, -1, "INTEGER"}, {OIDInt8, -1, "BIGINT"},
		{OIDFloat4, -1, "FLOAT"}, {OIDFloat8, -1, "DOUBLE"}, {OIDNumeric, TypeModNumeric(10, 2), "DECIMAL(10,2)"},
		{OIDText, -1, "VARCHAR"}, {OIDBytea, -1, "BLOB"}, {OIDDate, -1, "DATE"}, {OIDTime, -1, "TIME"},
		{OIDTimestamp, -1, "TIMESTAMP"}, {OIDTimestamptz, -1, "TIMESTAMP WITH TIME ZONE"}, {OIDInterval, -1, "INTERVAL"},
		{OIDUUID, -1, "UUID"}, {OIDJSON, -1, "JSON"}, {1007, -1, "INTEGER[]"}, {1009, -1, "VARCHAR[]"},
	}
	for _, c := range cases {
		oid, mod := PGTypeOfDuckDB(c.duck)
		if oid != c.oid || mod != c.mod {
			t.Errorf("PGTypeOfDuckDB(%s) = %d,%d want %d,%d", c.duck, oid, mod, c.oid, c.mod)
		}
		d, err := DuckDBType(c.oid, c.mod)
		if err != nil {
			t.Errorf("DuckDBType(%d): %v", c.oid, err)
		}
		back, _ := PGTypeOfDuckDB(d)
		if c.oid == OIDJSON {
			back = OIDJSON // stored as VARCHAR: its input text is kept exactly
		}
		if back != c.oid {
			t.Errorf("round trip %d -> %s -> %d", c.oid, d, back)
		}
	}
	for duck, want := range map[string]uint32{"HUGEINT": OIDNumeric, "UBIGINT": OIDNumeric, "TINYINT": OIDInt2, "STRUCT(a INTEGER)": OIDText, "MAP(VARCHAR, INTEGER)": OIDText, "DECIMAL(18,3)": OIDNumeric, "TIMESTAMP_NS": OIDTimestamp} {
		if got, _ := PGTypeOfDuckDB(duck); got != want {
			t.Errorf("PGTypeOfDuckDB(%s) = %d want %d", duck, got, want)
		}
	}
	if _, mod := PGTypeOfDuckDB("DECIMAL(18,3)"); mod != TypeModNumeric(18, 3) {
		t.Errorf("DECIMAL(18,3) typmod %d", mod)
	}
}

// TestSetupIdempotent: the planner may run Setup on a connection that
// already has it (pool reuse); every statement must succeed again.
func TestSetupIdempotent(t *testing.T) {
	e := newDuck(t)
	conn, err := e.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range Setup() {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}
