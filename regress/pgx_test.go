package regress

// End-to-end tests through pgx (extended protocol, binary formats, COPY,
// batches, cancel). Each check is a function of a URL: TestPgx runs them
// against bsdb-pg, TestPgxAgainstPostgres runs the same functions against
// the reference PostgreSQL so that every expectation written here is
// PostgreSQL's actual behaviour.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/bsdb/bsdb-pg/internal/pgref"
	"github.com/bsdb/bsdb-pg/internal/testserver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// e2eChecks are the server-independent end-to-end checks.
var e2eChecks = []struct {
	name string
	fn   func(t *testing.T, url string)
}{
	{"BinaryParamsEveryType", checkBinaryParamsEveryType},
	{"PreparedStatements", checkPreparedStatements},
	{"CopyFrom", checkCopyFrom},
	{"Batch", checkBatch},
	{"CancelRequest", checkCancelRequest},
	{"ContextTimeout", checkContextTimeout},
	{"StatementTimeout", checkStatementTimeout},
	{"ConcurrentSessions", checkConcurrentSessions},
	{"PreparedInsertFollowsCatalog", checkPreparedInsertFollowsCatalog},
	{"Template0RefusesConnections", checkTemplate0},
	{"ClockFunctions", checkClockFunctions},
	{"StartupOptions", checkStartupOptions},
	{"ParameterTypes", checkParameterTypes},
	{"CountWithoutColumns", checkCountWithoutColumns},
}

// checkCountWithoutColumns: statements that read no column (count(*),
// SELECT 1 FROM t) see exactly the rows the same statement reading a column
// sees: other sessions' acknowledged rows at once, the session's own
// uncommitted rows and nobody else's.
func checkCountWithoutColumns(t *testing.T, url string) {
	ctx := testContext(t)
	c1, c2 := connect(t, url), connect(t, url)
	mustExec(t, ctx, c1, "CREATE TABLE cwc (a int, b text)")
	counts := func(c *pgx.Conn) string {
		t.Helper()
		var out []string
		for _, q := range []string{
			"SELECT count(*) FROM cwc",
			"SELECT count(a) FROM cwc",
			"SELECT count(1) FROM cwc x",
			"SELECT count(*) FROM cwc WHERE false",
			"SELECT count(*) FROM (SELECT * FROM cwc) s",
			"SELECT count(*) FROM cwc c1, cwc c2",
			"SELECT count(*) FROM (SELECT 1 FROM cwc LIMIT 2) s",
		} {
			out = append(out, fmt.Sprint(queryInt(t, ctx, c, q)))
		}
		return strings.Join(out, " ")
	}
	check := func(c *pgx.Conn, when, want string) {
		t.Helper()
		if got := counts(c); got != want {
			t.Errorf("%s: counts %s, want %s", when, got, want)
		}
	}
	check(c2, "empty", "0 0 0 0 0 0 0")
	mustExec(t, ctx, c1, "INSERT INTO cwc VALUES (1, 'a'), (2, 'b'), (NULL, 'c')")
	check(c2, "after an autocommit INSERT, other session", "3 2 3 0 3 9 2")
	mustExec(t, ctx, c1, "BEGIN")
	mustExec(t, ctx, c1, "INSERT INTO cwc VALUES (4, 'd'), (5, 'e')")
	check(c1, "own uncommitted rows", "5 4 5 0 5 25 2")
	check(c2, "other session before COMMIT", "3 2 3 0 3 9 2")
	mustExec(t, ctx, c1, "COMMIT")
	check(c2, "after COMMIT", "5 4 5 0 5 25 2")
	var exists bool
	if err := c2.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM cwc)").Scan(&exists); err != nil || !exists {
		t.Errorf("EXISTS: %v %v", exists, err)
	}
}

// checkParameterTypes: Parse infers each undeclared parameter's type from
// its first coercion (ParameterDescription), and refuses inconsistent
// deductions with 42P08 at the bare reference that would have been text.
func checkParameterTypes(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	for _, c := range []struct {
		q      string
		params []uint32 // ParameterDescription
		err    string   // or "SQLSTATE message | detail @position"
	}{
		{q: "SELECT $1, $1::text", params: []uint32{25}},
		{q: "SELECT $1::int, $1::text", params: []uint32{23}},
		{q: "SELECT $1::text, $1::int", params: []uint32{25}},
		{q: "SELECT $1 + 1, $1", params: []uint32{23}},
		{q: "SELECT $1, $1", params: []uint32{25}},
		{q: "SELECT $1::int, $1", params: []uint32{23}},
		{q: "SELECT $1 IN (1, 2), $1::text", params: []uint32{23}},
		{q: "SELECT CASE WHEN true THEN $1 ELSE 1 END, $1 || 'x'", params: []uint32{23}},
		{q: "SELECT coalesce($1, 1), $1", params: []uint32{23}},
		{q: "SELECT $1 + 1.5, $1 + 1", params: []uint32{1700}},
		{q: "SELECT $1 UNION ALL SELECT $1 + 1", params: []uint32{23}},
		{q: "SELECT (SELECT $1), $1", params: []uint32{25}},
		{q: "SELECT $1::int, $2 || $1, 1 || $3", params: []uint32{23, 25, 25}},
		{q: "SELECT $1, $1 + 1", err: "42P08 inconsistent types deduced for parameter $1 | integer versus text @8"},
		{q: "SELECT $1 WHERE $1 = 1", err: "42P08 inconsistent types deduced for parameter $1 | integer versus text @8"},
		{q: "SELECT $1 LIMIT $1", err: "42P08 inconsistent types deduced for parameter $1 | bigint versus text @8"},
		{q: "SELECT $1, $1::varchar", err: "42P08 inconsistent types deduced for parameter $1 | character varying versus text @8"},
		{q: "SELECT 0, $1 ORDER BY $1 + 1", err: "42P08 inconsistent types deduced for parameter $1 | integer versus text @11"},
		{q: "SELECT $2, count($2 + 1)", err: "42P08 inconsistent types deduced for parameter $2 | integer versus text @8"},
		{q: "SELECT $1 = 'a', $1 + 1", err: "42883 operator does not exist: text + integer |  @21"},
		{q: "SELECT $1, $2::text, $2 || $1, $1 + 1", err: "42883 operator does not exist: text + integer |  @35"},
		{q: "SELECT $2::int", err: "42P18 could not determine data type of parameter $1 |  @0"},
		{q: "SELECT $1::int, $3::int", err: "42P18 could not determine data type of parameter $2 |  @0"},
	} {
		sd, err := conn.Prepare(ctx, "", c.q)
		got := ""
		if err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %v", c.q, err)
			}
			got = fmt.Sprintf("%s %s | %s @%d", pe.Code, pe.Message, pe.Detail, pe.Position)
		}
		if c.err != "" || got != "" {
			if got != c.err {
				t.Errorf("%s: %q, want %q", c.q, got, c.err)
			}
			continue
		}
		if fmt.Sprint(sd.ParamOIDs) != fmt.Sprint(c.params) {
			t.Errorf("%s: parameter types %v, want %v", c.q, sd.ParamOIDs, c.params)
		}
	}
	var i int
	var s string
	if err := conn.QueryRow(ctx, "SELECT $1::int, $1::text", 5).Scan(&i, &s); err != nil || i != 5 || s != "5" {
		t.Errorf("SELECT $1::int, $1::text with 5: %d %q %v", i, s, err)
	}
	var a, b string
	if err := conn.QueryRow(ctx, "SELECT $1, $1::text", "abc").Scan(&a, &b); err != nil || a != "abc" || b != "abc" {
		t.Errorf("SELECT $1, $1::text with abc: %q %q %v", a, b, err)
	}
	// The session is usable after the errors.
	if got := queryInt(t, ctx, conn, "SELECT 1"); got != 1 {
		t.Errorf("SELECT 1 = %d", got)
	}
}

// connectOptions connects to url with the startup parameter options set
// (libpq's PGOPTIONS) and the runtime parameters extra.
func connectOptions(ctx context.Context, t *testing.T, url, options string, extra map[string]string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["options"] = options
	for k, v := range extra {
		cfg.RuntimeParams[k] = v
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

// checkStartupOptions: the startup parameter "options" (PGOPTIONS,
// options=... in a connection string) is a backend command line whose
// -c name=value and --name=value settings apply to the session, before
// the packet's other parameters (which win); a bad one refuses the
// connection with FATAL and the setting's own error.
func checkStartupOptions(t *testing.T, url string) {
	ctx := testContext(t)
	admin := connect(t, url)
	mustExec(t, ctx, admin, "CREATE SCHEMA so_s1")
	mustExec(t, ctx, admin, "CREATE TABLE so_s1.so_t (a integer)")
	mustExec(t, ctx, admin, "INSERT INTO so_s1.so_t VALUES (42)")

	conn, err := connectOptions(ctx, t, url,
		`-c search_path=so_s1,\ public -c synchronous_commit=local --DateStyle=German --extra-float-digits=0 -c application_name=from_options`,
		map[string]string{"application_name": "explicit"})
	if err != nil {
		t.Fatalf("connect with options: %v", err)
	}
	for _, c := range []struct{ setting, want string }{
		{"search_path", "so_s1, public"},
		{"synchronous_commit", "local"},
		{"DateStyle", "German, DMY"},
		{"extra_float_digits", "0"},
		{"application_name", "explicit"},
	} {
		var got string
		if err := conn.QueryRow(ctx, "SHOW "+c.setting).Scan(&got); err != nil {
			t.Fatalf("SHOW %s: %v", c.setting, err)
		}
		if got != c.want {
			t.Errorf("SHOW %s = %q, want %q", c.setting, got, c.want)
		}
	}
	if got := queryInt(t, ctx, conn, "SELECT a FROM so_t"); got != 42 {
		t.Errorf("so_t through search_path from options: %d, want 42", got)
	}
	mustExec(t, ctx, conn, "INSERT INTO so_t VALUES (43)")
	if got := queryInt(t, ctx, admin, "SELECT count(*) FROM so_s1.so_t"); got != 2 {
		t.Errorf("rows in so_s1.so_t: %d, want 2", got)
	}

	for _, c := range []struct{ options, code, msg string }{
		{"-c nosuch=1", "42704", `unrecognized configuration parameter "nosuch"`},
		{"-c synchronous_commit=local --nosuch-either=1", "42704", `unrecognized configuration parameter "nosuch_either"`},
		{"-c statement_timeout=bogus", "22023", `invalid value for parameter "statement_timeout": "bogus"`},
		{"-c server_version=1", "55P02", `parameter "server_version" cannot be changed`},
		{"-c noequals", "42601", "-c noequals requires a value"},
		{"foo", "42601", "invalid command-line argument for server process: foo"},
		{"-c", "42601", "invalid command-line argument for server process: -c"},
	} {
		_, err := connectOptions(ctx, t, url, c.options, nil)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Errorf("options %q: %v, want FATAL %s", c.options, err, c.code)
			continue
		}
		if pe.Severity != "FATAL" || pe.Code != c.code || pe.Message != c.msg {
			t.Errorf("options %q: %s %s %q, want FATAL %s %q", c.options, pe.Severity, pe.Code, pe.Message, c.code, c.msg)
		}
	}
}

// checkClockFunctions: now(), current_timestamp and transaction_timestamp()
// are the transaction's start (constant in a block), statement_timestamp()
// the statement's, clock_timestamp() the wall clock; the SQL value
// functions run and are named as in PostgreSQL; column defaults and VALUES
// items calling now() store each execution's own time, also through a
// prepared INSERT (bsdb-pg caches their translation).
func checkClockFunctions(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	rows, err := conn.Query(ctx, "SELECT current_timestamp, current_date, localtimestamp, localtime, current_time, now(), transaction_timestamp(), statement_timestamp(), clock_timestamp()")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := "[current_timestamp current_date localtimestamp localtime current_time now transaction_timestamp statement_timestamp clock_timestamp]"
	if fmt.Sprint(names) != want {
		t.Errorf("column names %v, want %s", names, want)
	}
	mustExec(t, ctx, conn, "CREATE TABLE clk (id integer, ts timestamptz DEFAULT now(), d date DEFAULT current_date, n integer DEFAULT 7)")
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var t1, t2, st, ck time.Time
	var same bool
	if err := tx.QueryRow(ctx, "SELECT now()").Scan(&t1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := tx.QueryRow(ctx, "SELECT now(), statement_timestamp(), clock_timestamp(), now() = current_timestamp AND now() = transaction_timestamp()").Scan(&t2, &st, &ck, &same); err != nil {
		t.Fatal(err)
	}
	if !t2.Equal(t1) || !same {
		t.Errorf("now() moved inside a transaction: %v then %v (now = current_timestamp = transaction_timestamp: %v)", t1, t2, same)
	}
	if st.Sub(t1) < 40*time.Millisecond || ck.Before(st) {
		t.Errorf("statement_timestamp %v and clock_timestamp %v after a transaction that started at %v", st, ck, t1)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO clk (id) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO clk VALUES (2, now(), DEFAULT, DEFAULT)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM clk WHERE ts = now() AND d = current_date AND n = 7").Scan(&n); err != nil || n != 2 {
		t.Errorf("rows stamped with the transaction's now(): %d (%v), want 2", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO clk (id) VALUES ($1)", "INSERT INTO clk VALUES ($1, now())", "INSERT INTO clk VALUES ($1, current_timestamp, current_date)"} {
		if _, err := conn.Prepare(ctx, "clk_ins", q); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			mustExec(t, ctx, conn, "clk_ins", 10+i)
			time.Sleep(20 * time.Millisecond)
		}
		var distinct int
		var later bool
		if err := conn.QueryRow(ctx, "SELECT count(DISTINCT ts), max(ts) FILTER (WHERE id = 11) > max(ts) FILTER (WHERE id = 10) FROM clk WHERE id >= 10").Scan(&distinct, &later); err != nil {
			t.Fatal(err)
		}
		if distinct != 2 || !later {
			t.Errorf("%s executed twice 20 ms apart: %d distinct timestamps (second later: %v), want 2", q, distinct, later)
		}
		if err := conn.Deallocate(ctx, "clk_ins"); err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, conn, "TRUNCATE clk")
	}
}

// checkTemplate0: template0 is listed in pg_database but refuses
// connections with FATAL 55000, as in PostgreSQL.
func checkTemplate0(t *testing.T, url string) {
	ctx := testContext(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = "template0"
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		c.Close(ctx)
		t.Fatal("connected to template0")
	}
	if got := sqlState(err); got != "55000" {
		t.Errorf("connect to template0: SQLSTATE %q (%v), want 55000", got, err)
	}
}

// checkPreparedInsertFollowsCatalog executes one prepared INSERT while
// search_path and the target table change under it: each execution goes to
// the table the name means at that moment (bsdb-pg caches the translation
// of prepared INSERTs and must notice).
func checkPreparedInsertFollowsCatalog(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "CREATE SCHEMA pi_s1")
	mustExec(t, ctx, conn, "CREATE TABLE public.pi (a integer)")
	mustExec(t, ctx, conn, "CREATE TABLE pi_s1.pi (a integer)")
	if _, err := conn.Prepare(ctx, "pi_ins", "INSERT INTO pi VALUES ($1)"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, conn, "pi_ins", 1)
	mustExec(t, ctx, conn, "SET search_path = pi_s1, public")
	mustExec(t, ctx, conn, "pi_ins", 2)
	mustExec(t, ctx, conn, "DROP TABLE pi_s1.pi")
	mustExec(t, ctx, conn, "CREATE TABLE pi_s1.pi (a integer, b text DEFAULT 'dflt')")
	mustExec(t, ctx, conn, "pi_ins", 3)
	mustExec(t, ctx, conn, "RESET search_path")
	mustExec(t, ctx, conn, "pi_ins", 4)
	var got []string
	rows, err := conn.Query(ctx, "SELECT 'public', a::text FROM public.pi UNION ALL SELECT 's1', a::text || ' ' || b FROM pi_s1.pi ORDER BY 1, 2")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s, a string
		if err := rows.Scan(&s, &a); err != nil {
			t.Fatal(err)
		}
		got = append(got, s+":"+a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"public:1", "public:4", "s1:3 dflt"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
}

func TestPgx(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	srv := testserver.Start(t, testserver.Options{Env: []string{"BSDB_WAL_DURABILITY=sync"}})
	for _, c := range e2eChecks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, srv.URL) })
	}
}

func TestPgxAgainstPostgres(t *testing.T) {
	if *update {
		t.Skip("-update regenerates expected files only")
	}
	base := *pgURL
	if base == "" {
		base = pgref.Start(t)
	}
	for _, c := range e2eChecks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, freshDatabase(t, base)) })
	}
}

const e2eTimeout = 2 * time.Minute

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	t.Cleanup(cancel)
	return ctx
}

func mustExec(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func queryInt(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// sqlState returns the SQLSTATE of a server error, or "".
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func numericRat(n pgtype.Numeric) *big.Rat {
	r := new(big.Rat).SetInt(n.Int)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n.Exp))), nil)
	if n.Exp >= 0 {
		return r.Mul(r, new(big.Rat).SetInt(p))
	}
	return r.Quo(r, new(big.Rat).SetInt(p))
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// checkBinaryParamsEveryType writes one value of every supported column
// type as a binary parameter, reads it back in binary (pgx's default for
// known types) and as text (::text, PostgreSQL's canonical output).
func checkBinaryParamsEveryType(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "SET TimeZone = 'UTC'")
	mustExec(t, ctx, conn, `CREATE TABLE pgx_types (
		c_smallint smallint, c_integer integer, c_bigint bigint, c_real real,
		c_double double precision, c_numeric numeric(10,2), c_text text, c_varchar varchar(10),
		c_char char(4), c_boolean boolean, c_date date, c_time time, c_timestamp timestamp,
		c_timestamptz timestamptz, c_interval interval, c_bytea bytea, c_uuid uuid,
		c_json json, c_jsonb jsonb)`)
	uuid := pgtype.UUID{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true}
	cases := []struct {
		col  string
		in   any
		text string // ::text on the server
	}{
		{"c_smallint", int16(-32768), "-32768"},
		{"c_integer", int32(2147483647), "2147483647"},
		{"c_bigint", int64(-9223372036854775808), "-9223372036854775808"},
		{"c_real", float32(1.5), "1.5"},
		{"c_double", 3.141592653589793, "3.141592653589793"},
		{"c_numeric", pgtype.Numeric{Int: big.NewInt(-1234567), Exp: -2, Valid: true}, "-12345.67"},
		{"c_text", "héllo\tworld", "héllo\tworld"},
		{"c_varchar", "abc", "abc"},
		{"c_char", "ab", "ab"},
		{"c_boolean", true, "true"},
		{"c_date", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "2024-02-29"},
		{"c_time", pgtype.Time{Microseconds: (13*3600+45*60+30)*1e6 + 123456, Valid: true}, "13:45:30.123456"},
		{"c_timestamp", time.Date(2024, 1, 15, 13, 45, 30, 123456000, time.UTC), "2024-01-15 13:45:30.123456"},
		{"c_timestamptz", time.Date(2024, 7, 4, 6, 7, 8, 0, time.FixedZone("", 2*3600)), "2024-07-04 04:07:08+00"},
		{"c_interval", pgtype.Interval{Months: 14, Days: 3, Microseconds: (4*3600 + 5*60 + 6) * 1e6, Valid: true}, "1 year 2 mons 3 days 04:05:06"},
		{"c_bytea", []byte{0xde, 0xad, 0x00, 0xff}, `\xdead00ff`},
		{"c_uuid", uuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"c_json", `{"b": 1, "a": [1, 2]}`, `{"b": 1, "a": [1, 2]}`},
		{"c_jsonb", `{"b": 1, "a": [1, 2]}`, `{"a": [1, 2], "b": 1}`},
	}
	cols := make([]string, len(cases))
	params := make([]string, len(cases))
	args := make([]any, len(cases))
	nulls := make([]any, len(cases))
	for i, c := range cases {
		cols[i], params[i], args[i] = c.col, fmt.Sprintf("$%d", i+1), c.in
	}
	insert := fmt.Sprintf("INSERT INTO pgx_types (%s) VALUES (%s)", strings.Join(cols, ", "), strings.Join(params, ", "))
	mustExec(t, ctx, conn, insert, args...)
	mustExec(t, ctx, conn, insert, nulls...)

	// text output of each stored value
	for _, c := range cases {
		var got string
		if err := conn.QueryRow(ctx, "SELECT "+c.col+"::text FROM pgx_types WHERE "+c.col+" IS NOT NULL").Scan(&got); err != nil {
			t.Errorf("%s::text: %v", c.col, err)
			continue
		}
		if got != c.text {
			t.Errorf("%s::text = %q, want %q", c.col, got, c.text)
		}
	}

	// binary results scanned back into the Go types
	var (
		s       int16
		i       int32
		b       int64
		r       float32
		d       float64
		n       pgtype.Numeric
		txt, vc string
		ch      string
		bo      bool
		date    time.Time
		tm      pgtype.Time
		ts, tz  time.Time
		iv      pgtype.Interval
		by      []byte
		u       pgtype.UUID
		js, jb  string
	)
	err := conn.QueryRow(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM pgx_types WHERE c_integer IS NOT NULL").
		Scan(&s, &i, &b, &r, &d, &n, &txt, &vc, &ch, &bo, &date, &tm, &ts, &tz, &iv, &by, &u, &js, &jb)
	if err != nil {
		t.Fatalf("binary select: %v", err)
	}
	if s != -32768 || i != 2147483647 || b != -9223372036854775808 || r != 1.5 || d != 3.141592653589793 {
		t.Errorf("integers/floats: %d %d %d %v %v", s, i, b, r, d)
	}
	if numericRat(n).Cmp(big.NewRat(-1234567, 100)) != 0 {
		t.Errorf("numeric = %v e%d, want -12345.67", n.Int, n.Exp)
	}
	if txt != "héllo\tworld" || vc != "abc" || ch != "ab  " || !bo {
		t.Errorf("text/varchar/char/bool: %q %q %q %v (char(4) is blank-padded)", txt, vc, ch, bo)
	}
	if !date.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) || tm != cases[11].in.(pgtype.Time) {
		t.Errorf("date/time: %v %v", date, tm)
	}
	if !ts.Equal(cases[12].in.(time.Time)) || !tz.Equal(cases[13].in.(time.Time)) {
		t.Errorf("timestamp/timestamptz: %v %v", ts, tz)
	}
	if iv != cases[14].in.(pgtype.Interval) || string(by) != "\xde\xad\x00\xff" || u != uuid {
		t.Errorf("interval/bytea/uuid: %+v %x %v", iv, by, u)
	}
	if js != `{"b": 1, "a": [1, 2]}` || jb != `{"a": [1, 2], "b": 1}` {
		t.Errorf("json/jsonb: %q %q", js, jb)
	}

	// the all-NULL row
	rows, err := conn.Query(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM pgx_types WHERE c_integer IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	nrows := 0
	for rows.Next() {
		nrows++
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range vals {
			if v != nil {
				t.Errorf("NULL parameter for %s stored as %v", cols[k], v)
			}
		}
	}
	if err := rows.Err(); err != nil || nrows != 1 {
		t.Fatalf("NULL row: %d rows, %v", nrows, err)
	}

	// the same values as parameters of a WHERE clause (binary comparison)
	var where []string
	var whereArgs []any
	for k, c := range cases {
		if c.col == "c_json" { // json has no equality operator in PostgreSQL
			continue
		}
		whereArgs = append(whereArgs, args[k])
		where = append(where, fmt.Sprintf("%s = $%d", c.col, len(whereArgs)))
	}
	filter := "SELECT count(*) FROM pgx_types WHERE " + strings.Join(where, " AND ")
	if got := queryInt(t, ctx, conn, filter, whereArgs...); got != 1 {
		t.Errorf("row found by binary parameters of every type: %d, want 1", got)
	}
}

// checkPreparedStatements uses named statements, a re-used statement with
// new parameters, the describe path and the simple protocol.
func checkPreparedStatements(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "CREATE TABLE pgx_prep (id bigint, name text)")
	if _, err := conn.Prepare(ctx, "ins", "INSERT INTO pgx_prep VALUES ($1, $2)"); err != nil {
		t.Fatal(err)
	}
	for k := int64(1); k <= 5; k++ {
		if _, err := conn.Exec(ctx, "ins", k, fmt.Sprintf("n%d", k)); err != nil {
			t.Fatalf("execute prepared: %v", err)
		}
	}
	sd, err := conn.Prepare(ctx, "sel", "SELECT id, name FROM pgx_prep WHERE id >= $1 ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != pgtype.Int8OID {
		t.Errorf("parameter types %v, want [int8]", sd.ParamOIDs)
	}
	if len(sd.Fields) != 2 || sd.Fields[0].DataTypeOID != pgtype.Int8OID || sd.Fields[1].DataTypeOID != pgtype.TextOID {
		t.Errorf("row description %+v, want (int8, text)", sd.Fields)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		rows, err := conn.Query(ctx, "SELECT id, name FROM pgx_prep WHERE id >= $1 ORDER BY id", mode, int64(4))
		if err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			var id int64
			var name string
			err := r.Scan(&id, &name)
			return fmt.Sprintf("%d:%s", id, name), err
		})
		if err != nil || strings.Join(got, ",") != "4:n4,5:n5" {
			t.Errorf("mode %v: %v %v", mode, got, err)
		}
	}
	// an INSERT ... RETURNING through the extended protocol
	var id int64
	var name string
	if err := conn.QueryRow(ctx, "INSERT INTO pgx_prep VALUES ($1, $2) RETURNING id, upper(name)", int64(6), "six").Scan(&id, &name); err != nil || id != 6 || name != "SIX" {
		t.Errorf("RETURNING: %d %q %v", id, name, err)
	}
	// an error in the extended protocol leaves the session usable
	if _, err := conn.Exec(ctx, "SELECT $1::integer / 0", int32(1)); sqlState(err) != "22012" {
		t.Errorf("division by zero: %v, want 22012", err)
	}
	if got := queryInt(t, ctx, conn, "SELECT count(*) FROM pgx_prep"); got != 6 {
		t.Errorf("count after error = %d, want 6", got)
	}
}

// checkCopyFrom loads rows with pgx.CopyFrom (binary COPY) and reads them
// back.
func checkCopyFrom(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "CREATE TABLE pgx_copy (id bigint, name text, amount double precision, at timestamptz, note text)")
	const n = 10000
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"pgx_copy"}, []string{"id", "name", "amount", "at", "note"},
		pgx.CopyFromSlice(n, func(k int) ([]any, error) {
			var note any
			if k%10 == 0 {
				note = "tenth"
			}
			return []any{int64(k), fmt.Sprintf("row %d", k), float64(k) / 4, base.Add(time.Duration(k) * time.Second), note}, nil
		}))
	if err != nil {
		t.Fatalf("CopyFrom: %v", err)
	}
	if copied != n {
		t.Fatalf("CopyFrom reported %d rows, want %d", copied, n)
	}
	var count, sum, notes int64
	var amount float64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(id), count(note), sum(amount) FROM pgx_copy").Scan(&count, &sum, &notes, &amount); err != nil {
		t.Fatal(err)
	}
	if count != n || sum != n*(n-1)/2 || notes != n/10 || amount != float64(n*(n-1)/2)/4 {
		t.Errorf("after CopyFrom: count %d sum %d notes %d amount %v", count, sum, notes, amount)
	}
	var name string
	var at time.Time
	if err := conn.QueryRow(ctx, "SELECT name, at FROM pgx_copy WHERE id = $1", int64(4321)).Scan(&name, &at); err != nil {
		t.Fatal(err)
	}
	if name != "row 4321" || !at.Equal(base.Add(4321*time.Second)) {
		t.Errorf("row 4321 = %q %v", name, at)
	}
	// a column list naming an unknown column fails and copies nothing
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"pgx_copy"}, []string{"id", "nosuch"}, pgx.CopyFromRows([][]any{{int64(1), "x"}}))
	if err == nil {
		t.Errorf("CopyFrom into an unknown column succeeded")
	}
	if got := queryInt(t, ctx, conn, "SELECT count(*) FROM pgx_copy"); got != n {
		t.Errorf("count after failed CopyFrom = %d, want %d", got, n)
	}
}

// checkBatch sends several statements in one round trip; a batch is one
// implicit transaction, so an error inside it discards its earlier writes.
func checkBatch(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	mustExec(t, ctx, conn, "CREATE TABLE pgx_batch (id integer, v text)")
	b := &pgx.Batch{}
	for k := int32(1); k <= 3; k++ {
		b.Queue("INSERT INTO pgx_batch VALUES ($1, $2)", k, fmt.Sprint("v", k))
	}
	b.Queue("SELECT count(*) FROM pgx_batch")
	b.Queue("INSERT INTO pgx_batch VALUES ($1, $2) RETURNING id * 10", int32(4), "v4")
	br := conn.SendBatch(ctx, b)
	for k := 0; k < 3; k++ {
		tag, err := br.Exec()
		if err != nil || tag.String() != "INSERT 0 1" {
			t.Fatalf("batch insert %d: %q %v", k, tag, err)
		}
	}
	var count int64
	if err := br.QueryRow().Scan(&count); err != nil || count != 3 {
		t.Errorf("count inside batch = %d %v, want 3 (a batch sees its own writes)", count, err)
	}
	var ret int32
	if err := br.QueryRow().Scan(&ret); err != nil || ret != 40 {
		t.Errorf("RETURNING in batch = %d %v", ret, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

	b = &pgx.Batch{}
	b.Queue("INSERT INTO pgx_batch VALUES ($1, $2)", int32(5), "lost")
	b.Queue("SELECT 1 / $1::integer", int32(0))
	b.Queue("INSERT INTO pgx_batch VALUES ($1, $2)", int32(6), "skipped")
	br = conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		t.Fatalf("first statement of failing batch: %v", err)
	}
	if _, err := br.Exec(); sqlState(err) != "22012" {
		t.Errorf("division by zero in batch: %v", err)
	}
	br.Close()
	if got := queryInt(t, ctx, conn, "SELECT count(*) FROM pgx_batch"); got != 4 {
		t.Errorf("rows after failed batch = %d, want 4 (the batch is one transaction)", got)
	}
}

// makeSlowTable creates a table of 4000 rows and returns a query over it
// that runs for minutes on any engine: a three-way cross join (6.4e10
// combinations) with a filter that keeps none. The checks share one server,
// so each names its own table.
func makeSlowTable(t *testing.T, ctx context.Context, conn *pgx.Conn, name string) (query string) {
	t.Helper()
	mustExec(t, ctx, conn, "CREATE TABLE "+name+" (x integer)")
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{name}, []string{"x"}, pgx.CopyFromSlice(4000, func(k int) ([]any, error) {
		return []any{int32(k)}, nil
	})); err != nil {
		t.Fatalf("CopyFrom: %v", err)
	}
	return fmt.Sprintf("SELECT count(*) FROM %[1]s a, %[1]s b, %[1]s c WHERE a.x + b.x + c.x < 0", name)
}

// checkCancelRequest: a CancelRequest on a second connection stops the
// running statement with 57014 and the session stays usable.
func checkCancelRequest(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	expensiveQuery := makeSlowTable(t, ctx, conn, "pgx_slow_cancel")
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := conn.Exec(ctx, expensiveQuery)
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	other := connect(t, url) // just to prove the server serves others meanwhile
	if got := queryInt(t, ctx, other, "SELECT 1"); got != 1 {
		t.Errorf("SELECT 1 on another session = %d", got)
	}
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatalf("CancelRequest: %v", err)
	}
	select {
	case err := <-done:
		if sqlState(err) != "57014" {
			t.Fatalf("cancelled statement returned %v, want SQLSTATE 57014", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("statement still running 15 s after CancelRequest (started %v ago)", time.Since(start))
	}
	if got := queryInt(t, ctx, conn, "SELECT count(*) FROM pgx_slow_cancel"); got != 4000 {
		t.Errorf("session after cancel: count = %d", got)
	}
}

// checkContextTimeout: pgx turns a context deadline into a CancelRequest;
// the call returns promptly and the server keeps serving.
func checkContextTimeout(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	expensiveQuery := makeSlowTable(t, ctx, conn, "pgx_slow_ctx")
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := conn.Exec(qctx, expensiveQuery)
	if err == nil {
		t.Fatalf("expensive query finished within its 500 ms deadline")
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("query returned %v after its 500 ms deadline", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) && sqlState(err) != "57014" {
		t.Errorf("error %v, want a deadline or 57014", err)
	}
	fresh := connect(t, url)
	if got := queryInt(t, ctx, fresh, "SELECT count(*) FROM pgx_slow_ctx"); got != 4000 {
		t.Errorf("new session after timeout: count = %d", got)
	}
}

// checkStatementTimeout: SET statement_timeout cancels a long statement
// with 57014 on the server side.
func checkStatementTimeout(t *testing.T, url string) {
	ctx := testContext(t)
	conn := connect(t, url)
	expensiveQuery := makeSlowTable(t, ctx, conn, "pgx_slow_timeout")
	mustExec(t, ctx, conn, "SET statement_timeout = '300ms'")
	start := time.Now()
	_, err := conn.Exec(ctx, expensiveQuery)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || pgErr.Message != "canceling statement due to statement timeout" {
		t.Fatalf("statement over statement_timeout returned %v, want 57014 canceling statement due to statement timeout", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("statement_timeout 300ms took %v", d)
	}
	mustExec(t, ctx, conn, "SET statement_timeout = 0")
	if got := queryInt(t, ctx, conn, "SELECT count(*) FROM pgx_slow_timeout"); got != 4000 {
		t.Errorf("session after statement_timeout: count = %d", got)
	}
}
