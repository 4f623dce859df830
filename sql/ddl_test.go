package sql

import (
	"reflect"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestCreateTable(t *testing.T) {
	ct, err := TranslateCreateTable(mustParse1(t, `CREATE TABLE IF NOT EXISTS s.t (
		id bigint PRIMARY KEY,
		name varchar(20) NOT NULL DEFAULT 'x',
		price numeric(10,2),
		n numeric,
		at timestamptz DEFAULT now(),
		c char(3),
		f float,
		j jsonb,
		u uuid,
		b bytea,
		ok boolean NULL,
		iv interval,
		ts timestamp(3)
	)`).Tree)
	if err != nil {
		t.Fatal(err)
	}
	if ct.Schema != "s" || ct.Name != "t" || !ct.IfNotExists {
		t.Errorf("header %+v", ct)
	}
	want := []ColumnDef{
		{Name: "id", TypeOID: OIDInt8, TypeMod: -1, TypeName: "bigint", NotNull: true, PrimaryKey: true},
		{Name: "name", TypeOID: OIDVarchar, TypeMod: 24, TypeName: "character varying(20)", NotNull: true, Default: "'x'"},
		{Name: "price", TypeOID: OIDNumeric, TypeMod: TypeModNumeric(10, 2), TypeName: "numeric(10,2)"},
		{Name: "n", TypeOID: OIDNumeric, TypeMod: -1, TypeName: "numeric"},
		{Name: "at", TypeOID: OIDTimestamptz, TypeMod: -1, TypeName: "timestamp with time zone", Default: "now()"},
		{Name: "c", TypeOID: OIDBpchar, TypeMod: 7, TypeName: "character(3)"},
		{Name: "f", TypeOID: OIDFloat8, TypeMod: -1, TypeName: "double precision"},
		{Name: "j", TypeOID: OIDJSONB, TypeMod: -1, TypeName: "jsonb"},
		{Name: "u", TypeOID: OIDUUID, TypeMod: -1, TypeName: "uuid"},
		{Name: "b", TypeOID: OIDBytea, TypeMod: -1, TypeName: "bytea"},
		{Name: "ok", TypeOID: OIDBool, TypeMod: -1, TypeName: "boolean"},
		{Name: "iv", TypeOID: OIDInterval, TypeMod: -1, TypeName: "interval"},
		{Name: "ts", TypeOID: OIDTimestamp, TypeMod: 3, TypeName: "timestamp(3) without time zone"},
	}
	if !reflect.DeepEqual(ct.Columns, want) {
		for i := range want {
			if i >= len(ct.Columns) || !reflect.DeepEqual(ct.Columns[i], want[i]) {
				t.Errorf("column %d: got %+v want %+v", i, ct.Columns[i], want[i])
			}
		}
	}
	ct, err = TranslateCreateTable(mustParse1(t, "CREATE TABLE t (a int, b text, PRIMARY KEY (b, a))").Tree)
	if err != nil || !ct.Columns[0].PrimaryKey || !ct.Columns[1].PrimaryKey || !ct.Columns[1].NotNull {
		t.Errorf("table PK: %+v %v", ct, err)
	}
}

func TestCreateTableErrors(t *testing.T) {
	cases := []struct{ q, code, msg string }{
		{"CREATE TABLE t (a serial DEFAULT 1)", pgerr.SyntaxError, `multiple default values specified for column "a" of table "t"`},
		{"CREATE TABLE t (a int UNIQUE NULLS NOT DISTINCT)", pgerr.FeatureNotSupported, "UNIQUE NULLS NOT DISTINCT is not supported"},
		{"CREATE TABLE t (a int, UNIQUE (a) DEFERRABLE)", pgerr.FeatureNotSupported, "DEFERRABLE unique constraints are not supported"},
		{"CREATE TABLE t (a int, UNIQUE (a, a))", pgerr.DuplicateColumn, `column "a" appears twice in unique constraint`},
		{"CREATE TABLE t (a int, UNIQUE (b))", pgerr.UndefinedColumn, `column "b" named in key does not exist`},
		{"CREATE TABLE t (a int CHECK (a > (SELECT 1)))", pgerr.FeatureNotSupported, "cannot use subquery in check constraint"},
		{"CREATE TABLE t (a int CHECK (count(*) > 0))", pgerr.GroupingError, "aggregate functions are not allowed in check constraints"},
		{"CREATE TABLE t (a int CHECK (a > 0) NO INHERIT)", pgerr.FeatureNotSupported, "CHECK ... NO INHERIT is not supported"},
		{"CREATE TABLE t (a int REFERENCES x.y.u)", pgerr.FeatureNotSupported, `cross-database references are not implemented: "x.y.u"`},
		{"CREATE TABLE t (a text GENERATED ALWAYS AS IDENTITY)", pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint"},
		{"CREATE TABLE t (a int GENERATED ALWAYS AS IDENTITY DEFAULT 1)", pgerr.SyntaxError, `both default and identity specified for column "a" of table "t"`},
		{"CREATE TABLE t (a int GENERATED ALWAYS AS (1) STORED)", pgerr.FeatureNotSupported, "GENERATED ALWAYS AS constraints are not supported"},
		{"CREATE TABLE t (a int[])", pgerr.FeatureNotSupported, "column type integer[] is not supported"},
		{"CREATE TABLE t (a nosuchtype)", pgerr.UndefinedObject, `type "nosuchtype" does not exist`},
		{"CREATE TABLE t (a int, a text)", pgerr.DuplicateColumn, `column "a" specified more than once`},
		{"CREATE TEMP TABLE t (a int) ON COMMIT DROP", pgerr.FeatureNotSupported, "ON COMMIT DELETE ROWS and ON COMMIT DROP are not supported"},
		{"CREATE TABLE t (a int) ON COMMIT PRESERVE ROWS", "42P16", "ON COMMIT can only be used on temporary tables"},
		{"CREATE TABLE t (a numeric(50,2))", pgerr.FeatureNotSupported, "numeric precision 50 above 38 is not supported"},
		{"CREATE TABLE t (a int, PRIMARY KEY (b))", pgerr.UndefinedColumn, `column "b" named in key does not exist`},
		{"CREATE TABLE t (a money)", pgerr.UndefinedObject, `type "money" does not exist`},
	}
	for _, c := range cases {
		_, err := TranslateCreateTable(mustParse1(t, c.q).Tree)
		e, ok := pgerr.As(err)
		if !ok || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.q, err, c.code, c.msg)
		}
	}
}

func TestUtilityStatements(t *testing.T) {
	dt, err := TranslateDropTable(mustParse1(t, "DROP TABLE IF EXISTS a, s.b CASCADE").Tree)
	if err != nil || !reflect.DeepEqual(dt, &DropTable{Names: []QualifiedName{{"", "a"}, {"s", "b"}}, IfExists: true, Cascade: true}) {
		t.Errorf("drop table %+v %v", dt, err)
	}
	tr, err := TranslateTruncate(mustParse1(t, "TRUNCATE a, s.b").Tree)
	if err != nil || !reflect.DeepEqual(tr.Names, []QualifiedName{{"", "a"}, {"s", "b"}}) {
		t.Errorf("truncate %+v %v", tr, err)
	}
	cs, err := TranslateCreateSchema(mustParse1(t, "CREATE SCHEMA IF NOT EXISTS s").Tree)
	if err != nil || *cs != (CreateSchema{"s", true}) {
		t.Errorf("create schema %+v %v", cs, err)
	}
	ds, err := TranslateDropSchema(mustParse1(t, "DROP SCHEMA s1, s2 CASCADE").Tree)
	if err != nil || !reflect.DeepEqual(ds, &DropSchema{Names: []string{"s1", "s2"}, Cascade: true}) {
		t.Errorf("drop schema %+v %v", ds, err)
	}
	cd, err := TranslateCreateDatabase(mustParse1(t, "CREATE DATABASE d WITH OWNER x").Tree)
	if err != nil || cd.Name != "d" {
		t.Errorf("create database %+v %v", cd, err)
	}
	dd, err := TranslateDropDatabase(mustParse1(t, "DROP DATABASE IF EXISTS d").Tree)
	if err != nil || *dd != (DropDatabase{"d", true}) {
		t.Errorf("drop database %+v %v", dd, err)
	}
	setCases := []struct {
		q    string
		want Set
	}{
		{"SET search_path TO a, \"B\"", Set{Name: "search_path", Values: []string{"a", "B"}}},
		{"SET LOCAL statement_timeout = 100", Set{Name: "statement_timeout", Values: []string{"100"}, Local: true}},
		{"SET TIME ZONE 'Europe/Paris'", Set{Name: "timezone", Values: []string{"Europe/Paris"}}},
		{"SET datestyle TO DEFAULT", Set{Name: "datestyle", Default: true}},
		{"SET extra_float_digits = 3", Set{Name: "extra_float_digits", Values: []string{"3"}}},
		{"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", Set{Name: "transaction", Transaction: true}},
		{"SET application_name = 'psql'", Set{Name: "application_name", Values: []string{"psql"}}},
	}
	for _, c := range setCases {
		s, err := TranslateSet(mustParse1(t, c.q).Tree)
		if err != nil || !reflect.DeepEqual(*s, c.want) {
			t.Errorf("%s: got %+v %v want %+v", c.q, s, err, c.want)
		}
	}
	sh, err := TranslateShow(mustParse1(t, "SHOW TimeZone").Tree)
	if err != nil || sh.Name != "timezone" {
		t.Errorf("show %+v %v", sh, err)
	}
	rs, err := TranslateReset(mustParse1(t, "RESET ALL").Tree)
	if err != nil || !rs.All {
		t.Errorf("reset %+v %v", rs, err)
	}
	ex, err := TranslateExplain(mustParse1(t, "EXPLAIN (ANALYZE, COSTS OFF) SELECT 1").Tree)
	if err != nil || !ex.Analyze || ex.Query.GetSelectStmt() == nil {
		t.Errorf("explain %+v %v", ex, err)
	}
	pr, err := TranslatePrepare(mustParse1(t, "PREPARE p (int, text) AS SELECT $1, $2").Tree)
	if err != nil || pr.Name != "p" || !reflect.DeepEqual(pr.ParamOIDs, []uint32{OIDInt4, OIDText}) || pr.Query.GetSelectStmt() == nil {
		t.Errorf("prepare %+v %v", pr, err)
	}
	exe, err := TranslateExecute(mustParse1(t, "EXECUTE p (1, 'a')").Tree)
	if err != nil || exe.Name != "p" || len(exe.Params) != 2 {
		t.Errorf("execute %+v %v", exe, err)
	}
	de, err := TranslateDeallocate(mustParse1(t, "DEALLOCATE ALL").Tree)
	if err != nil || !de.All {
		t.Errorf("deallocate %+v %v", de, err)
	}
}
