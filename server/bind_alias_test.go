package server

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestBindParamsOutliveReadBuffer: pgwire hands Session.Bind parameter
// bytes that point into the connection's read buffer, which the next read
// reuses. Portals are bound, each followed by a Flush and a round trip (so
// the next messages are read into the same buffer, over the old bytes),
// and executed only then: each must still see its own parameters.
func TestBindParamsOutliveReadBuffer(t *testing.T) {
	ts := startServerWith(t, "", -1, func(*Backend) {})
	c := ts.conn(t)
	ctx := context.Background()
	mustExec(t, c, "CREATE TABLE ab (k text, v bytea)")
	if _, err := c.Prepare(ctx, "ins", "INSERT INTO ab VALUES ($1::text, $2::bytea)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prepare(ctx, "sel", "SELECT $1::text, $2::bytea"); err != nil {
		t.Fatal(err)
	}
	hc, err := c.PgConn().Hijack()
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Conn.Close()
	fe := hc.Frontend
	recv := func(want byte) pgproto3.BackendMessage {
		t.Helper()
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if got := msgByte(m); got != want {
			t.Fatalf("got %T, want %c", m, want)
		}
		return m
	}
	type pv struct {
		k string
		v []byte
	}
	vals := []pv{{"aaaaaaaa", []byte{1, 2, 3, 4}}, {"bbbbbbbb", []byte{9, 8, 7, 6}}, {"cccccccc", []byte{5, 5, 5, 5}}}
	portals := []string{"i0", "s0", "i1", "s1", "i2", "s2"}
	for i, name := range portals {
		stmt := "ins"
		if name[0] == 's' {
			stmt = "sel"
		}
		p := vals[i/2]
		fe.Send(&pgproto3.Bind{DestinationPortal: name, PreparedStatement: stmt,
			ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{[]byte(p.k), p.v}, ResultFormatCodes: []int16{0, 1}})
		fe.Send(&pgproto3.Flush{})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		recv('2') // BindComplete
	}
	fe.Send(&pgproto3.Query{String: "BEGIN"}) // named portals live to the transaction's end
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for m := recv('C'); msgByte(m) != 'Z'; m, _ = fe.Receive() {
	}
	t.Log("portals bound; executing")
	for i, name := range portals {
		fe.Send(&pgproto3.Execute{Portal: name})
		fe.Send(&pgproto3.Flush{})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		p := vals[i/2]
		if name[0] == 's' {
			dr := recv('D').(*pgproto3.DataRow)
			if string(dr.Values[0]) != p.k || !bytes.Equal(dr.Values[1], p.v) {
				t.Errorf("portal %s: got (%q, %v), want (%q, %v)", name, dr.Values[0], dr.Values[1], p.k, p.v)
			}
		}
		recv('C')
	}
	fe.Send(&pgproto3.Query{String: "COMMIT"})
	fe.Send(&pgproto3.Query{String: "SELECT k, v FROM ab ORDER BY k"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	recv('C')
	recv('Z')
	recv('T')
	for _, p := range vals {
		dr := recv('D').(*pgproto3.DataRow)
		if want := `\x` + hexOf(p.v); string(dr.Values[0]) != p.k || string(dr.Values[1]) != want {
			t.Errorf("inserted (%q, %q), want (%q, %q)", dr.Values[0], dr.Values[1], p.k, want)
		}
	}
	recv('C')
	recv('Z')
}

func msgByte(m pgproto3.BackendMessage) byte {
	b, err := m.Encode(nil)
	if err != nil || len(b) == 0 {
		return 0
	}
	return b[0]
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, digits[x>>4], digits[x&15])
	}
	return string(out)
}

func TestInsertCacheKeyIs(t *testing.T) {
	s := &session{set: &settings{}}
	s.set.vals = map[string]string{"search_path": `"$user", public`, "datestyle": "ISO, MDY", "timezone": "UTC", "intervalstyle": "postgres"}
	key := s.insertCacheKey()
	if !s.insertCacheKeyIs(key) {
		t.Fatalf("key %q does not match itself", key)
	}
	for _, k := range []string{"", key[:len(key)-1], key + "x", key + "\x00"} {
		if s.insertCacheKeyIs(k) {
			t.Errorf("%q matches %q", k, key)
		}
	}
	s.set.vals["timezone"] = "Europe/Paris"
	if s.insertCacheKeyIs(key) {
		t.Error("key matches after a setting changed")
	}
	if insertTag(1) != "INSERT 0 1" || insertTag(12) != "INSERT 0 12" || insertTag(0) != "INSERT 0 0" {
		t.Error("insertTag")
	}
}
