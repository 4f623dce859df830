package pgwire

// An in-memory test Backend: one table t(a int8, b text) and a handful of
// statements, enough to drive real clients through every protocol path.
// It is not SQL: statements are matched by regular expressions.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
)

const (
	oidInt8 = 20
	oidText = 25
)

type testRow struct {
	a int64
	b string
}

type testBackend struct {
	mu       sync.Mutex
	rows     []testRow
	started  chan string // receives the statement kind when a slow statement starts
	live     atomic.Int32
	syncs    atomic.Int32
	lastInfo atomic.Pointer[StartupInfo]
}

func newTestBackend() *testBackend {
	return &testBackend{started: make(chan string, 16)}
}

func (b *testBackend) NewSession(ctx context.Context, info StartupInfo) (Session, error) {
	if info.Database == "nodb" {
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", info.Database)
	}
	if info.Database == "panicdb" {
		panic("boom in NewSession")
	}
	b.lastInfo.Store(&info)
	b.live.Add(1)
	return &testSession{b: b, info: info, tx: 'I'}, nil
}

type testSession struct {
	b      *testBackend
	info   StartupInfo
	tx     byte
	closed bool
}

var (
	_ Syncer               = (*testSession)(nil)
	_ ProtocolErrorHandler = (*testSession)(nil)
)

func (s *testSession) ProtocolError(err *pgerr.Error) { _ = s.fail(err) }

func (s *testSession) ParameterStatus() [][2]string {
	return [][2]string{
		{"server_version", "15.18 (bsdb-pg test)"}, {"server_encoding", "UTF8"}, {"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"}, {"TimeZone", "UTC"}, {"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"}, {"IntervalStyle", "postgres"},
		{"application_name", s.info.Params["application_name"]}, {"is_superuser", "on"},
		{"session_authorization", s.info.User},
	}
}

func (s *testSession) TxStatus() byte { return s.tx }

// Sync fails if its context is done: a statement context must not come
// to Sync canceled (a CancelRequest of the Execute before it, say).
func (s *testSession) Sync(ctx context.Context) error { s.b.syncs.Add(1); return ctx.Err() }

func (s *testSession) Close() {
	if s.closed {
		panic("BUG: Session.Close called twice")
	}
	s.closed = true
	s.b.live.Add(-1)
}

func (s *testSession) SimpleQuery(ctx context.Context, sql string, w ResultWriter) error {
	parts := strings.Split(sql, ";")
	if strings.TrimSpace(sql) == "" {
		return w.EmptyQuery()
	}
	for _, part := range parts {
		if strings.TrimSpace(part) == "" {
			continue
		}
		p, err := s.plan(part, nil)
		if err != nil {
			return s.fail(err)
		}
		if err := w.Describe(p.cols(nil)); err != nil {
			return err
		}
		if _, err := s.run(ctx, p, nil, nil, w, 0, new(int)); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

// fail moves an open transaction block to 'E', like PostgreSQL.
func (s *testSession) fail(err error) error {
	if s.tx == 'T' {
		s.tx = 'E'
	}
	return err
}

// testPlan is a "compiled" statement.
type testPlan struct {
	kind      string
	sql       string
	paramOIDs []uint32
	colNames  []string
	colOIDs   []uint32
	arg       int64
	insert    *testRow
}

func (p *testPlan) cols(formats []int16) []Column {
	if p.colNames == nil {
		return nil
	}
	cols := make([]Column, len(p.colNames))
	for i := range cols {
		size := int16(-1)
		if p.colOIDs[i] == oidInt8 {
			size = 8
		}
		cols[i] = Column{Name: p.colNames[i], TypeOID: p.colOIDs[i], TypeSize: size, TypeMod: -1, Format: formatOf(formats, i)}
	}
	return cols
}

func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	default:
		return formats[i]
	}
}

var (
	reGen    = regexp.MustCompile(`^select generate_series\(1,\s*(\d+)\)$`)
	reEcho   = regexp.MustCompile(`^select (\$\d+(::\w+)?)(,\s*\$\d+(::\w+)?)*$`)
	reParam  = regexp.MustCompile(`\$(\d+)(::(\w+))?`)
	reInsert = regexp.MustCompile(`^insert into t values \((-?\d+),\s*'([^']*)'\)$`)
	reSleep  = regexp.MustCompile(`^select pg_sleep\((\d+)\)$`)
	reSelT   = regexp.MustCompile(`^select a,\s*b from t$`)
	reSet    = regexp.MustCompile(`^set (\w+)\s*(=|to)\s*'?([^']*)'?$`)
)

func (s *testSession) plan(sql string, declared []uint32) (*testPlan, error) {
	q := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(sql, `"`, "")), " "))
	p := &testPlan{sql: q}
	if s.tx == 'E' && q != "rollback" && q != "commit" {
		return nil, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	switch {
	case q == "begin", q == "commit", q == "rollback", q == "do notice", q == "select panic()", q == "select error()", q == "select flood()",
		q == "copy t to stdout", q == "copy t from stdin", strings.HasPrefix(q, "copy t ( a, b ) from stdin binary"),
		q == "copy t from stdin binary":
		p.kind = q
		if strings.HasPrefix(q, "copy t") && strings.Contains(q, "binary") {
			p.kind = "copy binary"
		}
	case reSelT.MatchString(q):
		p.kind, p.colNames, p.colOIDs = "select t", []string{"a", "b"}, []uint32{oidInt8, oidText}
	case reGen.MatchString(q):
		n, _ := strconv.ParseInt(reGen.FindStringSubmatch(q)[1], 10, 64)
		p.kind, p.arg, p.colNames, p.colOIDs = "gen", n, []string{"generate_series"}, []uint32{oidInt8}
	case reSleep.MatchString(q):
		n, _ := strconv.ParseInt(reSleep.FindStringSubmatch(q)[1], 10, 64)
		p.kind, p.arg, p.colNames, p.colOIDs = "sleep", n, []string{"pg_sleep"}, []uint32{oidText}
	case reEcho.MatchString(q):
		p.kind = "echo"
		for i, m := range reParam.FindAllStringSubmatch(q, -1) {
			oid := uint32(oidText)
			if i < len(declared) && declared[i] != 0 {
				oid = declared[i]
			}
			if m[3] == "int8" {
				oid = oidInt8
			}
			p.paramOIDs = append(p.paramOIDs, oid)
			p.colNames = append(p.colNames, "?column?")
			p.colOIDs = append(p.colOIDs, oid)
		}
	case reInsert.MatchString(q):
		m := reInsert.FindStringSubmatch(q)
		a, _ := strconv.ParseInt(m[1], 10, 64)
		p.kind, p.insert = "insert", &testRow{a: a, b: m[2]}
	case reSet.MatchString(q):
		p.kind = "set"
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", strings.Fields(q + " x")[0]).WithPosition(1)
	}
	return p, nil
}

// run executes p, writing at most maxRows rows (0 = all) starting at
// *cursor. rows is the portal's materialized result (nil: compute).
func (s *testSession) run(ctx context.Context, p *testPlan, params []any, formats []int16, w ResultWriter, maxRows int, cursor *int) (bool, error) {
	switch p.kind {
	case "begin":
		s.tx = 'T'
		return false, w.Complete("BEGIN")
	case "commit", "rollback":
		tag := strings.ToUpper(p.kind)
		if s.tx == 'E' {
			tag = "ROLLBACK"
		}
		s.tx = 'I'
		return false, w.Complete(tag)
	case "do notice":
		if err := w.Notice(&pgerr.Error{Code: pgerr.Warning, Message: "hello notice", Detail: "d"}); err != nil {
			return false, err
		}
		return false, w.Complete("DO")
	case "select panic()":
		panic("boom in SimpleQuery")
	case "select flood()":
		// Writes until the connection fails, ignoring cancellation.
		s.b.started <- "flood"
		for {
			if err := w.Row([][]byte{[]byte("flooding the client with rows")}); err != nil {
				return false, err
			}
		}
	case "select error()":
		return false, pgerr.New(pgerr.DivisionByZero, "division by zero").WithPosition(8).WithDetail("some detail").WithHint("some hint")
	case "set":
		m := reSet.FindStringSubmatch(p.sql)
		if err := w.ParameterStatus(m[1], m[3]); err != nil {
			return false, err
		}
		return false, w.Complete("SET")
	case "insert":
		s.b.mu.Lock()
		s.b.rows = append(s.b.rows, *p.insert)
		s.b.mu.Unlock()
		return false, w.Complete("INSERT 0 1")
	case "sleep":
		s.b.started <- "sleep"
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(time.Duration(p.arg) * time.Second):
		}
		if err := w.Row([][]byte{{}}); err != nil {
			return false, err
		}
		return false, w.Complete("SELECT 1")
	case "copy t to stdout":
		out, err := w.CopyOut(0, []int16{0, 0})
		if err != nil {
			return false, err
		}
		s.b.mu.Lock()
		rows := append([]testRow(nil), s.b.rows...)
		s.b.mu.Unlock()
		for _, r := range rows {
			if _, err := fmt.Fprintf(out, "%d\t%s\n", r.a, r.b); err != nil {
				return false, err
			}
		}
		return false, w.Complete(fmt.Sprintf("COPY %d", len(rows)))
	case "copy t from stdin":
		in, err := w.CopyIn(0, []int16{0, 0})
		if err != nil {
			return false, err
		}
		var rows []testRow
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			line := sc.Text()
			if line == `\.` {
				continue
			}
			a, b, ok := strings.Cut(line, "\t")
			n, err := strconv.ParseInt(a, 10, 64)
			if !ok || err != nil {
				// Fail without draining: the client's remaining copy
				// messages reach the command loop, which must skip them.
				return false, pgerr.New(pgerr.BadCopyFileFormat, "invalid input syntax for type bigint: %q", a)
			}
			rows = append(rows, testRow{n, b})
		}
		if err := sc.Err(); err != nil {
			return false, err
		}
		s.b.mu.Lock()
		s.b.rows = append(s.b.rows, rows...)
		s.b.mu.Unlock()
		return false, w.Complete(fmt.Sprintf("COPY %d", len(rows)))
	case "copy binary":
		in, err := w.CopyIn(1, []int16{1, 1})
		if err != nil {
			return false, err
		}
		data, err := io.ReadAll(in)
		if err != nil {
			return false, err
		}
		rows, err := decodeBinaryCopy(data)
		if err != nil {
			return false, err
		}
		s.b.mu.Lock()
		s.b.rows = append(s.b.rows, rows...)
		s.b.mu.Unlock()
		return false, w.Complete(fmt.Sprintf("COPY %d", len(rows)))
	}
	// Row-returning statements; generate_series streams its rows.
	var all [][]any
	total := 0
	rowAt := func(i int) []any { return all[i] }
	switch p.kind {
	case "select t":
		s.b.mu.Lock()
		for _, r := range s.b.rows {
			all = append(all, []any{r.a, r.b})
		}
		s.b.mu.Unlock()
		total = len(all)
	case "gen":
		total = int(p.arg)
		rowAt = func(i int) []any { return []any{int64(i + 1)} }
	case "echo":
		all, total = [][]any{params}, 1
	default:
		return false, fmt.Errorf("BUG: test plan kind %q", p.kind)
	}
	cols := p.cols(formats)
	for n := 0; *cursor < total; n++ {
		if maxRows > 0 && n == maxRows {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		row := rowAt(*cursor)
		vals := make([][]byte, len(row))
		for i, v := range row {
			vals[i] = encodeValue(v, cols[i].Format)
		}
		if err := w.Row(vals); err != nil {
			return false, err
		}
		*cursor++
	}
	return false, w.Complete(fmt.Sprintf("SELECT %d", total))
}

func encodeValue(v any, format int16) []byte {
	switch v := v.(type) {
	case nil:
		return nil
	case int64:
		if format == 1 {
			return binary.BigEndian.AppendUint64(nil, uint64(v))
		}
		return []byte(strconv.FormatInt(v, 10))
	case string:
		return []byte(v)
	}
	panic(fmt.Sprintf("BUG: encode %T", v))
}

func decodeBinaryCopy(data []byte) ([]testRow, error) {
	bad := func(msg string) error { return pgerr.New(pgerr.BadCopyFileFormat, "%s", msg) }
	sig := []byte("PGCOPY\n\xff\r\n\x00")
	if !bytes.HasPrefix(data, sig) || len(data) < len(sig)+8 {
		return nil, bad("COPY file signature not recognized")
	}
	data = data[len(sig)+4:]
	ext := int(binary.BigEndian.Uint32(data))
	data = data[4+ext:]
	var rows []testRow
	for {
		if len(data) == 0 {
			return rows, nil // PostgreSQL accepts EOF instead of the trailer
		}
		if len(data) < 2 {
			return nil, bad("unexpected EOF in COPY data")
		}
		n := int16(binary.BigEndian.Uint16(data))
		data = data[2:]
		if n == -1 {
			return rows, nil
		}
		if n != 2 {
			return nil, bad("row field count mismatch")
		}
		var r testRow
		for i := 0; i < 2; i++ {
			if len(data) < 4 {
				return nil, bad("unexpected EOF in COPY data")
			}
			l := int(int32(binary.BigEndian.Uint32(data)))
			data = data[4:]
			if l < 0 || l > len(data) || (i == 0 && l != 8) {
				return nil, bad("invalid field size")
			}
			if i == 0 {
				r.a = int64(binary.BigEndian.Uint64(data))
			} else {
				r.b = string(data[:l])
			}
			data = data[l:]
		}
		rows = append(rows, r)
	}
}

// Extended protocol.

type testStmt struct {
	p      *testPlan
	closed *atomic.Int32
}

func (st *testStmt) ParamOIDs() []uint32 { return st.p.paramOIDs }
func (st *testStmt) Columns() []Column   { return st.p.cols(nil) }
func (st *testStmt) Close()              {}

func (s *testSession) Prepare(ctx context.Context, name, sql string, paramOIDs []uint32) (Statement, error) {
	if strings.TrimSpace(sql) == "select panic_prepare()" {
		panic("boom in Prepare")
	}
	p, err := s.plan(sql, paramOIDs)
	if err != nil {
		return nil, s.fail(err)
	}
	return &testStmt{p: p}, nil
}

type testPortal struct {
	s       *testSession
	p       *testPlan
	params  []any
	formats []int16
	cursor  int
	done    bool
}

func (s *testSession) Bind(ctx context.Context, stmt Statement, portalName string, params [][]byte, paramFormats, resultFormats []int16) (Portal, error) {
	st := stmt.(*testStmt)
	vals := make([]any, len(params))
	for i, raw := range params {
		if raw == nil {
			continue
		}
		switch st.p.paramOIDs[i] {
		case oidInt8:
			if formatOf(paramFormats, i) == 1 {
				if len(raw) != 8 {
					return nil, s.fail(pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter %d", i+1))
				}
				vals[i] = int64(binary.BigEndian.Uint64(raw))
			} else {
				n, err := strconv.ParseInt(string(raw), 10, 64)
				if err != nil {
					return nil, s.fail(pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bigint: %q", raw))
				}
				vals[i] = n
			}
		default:
			vals[i] = string(raw)
		}
	}
	return &testPortal{s: s, p: st.p, params: vals, formats: resultFormats}, nil
}

func (p *testPortal) Columns() []Column { return p.p.cols(p.formats) }
func (p *testPortal) Close()            {}

func (p *testPortal) Execute(ctx context.Context, maxRows int, w ResultWriter) (bool, error) {
	if p.done {
		return false, errors.New("portal already ran to completion")
	}
	suspended, err := p.s.run(ctx, p.p, p.params, p.formats, w, maxRows, &p.cursor)
	if err != nil {
		return false, p.s.fail(err)
	}
	p.done = !suspended
	return suspended, nil
}
