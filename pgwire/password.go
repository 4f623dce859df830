package pgwire

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Stored passwords, as PostgreSQL keeps them in pg_authid.rolpassword:
//
//	SCRAM-SHA-256$<iterations>:<b64 salt>$<b64 StoredKey>:<b64 ServerKey>
//	md5<hex md5(password || user)>
//
// A role's cleartext password is never stored (password_encryption =
// scram-sha-256, PostgreSQL 15's default).

// RoleSource gives the password methods the stored password of a role.
type RoleSource interface {
	// Password returns user's stored password: a SCRAM-SHA-256 verifier,
	// an MD5 hash, or "" when the role has none, its password expired
	// (VALID UNTIL) or no such role exists; authentication then fails as
	// for a wrong password.
	Password(ctx context.Context, user string) (string, error)
}

// EncryptPasswordSCRAM returns the SCRAM-SHA-256 verifier of password
// with a fresh random salt and 4096 iterations, as PostgreSQL stores it.
func EncryptPasswordSCRAM(password string) (string, error) {
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("pgwire: scram salt: %w", err)
	}
	v, err := newSCRAMVerifier(password, salt, scramIterations)
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", v.iterations, b64(v.salt), b64(v.storedKey), b64(v.serverKey)), nil
}

// EncryptPasswordMD5 returns PostgreSQL's MD5 password hash of user's
// password: "md5" + hex(md5(password || user)).
func EncryptPasswordMD5(user, password string) string {
	sum := md5.Sum([]byte(password + user))
	return "md5" + hex.EncodeToString(sum[:])
}

// IsEncryptedPassword reports whether s is already an MD5 hash or a SCRAM
// verifier: PostgreSQL stores such a PASSWORD value as given.
func IsEncryptedPassword(s string) bool {
	if isMD5Hash(s) {
		return true
	}
	_, ok := parseSCRAMVerifier(s)
	return ok
}

func isMD5Hash(s string) bool {
	if len(s) != 35 || !strings.HasPrefix(s, "md5") {
		return false
	}
	_, err := hex.DecodeString(s[3:])
	return err == nil
}

// parseSCRAMVerifier reads a stored SCRAM-SHA-256 verifier.
func parseSCRAMVerifier(s string) (*scramVerifier, bool) {
	rest, ok := strings.CutPrefix(s, "SCRAM-SHA-256$")
	if !ok {
		return nil, false
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, false
	}
	iter, salt64, ok := strings.Cut(params, ":")
	if !ok {
		return nil, false
	}
	stored64, server64, ok := strings.Cut(keys, ":")
	if !ok {
		return nil, false
	}
	n, err := strconv.Atoi(iter)
	if err != nil || n <= 0 {
		return nil, false
	}
	dec := base64.StdEncoding.DecodeString
	salt, err1 := dec(salt64)
	stored, err2 := dec(stored64)
	server, err3 := dec(server64)
	if err1 != nil || err2 != nil || err3 != nil || len(salt) == 0 || len(stored) != 32 || len(server) != 32 {
		return nil, false
	}
	return &scramVerifier{salt: salt, iterations: n, storedKey: stored, serverKey: server}, true
}

// checkCleartext reports whether password matches the stored secret
// (PostgreSQL's plain_crypt_verify).
func checkCleartext(secret, user, password string) (bool, error) {
	if v, ok := parseSCRAMVerifier(secret); ok {
		got, err := newSCRAMVerifier(password, v.salt, v.iterations)
		if err != nil {
			return false, err
		}
		return subtle.ConstantTimeCompare(got.storedKey, v.storedKey) == 1 &&
			subtle.ConstantTimeCompare(got.serverKey, v.serverKey) == 1, nil
	}
	if isMD5Hash(secret) {
		return subtle.ConstantTimeCompare([]byte(EncryptPasswordMD5(user, password)), []byte(secret)) == 1, nil
	}
	return false, nil
}

// storedPassword is user's password as the configuration holds it: from
// Auth.Roles (stored form, plain=false) or Auth.Users (cleartext).
func (c *conn) storedPassword(user string) (secret string, plain bool, err error) {
	a := c.srv.cfg.Auth
	if a.Roles != nil {
		s, err := a.Roles.Password(c.ctx, user)
		return s, false, err
	}
	return a.Users[user], true, nil
}
