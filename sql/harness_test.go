package sql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
)

func TestMain(m *testing.M) {
	alwaysSource = true // test Source (the DuckDB path) for every INSERT
	pgref.Main(m)
}

// testCatalog is a Catalog over native DuckDB tables named duck_<name>.
type testCatalog map[string]*TableInfo

func (c testCatalog) LookupTable(schema, name string) (*TableInfo, error) {
	key := name
	if schema != "" && schema != "public" {
		key = schema + "." + name
	}
	if t, ok := c[key]; ok {
		return t, nil
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", qualName(schema, name))
}

// fixture is a table created identically in PostgreSQL and DuckDB.
type fixture struct {
	name string
	cols []ColumnInfo
	rows []string // VALUES rows in SQL common to both dialects
}

var fixtures = []fixture{
	{name: "nums", cols: []ColumnInfo{
		{Name: "id", TypeOID: OIDInt4, TypeMod: -1},
		{Name: "i", TypeOID: OIDInt4, TypeMod: -1},
		{Name: "b", TypeOID: OIDInt8, TypeMod: -1},
		{Name: "s", TypeOID: OIDInt2, TypeMod: -1},
		{Name: "n", TypeOID: OIDNumeric, TypeMod: TypeModNumeric(10, 2)},
		{Name: "f", TypeOID: OIDFloat8, TypeMod: -1},
		{Name: "t", TypeOID: OIDText, TypeMod: -1},
		{Name: "g", TypeOID: OIDVarchar, TypeMod: 14},
		{Name: "d", TypeOID: OIDDate, TypeMod: -1},
		{Name: "ok", TypeOID: OIDBool, TypeMod: -1},
	}, rows: []string{
		"(1, 7, 10000000000, 3, 12.50, 1.5, 'apple', 'x', '2024-01-15', true)",
		"(2, -7, -3, 2, -3.25, -0.25, 'Banana', 'y', '2024-02-29', false)",
		"(3, 2147483647, 9223372036854775807, 32767, 0.01, 1e10, 'cherry', 'x', '2023-12-31', true)",
		"(4, NULL, NULL, NULL, NULL, NULL, NULL, 'y', NULL, NULL)",
		"(5, 0, 0, 0, 0, 0, '', 'z', '2024-03-01', false)",
		"(6, 100, 5, -4, 99.99, 2.75, 'apple pie', 'x', '2024-01-16', true)",
	}},
	// char(n) values are stored padded, as the server's INSERT pads them.
	{name: "chars", cols: []ColumnInfo{
		{Name: "id", TypeOID: OIDInt4, TypeMod: -1},
		{Name: "c", TypeOID: OIDBpchar, TypeMod: 5 + 4},
	}, rows: []string{"(1, 'ab   ')", "(2, 'a b  ')", "(3, NULL)"}},
	{name: "tags", cols: []ColumnInfo{
		{Name: "id", TypeOID: OIDInt4, TypeMod: -1},
		{Name: "tag", TypeOID: OIDText, TypeMod: -1},
	}, rows: []string{"(1, 'red')", "(1, 'blue')", "(2, 'red')", "(3, NULL)", "(7, 'green')"}},
}

// env is a DuckDB connection with Setup applied and the fixtures loaded,
// plus the catalog describing them.
type env struct {
	db  *sql.DB
	cat testCatalog
}

func newDuck(t testing.TB) *env {
	t.Helper()
	conn, err := duckdb.NewConnector("", func(execer driver.ExecerContext) error {
		for _, s := range Setup() {
			if _, err := execer.ExecContext(context.Background(), s, nil); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	e := &env{db: db, cat: testCatalog{}}
	for _, f := range fixtures {
		var defs []string
		for _, c := range f.cols {
			dt, err := DuckDBType(c.TypeOID, c.TypeMod)
			if err != nil {
				t.Fatal(err)
			}
			defs = append(defs, quoteIdent(c.Name)+" "+dt)
		}
		mustExec(t, db, fmt.Sprintf("CREATE TABLE duck_%s (%s)", f.name, strings.Join(defs, ", ")))
		mustExec(t, db, fmt.Sprintf("INSERT INTO duck_%s VALUES %s", f.name, strings.Join(f.rows, ", ")))
		e.cat[f.name] = &TableInfo{Name: f.name, Columns: f.cols, FromSQL: "duck_" + f.name}
	}
	return e
}

func mustExec(t testing.TB, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// pgTypeSQL spells a fixture column type for PostgreSQL.
func pgTypeSQL(c ColumnInfo) string { return formatType(c.TypeOID, c.TypeMod, "") }

// newPG returns a connection to a fresh database of the reference server
// holding the fixtures (skips if no PostgreSQL is available).
func newPG(t testing.TB) *pgconn.PgConn {
	t.Helper()
	url := pgref.NewDatabase(t, pgref.Start(t))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	var ddl []string
	for _, f := range fixtures {
		var defs []string
		for _, col := range f.cols {
			defs = append(defs, quoteIdent(col.Name)+" "+pgTypeSQL(col))
		}
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (%s)", f.name, strings.Join(defs, ", ")),
			fmt.Sprintf("INSERT INTO %s VALUES %s", f.name, strings.Join(f.rows, ", ")))
	}
	ddl = append(ddl, "SET TimeZone = 'UTC'", "SET extra_float_digits = 1")
	if _, err := c.Exec(ctx, strings.Join(ddl, ";")).ReadAll(); err != nil {
		t.Fatal(err)
	}
	return c
}

// result is a query outcome normalised for comparison.
type result struct {
	cols []string
	oids []uint32
	rows [][]string
	// inferred are the translator's result types (Query.Columns; 0 =
	// unknown), oids the types DuckDB actually returned.
	inferred []uint32
	code     string // SQLSTATE if the query failed
	emsg     string
	epos     int    // error position (1-based), 0 = none
	detail   string // error DETAIL
	query    *Query
}

func runPG(t testing.TB, c *pgconn.PgConn, q string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := collectPG(c.ExecParams(ctx, q, nil, nil, nil, nil))
	if r.code == "XX000" && strings.HasPrefix(r.emsg, "client: ") {
		t.Fatalf("pg %s: %s", q, r.emsg)
	}
	return r
}

func collectPG(rr *pgconn.ResultReader) result {
	var r result
	for _, fd := range rr.FieldDescriptions() {
		r.cols = append(r.cols, fd.Name)
		r.oids = append(r.oids, fd.DataTypeOID)
	}
	for rr.NextRow() {
		var row []string
		for i, v := range rr.Values() {
			if v == nil {
				row = append(row, "NULL")
				continue
			}
			row = append(row, normPG(r.oids[i], string(v)))
		}
		r.rows = append(r.rows, row)
	}
	if _, err := rr.Close(); err != nil {
		var pe *pgconn.PgError
		if ok := asPgError(err, &pe); ok {
			r.code, r.emsg, r.epos, r.detail = pe.Code, pe.Message, int(pe.Position), pe.Detail
		} else {
			r.code, r.emsg = "XX000", "client: "+err.Error()
		}
	}
	return r
}

func asPgError(err error, target **pgconn.PgError) bool {
	pe, ok := err.(*pgconn.PgError)
	if ok {
		*target = pe
	}
	return ok
}

func normPG(oid uint32, s string) string {
	switch oid {
	case OIDBool:
		if s == "t" {
			return "true"
		}
		return "false"
	}
	if oid == 1007 || oid == 1016 || oid == 1009 || oid == 1005 {
		return s
	}
	return s
}

func runDuck(t testing.TB, e *env, q string) result {
	t.Helper()
	return runDuckCat(t, e, e.cat, q)
}

// runDuckCat is runDuck translating against cat (e.g. with settings).
func runDuckCat(t testing.TB, e *env, cat Catalog, q string) result {
	t.Helper()
	stmts, err := Parse(q)
	if err != nil {
		t.Fatalf("parse %s: %v", q, err)
	}
	if len(stmts) != 1 || stmts[0].Kind != KindSelect {
		t.Fatalf("%s: want one SELECT", q)
	}
	tq, err := TranslateQuery(stmts[0].Tree, cat, nil)
	if err != nil {
		return errResult(err)
	}
	r := result{query: tq}
	rows, err := e.db.Query(tq.SQL)
	if err != nil {
		return errResult(MapError(err, q))
	}
	defer rows.Close()
	cts, _ := rows.ColumnTypes()
	// The columns the client sees: the translation's, when it reports
	// fewer than the engine returns (SELECT FROM t has none).
	shown := len(cts)
	if tq.Columns != nil && len(tq.Columns) < shown {
		shown = len(tq.Columns)
	}
	for i, ct := range cts[:shown] {
		r.cols = append(r.cols, ct.Name())
		actual, _ := PGTypeOfDuckDB(ct.DatabaseTypeName())
		r.oids = append(r.oids, actual)
		inferred := uint32(0)
		if i < len(tq.Columns) {
			inferred = tq.Columns[i].TypeOID
		}
		r.inferred = append(r.inferred, inferred)
	}
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := []string{}
		for _, v := range vals[:shown] {
			row = append(row, normDuckTyped(v, r.oids[len(row)]))
		}
		r.rows = append(r.rows, row)
	}
	if err := rows.Err(); err != nil {
		return errResult(MapError(err, q))
	}
	return r
}

func errResult(err error) result {
	e, ok := pgerr.As(err)
	if !ok {
		return result{code: "XX000", emsg: err.Error()}
	}
	return result{code: e.Code, emsg: e.Message, epos: e.Position, detail: e.Detail}
}

func normDuckTyped(v any, oid uint32) string {
	// Values whose PostgreSQL text the server produces with pgtypes.
	switch x := v.(type) {
	case duckdb.Interval:
		b, err := pgtypes.AppendText(nil, OIDInterval, -1, pgtypes.Interval{Months: x.Months, Days: x.Days, Micros: x.Micros}, nil)
		if err == nil {
			return string(b)
		}
	case []byte:
		if oid == OIDBytea {
			return `\x` + hex.EncodeToString(x)
		}
	}
	if tm, ok := v.(time.Time); ok {
		switch oid {
		case OIDDate:
			return tm.Format("2006-01-02")
		case OIDTimestamptz:
			return tm.UTC().Format("2006-01-02 15:04:05.999999") + "+00"
		default:
			return tm.Format("2006-01-02 15:04:05.999999")
		}
	}
	return normDuck(v)
}

func normDuck(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.UTC().Format("2006-01-02 15:04:05.999999")
	case duckdb.Decimal:
		// With its scale, as the server prints it (1.50, not 1.5).
		return pgtypes.Numeric{Int: x.Value, Scale: int32(x.Scale)}.String()
	case *big.Int:
		return x.String()
	case float32:
		return floatText(float64(x), 32) // NaN, Infinity as PostgreSQL spells them
	case float64:
		return floatText(x, 64)
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, normDuck(e))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case duckdb.Interval:
		return fmt.Sprintf("%dmon %dd %dus", x.Months, x.Days, x.Micros)
	}
	return fmt.Sprint(v)
}

// sameValue compares two normalised values: numbers by value (floats with
// a relative tolerance of 1e-12), everything else as text.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	ra, ok1 := new(big.Rat).SetString(a)
	rb, ok2 := new(big.Rat).SetString(b)
	if ok1 && ok2 {
		if ra.Cmp(rb) == 0 {
			return true
		}
		fa, _ := ra.Float64()
		fb, _ := rb.Float64()
		return math.Abs(fa-fb) <= 1e-12*math.Max(math.Abs(fa), math.Abs(fb))
	}
	return false
}

func (r result) String() string {
	if r.code != "" {
		return fmt.Sprintf("ERROR %s: %s", r.code, r.emsg)
	}
	return fmt.Sprintf("cols=%v oids=%v rows=%v", r.cols, r.oids, r.rows)
}

// compare reports differences between PostgreSQL's and our result.
func compare(pg, dk result, unordered bool) string {
	if pg.code != "" || dk.code != "" {
		if pg.code != dk.code {
			return fmt.Sprintf("error mismatch: pg %q %s / duck %q %s", pg.code, pg.emsg, dk.code, dk.emsg)
		}
		if pg.emsg != dk.emsg {
			return fmt.Sprintf("error message mismatch: pg %q / duck %q", pg.emsg, dk.emsg)
		}
		return ""
	}
	if strings.Join(pg.cols, ",") != strings.Join(dk.cols, ",") {
		return fmt.Sprintf("column names: pg %v / duck %v", pg.cols, dk.cols)
	}
	for i := range pg.oids {
		if !sameType(pg.oids[i], dk.oids[i]) {
			return fmt.Sprintf("column %s type: pg %d / duckdb returned %d", pg.cols[i], pg.oids[i], dk.oids[i])
		}
		if i < len(dk.inferred) && dk.inferred[i] != 0 && dk.inferred[i] != pg.oids[i] {
			return fmt.Sprintf("column %s type: pg %d / translator inferred %d", pg.cols[i], pg.oids[i], dk.inferred[i])
		}
	}
	pr, dr := pg.rows, dk.rows
	if unordered {
		pr, dr = sortedRows(pr), sortedRows(dr)
	}
	if len(pr) != len(dr) {
		return fmt.Sprintf("row count: pg %d %v / duck %d %v", len(pr), pr, len(dr), dr)
	}
	for i := range pr {
		for j := range pr[i] {
			if !sameValue(pr[i][j], dr[i][j]) {
				return fmt.Sprintf("row %d col %s: pg %q / duck %q (pg rows %v, duck rows %v)", i, pg.cols[j], pr[i][j], dr[i][j], pr, dr)
			}
		}
	}
	return ""
}

func sortedRows(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}

// sameType accepts DuckDB's VARCHAR for PostgreSQL's varchar/bpchar/text
// (DuckDB has one string type; the text format is identical).
func sameType(pg, duck uint32) bool {
	if pg == duck {
		return true
	}
	// numeric text: exact division results (numdiv.go) travel as VARCHAR,
	// as does a regtype (pg_typeof); the translator's inferred type
	// (checked separately) says numeric or regtype.
	return duck == OIDText && (pg == OIDVarchar || pg == OIDBpchar || pg == OIDNumeric || pg == OIDRegType)
}
