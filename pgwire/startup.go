package pgwire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Startup packet codes (the 4 bytes after the length). Part of the wire
// protocol: major<<16 | minor, with major 1234 reserved for requests.
const (
	sslRequestCode    = 1234<<16 | 5679 // 80877103
	gssEncRequestCode = 1234<<16 | 5680 // 80877104
	cancelRequestCode = 1234<<16 | 5678 // 80877102

	protocolMajor = 3
	protocolMinor = 0

	minStartupPacketLen = 8      // length word + code
	maxStartupPacketLen = 10_000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
)

// readStartupPacket reads one length-prefixed startup packet and returns
// its code and the rest of its body.
func (c *conn) readStartupPacket() (uint32, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.rd, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < minStartupPacketLen || n > maxStartupPacketLen {
		return 0, nil, protocolErrorf("invalid length of startup packet: %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(c.rd, body); err != nil {
		return 0, nil, err
	}
	return binary.BigEndian.Uint32(body), body[4:], nil
}

// negotiate runs the startup packet exchange: SSL/GSS requests, cancel
// requests and protocol version checks. It returns the startup parameters,
// or (nil, nil) when the connection should just close (CancelRequest).
func (c *conn) negotiate() (map[string]string, error) {
	for {
		code, body, err := c.readStartupPacket()
		if err != nil {
			return nil, err
		}
		switch code {
		case sslRequestCode:
			if c.srv.cfg.TLS == nil || c.tls {
				if err := c.writeRaw('N'); err != nil {
					return nil, err
				}
				continue
			}
			if err := c.writeRaw('S'); err != nil {
				return nil, err
			}
			// Bytes sent before the handshake would bypass TLS
			// (CVE-2021-23214): refuse them.
			if c.rd.Buffered() > 0 {
				return nil, protocolErrorf("received unencrypted data after SSL request")
			}
			tc := tls.Server(c.raw, c.srv.cfg.TLS)
			if err := tc.HandshakeContext(c.ctx); err != nil {
				return nil, fmt.Errorf("pgwire: TLS handshake: %w", err)
			}
			c.tls = true
			c.setTransport(tc)
			continue
		case gssEncRequestCode:
			if err := c.writeRaw('N'); err != nil {
				return nil, err
			}
			continue
		case cancelRequestCode:
			var cr pgproto3.CancelRequest
			if err := cr.Decode(append(binary.BigEndian.AppendUint32(nil, code), body...)); err != nil {
				return nil, protocolErrorf("invalid cancel request: %v", err)
			}
			c.srv.cancelRequest(cr.ProcessID, cr.SecretKey)
			return nil, nil
		}
		major, minor := code>>16, code&0xffff
		if major != protocolMajor {
			return nil, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.FeatureNotSupported,
				Message: fmt.Sprintf("unsupported frontend protocol %d.%d: server supports %d.0 to %d.%d",
					major, minor, protocolMajor, protocolMajor, protocolMinor)}
		}
		params, err := parseStartupParams(body)
		if err != nil {
			return nil, err
		}
		// Protocol 3.x with x > 0, or "_pq_." protocol options: answer like
		// PostgreSQL does, with NegotiateProtocolVersion, and speak 3.0.
		var unknown []string
		for k := range params {
			if strings.HasPrefix(k, "_pq_.") {
				unknown = append(unknown, k)
				delete(params, k)
			}
		}
		if minor > protocolMinor || len(unknown) > 0 {
			c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: protocolMinor, UnrecognizedOptions: unknown})
		}
		return params, nil
	}
}

// parseStartupParams decodes the name\0value\0...\0 list of a StartupMessage.
func parseStartupParams(b []byte) (map[string]string, error) {
	params := make(map[string]string)
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, protocolErrorf("invalid startup packet layout: expected terminator as last byte")
		}
		if i == 0 {
			if len(b) != 1 {
				return nil, protocolErrorf("invalid startup packet layout: expected terminator as last byte")
			}
			return params, nil
		}
		name := string(b[:i])
		b = b[i+1:]
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			return nil, protocolErrorf("invalid startup packet layout: expected terminator as last byte")
		}
		params[name] = string(b[:j])
		b = b[j+1:]
	}
}

// writeRaw writes one byte (the answer to SSLRequest/GSSENCRequest).
func (c *conn) writeRaw(b byte) error {
	if err := c.bw.WriteByte(b); err != nil {
		return err
	}
	return c.bw.Flush()
}

// setTransport makes rw the connection's byte stream (after TLS).
func (c *conn) setTransport(rw interface {
	io.Reader
	io.Writer
}) {
	c.ior = &ioErrReader{r: rw}
	c.rd = bufio.NewReaderSize(c.ior, 8192)
	c.bw = bufio.NewWriterSize(rw, 32<<10)
	c.out = pgproto3.NewBackend(nil, c.bw)
}

// startup runs everything from accept to the first ReadyForQuery. It
// returns false if the connection must close.
func (c *conn) startup() bool {
	// Bound the whole exchange (authentication_timeout), and let Shutdown
	// interrupt it.
	_ = c.raw.SetReadDeadline(time.Now().Add(c.srv.cfg.AuthTimeout))
	stop := context.AfterFunc(c.ctx, func() { _ = c.raw.SetReadDeadline(time.Now()) })
	ok := c.startupLocked()
	if !stop() || !ok {
		if ok {
			c.sendError(shutdownError())
		}
		return false
	}
	_ = c.raw.SetReadDeadline(time.Time{})
	return true
}

func (c *conn) startupLocked() bool {
	params, err := c.negotiate()
	if err == nil && params == nil {
		return false // CancelRequest
	}
	if err != nil {
		c.startupFailed(err)
		return false
	}
	user := params["user"]
	if user == "" {
		c.sendError(&pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.InvalidAuthorizationSpec,
			Message: "no PostgreSQL user name specified in startup packet"})
		return false
	}
	db := params["database"]
	if db == "" {
		db = user
	}
	// PostgreSQL takes the backend's slot once the startup packet is in,
	// before authentication (InitProcess): a client that never
	// authenticates holds it until authentication_timeout.
	if !c.srv.takeSlot(c) {
		c.sendError(tooManyClients())
		return false
	}
	c.in = pgproto3.NewBackend(c.rd, nil)
	c.in.SetMaxBodyLen(maxAuthMessageSize)
	if err := c.authenticate(user, db); err != nil {
		c.startupFailed(err)
		return false
	}
	c.in.SetMaxBodyLen(c.srv.cfg.MaxMessageSize)
	c.send(&pgproto3.AuthenticationOk{})
	if c.srv.reservedForSuperusers(user) {
		// After AuthenticationOk, as from PostgreSQL (InitPostgres).
		c.srv.releaseSlot(c)
		c.sendError(&pgerr.Error{Severity: pgerr.SeverityFatal, Code: codeTooManyConnections,
			Message: "remaining connection slots are reserved for non-replication superuser connections"})
		return false
	}

	if _, err := rand.Read(c.secret[:]); err != nil {
		c.startupFailed(fmt.Errorf("pgwire: cancel key: %w", err))
		return false
	}
	c.srv.assignPID(c)
	c.mu.Lock()
	c.info = StartupInfo{User: user, Database: db, Params: params, RemoteAddr: c.raw.RemoteAddr(), PID: c.pid}
	c.mu.appName = params["application_name"]
	c.mu.Unlock()

	var sess Session
	err = c.guard("NewSession", func() error {
		var err error
		sess, err = c.srv.backend.NewSession(c.ctx, c.info)
		return err
	})
	if err == nil && sess == nil {
		err = fmt.Errorf("BUG: Backend.NewSession returned neither a session nor an error")
	}
	if err != nil {
		e := c.wireError(err, c.ctx)
		e.Severity = pgerr.SeverityFatal
		c.sendError(e)
		return false
	}
	c.sess = sess
	var ps [][2]string
	if err := c.guard("ParameterStatus", func() error { ps = sess.ParameterStatus(); return nil }); err != nil {
		c.sendError(c.wireError(err, nil))
		return false
	}
	hasVersion := false
	for _, p := range ps {
		hasVersion = hasVersion || p[0] == "server_version"
		c.send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
		if p[0] == "application_name" {
			c.mu.Lock()
			c.mu.appName = p[1]
			c.mu.Unlock()
		}
	}
	if !hasVersion && c.srv.cfg.ServerVersion != "" {
		c.send(&pgproto3.ParameterStatus{Name: "server_version", Value: c.srv.cfg.ServerVersion})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.readyForQuery()
	return !c.stop && c.writeErr == nil
}

// startupFailed reports err, unless it is an I/O error (the client is gone
// or gave up, as psql does when it learns a password is needed).
func (c *conn) startupFailed(err error) {
	if c.ctx.Err() != nil && context.Cause(c.ctx) == errShutdown {
		c.sendError(shutdownError())
		return
	}
	if e, ok := pgerr.As(err); ok {
		c.sendError(e)
		return
	}
	c.log.Debug("pgwire: connection closed during startup", "remote", c.raw.RemoteAddr(), "err", err)
}
