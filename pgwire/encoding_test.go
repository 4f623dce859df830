package pgwire

import (
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestInvalidUTF8Strings: a query string or name that is not valid UTF-8
// is refused as PostgreSQL refuses it (pq_getmsgstring converts every
// string of a message from the client encoding): ERROR 22021, even when
// the bytes are in a comment, before the statement reaches the session;
// inside a block the error fails it. (psql -f of such a file against
// PostgreSQL 15 answers the same.)
func TestInvalidUTF8Strings(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	c := connectRaw(t, ts.addr)
	for _, tc := range []struct{ sql, want string }{
		{"select a, b from t -- bad \xff comment", "E(22021) Z(I)"},
		{"insert into t values (1, 'a\xc3\x28')", "E(22021) Z(I)"},
		{"select a, b from t", "T C(SELECT 0) Z(I)"}, // nothing ran
		{"begin", "C(BEGIN) Z(T)"},
		{"select 1 -- \xff", "E(22021) Z(E)"},
		{"rollback", "C(ROLLBACK) Z(I)"},
	} {
		c.send(&pgproto3.Query{String: tc.sql})
		if got, _ := c.until('Z'); got != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	// As in PostgreSQL, the message names as many bytes as the first
	// one's sequence length (3), the quote included.
	c.send(&pgproto3.Query{String: "select 'x\xe2\x82'"})
	if m, ok := c.recv().(*pgproto3.ErrorResponse); !ok || m.Message != `invalid byte sequence for encoding "UTF8": 0xe2 0x82 0x27` {
		t.Errorf("message: %+v", m)
	}
	c.until('Z')

	// Parse: the query string and the statement name; the error skips to
	// Sync like any other.
	for _, p := range []*pgproto3.Parse{{Query: "select 1 /* \xff */"}, {Name: "s\xfe", Query: "select 1"}} {
		c.send(p, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
		if got, _ := c.until('Z'); got != "E(22021) Z(I)" {
			t.Errorf("Parse %q %q: got %s", p.Name, p.Query, got)
		}
	}
	// Bind, Describe, Execute and Close names.
	c.send(&pgproto3.Parse{Query: "select a, b from t"}, &pgproto3.Bind{DestinationPortal: "p\xff"}, &pgproto3.Sync{})
	if got, _ := c.until('Z'); got != "1 E(22021) Z(I)" {
		t.Errorf("Bind portal name: got %s", got)
	}
	for _, m := range []pgproto3.FrontendMessage{&pgproto3.Describe{ObjectType: 'S', Name: "\xff"},
		&pgproto3.Execute{Portal: "\xff"}, &pgproto3.Close{ObjectType: 'P', Name: "\xff"}} {
		c.send(m, &pgproto3.Sync{})
		if got, _ := c.until('Z'); got != "E(22021) Z(I)" {
			t.Errorf("%T: got %s", m, got)
		}
	}
	c.send(&pgproto3.Query{String: "select a, b from t"})
	if got, _ := c.until('Z'); got != "T C(SELECT 0) Z(I)" {
		t.Errorf("after: %s", got)
	}
}
