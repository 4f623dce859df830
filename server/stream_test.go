package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// procStatusKB returns a field of /proc/self/status in KB.
func procStatusKB(t testing.TB, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// streamRows is a result of about 600 MB: 600,000 rows of 1 KB.
const (
	streamRows  = 600_000
	streamQuery = "SELECT i, repeat('x', 1000) AS pad FROM generate_series(1, 600000) AS g(i)"
	// Far below the result, far above a chunk: DuckDB's streaming buffer,
	// a 2048-row chunk and its Go values, the 32 KB socket buffers, the Go
	// heap's slack.
	streamMaxGrowth = 250 << 20
)

// checkStreamed checks the rows read: every i, in order, 1000 x's each.
type streamCheck struct {
	t     testing.TB
	next  int64
	bytes int64
}

func (c *streamCheck) row(i []byte, pad []byte) {
	c.t.Helper()
	c.next++
	if string(i) != strconv.FormatInt(c.next, 10) || len(pad) != 1000 {
		c.t.Fatalf("row %d: i=%q, %d bytes of pad", c.next, i, len(pad))
	}
	c.bytes += int64(len(i) + len(pad))
}

// A large result streams with bounded memory whichever way the client
// reads it: the simple protocol, the extended protocol with no row limit,
// Execute with a row limit (the portal suspends between Executes), and a
// cursor read by FETCH. The result is 600 MB; the server grows by a
// fraction of that. Before, DuckDB materialized the whole result before
// the first row was sent. The simple-protocol client also stops reading
// for a while after the first rows: the server then waits on the socket
// instead of producing the rest.
//
// Each way runs in a process of its own (this test binary, running
// TestStreamingMemoryChild), whose peak resident memory (VmHWM) is
// measured: memory DuckDB or Go freed stays resident in a process, and
// would hide the next measurement's growth.
func TestStreamingBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 4 x 600 MB")
	}
	for _, how := range []string{"simple", "extended", "rowlimit", "cursor"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestStreamingMemoryChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "BSDB_STREAM_CHILD="+how)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var rows, mb, growth int64
			for _, l := range strings.Split(string(out), "\n") {
				if i := strings.Index(l, "streamed:"); i >= 0 {
					fmt.Sscanf(l[i:], "streamed: %d rows, %d MB read, peak growth %d MB", &rows, &mb, &growth)
				}
			}
			t.Logf("%d rows, %d MB read; peak growth %d MB", rows, mb, growth)
			if rows != streamRows {
				t.Fatalf("child read %d rows, want %d:\n%s", rows, streamRows, out)
			}
			if growth > streamMaxGrowth>>20 {
				t.Fatalf("memory grew by %d MB reading a %d MB result, want at most %d MB", growth, mb, streamMaxGrowth>>20)
			}
		})
	}
}

// TestStreamingMemoryChild is one measurement of TestStreamingBoundsMemory,
// in a fresh process.
func TestStreamingMemoryChild(t *testing.T) {
	how := os.Getenv("BSDB_STREAM_CHILD")
	if how == "" {
		t.Skip("run by TestStreamingBoundsMemory")
	}
	ts := startServer(t, "")
	ctx := context.Background()
	c := ts.conn(t)
	queryStrings(t, c, "SELECT 1") // warm up the session and DuckDB
	runtime.GC()
	debug.FreeOSMemory()
	base := procStatusKB(t, "VmRSS")
	chk := &streamCheck{t: t}
	switch how {
	case "simple":
		rr := c.PgConn().Exec(ctx, streamQuery)
		for rr.NextResult() {
			res := rr.ResultReader()
			for res.NextRow() {
				v := res.Values()
				chk.row(v[0], v[1])
				if chk.next == 1000 {
					time.Sleep(500 * time.Millisecond) // a slow client
				}
			}
			if _, err := res.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := rr.Close(); err != nil {
			t.Fatal(err)
		}
	case "extended":
		res := c.PgConn().ExecParams(ctx, streamQuery+" WHERE i > $1", [][]byte{[]byte("0")}, nil, nil, nil)
		for res.NextRow() {
			v := res.Values()
			chk.row(v[0], v[1])
		}
		if _, err := res.Close(); err != nil {
			t.Fatal(err)
		}
	case "rowlimit":
		hc, err := c.PgConn().Hijack()
		if err != nil {
			t.Fatal(err)
		}
		defer hc.Conn.Close()
		fe := hc.Frontend
		fe.Send(&pgproto3.Query{String: "BEGIN"})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		recvUntil(t, fe, 'Z')
		fe.Send(&pgproto3.Parse{Query: streamQuery})
		fe.Send(&pgproto3.Bind{})
		for {
			fe.Send(&pgproto3.Execute{MaxRows: 5000})
			fe.Send(&pgproto3.Sync{})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			suspended := false
			for done := false; !done; {
				m, err := fe.Receive()
				if err != nil {
					t.Fatal(err)
				}
				switch m := m.(type) {
				case *pgproto3.DataRow:
					chk.row(m.Values[0], m.Values[1])
				case *pgproto3.PortalSuspended:
					suspended = true
				case *pgproto3.ErrorResponse:
					t.Fatalf("%s %s", m.Code, m.Message)
				case *pgproto3.ReadyForQuery:
					done = true
				}
			}
			if !suspended {
				break
			}
		}
	case "cursor":
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "DECLARE big NO SCROLL CURSOR FOR "+streamQuery); err != nil {
			t.Fatal(err)
		}
		for {
			res := c.PgConn().Exec(ctx, "FETCH FORWARD 10000 FROM big")
			n := 0
			for res.NextResult() {
				rr := res.ResultReader()
				for rr.NextRow() {
					v := rr.Values()
					chk.row(v[0], v[1])
					n++
				}
				if _, err := rr.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := res.Close(); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
	default:
		t.Fatalf("unknown BSDB_STREAM_CHILD %q", how)
	}
	peak := procStatusKB(t, "VmHWM")
	t.Logf("streamed: %d rows, %d MB read, peak growth %d MB", chk.next, chk.bytes>>20, (peak-base)>>10)
}

// recvUntil reads messages up to one of type typ, failing on an error.
func recvUntil(t testing.TB, fe *pgproto3.Frontend, typ byte) {
	t.Helper()
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			t.Fatalf("%s %s", e.Code, e.Message)
		}
		if msgByte(m) == typ {
			return
		}
	}
}

// A DuckDB connection runs one streaming result at a time: a cursor or a
// suspended portal that other statements interrupt is kept readable (its
// remaining rows are read into memory first), whatever runs in between:
// queries, another cursor, SET, INSERT, a Parse.
func TestStreamingInterleaved(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE il (v int)")
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	mustExec(t, c, "DECLARE a CURSOR FOR SELECT i FROM generate_series(1, 5000) g(i)")
	mustExec(t, c, "DECLARE b CURSOR FOR SELECT -i FROM generate_series(1, 5000) g(i)")
	var gotA, gotB []string
	fetch := func(cur string, n int) []string {
		return queryStrings(t, c, fmt.Sprintf("FETCH %d FROM %s", n, cur))
	}
	between := []string{"SELECT 1", "SET extra_float_digits = 2", "INSERT INTO il VALUES (1)", "SELECT count(*) FROM il"}
	for k := 0; k < 6; k++ {
		gotA = append(gotA, fetch("a", 1000)...)
		mustExec(t, c, between[k%len(between)])
		gotB = append(gotB, fetch("b", 999)...)
		if _, err := c.Prepare(ctx, fmt.Sprintf("p%d", k), "SELECT $1::int + 1"); err != nil {
			t.Fatal(err)
		}
	}
	gotA = append(gotA, fetch("a", 10000)...)
	gotB = append(gotB, fetch("b", 10000)...)
	for i := 1; i <= 5000; i++ {
		if gotA[i-1] != strconv.Itoa(i) || gotB[i-1] != strconv.Itoa(-i) {
			t.Fatalf("row %d: a=%s b=%s", i, gotA[i-1], gotB[i-1])
		}
	}
	if len(gotA) != 5000 || len(gotB) != 5000 {
		t.Fatalf("%d and %d rows, want 5000 each", len(gotA), len(gotB))
	}

	// An error the query meets after the rows read so far is reported by
	// the FETCH that reaches it, even when another statement read ahead.
	// (DuckDB runs a streaming query up to about 1 MB ahead of the rows
	// fetched: the error is far enough not to be met by the first FETCH.)
	//
	// DuckDB 1.5 sometimes loses the error of a streaming query that fails
	// in a worker thread: the fetching thread gets its own "INTERRUPT
	// Error: Interrupted!" (no interrupt of ours: the stream's context was
	// never cancelled), which maps to 57014. Seen twice in ~300 runs under
	// CI load, always after 366 chunks. The scenario is repeated (each in a
	// fresh transaction: the error aborts it) until DuckDB reports the
	// error itself, at most 5 times; any other outcome fails at once.
	c2 := ts.conn(t)
	for attempt := 1; ; attempt++ {
		mustExec(t, c2, "BEGIN")
		mustExec(t, c2, "DECLARE z CURSOR FOR SELECT 10 / (i - 1000000) FROM generate_series(1, 1200000) g(i)")
		if got := queryStrings(t, c2, "FETCH 3 FROM z"); strings.Join(got, " ") != "0 0 0" {
			t.Fatalf("first rows of z: %v", got)
		}
		mustExec(t, c2, "SELECT 2")
		rows, err := c2.Query(ctx, "FETCH ALL FROM z")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		code := pgCode(rows.Err())
		mustExec(t, c2, "ROLLBACK")
		if code == "57014" && attempt < 5 {
			t.Logf("attempt %d: DuckDB reported Interrupted! after %d rows instead of the division by zero; again", attempt, n)
			continue
		}
		if code != "22012" {
			t.Fatalf("FETCH over the division by zero: %d rows, then %v, want 22012", n, rows.Err())
		}
		if n == 0 {
			t.Fatal("FETCH ALL: no row before the error")
		}
		break
	}
}

// statement_timeout and CancelRequest stop a result that is streaming:
// the client has rows already (they are sent as the query produces them)
// when 57014 comes, and the session goes on.
func TestStreamingTimeoutAndCancel(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	ctx := context.Background()
	const endless = "SELECT i FROM generate_series(1::bigint, 100000000000) g(i)"
	read := func(onRow func(n int)) (int, error) {
		res := c.PgConn().Exec(ctx, endless)
		n := 0
		var err error
		for res.NextResult() {
			rr := res.ResultReader()
			for rr.NextRow() {
				n++
				if onRow != nil {
					onRow(n)
				}
			}
			if _, e := rr.Close(); e != nil && err == nil {
				err = e
			}
		}
		if e := res.Close(); e != nil && err == nil {
			err = e
		}
		return n, err
	}
	mustExec(t, c, "SET statement_timeout = '700ms'")
	start := time.Now()
	n, err := read(nil)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
		t.Fatalf("after %d rows: %v, want 57014 statement timeout", n, err)
	}
	if n == 0 || time.Since(start) > 10*time.Second {
		t.Fatalf("%d rows in %v before the timeout, want rows, within seconds", n, time.Since(start))
	}
	mustExec(t, c, "SET statement_timeout = 0")

	n, err = read(func(n int) {
		if n == 100_000 {
			go func() { _ = c.PgConn().CancelRequest(ctx) }()
		}
	})
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
		t.Fatalf("after %d rows: %v, want 57014 user request", n, err)
	}
	if got := queryStrings(t, c, "SELECT count(*) FROM generate_series(1, 10)"); len(got) != 1 || got[0] != "10" {
		t.Fatalf("after the cancel: %v", got)
	}
}

// Session functions (set_config, current_setting, txid_current) in a large
// result: DuckDB's worker threads call them while the query runs, and they
// see their session and its settings; set_config's effect is the last
// row's. (Such a query is read to its end before its rows are sent: the
// functions touch the session's state.)
func TestStreamingSessionFunctions(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "SET application_name = 'streamer'")
	got := queryStrings(t, c, "SELECT count(*), count(DISTINCT s), min(s), count(DISTINCT x) FROM "+
		"(SELECT current_setting('application_name') AS s, txid_current() AS x, i FROM generate_series(1, 300000) g(i)) q")
	if strings.Join(got, " ") != "300000|1|streamer|1" {
		t.Fatalf("current_setting and txid_current over 300000 rows: %v", got)
	}
	rows := queryStrings(t, c, "SELECT set_config('bsdb.n', i::text, false) FROM generate_series(1, 300000) g(i)")
	if len(rows) != 300000 || rows[len(rows)-1] != "300000" {
		t.Fatalf("set_config over 300000 rows: %d rows, last %v", len(rows), rows[len(rows)-1:])
	}
	if got := queryStrings(t, c, "SELECT current_setting('bsdb.n')"); got[0] != "300000" {
		t.Fatalf("bsdb.n = %v, want 300000", got)
	}
}
