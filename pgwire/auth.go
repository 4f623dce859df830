package pgwire

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// maxAuthMessageSize bounds messages before authentication succeeds, so an
// unauthenticated client cannot make us allocate MaxMessageSize.
const maxAuthMessageSize = 16 << 10

// authenticate runs the authentication exchange for user. It returns nil
// when the client may proceed, a FATAL *pgerr.Error to report, or an I/O
// error (client gone).
func (c *conn) authenticate(user, db string) error {
	a := c.srv.cfg.Auth
	if a.TrustLoopback && isLoopback(c.raw.RemoteAddr()) {
		return nil
	}
	switch a.Method {
	case AuthTrust:
		return nil
	case AuthReject:
		return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidAuthorizationSpec,
			Message: fmt.Sprintf("no pg_hba.conf entry for host %q, user %q, database %q, %s",
				hostOf(c.raw.RemoteAddr()), user, db, c.encryptionName())}
	case AuthPassword:
		return c.authCleartext(user)
	case AuthMD5:
		return c.authMD5(user)
	case AuthSCRAM:
		return c.authSCRAM(user)
	default:
		return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidAuthorizationSpec,
			Message: fmt.Sprintf("unsupported authentication method %q configured", a.Method)}
	}
}

func (c *conn) encryptionName() string {
	if c.tls {
		return "SSL encryption"
	}
	return "no encryption"
}

func authFailed(user string) *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidPassword,
		Message: fmt.Sprintf("password authentication failed for user %q", user)}
}

// receiveAuth flushes the pending authentication request and reads the
// client's answer, which must be of type T.
func receiveAuth[T pgproto3.FrontendMessage](c *conn) (T, error) {
	var zero T
	if err := c.flush(); err != nil {
		return zero, err
	}
	msg, err := c.in.Receive()
	if err != nil {
		if c.ior.failed() || errors.Is(err, os.ErrDeadlineExceeded) {
			// I/O: the client went away (psql does, to prompt for a
			// password), or did not answer within authentication_timeout
			// (PostgreSQL closes without a message then too), or Shutdown.
			return zero, err
		}
		return zero, protocolErrorf("invalid authentication message: %v", err)
	}
	m, ok := msg.(T)
	if !ok {
		return zero, protocolErrorf("expected password response, got message of type %T", msg)
	}
	return m, nil
}

func (c *conn) authCleartext(user string) error {
	c.send(&pgproto3.AuthenticationCleartextPassword{})
	m, err := receiveAuth[*pgproto3.PasswordMessage](c)
	if err != nil {
		return err
	}
	secret, plain, err := c.storedPassword(user)
	if err != nil {
		return err
	}
	if secret == "" {
		return authFailed(user)
	}
	if plain {
		if subtle.ConstantTimeCompare([]byte(m.Password), []byte(secret)) != 1 {
			return authFailed(user)
		}
		return nil
	}
	if ok, err := checkCleartext(secret, user, m.Password); err != nil {
		return err
	} else if !ok {
		return authFailed(user)
	}
	return nil
}

// md5Response is what a client sends for md5 auth:
// "md5" + hex(md5(hex(md5(password + user)) + salt)).
func md5Response(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	return md5Salted(hex.EncodeToString(inner[:]), salt)
}

// md5Salted is the response for a stored hash (hex, without "md5").
func md5Salted(hash string, salt [4]byte) string {
	h := md5.New()
	h.Write([]byte(hash))
	h.Write(salt[:])
	return "md5" + hex.EncodeToString(h.Sum(nil))
}

func (c *conn) authMD5(user string) error {
	secret, plain, err := c.storedPassword(user)
	if err != nil {
		return err
	}
	if !plain && !isMD5Hash(secret) && secret != "" {
		// As PostgreSQL: a role whose password is stored as a SCRAM
		// verifier authenticates with SCRAM under the md5 method.
		return c.authSCRAM(user)
	}
	var salt [4]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return fmt.Errorf("pgwire: md5 salt: %w", err)
	}
	c.send(&pgproto3.AuthenticationMD5Password{Salt: salt})
	m, err := receiveAuth[*pgproto3.PasswordMessage](c)
	if err != nil {
		return err
	}
	// Unknown users get the same exchange and the same error, so the
	// answer does not reveal which users exist.
	if secret == "" {
		return authFailed(user)
	}
	var want string
	if plain {
		want = md5Response(user, secret, salt)
	} else {
		want = md5Salted(secret[3:], salt)
	}
	if subtle.ConstantTimeCompare([]byte(m.Password), []byte(want)) != 1 {
		return authFailed(user)
	}
	return nil
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	if a == nil {
		return ""
	}
	return a.String()
}
