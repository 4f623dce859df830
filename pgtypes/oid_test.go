package pgtypes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/schema"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestTypeTableMatchesPgType(t *testing.T) {
	c := refConn(t)
	for _, ti := range Types() {
		q := fmt.Sprintf("SELECT typname, format_type(oid, NULL), typlen, typbyval, typcategory, typtype, typarray, typelem FROM pg_type WHERE oid = %d", ti.OID)
		res := c.ExecParams(context.Background(), q, nil, nil, nil, nil).Read()
		if res.Err != nil || len(res.Rows) != 1 {
			t.Errorf("oid %d (%s): %v rows=%d", ti.OID, ti.Name, res.Err, len(res.Rows))
			continue
		}
		r := res.Rows[0]
		got := fmt.Sprintf("%s|%s|%d|%v|%c|%c|%d|%d", ti.Name, ti.SQLName, ti.Len, ti.ByVal, ti.Category, ti.Type, ti.ArrayOID, ti.ElemOID)
		byval := "false"
		if string(r[3]) == "t" {
			byval = "true"
		}
		want := fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s", r[0], r[1], r[2], byval, r[4], r[5], r[6], r[7])
		if got != want {
			t.Errorf("oid %d: ours %s, pg_type %s", ti.OID, got, want)
		}
	}
}

// declaredTypes are column declarations; PostgreSQL's pg_attribute says
// what oid/typmod they mean and how format_type spells them.
var declaredTypes = []string{
	"int", "integer", "int4", "smallint", "bigint", "real", "double precision", "float", "float(10)", "float(40)",
	"decimal", "numeric", "numeric(10)", "numeric(10,2)", "decimal(38,10)", "numeric(5,-2)", "numeric(3,5)", "numeric(1000,0)",
	"varchar", "varchar(20)", "character varying(3)", "char", "char(5)", "character(1)", "bpchar", "text", "name", `"char"`,
	"bool", "boolean", "bytea", "uuid", "json", "jsonb", "date", "time", "time(3)", "time without time zone",
	"timetz", "time(2) with time zone", "timestamp", "timestamp(0)", "timestamp without time zone", "timestamptz",
	"timestamp(3) with time zone", "interval", "interval(3)", "oid", "int[]", "text[]", "varchar(5)[]", "numeric(4,1)[]",
	"xml", "regclass", "timestamp(7)", "interval day to second", "interval year", "interval hour to minute", "interval second(3)", "interval day to second(2)", "interval year to month",
}

func TestTypeNamesMatchPostgres(t *testing.T) {
	c := refConn(t)
	for i, d := range declaredTypes {
		sql := fmt.Sprintf("DROP TABLE IF EXISTS tn; CREATE TEMP TABLE tn (c %s); SELECT atttypid, atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tn'::regclass AND attname = 'c'", d)
		res, err := c.Exec(context.Background(), sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		r := res[len(res)-1].Rows[0]
		oid64, _ := strconv.ParseUint(string(r[0]), 10, 32)
		tm64, _ := strconv.ParseInt(string(r[1]), 10, 32)
		oid, typmod, pgName := uint32(oid64), int32(tm64), string(r[2])
		if got := FormatType(oid, typmod); got != pgName {
			t.Errorf("FormatType(%d, %d) = %q, format_type %q", oid, typmod, got, pgName)
		}
		ti, tm, err := ParseTypeString(d)
		// The grammar gives bare "char"/"character" a length of 1.
		if d == "char" {
			ti, tm, err = ParseTypeName([]string{"pg_catalog", "bpchar"}, []int32{1})
		}
		if err != nil || ti.OID != oid || tm != typmod {
			t.Errorf("#%d ParseTypeString(%q) = %d, %d, %v; PostgreSQL %d, %d", i, d, ti.OID, tm, err, oid, typmod)
		}
		// The Annotation round trip: the format_type spelling parses back.
		ti, tm, err = ParseTypeString(pgName)
		if err != nil || ti.OID != oid || tm != typmod {
			t.Errorf("ParseTypeString(%q) = %d, %d, %v; want %d, %d", pgName, ti.OID, tm, err, oid, typmod)
		}
		// Storage mapping round trip.
		if col, err := ColumnType(oid, typmod); err == nil {
			col.Name = "c"
			o2, tm2, err := TypeOfColumn(col)
			if err != nil || o2 != oid || tm2 != typmod {
				t.Errorf("TypeOfColumn(ColumnType(%s)) = %d, %d, %v", pgName, o2, tm2, err)
			}
		}
	}
}

func TestTypmodErrorsMatchPostgres(t *testing.T) {
	c := refConn(t)
	for _, tc := range []struct {
		decl  string
		names []string
		mods  []int32
	}{
		{"varchar(0)", []string{"varchar"}, []int32{0}},
		{"char(10485761)", []string{"bpchar"}, []int32{10485761}},
		{"numeric(0)", []string{"numeric"}, []int32{0}},
		{"numeric(1001)", []string{"numeric"}, []int32{1001}},
		{"numeric(5,1001)", []string{"numeric"}, []int32{5, 1001}},
		{"float(0)", []string{"float"}, []int32{0}},
		{"float(54)", []string{"float"}, []int32{54}},
		{"nosuchtype", []string{"nosuchtype"}, nil},
	} {
		_, err := c.Exec(context.Background(), "CREATE TEMP TABLE te (c "+tc.decl+")").ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: PostgreSQL accepted (%v)", tc.decl, err)
		}
		_, _, ours := ParseTypeName(tc.names, tc.mods)
		e, ok := pgerr.As(ours)
		if !ok || e.Code != pe.Code || e.Message != pe.Message {
			t.Errorf("%s: ours %v; PostgreSQL %s %q", tc.decl, ours, pe.Code, pe.Message)
		}
	}
}

func TestColumnTypeKinds(t *testing.T) {
	for _, tc := range []struct {
		decl string
		kind schema.Kind
		p, s int
		l    int
	}{
		{"integer", schema.KindInt32, 0, 0, 0},
		{"numeric(10,2)", schema.KindDecimal, 10, 2, 0},
		{"numeric", schema.KindString, 0, 0, 0}, // unconstrained: exact text
		{"numeric(50,2)", schema.KindString, 0, 0, 0},
		{"varchar(20)", schema.KindString, 0, 0, 20},
		{"timestamp with time zone", schema.KindTimestampTZ, 0, 0, 0},
		{"jsonb", schema.KindJSON, 0, 0, 0},
	} {
		ti, tm, err := ParseTypeString(tc.decl)
		if err != nil {
			t.Fatal(err)
		}
		col, err := ColumnType(ti.OID, tm)
		if err != nil || col.Kind != tc.kind || col.Precision != tc.p || col.Scale != tc.s || col.Length != tc.l {
			t.Errorf("%s: %+v %v", tc.decl, col, err)
		}
	}
	if _, err := ColumnType(OIDInt4Array, -1); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("array column: %v", err)
	}
	// Without an annotation the kind alone picks the type.
	o, tm, err := TypeOfColumn(schema.Column{Name: "x", Kind: schema.KindDecimal, Precision: 12, Scale: 3})
	if err != nil || o != OIDNumeric || FormatType(o, tm) != "numeric(12,3)" {
		t.Errorf("kind-only decimal: %d %d %v", o, tm, err)
	}
	if !strings.HasPrefix(FormatType(99999, -1), "???") {
		t.Error("unknown oid")
	}
}
