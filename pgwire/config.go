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
	ServerVersion  string // e.g. "16.4 (bsdb-pg 0.1.0)"; sent as server_version when the Session's ParameterStatus lacks it
	Logger         *slog.Logger
	// AuthTimeout bounds the time from accept to the end of authentication
	// (PostgreSQL's authentication_timeout). Default 60s.
	AuthTimeout time.Duration
}

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
	return c
}
