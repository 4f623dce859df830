package pgtypes

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/jackc/pgx/v5/pgconn"
)

const copyTable = `CREATE TEMP TABLE copytest(id int, t text, b bytea, n numeric, ts timestamptz, f float8, v varchar(10));
INSERT INTO copytest VALUES
 (1, 'plain', '\x00ff', 1.50, '2024-01-02 03:04:05.5+00', 1.5, 'x'),
 (2, E'tab\there', '\x5c', -0.001, '0001-01-01 00:00:00+00 BC', 'NaN', ''),
 (3, E'new\nline and \r cr', '', 'NaN', 'infinity', '-Infinity', NULL),
 (4, E'back\\slash \\N', NULL, NULL, NULL, NULL, 'a,b'),
 (5, '', 'abc', 0, '2000-01-01', 0, '"q"'),
 (6, NULL, E'\\x0a0d09', 1e20, '1999-12-31 23:59:59+05', 1e-7, E'\\.'),
 (7, E'\\.', 'x', 3, '2020-02-29 12:00:00+00', 3, 'x'),
 (8, 'comma, "quote" ''apos'' |pipe|', 'y', 4, '2020-02-29 12:00:00+00', 4, 'ü'),
 (9, E'\\N', 'z', 5, '2020-02-29 12:00:00+00', 5, E'\x01\x7f'),
 (10, E'multi\nline\n"quoted"\n', 'z', 5, '2020-02-29 12:00:00+00', 5, 'NULL')`

var copyCols = []string{"id", "t", "b", "n", "ts", "f", "v"}

func selectRows(t *testing.T, c *pgconn.PgConn, format int16) [][][]byte {
	t.Helper()
	rr := c.ExecParams(context.Background(), "SELECT * FROM copytest ORDER BY id", nil, nil, nil, []int16{format})
	var rows [][][]byte
	for rr.NextRow() {
		var row [][]byte
		for _, v := range rr.Values() {
			if v == nil {
				row = append(row, nil)
			} else {
				row = append(row, append([]byte{}, v...))
			}
		}
		rows = append(rows, row)
	}
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func copyOut(t *testing.T, c *pgconn.PgConn, opts string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := c.CopyTo(context.Background(), &buf, "COPY (SELECT * FROM copytest ORDER BY id) TO STDOUT "+opts); err != nil {
		t.Fatalf("COPY TO %s: %v", opts, err)
	}
	return buf.Bytes()
}

func sameRows(a, b [][][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if (a[i][j] == nil) != (b[i][j] == nil) || !bytes.Equal(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

func readAll(t *testing.T, data []byte, o CopyOptions, ncols int) [][][]byte {
	t.Helper()
	cr, err := NewCopyReader(bytes.NewReader(data), o, ncols)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][][]byte
	for {
		f, err := cr.Next()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatalf("line %d: %v", cr.Line(), err)
		}
		row := make([][]byte, len(f))
		for i, v := range f {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		rows = append(rows, row)
	}
}

// TestCopyMatchesPostgres: our writer reproduces PostgreSQL's COPY TO bytes
// from the row values, our reader recovers the row values from them, and
// PostgreSQL's COPY FROM accepts our output as the same rows.
func TestCopyMatchesPostgres(t *testing.T) {
	c := refConn(t)
	refExec(t, c, "SET TimeZone = 'UTC'")
	refExec(t, c, copyTable)
	textRows := selectRows(t, c, 0)
	binRows := selectRows(t, c, 1)
	null, nilStr := "NULL", "NIL"
	cases := []struct {
		sql  string
		opts CopyOptions
	}{
		{"", CopyOptions{}},
		{"(FORMAT text, HEADER)", CopyOptions{Header: true}},
		{"(FORMAT text, DELIMITER '|', NULL 'NIL')", CopyOptions{Delimiter: '|', Null: &nilStr}},
		{"(FORMAT csv)", CopyOptions{Format: CopyCSV}},
		{"(FORMAT csv, HEADER)", CopyOptions{Format: CopyCSV, Header: true}},
		{"(FORMAT csv, DELIMITER ';', QUOTE '''', ESCAPE '\\', NULL 'NULL')", CopyOptions{Format: CopyCSV, Delimiter: ';', Quote: '\'', Escape: '\\', Null: &null}},
		{"(FORMAT csv, FORCE_QUOTE *)", CopyOptions{Format: CopyCSV, ForceQuoteAll: true}},
		{"(FORMAT csv, FORCE_QUOTE (t, v))", CopyOptions{Format: CopyCSV, ForceQuote: []bool{false, true, false, false, false, false, true}}},
		{"(FORMAT binary)", CopyOptions{Format: CopyBinary}},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			want := copyOut(t, c, tc.sql)
			rows := textRows
			if tc.opts.Format == CopyBinary {
				rows = binRows
			}
			cw, err := NewCopyWriter(nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := cw.AppendHeader(nil, copyCols)
			for _, r := range rows {
				got = cw.AppendRow(got, r)
			}
			got = cw.AppendTrailer(got)
			if !bytes.Equal(got, want) {
				t.Errorf("writer output differs\n got %q\nwant %q", got, want)
			}
			ro := tc.opts
			ro.ForceQuote, ro.ForceQuoteAll = nil, false
			back := readAll(t, want, ro, len(copyCols))
			if !sameRows(back, rows) {
				t.Errorf("reader result differs\n got %q\nwant %q", back, rows)
			}
			// PostgreSQL reads our bytes back as the same rows.
			refExec(t, c, "DROP TABLE IF EXISTS copyback; CREATE TEMP TABLE copyback (LIKE copytest)")
			from := strings.Replace(tc.sql, "FORCE_QUOTE *", "HEADER false", 1)
			if strings.Contains(from, "FORCE_QUOTE") {
				from = "(FORMAT csv)"
			}
			if _, err := c.CopyFrom(context.Background(), bytes.NewReader(got), "COPY copyback FROM STDIN "+from); err != nil {
				t.Fatalf("PostgreSQL rejects our COPY data: %v", err)
			}
			rr := c.ExecParams(context.Background(), "SELECT count(*) FROM (SELECT * FROM copyback EXCEPT ALL SELECT * FROM copytest) x", nil, nil, nil, nil)
			res := rr.Read()
			if res.Err != nil || string(res.Rows[0][0]) != "0" {
				t.Errorf("round trip through PostgreSQL differs: %v %q", res.Err, res.Rows)
			}
		})
	}
}

func copyErr(t *testing.T, data string, o CopyOptions, ncols int) (*CopyError, int) {
	t.Helper()
	cr, err := NewCopyReader(strings.NewReader(data), o, ncols)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err := cr.Next()
		if err == io.EOF {
			return nil, n
		}
		if err != nil {
			var ce *CopyError
			if !errors.As(err, &ce) {
				t.Fatalf("not a CopyError: %v", err)
			}
			return ce, n
		}
		n++
	}
}

func TestCopyReaderErrors(t *testing.T) {
	o := CopyOptions{Table: "t", Columns: []string{"a", "b"}}
	csv := o
	csv.Format = CopyCSV
	hdr := o
	hdr.Header = true
	cases := []struct {
		name, data string
		o          CopyOptions
		line       int64
		msg, where string
	}{
		{"extra", "1\t2\n3\t4\t5\n", o, 2, "extra data after last expected column", `COPY t, line 2: "3	4	5"`},
		{"missing", "1\t2\n3\n", o, 2, `missing data for column "b"`, `COPY t, line 2: "3"`},
		{"marker corrupt", "1\tx\\.\n", o, 1, "end-of-copy marker corrupt", `COPY t, line 1: "1	x\."`},
		{"cr", "1\ta\rb\n", o, 1, "literal carriage return found in data", "COPY t, line 1: \"1\ta\rb\""},
		{"unterminated", "1,\"abc\n2,3\n", csv, 2, "unterminated CSV quoted field", "COPY t, line 2: \"1,\"abc\n2,3\""},
		{"csv missing", "1,2\n\"x\ny\"\n", csv, 3, `missing data for column "b"`, "COPY t, line 3: \"\"x\ny\"\""},
		// Encoding errors (22021), each checked against PostgreSQL 15: an
		// escape that makes a non-ASCII byte has the line in its CONTEXT;
		// raw bytes are refused as they are read, without it.
		{"bad utf8", "1\t\\377\n", o, 1, `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 1: "1	\377"`},
		{"escaped nul", "1\tab\\0\n", o, 1, `invalid byte sequence for encoding "UTF8": 0x00`, `COPY t, line 1: "1	ab\0"`},
		{"escaped hex nul", "1\t\\x00\n", o, 1, `invalid byte sequence for encoding "UTF8": 0x00`, `COPY t, line 1: "1	\x00"`},
		{"escaped truncated", "1\t\\xe2\\x82\n", o, 1, `invalid byte sequence for encoding "UTF8": 0xe2 0x82`, `COPY t, line 1: "1	\xe2\x82"`},
		{"raw invalid", "1\t2\n3\tx\xff\xfe\n", o, 2, `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 2`},
		{"raw nul", "1\tx\x00\n", o, 1, `invalid byte sequence for encoding "UTF8": 0x00`, `COPY t, line 1`},
		{"raw in int column", "1\t2\n\xff\t3\n", o, 2, `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 2`},
		{"raw header", "h\xff\n1\t2\n", hdr, 1, `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 1`},
		{"raw long line", "1\t" + strings.Repeat("a", 300000) + "\xc3\x28\n", o, 1, `invalid byte sequence for encoding "UTF8": 0xc3 0x28`, `COPY t, line 1`},
		{"csv raw", "1,2\n3,\"x\xc3\x28\"\n", csv, 2, `invalid byte sequence for encoding "UTF8": 0xc3 0x28`, `COPY t, line 2`},
		{"csv multiline", "1,2\n3,\"multi\nline\xff\"\n", csv, 3, `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 3`},
		{"csv nul", "1,2\n3,x\x00\n", csv, 2, `invalid byte sequence for encoding "UTF8": 0x00`, `COPY t, line 2`},
	}
	for _, tc := range cases {
		ce, _ := copyErr(t, tc.data, tc.o, 2)
		if ce == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if ce.Line != tc.line || ce.Err.Message != tc.msg || ce.Err.Where != tc.where {
			t.Errorf("%s: got line %d %q where %q; want line %d %q where %q", tc.name, ce.Line, ce.Err.Message, ce.Err.Where, tc.line, tc.msg, tc.where)
		}
		want := pgerr.BadCopyFileFormat
		if strings.HasPrefix(tc.msg, "invalid byte sequence") {
			want = pgerr.CharacterNotInRepertoire
		}
		if pgerr.Code(ce) != want {
			t.Errorf("%s: code %s, want %s", tc.name, pgerr.Code(ce), want)
		}
	}
	// End marker stops reading; data after it is ignored.
	if ce, n := copyErr(t, "1\t2\n\\.\ngarbage\n", o, 2); ce != nil || n != 1 {
		t.Errorf("end marker: %v, %d rows", ce, n)
	}
	// CRLF line ends are accepted.
	if ce, n := copyErr(t, "1\t2\r\n3\t4\r\n", o, 2); ce != nil || n != 2 {
		t.Errorf("crlf: %v, %d rows", ce, n)
	}
	// CSV: unquoted empty is NULL, quoted empty is an empty string.
	rows := readAll(t, []byte("1,\n,\"\"\n"), CopyOptions{Format: CopyCSV}, 2)
	if rows[0][1] != nil || rows[1][0] != nil || rows[1][1] == nil || len(rows[1][1]) != 0 {
		t.Errorf("csv null semantics: %q", rows)
	}
	// FORCE_NOT_NULL / FORCE_NULL.
	rows = readAll(t, []byte(",\"\"\n"), CopyOptions{Format: CopyCSV, ForceNotNull: []bool{true}, ForceNull: []bool{false, true}}, 2)
	if rows[0][0] == nil || rows[0][1] != nil {
		t.Errorf("force_not_null/force_null: %q", rows)
	}
	// Text escapes.
	rows = readAll(t, []byte(`\b\f\n\r\t\v\\\101\x41\x4g\q\N`+"\t\\N\n"), CopyOptions{}, 2)
	if string(rows[0][0]) != "\b\f\n\r\t\v\\AA\x04gqN" || rows[0][1] != nil {
		t.Errorf("escapes: %q", rows)
	}
}

func TestCopyBinaryErrors(t *testing.T) {
	o := CopyOptions{Format: CopyBinary, Table: "t"}
	cw, _ := NewCopyWriter(nil, o)
	good := cw.AppendTrailer(cw.AppendRow(cw.AppendHeader(nil, nil), [][]byte{[]byte("ab"), nil}))
	if ce, n := copyErr(t, string(good), o, 2); ce != nil || n != 1 {
		t.Fatalf("good: %v %d", ce, n)
	}
	// No trailer: end of input at a tuple boundary is the end.
	if ce, n := copyErr(t, string(good[:len(good)-2]), o, 2); ce != nil || n != 1 {
		t.Errorf("no trailer: %v %d", ce, n)
	}
	for name, tc := range map[string]struct {
		data string
		msg  string
	}{
		"signature": {"PGCOPY\n\377\r\n\x01" + string(good[11:]), "COPY file signature not recognized"},
		"oids":      {string(good[:11]) + "\x00\x01\x00\x00" + string(good[15:]), "invalid COPY file header (WITH OIDS)"},
		"truncated": {string(good[:len(good)-5]), "unexpected EOF in COPY data"},
		"count":     {string(good[:19]) + "\x00\x03" + string(good[21:]), "row field count is 3, expected 2"},
	} {
		ce, _ := copyErr(t, tc.data, o, 2)
		if ce == nil || ce.Err.Message != tc.msg {
			t.Errorf("%s: got %v, want %q", name, ce, tc.msg)
		}
	}
}

// TestCopyBinaryFieldLength: a binary field's announced length allocates
// nothing before its bytes arrive (a client announcing 1 GB and sending 5
// bytes gets "unexpected EOF", and the reader held about what arrived), and
// a length of 1 GB or more is PostgreSQL's 54000 "out of memory".
func TestCopyBinaryFieldLength(t *testing.T) {
	o := CopyOptions{Format: CopyBinary, Table: "t", Columns: []string{"a"}}
	cw, _ := NewCopyWriter(nil, o)
	head := binary.BigEndian.AppendUint16(cw.AppendHeader(nil, nil), 1)
	announced := func(l uint32, sent string) string {
		return string(binary.BigEndian.AppendUint32(head, l)) + sent
	}
	cr, err := NewCopyReader(strings.NewReader(announced(0x3ffffffe, "hello")), o, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cr.Next()
	var ce *CopyError
	if !errors.As(err, &ce) || ce.Err.Message != "unexpected EOF in COPY data" {
		t.Fatalf("1 GB announced, 5 bytes sent: %v", err)
	}
	if c := cap(cr.attr); c > 4<<20 {
		t.Fatalf("the reader grew its field buffer to %d bytes for 5 bytes of data", c)
	}
	for _, l := range []uint32{0x3fffffff, 0x7fffffff} {
		cr, _ := NewCopyReader(strings.NewReader(announced(l, "x")), o, 1)
		_, err := cr.Next()
		if !errors.As(err, &ce) || ce.Err.Code != pgerr.ProgramLimitExceeded || ce.Err.Message != "out of memory" ||
			ce.Err.Detail != fmt.Sprintf("Cannot enlarge string buffer containing 0 bytes by %d more bytes.", l) ||
			ce.Err.Where != `COPY t, line 1, column a` {
			t.Fatalf("length %#x: %v (%+v)", l, err, ce)
		}
	}
	// A field that spans many reads of the buffer still arrives whole.
	big := strings.Repeat("0123456789", 300_000)
	data := cw.AppendTrailer(cw.AppendRow(cw.AppendHeader(nil, nil), [][]byte{[]byte(big)}))
	cr, _ = NewCopyReader(strings.NewReader(string(data)), o, 1)
	row, err := cr.Next()
	if err != nil || string(row[0]) != big {
		t.Fatalf("3 MB field: %v, %d bytes", err, len(row[0]))
	}
}

// TestCopyTextSplitsLikeTheByteLoop: the text format's field splitting
// (IndexByte on lines without a backslash or a carriage return) gives, on
// random lines of delimiters, backslash escapes (escaped delimiters among
// them), \N, carriage returns and other bytes, exactly the fields or the
// error of splitting byte by byte.
func TestCopyTextSplitsLikeTheByteLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab1\t\t\\\\N,x\r ")
	for _, delim := range []byte{'\t', ','} {
		o := CopyOptions{Format: CopyText, Delimiter: delim, Table: "t"}
		for n := 0; n < 6000; n++ {
			line := make([]byte, rng.IntN(24))
			for i := range line {
				line[i] = alphabet[rng.IntN(len(alphabet))]
			}
			cr, err := NewCopyReader(bytes.NewReader(append(line, '\n')), o, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := cr.Next()
			// The line as the reader sees it: its end stripped, unless a
			// backslash quotes the newline (then it is data, and input ends).
			full := append(append([]byte{}, line...), '\n')
			if !escapedEOL(full, '\n') {
				full = stripTextEOL(full)
			}
			want, werr := splitTextByteLoop(full, delim)
			if (gerr != nil) != (werr != nil) {
				t.Fatalf("%q: error %v, byte loop %v", line, gerr, werr)
			}
			if gerr == nil && !sameRows([][][]byte{got}, [][][]byte{want}) {
				t.Fatalf("%q: fields %q, byte loop %q", line, got, want)
			}
		}
	}
}

// splitTextByteLoop is the reference: the text format's fields of line,
// found by examining every byte (escapes decoded, \N as nil).
func splitTextByteLoop(line []byte, delim byte) ([][]byte, error) {
	var fields [][]byte
	i := 0
	for {
		start, escaped := i, false
		for i < len(line) {
			c := line[i]
			if c == delim {
				break
			}
			if c == '\\' {
				escaped = true
				i++
			} else if c == '\r' {
				return nil, errors.New("literal carriage return")
			}
			i++
		}
		i = min(i, len(line))
		f := line[start:i]
		switch {
		case string(f) == `\N`:
			fields = append(fields, nil)
		case !escaped:
			fields = append(fields, append([]byte{}, f...))
		default:
			cr := &CopyReader{opts: CopyOptions{Format: CopyText, Delimiter: delim}}
			v, err := cr.unescapeText(f)
			if err != nil {
				return nil, err
			}
			fields = append(fields, append([]byte{}, v...))
		}
		if i >= len(line) {
			return fields, nil
		}
		i++
	}
}

// TestCopyTextBackslashNewline: in the text format a backslash quotes the
// character after it, a newline or a carriage return too, which are then
// data and the line goes on; the row numbers count such a line once. The
// expectations are PostgreSQL 15's, observed with psql's \copy.
func TestCopyTextBackslashNewline(t *testing.T) {
	o := CopyOptions{Format: CopyText, Table: "t", Columns: []string{"a", "b"}}
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{"a\tb\\\nc\n2\tz\n", [][]string{{"a", "b\nc"}, {"2", "z"}}},
		{"a\t\\\n\\\n", [][]string{{"a", "\n\n"}}},
		{"a\tb\\\r\n", [][]string{{"a", "b\r"}}},
		{"a\tb\\\\\n2\tz\n", [][]string{{"a", "b\\"}, {"2", "z"}}}, // an escaped backslash, then a real newline
		{"a\t\\", [][]string{{"a", ""}}},                           // a trailing backslash at the end of input: dropped
	} {
		rows := readAll(t, []byte(tc.in), o, 2)
		if len(rows) != len(tc.want) {
			t.Fatalf("%q: %d rows %q, want %q", tc.in, len(rows), rows, tc.want)
		}
		for i, r := range rows {
			for j, v := range r {
				if v == nil || string(v) != tc.want[i][j] {
					t.Fatalf("%q: row %d = %q, want %q", tc.in, i+1, r, tc.want[i])
				}
			}
		}
	}
	cr, _ := NewCopyReader(strings.NewReader("a\tb\\\nc\n2\n"), o, 2)
	if _, err := cr.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := cr.Next()
	var ce *CopyError
	if !errors.As(err, &ce) || ce.Err.Message != `missing data for column "b"` || ce.Err.Where != `COPY t, line 2: "2"` {
		t.Fatalf("the row after a continued line: %v", err)
	}
}

// endless yields its prefix, then its pattern forever.
type endless struct {
	prefix, pattern []byte
	off             int
}

func (r *endless) Read(p []byte) (int, error) {
	for i := range p {
		if len(r.prefix) > 0 {
			p[i], r.prefix = r.prefix[0], r.prefix[1:]
			continue
		}
		p[i] = r.pattern[r.off%len(r.pattern)]
		r.off++
	}
	return len(p), nil
}

// TestCopyLineLength: a line that never ends (text), a text line continued
// by backslash-newlines forever, and a CSV quote never closed fail with
// PostgreSQL's 54000 "out of memory" at the line limit instead of growing
// the server's memory with the input (the limit lowered for the test).
func TestCopyLineLength(t *testing.T) {
	defer func(v int) { maxCopyLineBytes = v }(maxCopyLineBytes)
	maxCopyLineBytes = 1 << 20
	for _, tc := range []struct {
		name    string
		format  CopyFormat
		pattern string
		where   string
	}{
		{"text without a newline", CopyText, "abc\t", "COPY t, line 1"},
		{"text continued by backslash-newlines", CopyText, "abc\\\n", "COPY t, line 1"},
		// A CSV record counts its physical lines, as PostgreSQL's: the
		// error is at the line that passes the limit, 1 + (1 MB - 5) / 4.
		{"CSV quote never closed", CopyCSV, "abc\n", "COPY t, line 262144"},
	} {
		o := CopyOptions{Format: tc.format, Table: "t"}
		r := &endless{pattern: []byte(tc.pattern)}
		if tc.format == CopyCSV {
			r.prefix = []byte{'"'}
		}
		cr, err := NewCopyReader(r, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cr.Next()
		var ce *CopyError
		if !errors.As(err, &ce) || ce.Err.Code != pgerr.ProgramLimitExceeded || ce.Err.Message != "out of memory" ||
			!strings.HasPrefix(ce.Err.Detail, "Cannot enlarge string buffer containing ") || ce.Err.Where != tc.where {
			t.Fatalf("%s: %v (%+v)", tc.name, err, ce)
		}
		if held := cap(cr.lbuf) + cap(cr.attr); held > 4*maxCopyLineBytes {
			t.Fatalf("%s: the reader holds %d bytes for a limit of %d", tc.name, held, maxCopyLineBytes)
		}
	}
}
