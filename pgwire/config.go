package pgwire

import (
	"crypto/tls"
	"log/slog"
	"time"
)

// Config configures a Server. The zero value listens nowhere (use Serve),
// trusts everyone and allows 64 MiB messages.
type Config struct {
	Listen         string      // "127.0.0.1:5433", used by ListenAndServe
	TLS            *tls.Config // nil: answer SSLRequest with 'N'
	Auth           AuthConfig
	MaxMessageSize int    // largest message body accepted after startup; default DefaultMaxMessageSize
	ServerVersion  string // e.g. "15.18 (bsdb-pg 0.1.0)"; sent as server_version when the Session's ParameterStatus lacks it
	Logger         *slog.Logger
	// AuthTimeout bounds the time from accept to the end of authentication
	// (PostgreSQL's authentication_timeout). Default 60s.
	AuthTimeout time.Duration
	// MaxConnections is PostgreSQL's max_connections: how many connections
	// may be past their startup packet at once, authenticating or in a
	// session. The next one gets FATAL 53300 "sorry, too many clients
	// already" right after its startup packet, before authentication, as
	// from PostgreSQL. Default DefaultMaxConnections.
	MaxConnections int
	// ReservedConnections is PostgreSQL's superuser_reserved_connections:
	// of the MaxConnections slots, the last ones are for superusers (see
	// SuperuserChecker). Default 3 (at most MaxConnections-1); negative:
	// none.
	ReservedConnections int
	// MaxSockets bounds the accepted sockets, however far they got: a
	// socket that has not sent its startup packet holds no slot (as in
	// PostgreSQL) but a descriptor, until AuthTimeout. Past the bound a new
	// socket gets the FATAL 53300 and is closed at once, so that idle
	// sockets cannot exhaust the process's file descriptors. Default
	// 2*MaxConnections + 32 (PostgreSQL's postmaster allows about twice its
	// backends as children).
	MaxSockets int
}

// DefaultMaxConnections is the default Config.MaxConnections (PostgreSQL's).
const DefaultMaxConnections = 100

// defaultReservedConnections is PostgreSQL's superuser_reserved_connections.
const defaultReservedConnections = 3

// DefaultMaxMessageSize is the default Config.MaxMessageSize (64 MiB).
const DefaultMaxMessageSize = 64 << 20

// DefaultAuthTimeout is the default Config.AuthTimeout.
const DefaultAuthTimeout = 60 * time.Second

// AuthMethod names an authentication method, as in pg_hba.conf.
type AuthMethod string

// Authentication methods.
const (
	AuthTrust    AuthMethod = "trust"
	AuthPassword AuthMethod = "password" // cleartext
	AuthMD5      AuthMethod = "md5"
	AuthSCRAM    AuthMethod = "scram-sha-256"
	// AuthReject refuses every connection (FATAL 28000) that TrustLoopback
	// does not let in: the default server configuration is
	// {Method: AuthReject, TrustLoopback: true}.
	AuthReject AuthMethod = "reject"
)

// AuthConfig says who may connect.
type AuthConfig struct {
	Method AuthMethod        // default trust
	Users  map[string]string // user -> cleartext password (for password/md5/scram) when Roles is nil
	// Roles, when set, holds the stored passwords (SCRAM verifiers or MD5
	// hashes) of the password methods, instead of Users.
	Roles RoleSource
	// TrustLoopback trusts connections from 127.0.0.0/8 and ::1 regardless
	// of Method.
	TrustLoopback bool
}

func (c Config) withDefaults() Config {
	if c.MaxMessageSize <= 0 {
		c.MaxMessageSize = DefaultMaxMessageSize
	}
	if c.Auth.Method == "" {
		c.Auth.Method = AuthTrust
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.AuthTimeout <= 0 {
		c.AuthTimeout = DefaultAuthTimeout
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	switch {
	case c.ReservedConnections == 0:
		c.ReservedConnections = defaultReservedConnections
	case c.ReservedConnections < 0:
		c.ReservedConnections = 0
	}
	// PostgreSQL refuses to start with superuser_reserved_connections >=
	// max_connections; a small max_connections keeps one slot for all.
	c.ReservedConnections = min(c.ReservedConnections, c.MaxConnections-1)
	if c.MaxSockets <= 0 {
		c.MaxSockets = 2*c.MaxConnections + 32
	}
	c.MaxSockets = max(c.MaxSockets, c.MaxConnections)
	return c
}

// MaxConnections returns the effective max_connections.
func (s *Server) MaxConnections() int { return s.cfg.MaxConnections }

// ReservedConnections returns the effective superuser_reserved_connections.
func (s *Server) ReservedConnections() int { return s.cfg.ReservedConnections }
