package pgwire

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Scripted exchanges with a raw pgproto3 Frontend. Transcripts use the
// letters of msgLetter.

func TestSimpleQueryTranscripts(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	for _, tc := range []struct{ sql, want string }{
		{"", "I Z(I)"},
		{"  ", "I Z(I)"},
		{"insert into t values (1, 'a'); insert into t values (2, 'b')", "C(INSERT 0 1) C(INSERT 0 1) Z(I)"},
		{"select a, b from t", "T D(1,a) D(2,b) C(SELECT 2) Z(I)"},
		// An error stops the rest of the message.
		{"insert into t values (3, 'c'); bogus; insert into t values (4, 'd')", "C(INSERT 0 1) E(42601) Z(I)"},
		{"do notice", "N C(DO) Z(I)"},
		{"begin; select error()", "C(BEGIN) E(22012) Z(E)"},
		{"select a, b from t", "E(25P02) Z(E)"},
		{"rollback", "C(ROLLBACK) Z(I)"},
		{"begin", "C(BEGIN) Z(T)"},
		{"commit", "C(COMMIT) Z(I)"},
		{"set application_name = 'x1'", "S C(SET) Z(I)"},
		{"copy t to stdout", "H d(1\ta) d(2\tb) d(3\tc) c C(COPY 3) Z(I)"},
	} {
		c.send(&pgproto3.Query{String: tc.sql})
		if got, _ := c.until('Z'); got != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}

func TestErrorResponseFields(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select error()"})
	m := c.recv().(*pgproto3.ErrorResponse)
	if m.Severity != "ERROR" || m.SeverityUnlocalized != "ERROR" || m.Code != pgerr.DivisionByZero ||
		m.Message != "division by zero" || m.Detail != "some detail" || m.Hint != "some hint" || m.Position != 8 {
		t.Errorf("ErrorResponse = %+v", m)
	}
	c.until('Z')
}

func TestCopyInSimple(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	if got, m := c.until('G'); got != "G" || m.(*pgproto3.CopyInResponse).OverallFormat != 0 {
		t.Fatalf("got %s", got)
	}
	c.send(&pgproto3.CopyData{Data: []byte("1\tx\n2\t")}, &pgproto3.CopyData{Data: []byte("y\n")}, &pgproto3.CopyDone{})
	if got, _ := c.until('Z'); got != "C(COPY 2) Z(I)" {
		t.Errorf("got %s", got)
	}
	// CopyFail aborts with 57014 and its message.
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.until('G')
	c.send(&pgproto3.CopyData{Data: []byte("3\tz\n")}, &pgproto3.CopyFail{Message: "client says no"})
	got, _ := c.until('Z')
	if got != "E(57014) Z(I)" {
		t.Errorf("CopyFail: got %s", got)
	}
	// A bad row: the error comes while the client still sends; the rest of
	// its copy messages are ignored and the connection goes on.
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.until('G')
	c.send(&pgproto3.CopyData{Data: []byte("notanumber\tz\n")}, &pgproto3.CopyData{Data: []byte("5\tz\n")}, &pgproto3.CopyDone{})
	if got, _ := c.until('Z'); got != "E(22P04) Z(I)" {
		t.Errorf("bad row: got %s", got)
	}
	// Another message type during copy-in is a protocol violation (08P01).
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.until('G')
	c.send(&pgproto3.Query{String: "select 1"})
	if got, _ := c.until('Z'); got != "E(08P01) Z(I)" {
		t.Errorf("query during copy: got %s", got)
	}
	c.send(&pgproto3.Query{String: "select a, b from t"})
	if got, _ := c.until('Z'); got != "T D(1,x) D(2,y) C(SELECT 2) Z(I)" {
		t.Errorf("table: got %s", got)
	}
}

func TestCopyInExtended(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	// libpq sends Sync right after Execute; it is ignored during copy-in,
	// and the Sync after CopyDone ends the cycle.
	c.send(&pgproto3.Parse{Query: "copy t from stdin"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if got, _ := c.until('G'); got != "1 2 G" {
		t.Fatalf("got %s", got)
	}
	c.send(&pgproto3.CopyData{Data: []byte("7\tq\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "C(COPY 1) Z(I)" {
		t.Errorf("got %s", got)
	}
	c.send(&pgproto3.Query{String: "select a, b from t"})
	if got, _ := c.until('Z'); got != "T D(7,q) C(SELECT 1) Z(I)" {
		t.Errorf("got %s", got)
	}
}

func TestExtendedPortalSuspend(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "select generate_series(1, 5)"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	want := "1 2 D(1) D(2) s D(3) D(4) s D(5) C(SELECT 5) Z(I)"
	if got, _ := c.until('Z'); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Across Syncs inside a transaction block the portal stays open.
	c.send(&pgproto3.Query{String: "begin"})
	c.until('Z')
	c.send(&pgproto3.Parse{Name: "s1", Query: "select generate_series(1, 3)"},
		&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "s1"},
		&pgproto3.Execute{Portal: "p1", MaxRows: 1}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "1 2 D(1) s Z(T)" {
		t.Errorf("got %s", got)
	}
	c.send(&pgproto3.Execute{Portal: "p1"}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "D(2) D(3) C(SELECT 3) Z(T)" {
		t.Errorf("got %s", got)
	}
	// Outside a block, portals end at Sync (the implicit transaction ends).
	c.send(&pgproto3.Query{String: "commit"})
	c.until('Z')
	c.send(&pgproto3.Bind{DestinationPortal: "p2", PreparedStatement: "s1"}, &pgproto3.Sync{},
		&pgproto3.Execute{Portal: "p2"}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "2 Z(I)" {
		t.Errorf("got %s", got)
	}
	if got, _ := c.until('Z'); got != "E(34000) Z(I)" {
		t.Errorf("portal after Sync: got %s", got)
	}
}

func TestExtendedSkipToSync(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	// The error at Parse discards Bind/Describe/Execute up to Sync; the
	// next cycle works.
	c.send(&pgproto3.Parse{Query: "bogus"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Query{String: "insert into t values (9, 'no')"}, &pgproto3.Sync{},
		&pgproto3.Parse{Query: "select generate_series(1, 1)"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "E(42601) Z(I)" {
		t.Errorf("got %s", got)
	}
	if got, _ := c.until('Z'); got != "1 2 D(1) C(SELECT 1) Z(I)" {
		t.Errorf("got %s", got)
	}
	c.send(&pgproto3.Query{String: "select a, b from t"})
	if got, _ := c.until('Z'); got != "T C(SELECT 0) Z(I)" {
		t.Errorf("the skipped Query ran: %s", got)
	}
	if n := ts.b.syncs.Load(); n != 2 {
		t.Errorf("Session.Sync called %d times, want 2", n)
	}
}

func TestExtendedNamesAndDescribe(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	step := func(want string, msgs ...pgproto3.FrontendMessage) {
		t.Helper()
		c.send(append(msgs, &pgproto3.Sync{})...)
		if got, _ := c.until('Z'); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	step("1 t T Z(I)", &pgproto3.Parse{Name: "s", Query: "select $1::int8, $2", ParameterOIDs: []uint32{0, oidText}},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"})
	step("E(42P05) Z(I)", &pgproto3.Parse{Name: "s", Query: "select $1"})
	step("E(26000) Z(I)", &pgproto3.Describe{ObjectType: 'S', Name: "nope"})
	step("E(26000) Z(I)", &pgproto3.Bind{PreparedStatement: "nope"})
	step("E(34000) Z(I)", &pgproto3.Execute{Portal: "nope"})
	step("E(34000) Z(I)", &pgproto3.Describe{ObjectType: 'P', Name: "nope"})
	// Parameter count and format count checks (non-fatal 08P01).
	step("E(08P01) Z(I)", &pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte("1")}})
	step("E(08P01) Z(I)", &pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{0, 0, 0},
		Parameters: [][]byte{[]byte("1"), []byte("x")}})
	step("E(22023) Z(I)", &pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: []int16{7},
		Parameters: [][]byte{[]byte("1"), []byte("x")}})
	// Binary parameter and result formats; Describe portal reports them.
	c.send(&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1, 0}, ResultFormatCodes: []int16{1, 0},
		Parameters: [][]byte{binary.BigEndian.AppendUint64(nil, 42), nil}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	c.until('2')
	rd := c.recv().(*pgproto3.RowDescription)
	if len(rd.Fields) != 2 || rd.Fields[0].Format != 1 || rd.Fields[0].DataTypeOID != oidInt8 || rd.Fields[1].Format != 0 {
		t.Errorf("RowDescription = %+v", rd.Fields)
	}
	dr := c.recv().(*pgproto3.DataRow)
	if binary.BigEndian.Uint64(dr.Values[0]) != 42 || dr.Values[1] != nil {
		t.Errorf("DataRow = %q", dr.Values)
	}
	if got, _ := c.until('Z'); got != "C(SELECT 1) Z(I)" {
		t.Errorf("got %s", got)
	}
	// Describe of a statement without rows: NoData.
	step("1 t n Z(I)", &pgproto3.Parse{Name: "ins", Query: "insert into t values (1, 'a')"}, &pgproto3.Describe{ObjectType: 'S', Name: "ins"})
	// Named portal duplicate: 42P03; unnamed ones are replaced.
	c.send(&pgproto3.Query{String: "begin"})
	c.until('Z')
	step("2 E(42P03) Z(E)", &pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "ins"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "ins"})
	c.send(&pgproto3.Query{String: "rollback"})
	c.until('Z')
	step("1 2 2 D(x) C(SELECT 1) Z(I)", &pgproto3.Parse{Query: "select $1"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("w")}},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("x")}}, &pgproto3.Execute{})
	// The unnamed statement is replaced by the next Parse.
	step("1 2 D(9) C(SELECT 1) Z(I)", &pgproto3.Parse{Query: "select $1::int8"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("9")}}, &pgproto3.Execute{})
	// Close: CloseComplete even for unknown names; then the name is free.
	step("3 3 E(26000) Z(I)", &pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Close{ObjectType: 'P', Name: "zz"},
		&pgproto3.Bind{PreparedStatement: "s"})
	step("1 Z(I)", &pgproto3.Parse{Name: "s", Query: "select $1"})
	// A simple Query drops the unnamed statement, not the named ones.
	step("1 Z(I)", &pgproto3.Parse{Query: "select $1"})
	c.send(&pgproto3.Query{String: "begin"})
	c.until('Z')
	step("E(26000) Z(E)", &pgproto3.Bind{Parameters: [][]byte{nil}})
	c.send(&pgproto3.Query{String: "rollback"})
	c.until('Z')
	step("2 Z(I)", &pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{nil}})
}

func TestFlushAndBuffering(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	// Without Flush or Sync the server keeps its output buffered.
	c.send(&pgproto3.Parse{Query: "select $1"})
	_ = c.nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := c.fe.Receive(); err == nil {
		t.Fatal("ParseComplete arrived without Flush")
	}
	c.nc.Close()

	c = connectRaw(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "select $1"}, &pgproto3.Flush{})
	if _, ok := c.recv().(*pgproto3.ParseComplete); !ok {
		t.Fatal("no ParseComplete after Flush")
	}
}

func TestFunctionCallRefused(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.FunctionCall{Function: 1})
	if got, _ := c.until('Z'); got != "E(0A000) Z(I)" {
		t.Errorf("got %s", got)
	}
}

func TestTerminateClosesSession(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	waitFor(t, "session", func() bool { return ts.b.live.Load() == 1 })
	c.send(&pgproto3.Terminate{})
	c.expectClosed()
	waitFor(t, "session close", func() bool { return ts.b.live.Load() == 0 })
}

// rawBytes sends b after a valid startup and returns the transcript until
// the server closes the connection.
func rawBytes(t *testing.T, addr string, b []byte) string {
	c := connectRaw(t, addr)
	if _, err := c.nc.Write(b); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		m, err := c.fe.Receive()
		if err != nil {
			return strings.Join(out, " ")
		}
		out = append(out, msgLetter(m))
	}
}

func TestMalformedMessages(t *testing.T) {
	ts := startServer(t, Config{MaxMessageSize: 1024}, nil)
	msg := func(typ byte, body []byte) []byte {
		b := []byte{typ, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(b[1:], uint32(len(body)+4))
		return append(b, body...)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"unknown type", msg('!', nil)},
		{"length below 4", []byte{'Q', 0, 0, 0, 2}},
		{"negative length", []byte{'Q', 0xff, 0xff, 0xff, 0xf0}},
		// A valid query, padded past the limit: refused before it is read.
		{"over MaxMessageSize", encodeFrontend(&pgproto3.Query{String: "select generate_series(1, 1)" + strings.Repeat(" ", 2000)})},
		{"bind truncated", msg('B', []byte{0, 0, 0, 1})},
		{"parse without terminator", msg('P', []byte("abc"))},
		{"describe bad body", msg('D', nil)},
		{"password after startup", msg('p', []byte("secret\x00"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rawBytes(t, ts.addr, tc.b); got != "E(08P01)" {
				t.Errorf("got %q, want a FATAL 08P01 then close", got)
			}
		})
	}
	// The server still serves.
	c := connectRaw(t, ts.addr)
	c.send(&pgproto3.Query{String: "select generate_series(1, 1)"})
	if got, _ := c.until('Z'); got != "T D(1) C(SELECT 1) Z(I)" {
		t.Errorf("got %s", got)
	}
	waitFor(t, "sessions closed", func() bool { return ts.b.live.Load() == 1 })
}

func startupPacket(code uint32, params ...string) []byte {
	body := binary.BigEndian.AppendUint32(nil, code)
	for _, p := range params {
		body = append(append(body, p...), 0)
	}
	if len(params) > 0 {
		body = append(body, 0)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
}

func TestStartupNegotiation(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	t.Run("SSL and GSSENC refused then startup", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write(startupPacket(sslRequestCode))
		c.nc.Write(startupPacket(gssEncRequestCode))
		var b [2]byte
		if _, err := c.nc.Read(b[:1]); err != nil || b[0] != 'N' {
			t.Fatalf("SSL answer %q %v", b[0], err)
		}
		if _, err := c.nc.Read(b[1:]); err != nil || b[1] != 'N' {
			t.Fatalf("GSS answer %q %v", b[1], err)
		}
		c.nc.Write(startupPacket(3<<16, "user", "u"))
		if got, _ := c.until('Z'); !strings.HasPrefix(got, "R S") || !strings.HasSuffix(got, "K Z(I)") {
			t.Errorf("got %s", got)
		}
	})
	t.Run("protocol 2.0", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write(startupPacket(2<<16, "user", "u"))
		if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.FeatureNotSupported || e.Severity != "FATAL" {
			t.Errorf("got %+v", e)
		}
		c.expectClosed()
	})
	t.Run("protocol 3.2 negotiated down", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write(startupPacket(3<<16|2, "user", "u", "_pq_.foo", "1"))
		m := c.recv().(*pgproto3.NegotiateProtocolVersion)
		if m.NewestMinorProtocol != 0 || len(m.UnrecognizedOptions) != 1 || m.UnrecognizedOptions[0] != "_pq_.foo" {
			t.Errorf("got %+v", m)
		}
		c.until('Z')
	})
	t.Run("no user", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write(startupPacket(3<<16, "database", "d"))
		if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.InvalidAuthorizationSpec {
			t.Errorf("got %+v", e)
		}
	})
	t.Run("bad length", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write([]byte{0, 0, 0, 2})
		if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.ProtocolViolation {
			t.Errorf("got %+v", e)
		}
	})
	t.Run("unterminated params", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		p := startupPacket(3<<16, "user", "u")
		p = p[:len(p)-1]
		binary.BigEndian.PutUint32(p, uint32(len(p)))
		c.nc.Write(p)
		if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.ProtocolViolation {
			t.Errorf("got %+v", e)
		}
	})
	t.Run("unknown database", func(t *testing.T) {
		c := dialRaw(t, ts.addr)
		c.nc.Write(startupPacket(3<<16, "user", "u", "database", "nodb"))
		if got, m := c.until('E'); got != "R E(3D000)" || m.(*pgproto3.ErrorResponse).Severity != "FATAL" {
			t.Errorf("got %s", got)
		}
		c.expectClosed()
	})
}

// A COPY FROM STDIN canceled while the server waits for the client's data
// (here in the middle of a CopyData message) ends with 57014; the rest of
// the client's copy stream, that message's remaining bytes included, is
// dropped and the connection goes on. The command loop reads the socket
// itself, so the cancel has to interrupt a blocked read that must resume
// where it stopped.
func TestCopyInCanceledWhileWaiting(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c, key := connectWithKey(t, ts.addr)
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.until('G')
	c.send(&pgproto3.CopyData{Data: []byte("1\tx\n")})
	// A CopyData of 8 bytes of which 3 are sent now.
	if _, err := c.nc.Write([]byte{'d', 0, 0, 0, 12, '2', '\t', 'y'}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	if got, _ := c.until('Z'); got != "E(57014) Z(I)" {
		t.Fatalf("canceled COPY: got %s", got)
	}
	if _, err := c.nc.Write([]byte("\n3\tz\n")); err != nil {
		t.Fatal(err)
	}
	c.send(&pgproto3.CopyData{Data: []byte("4\tw\n")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "select a, b from t"})
	if got, _ := c.until('Z'); got != "T C(SELECT 0) Z(I)" {
		t.Errorf("after the canceled COPY: got %s", got)
	}
	// The connection still copies.
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.until('G')
	c.send(&pgproto3.CopyData{Data: []byte("5\tv\n")}, &pgproto3.CopyDone{})
	if got, _ := c.until('Z'); got != "C(COPY 1) Z(I)" {
		t.Errorf("next COPY: got %s", got)
	}
}

// A CancelRequest of an Execute cancels that statement only: the Sync
// after it (same command cycle, withStmt) and the next cycle run under
// live contexts.
func TestCancelRequestExtended(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c, key := connectWithKey(t, ts.addr)
	c.send(&pgproto3.Parse{Query: "select pg_sleep(30)"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	<-ts.b.started
	sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
	if got, _ := c.until('Z'); got != "1 2 E(57014) Z(I)" {
		t.Fatalf("canceled Execute: got %s", got)
	}
	c.send(&pgproto3.Parse{Query: "select generate_series(1, 2)"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "1 2 D(1) D(2) C(SELECT 2) Z(I)" {
		t.Errorf("next cycle: got %s", got)
	}
}
