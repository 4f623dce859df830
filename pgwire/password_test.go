package pgwire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// storedRoles is a RoleSource over stored passwords.
type storedRoles map[string]string

func (r storedRoles) Password(_ context.Context, user string) (string, error) { return r[user], nil }

// TestStoredPasswords: every method against passwords stored as
// PostgreSQL stores them (SCRAM verifier, MD5 hash): the md5 method runs
// SCRAM for a role with a SCRAM verifier, as PostgreSQL does; SCRAM cannot
// authenticate an MD5-hashed password; a role without one never gets in.
func TestStoredPasswords(t *testing.T) {
	scram, err := EncryptPasswordSCRAM("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	// PostgreSQL 15's own verifier of "pw" (salt and keys from pg_authid).
	const pgVerifier = "SCRAM-SHA-256$4096:jfaoqRVfrg9pODQyumXyLA==$UWAB5+n+xJ+YM0nMLh5ONv2i9UNPuIeqoVWQiLCmOWU=:s3hkR3ae9Tc5mmKhp/BJeGzSDdxN0F3phGTzvhMwbQc="
	roles := storedRoles{"alice": scram, "bob": EncryptPasswordMD5("bob", "md5pw"), "carol": "", "pgalice": pgVerifier}
	for _, method := range []AuthMethod{AuthPassword, AuthMD5, AuthSCRAM} {
		t.Run(string(method), func(t *testing.T) {
			ts := startServer(t, Config{Auth: AuthConfig{Method: method, Roles: roles}}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			bobOK := method != AuthSCRAM
			for _, tc := range []struct {
				user, password string
				ok             bool
			}{
				{"alice", "s3cret", true},
				{"alice", "wrong", false},
				{"pgalice", "pw", true},
				{"bob", "md5pw", bobOK},
				{"bob", "wrong", false},
				{"carol", "", false},
				{"carol", "x", false},
				{"nobody", "s3cret", false},
			} {
				cfg, err := pgx.ParseConfig(ts.url(tc.user, "", ""))
				if err != nil {
					t.Fatal(err)
				}
				cfg.Password = tc.password
				conn, err := pgx.ConnectConfig(ctx, cfg)
				if tc.ok {
					if err != nil {
						t.Errorf("%s/%s: %v", tc.user, tc.password, err)
					} else {
						conn.Close(ctx)
					}
					continue
				}
				if pgCode(err) != pgerr.InvalidPassword || !strings.Contains(err.Error(), `password authentication failed for user "`+tc.user+`"`) {
					t.Errorf("%s/%q: got %v, want 28P01", tc.user, tc.password, err)
				}
			}
		})
	}
}

func TestPasswordForms(t *testing.T) {
	v, err := EncryptPasswordSCRAM("x")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "SCRAM-SHA-256$4096:") || !IsEncryptedPassword(v) {
		t.Errorf("verifier %q", v)
	}
	// What PostgreSQL stored for ALTER ROLE md5t PASSWORD 'pw2' under
	// password_encryption = md5.
	if got := EncryptPasswordMD5("md5t", "pw2"); got != "md506f13d2d928c6064c50a3ececf8b0da7" || !IsEncryptedPassword(got) {
		t.Errorf("md5 %q", got)
	}
	for _, s := range []string{"pw", "md5xyz", "md5a3556571e93b0d20722ba62be61e8c2", "SCRAM-SHA-256$4096:abc", "SCRAM-SHA-256$x:AA==$AA==:AA=="} {
		if IsEncryptedPassword(s) {
			t.Errorf("%q taken as encrypted", s)
		}
	}
	if !IsEncryptedPassword("md5a3556571e93b0d20722ba62be61e8c2d") {
		t.Error("md5 hash not recognized")
	}
}
