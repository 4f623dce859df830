package server

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/txn"
	"github.com/bsdb/bsdb-pg/wal"
)

// Text that is not valid UTF-8, or holds a NUL, never enters a table: once
// stored, no reader could read the table again (DuckDB refuses it in the
// buffered rows and in Parquet). Every path refuses it as PostgreSQL 15
// does; the expected errors were taken from PostgreSQL 15 for the same
// input (psql -v VERBOSITY=verbose, and pgx for Bind and binary COPY).

// wantPgErr fails unless err is a PostgreSQL error with code, message and
// CONTEXT line.
func wantPgErr(t *testing.T, what string, err error, code, msg, where string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Errorf("%s: %v, want %s %s", what, err, code, msg)
		return
	}
	if pe.Code != code || pe.Message != msg || pe.Where != where {
		t.Errorf("%s: %s %q where %q; want %s %q where %q", what, pe.Code, pe.Message, pe.Where, code, msg, where)
	}
}

// readable checks that t can still be read whole and holds want rows.
func readable(t *testing.T, c *pgx.Conn, table string, want int) {
	t.Helper()
	got := queryStrings(t, c, "SELECT * FROM "+table)
	if len(got) != want {
		t.Fatalf("%s holds %d rows, want %d: %q", table, len(got), want, got)
	}
}

const invalidUTF8 = `invalid byte sequence for encoding "UTF8": `

// binaryCopy is a binary COPY stream of rows of text fields (nil = NULL).
func binaryCopy(rows ...[][]byte) []byte {
	b := []byte("PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, r := range rows {
		b = binary.BigEndian.AppendUint16(b, uint16(len(r)))
		for _, f := range r {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return append(b, 0xff, 0xff)
}

func TestCopyRefusesInvalidText(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE t (id int, s text, v varchar(10), j jsonb)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'ok', 'ok', '{}')")
	jsonb := func(s string) []byte { return append([]byte{1}, s...) }
	for _, tc := range []struct {
		name, sql string
		data      []byte
		msg       string
		where     string
	}{
		{"text raw", "COPY t (id, s) FROM STDIN", []byte("2\tok\n3\tbad\xff\xfe\n"), "0xff", "COPY t, line 2"},
		{"text raw in an int column", "COPY t (id, s) FROM STDIN", []byte("2\tok\n3\xff\tx\n"), "0xff", "COPY t, line 2"},
		{"text raw nul", "COPY t (id, s) FROM STDIN", []byte("2\tn\x00l\n"), "0x00", "COPY t, line 1"},
		{"text escaped", "COPY t (id, s) FROM STDIN", []byte("2\tok\n3\t\\xff\n"), "0xff", `COPY t, line 2: "3	\xff"`},
		{"text escaped nul", "COPY t (id, s) FROM STDIN", []byte("2\tnul\\0x\n"), "0x00", `COPY t, line 1: "2	nul\0x"`},
		{"text escaped varchar", "COPY t (id, v) FROM STDIN", []byte("2\t\\303\\050\n"), "0xc3 0x28", `COPY t, line 1: "2	\303\050"`},
		{"csv", "COPY t (id, s) FROM STDIN (FORMAT csv, HEADER)", []byte("id,s\n2,\"x\xc3\x28\"\n"), "0xc3 0x28", "COPY t, line 2"},
		{"csv quoted newline", "COPY t (id, s) FROM STDIN (FORMAT csv)", []byte("2,ok\n3,\"multi\nline\xff\"\n"), "0xff", "COPY t, line 3"},
		{"binary text", "COPY t (id, s) FROM STDIN (FORMAT binary)",
			binaryCopy([][]byte{{0, 0, 0, 2}, []byte("ok")}, [][]byte{{0, 0, 0, 3}, []byte("x\xffy")}), "0xff", "COPY t, line 2, column s"},
		{"binary text nul", "COPY t (id, s) FROM STDIN (FORMAT binary)",
			binaryCopy([][]byte{{0, 0, 0, 2}, []byte("a\x00b")}), "0x00", "COPY t, line 1, column s"},
		{"binary varchar", "COPY t (id, v) FROM STDIN (FORMAT binary)",
			binaryCopy([][]byte{{0, 0, 0, 2}, []byte("\xe2\x82")}), "0xe2 0x82", "COPY t, line 1, column v"},
		{"binary jsonb", "COPY t (id, j) FROM STDIN (FORMAT binary)",
			binaryCopy([][]byte{{0, 0, 0, 2}, jsonb(`"ok"`)}, [][]byte{{0, 0, 0, 3}, jsonb("\"\xff\"")}), "0xff", "COPY t, line 2, column j"},
	} {
		_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(string(tc.data)), tc.sql)
		wantPgErr(t, tc.name, err, "22021", invalidUTF8+tc.msg, tc.where)
		readable(t, c, "t", 1)
	}
	// The fused binary path (every column on a typed path) takes the same
	// error after many good rows.
	rows := make([][][]byte, 5000)
	for i := range rows {
		rows[i] = [][]byte{binary.BigEndian.AppendUint32(nil, uint32(i)), []byte(fmt.Sprintf("row %d é", i))}
	}
	rows = append(rows, [][]byte{{0, 0, 0, 9}, []byte("\xc0\xaf")})
	_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(string(binaryCopy(rows...))), "COPY t (id, s) FROM STDIN (FORMAT binary)")
	wantPgErr(t, "binary, fused path", err, "22021", invalidUTF8+"0xc0 0xaf", "COPY t, line 5001, column s")
	readable(t, c, "t", 1)
	// Valid multi-byte text goes in.
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader("2\tdéjà vu ✓ 𝄞\n"), "COPY t (id, s) FROM STDIN")
	if err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, c, "SELECT s FROM t WHERE id = 2"); len(got) != 1 || got[0] != "déjà vu ✓ 𝄞" {
		t.Fatalf("valid text: %q", got)
	}
}

// TestCopyRefusesInvalidTextWhole: a COPY large enough to stream into
// Parquet files while it runs, whose last line is not UTF-8, leaves
// nothing in the table, before or after a restart.
func TestCopyRefusesInvalidTextWhole(t *testing.T) {
	dir := t.TempDir()
	ts := startServerWith(t, dir, 200*time.Millisecond, func(b *Backend) { b.CopyDirectBytes = 64 << 10 })
	c := ts.conn(t)
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	var in strings.Builder
	const n = 3 * 122880 // three batches: the bulk load has begun when the bad line comes
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "%d\tsome text %d\n", i, i)
	}
	in.WriteString("0\tbad\xff\n")
	_, err := c.PgConn().CopyFrom(context.Background(), strings.NewReader(in.String()), "COPY t FROM STDIN")
	wantPgErr(t, "COPY", err, "22021", invalidUTF8+"0xff", fmt.Sprintf("COPY t, line %d", n+1))
	readable(t, c, "t", 0)
	c.Close(context.Background())
	ts.stop()
	ts = startServer(t, dir)
	readable(t, ts.conn(t), "t", 0)
}

// TestBindRefusesInvalidText: a Bind parameter in text format (of any
// type) or in binary format (of a text type) that is not UTF-8 or holds a
// NUL gets 22021 with PostgreSQL's CONTEXT line.
func TestBindRefusesInvalidText(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE t (id int, s text, j jsonb)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'ok', '{}')")
	// pgx sends a Go string for a text parameter in text format.
	_, err := c.Exec(ctx, "INSERT INTO t (s) VALUES ($1)", "bad\xff\xfe")
	wantPgErr(t, "pgx text", err, "22021", invalidUTF8+"0xff", "unnamed portal parameter $1")
	_, err = c.Exec(ctx, "INSERT INTO t (id, s) VALUES (2, $1)", "nul\x00x")
	wantPgErr(t, "pgx text nul", err, "22021", invalidUTF8+"0x00", "unnamed portal parameter $1")
	pc := c.PgConn()
	for _, tc := range []struct {
		name, sql string
		oid       uint32
		format    int16
		value     []byte
		msg       string
	}{
		{"text, binary format", "INSERT INTO t (s) VALUES ($1)", 25, 1, []byte("x\xc3\x28"), "0xc3 0x28"},
		{"text, binary format, nul", "INSERT INTO t (s) VALUES ($1)", 25, 1, []byte("\x00"), "0x00"},
		{"int, text format", "INSERT INTO t (id) VALUES ($1)", 23, 0, []byte("1\xff"), "0xff"},
		{"jsonb, binary format", "INSERT INTO t (j) VALUES ($1)", 3802, 1, []byte("\x01\"\xff\""), "0xff"},
		{"unknown, text format", "SELECT $1::text", 0, 0, []byte("\xed\xa0\x80"), "0xed 0xa0 0x80"},
	} {
		rr := pc.ExecParams(ctx, tc.sql, [][]byte{tc.value}, []uint32{tc.oid}, []int16{tc.format}, nil).Read()
		wantPgErr(t, tc.name, rr.Err, "22021", invalidUTF8+tc.msg, "unnamed portal parameter $1")
	}
	readable(t, c, "t", 1)
}

// TestQueryRefusesInvalidText: the query string itself (simple and
// extended protocol), escapes in literals, and the functions that make
// text from numbers or bytes.
func TestQueryRefusesInvalidText(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE t (id int, s text)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'ok')")
	// pgx's simple protocol puts the argument in the query string.
	_, err := c.Exec(ctx, "INSERT INTO t (s) VALUES ($1)", pgx.QueryExecModeSimpleProtocol, "bad\xff\xfe")
	wantPgErr(t, "simple protocol", err, "22021", invalidUTF8+"0xff", "")
	_, err = c.Exec(ctx, "INSERT INTO t (s) VALUES ('ok') -- \xff in a comment", pgx.QueryExecModeSimpleProtocol)
	wantPgErr(t, "comment, simple protocol", err, "22021", invalidUTF8+"0xff", "")
	_, err = c.Exec(ctx, "INSERT INTO t (s) VALUES ('ok') -- \xff in a comment")
	wantPgErr(t, "comment, Parse", err, "22021", invalidUTF8+"0xff", "")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		for _, tc := range []struct {
			sql, code, msg string
			pos            int32
		}{
			{`INSERT INTO t (s) VALUES (E'a\xffb')`, "22021", invalidUTF8 + "0xff", 0},
			{`INSERT INTO t (s) VALUES (E'a\000b')`, "22021", invalidUTF8 + "0x00", 0},
			{`INSERT INTO t (s) VALUES (U&'\0000')`, "42601", "invalid Unicode escape value", 30},
			{`INSERT INTO t (s) VALUES (chr(0))`, "54000", "null character not permitted", 0},
			{`INSERT INTO t (s) SELECT chr(0)`, "54000", "null character not permitted", 0},
			{`SELECT chr(55296)`, "54000", "requested character not valid for encoding: 55296", 0},
			{`SELECT chr(1114112)`, "54000", "requested character too large for encoding: 1114112", 0},
			{`INSERT INTO t (s) VALUES (convert_from('\xff'::bytea, 'UTF8'))`, "22021", invalidUTF8 + "0xff", 0},
			{`INSERT INTO t (s) SELECT convert_from('\x616200'::bytea, 'UTF8')`, "22021", invalidUTF8 + "0x00", 0},
		} {
			_, err := c.Exec(ctx, tc.sql, mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg || pe.Position != tc.pos {
				t.Errorf("%v %s: %v (position %d), want %s %s at %d", mode, tc.sql, err, errPosition(err), tc.code, tc.msg, tc.pos)
			}
		}
	}
	if got := queryStrings(t, c, "SELECT chr(233) || convert_from('\\x61c3a9'::bytea, 'UTF8')"); len(got) != 1 || got[0] != "éaé" {
		t.Errorf("valid chr, convert_from: %q", got)
	}
	readable(t, c, "t", 1)
}

func errPosition(err error) int32 {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Position
	}
	return -1
}

// TestFormatArgumentZero: format('%*0$s') was a Go panic that ended the
// session with FATAL XX000; PostgreSQL answers 22023.
func TestFormatArgumentZero(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		_, err := c.Exec(context.Background(), "SELECT format('%*0$s', 'Hello')", mode)
		wantPgErr(t, "format", err, "22023", "format specifies argument 0, but arguments are numbered from 1", "")
		if got := queryStrings(t, c, "SELECT format('%-*s|', 3, 'x')"); len(got) != 1 || got[0] != "x  |" {
			t.Fatalf("after the error: %q", got)
		}
	}
}

// TestArrayDimensionsLimit: an array literal or constructor nested deeper
// than MAXDIM (6) gets PostgreSQL's 54000, the literal with its position;
// nested 4,500 levels it used to kill the server.
func TestArrayDimensionsLimit(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	const msg = "number of array dimensions (7) exceeds the maximum allowed (6)"
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		for _, tc := range []struct {
			sql string
			pos int32
		}{
			{"SELECT '" + deep(7, "{", "}") + "'::int[]", 8},
			{"SELECT '" + deep(4500, "{", "}") + "'::int[]", 8},
			{"SELECT ARRAY" + deep(7, "[", "]"), 0},
			{"SELECT ARRAY" + deep(4500, "[", "]"), 0},
		} {
			_, err := c.Exec(ctx, tc.sql, mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "54000" || pe.Message != msg || pe.Position != tc.pos {
				t.Errorf("%v %.40s: %v (position %d), want 54000 at %d", mode, tc.sql, err, errPosition(err), tc.pos)
			}
		}
	}
	// A parameter: array_in of the Bind's text.
	rr := c.PgConn().ExecParams(ctx, "SELECT $1::int[]", [][]byte{[]byte(deep(7, "{", "}"))}, []uint32{1007}, nil, nil).Read()
	var pe *pgconn.PgError
	if !errors.As(rr.Err, &pe) || pe.Code != "54000" || pe.Message != msg {
		t.Errorf("Bind: %v", rr.Err)
	}
	// (Text results: a multi-dimensional literal's binary result is
	// another, older gap.)
	if got := queryStrings(t, c, "SELECT '"+deep(6, "{", "}")+"'::int[]", pgx.QueryExecModeSimpleProtocol); len(got) != 1 {
		t.Errorf("6 dimensions: %q", got)
	}
}

// TestVacuumFullRepairsText: a table whose data file holds text that is
// not valid UTF-8 (as versions before the input checks wrote it: the
// txn layer stores what it is given) cannot be read: the error names the
// file and the repair. VACUUM FULL rewrites the file with U+FFFD in place
// of the invalid bytes; the table is readable again, also after a restart.
func TestVacuumFullRepairsText(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE t (id int, s text, j json)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 'ok', '{}')")
	tb, err := ts.eng.Table(ctx, catalog.TableID{Database: "postgres", Schema: "public", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, tb.T.ArrowSchema())
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"bad\xff\xfe", "n\x00l"}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"\"\xc3\x28\"", `{}`}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	if _, err := tb.T.Write(ctx, []arrow.RecordBatch{rec}, txn.WriteOptions{Durability: wal.DurabilitySync}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	c.Close(ctx)
	ts.stop() // flushes into a Parquet file, bytes as they are
	ts = startServer(t, dir)
	c = ts.conn(t)
	_, err = c.Exec(ctx, "SELECT * FROM t")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX001" || !strings.HasPrefix(pe.Message, `invalid byte sequence for encoding "UTF8" in data file`) ||
		!strings.Contains(pe.Hint, "VACUUM FULL") {
		t.Fatalf("reading the bad file: %v", err)
	}
	_, err = c.Exec(ctx, "BEGIN; VACUUM FULL t", pgx.QueryExecModeSimpleProtocol)
	wantPgErr(t, "VACUUM FULL in a block", err, "25001", "VACUUM cannot run inside a transaction block", "")
	mustExec(t, c, "ROLLBACK")
	var notices []string
	cfg, err := pgx.ParseConfig(ts.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	c2, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	if tag, err := c2.Exec(ctx, "VACUUM FULL t"); err != nil || tag.String() != "VACUUM" {
		t.Fatalf("VACUUM FULL t: %q %v", tag, err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "3 text values") {
		t.Errorf("notices: %q", notices)
	}
	want := "1|ok|{};2|bad\uFFFD|\"\uFFFD(\";3|n\uFFFDl|{}"
	got := queryStrings(t, c, "SELECT id, s, j::text FROM t ORDER BY id")
	if strings.Join(got, ";") != want {
		t.Errorf("after VACUUM FULL: %q, want %q", got, want)
	}
	// Every table of the database, when none is named; nothing to do now.
	if tag, err := c2.Exec(ctx, "VACUUM (FULL)"); err != nil || tag.String() != "VACUUM" || len(notices) != 1 {
		t.Errorf("VACUUM (FULL): %q %v, notices %q", tag, err, notices)
	}
	c.Close(ctx)
	c2.Close(ctx)
	ts.stop()
	ts = startServer(t, dir)
	if got2 := queryStrings(t, ts.conn(t), "SELECT id, s, j::text FROM t ORDER BY id"); strings.Join(got2, ";") != strings.Join(got, ";") {
		t.Errorf("after a restart: %q, want %q", got2, got)
	}
}
