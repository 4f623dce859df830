package pgwire

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

func encodeFrontend(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			panic(err)
		}
	}
	return b
}

// FuzzServerMessages sends arbitrary bytes after a valid startup. The
// server must not panic; the connection either closes (after an error) or
// goes on; a fresh connection afterwards must work. Crashers are kept under
// testdata/fuzz/FuzzServerMessages.
//
//	go test -run XXX -fuzz FuzzServerMessages -fuzztime 60s ./pgwire
func FuzzServerMessages(f *testing.F) {
	f.Add(encodeFrontend(&pgproto3.Query{String: "select generate_series(1, 3)"}))
	f.Add(encodeFrontend(&pgproto3.Parse{Name: "s", Query: "select $1::int8, $2", ParameterOIDs: []uint32{20}},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1, 0}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 1}, nil}, ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{MaxRows: 1}, &pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Sync{}))
	f.Add(encodeFrontend(&pgproto3.Query{String: "copy t from stdin"}, &pgproto3.CopyData{Data: []byte("1\ta\n")}, &pgproto3.CopyDone{}))
	f.Add(encodeFrontend(&pgproto3.Query{String: "copy t from stdin"}, &pgproto3.CopyFail{Message: "x"}, &pgproto3.Flush{}))
	f.Add(encodeFrontend(&pgproto3.Parse{Query: "bogus"}, &pgproto3.Bind{}, &pgproto3.Sync{}, &pgproto3.Terminate{}))
	f.Add(encodeFrontend(&pgproto3.Query{String: "begin; select error()"}, &pgproto3.Query{String: "rollback"}))
	f.Add([]byte{'B', 0, 0, 0, 8, 0, 0, 0, 1})
	f.Add([]byte{'Q', 0xff, 0xff, 0xff, 0xff})
	f.Add(binary.BigEndian.AppendUint32([]byte{'d'}, 4))

	ts := startServer(f, Config{MaxMessageSize: 4096}, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := connectRaw(t, ts.addr)
		if _, err := c.nc.Write(data); err != nil {
			return // the server may already have closed on an early error
		}
		_ = c.nc.(*net.TCPConn).CloseWrite()
		// Read until the server closes; a statement that never ends (the
		// test backend's flood) is cut by the deadline.
		_ = c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		for {
			if _, err := c.fe.Receive(); err != nil {
				break
			}
		}
		c.nc.Close()

		fresh := connectRaw(t, ts.addr)
		fresh.send(&pgproto3.Query{String: "select generate_series(1, 1)"})
		if got, _ := fresh.until('Z'); got != "T D(1) C(SELECT 1) Z(I)" {
			t.Fatalf("fresh connection after fuzz input: %s", got)
		}
		fresh.nc.Close()
	})
}
