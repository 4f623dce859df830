package pgwire

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/internal/testcert"
	"github.com/bsdb/bsdb-pg/pgerr"
)

func TestAuthMethodsWithPgx(t *testing.T) {
	users := map[string]string{"alice": "s3cret", "bob": "pä55 word"}
	for _, method := range []AuthMethod{AuthPassword, AuthMD5, AuthSCRAM} {
		t.Run(string(method), func(t *testing.T) {
			ts := startServer(t, Config{Auth: AuthConfig{Method: method, Users: users}}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for _, tc := range []struct {
				user, password, code string
			}{
				{"alice", "s3cret", ""},
				{"bob", "pä55 word", ""},
				{"alice", "s3cret", ""}, // again: the cached SCRAM verifier
				{"alice", "wrong", pgerr.InvalidPassword},
				{"alice", "", pgerr.InvalidPassword},
				{"mallory", "s3cret", pgerr.InvalidPassword}, // unknown user: same answer
			} {
				cfg, err := pgx.ParseConfig(ts.url(tc.user, "", ""))
				if err != nil {
					t.Fatal(err)
				}
				cfg.Password = tc.password
				conn, err := pgx.ConnectConfig(ctx, cfg)
				if tc.code == "" {
					if err != nil {
						t.Errorf("%s/%s: %v", tc.user, tc.password, err)
						continue
					}
					var n int64
					if err := conn.QueryRow(ctx, "select generate_series(1, 1)").Scan(&n); err != nil {
						t.Error(err)
					}
					conn.Close(ctx)
					continue
				}
				if pgCode(err) != tc.code {
					t.Errorf("%s/%q: got %v, want %s", tc.user, tc.password, err, tc.code)
				} else if want := `password authentication failed for user "` + tc.user + `"`; err != nil && !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestAuthRejectAndTrustLoopback(t *testing.T) {
	ts := startServer(t, Config{Auth: AuthConfig{Method: AuthReject}}, nil)
	_, err := pgx.Connect(context.Background(), ts.url("alice", "", ""))
	if pgCode(err) != pgerr.InvalidAuthorizationSpec {
		t.Errorf("reject: %v", err)
	}
	// TrustLoopback lets 127.0.0.1 in whatever the method.
	ts = startServer(t, Config{Auth: AuthConfig{Method: AuthReject, TrustLoopback: true}}, nil)
	pgxConnect(t, ts.url("alice", "", ""))
	ts = startServer(t, Config{Auth: AuthConfig{Method: AuthSCRAM, TrustLoopback: true}}, nil)
	pgxConnect(t, ts.url("nobody", "", ""))
}

func TestSCRAMProtocolErrors(t *testing.T) {
	ts := startServer(t, Config{Auth: AuthConfig{Method: AuthSCRAM, Users: map[string]string{"u": "p"}}}, nil)
	for _, tc := range []struct {
		name, mech, data, code string
	}{
		{"wrong mechanism", "SCRAM-SHA-1", "n,,n=,r=abc", pgerr.ProtocolViolation},
		{"channel binding", "SCRAM-SHA-256", "p=tls-server-end-point,,n=,r=abc", pgerr.ProtocolViolation},
		{"authzid", "SCRAM-SHA-256", "n,a=x,n=,r=abc", pgerr.FeatureNotSupported},
		{"no nonce", "SCRAM-SHA-256", "n,,n=", pgerr.ProtocolViolation},
		{"garbage", "SCRAM-SHA-256", "\x00\xff", pgerr.ProtocolViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, ts.addr)
			c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
			if _, ok := c.recv().(*pgproto3.AuthenticationSASL); !ok {
				t.Fatal("no AuthenticationSASL")
			}
			c.send(&pgproto3.SASLInitialResponse{AuthMechanism: tc.mech, Data: []byte(tc.data)})
			e, ok := c.recv().(*pgproto3.ErrorResponse)
			if !ok || e.Code != tc.code || e.Severity != "FATAL" {
				t.Errorf("got %+v", e)
			}
			c.expectClosed()
		})
	}
	// A wrong final message: nonce mismatch.
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
	c.recv()
	c.send(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")})
	if _, ok := c.recv().(*pgproto3.AuthenticationSASLContinue); !ok {
		t.Fatal("no SASLContinue")
	}
	c.send(&pgproto3.SASLResponse{Data: []byte("c=biws,r=abcX,p=AAAA")})
	if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.ProtocolViolation {
		t.Errorf("got %+v", e)
	}
}

func selfSignedTLS(t *testing.T) *tls.Config {
	cert, _, _ := testcert.New(t)
	return &tls.Config{Certificates: []tls.Certificate{cert}}
}

func TestTLS(t *testing.T) {
	ts := startServer(t, Config{TLS: selfSignedTLS(t), Auth: AuthConfig{Method: AuthSCRAM, Users: map[string]string{"u": "p"}}}, nil)
	host, port, _ := net.SplitHostPort(ts.addr)
	conn := pgxConnect(t, "postgres://u:p@"+host+":"+port+"/db?sslmode=require")
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Errorf("connection is %T, not TLS", conn.PgConn().Conn())
	}
	var n int64
	if err := conn.QueryRow(context.Background(), "select generate_series(1, 1)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	// Without a TLS config the server answers 'N': sslmode=require fails,
	// sslmode=prefer falls back to plaintext.
	plain := startServer(t, Config{}, nil)
	host, port, _ = net.SplitHostPort(plain.addr)
	if _, err := pgx.Connect(context.Background(), "postgres://u@"+host+":"+port+"/db?sslmode=require"); err == nil {
		t.Error("sslmode=require succeeded against a server without TLS")
	}
	pgxConnect(t, "postgres://u@"+host+":"+port+"/db?sslmode=prefer")
}

func TestTLSRejectsBytesBeforeHandshake(t *testing.T) {
	ts := startServer(t, Config{TLS: selfSignedTLS(t)}, nil)
	c := dialRaw(t, ts.addr)
	// SSLRequest immediately followed by a plaintext startup packet.
	c.nc.Write(append(startupPacket(sslRequestCode), startupPacket(3<<16, "user", "u")...))
	var b [1]byte
	if _, err := c.nc.Read(b[:]); err != nil || b[0] != 'S' {
		t.Fatalf("answer %q %v", b[0], err)
	}
	// The server refuses at once with a plaintext FATAL 08P01 instead of
	// starting a handshake over a stream that already holds plaintext.
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Code != pgerr.ProtocolViolation {
		t.Fatalf("got %+v", e)
	}
	c.expectClosed()
}

// A client that does not answer the password request within
// authentication_timeout is disconnected without a message, as PostgreSQL
// does (a read deadline ends the wait; it is not a malformed message).
func TestAuthTimeoutClosesSilently(t *testing.T) {
	ts := startServer(t, Config{AuthTimeout: 300 * time.Millisecond, Auth: AuthConfig{Method: AuthPassword, Users: map[string]string{"alice": "x"}}}, nil)
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "alice"}})
	if _, ok := c.recv().(*pgproto3.AuthenticationCleartextPassword); !ok {
		t.Fatal("no password request")
	}
	start := time.Now()
	for {
		m, err := c.fe.Receive()
		if err != nil {
			break
		}
		t.Errorf("after the timeout: %s", msgLetter(m))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %v", d)
	}
}
