package pgwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677), server side, without channel binding.
//
//	C: SASLInitialResponse  mechanism "SCRAM-SHA-256", "n,,n=<user>,r=<cnonce>"
//	S: AuthenticationSASLContinue  "r=<cnonce><snonce>,s=<b64 salt>,i=4096"
//	C: SASLResponse  "c=biws,r=<cnonce><snonce>,p=<b64 ClientProof>"
//	S: AuthenticationSASLFinal  "v=<b64 ServerSignature>"
//
// Like PostgreSQL, the user name inside the SCRAM messages is ignored (the
// startup packet's user is authenticated), and an unknown user gets a mock
// exchange with a stable fake salt that always fails, so the exchange does
// not reveal whether a user exists. Passwords are used as raw UTF-8 bytes
// (no SASLprep normalization; identical for ASCII passwords).
const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096
	scramSaltLen    = 16
	scramNonceLen   = 18
)

// scramVerifier is what PostgreSQL stores in pg_authid for a SCRAM password.
type scramVerifier struct {
	salt       []byte
	iterations int
	storedKey  []byte
	serverKey  []byte
}

// scramCache derives each user's verifier once (PBKDF2 is deliberately
// slow) with a salt chosen at server start.
type scramCache struct {
	mockKey []byte // keys the fake salt of unknown users
	mu      struct {
		sync.Mutex
		byUser map[string]*scramVerifier // key: user + "\x00" + password
	}
}

func newSCRAMCache() *scramCache {
	sc := &scramCache{mockKey: make([]byte, 32)}
	_, _ = rand.Read(sc.mockKey)
	sc.mu.byUser = make(map[string]*scramVerifier)
	return sc
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func newSCRAMVerifier(password string, salt []byte, iterations int) (*scramVerifier, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("pgwire: scram: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramVerifier{salt: salt, iterations: iterations, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

// mock is the verifier of a user without a SCRAM secret: a stable fake
// salt, and keys no proof matches.
func (sc *scramCache) mock(user string) *scramVerifier {
	salt := hmacSHA256(sc.mockKey, user)[:scramSaltLen]
	return &scramVerifier{salt: salt, iterations: scramIterations, storedKey: make([]byte, sha256.Size), serverKey: make([]byte, sha256.Size)}
}

// verifier returns the verifier of user, or a mock one (ok=false) that no
// proof matches. A stored secret (plain=false) is used as is; a cleartext
// password (Auth.Users) gets a verifier derived once with a salt chosen
// at server start.
func (sc *scramCache) verifier(secret string, plain bool, user string) (v *scramVerifier, ok bool, err error) {
	if !plain {
		if v, ok := parseSCRAMVerifier(secret); ok {
			return v, true, nil
		}
		return sc.mock(user), false, nil
	}
	password := secret
	if password == "" {
		return sc.mock(user), false, nil
	}
	key := user + "\x00" + password
	sc.mu.Lock()
	v = sc.mu.byUser[key]
	sc.mu.Unlock()
	if v != nil {
		return v, true, nil
	}
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, false, fmt.Errorf("pgwire: scram salt: %w", err)
	}
	if v, err = newSCRAMVerifier(password, salt, scramIterations); err != nil {
		return nil, false, err
	}
	sc.mu.Lock()
	if old := sc.mu.byUser[key]; old != nil {
		v = old // a concurrent login won the race; keep one salt per user
	} else {
		sc.mu.byUser[key] = v
	}
	sc.mu.Unlock()
	return v, true, nil
}

func malformedSCRAM(format string, args ...any) *pgerr.Error {
	return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.ProtocolViolation,
		Message: "malformed SCRAM message", Detail: fmt.Sprintf(format, args...)}
}

// scramClientFirst is the parsed client-first-message.
type scramClientFirst struct {
	gs2Header string // "n,," or "y,,"
	bare      string // client-first-message-bare
	nonce     string
}

func parseSCRAMClientFirst(msg string) (scramClientFirst, error) {
	var cf scramClientFirst
	switch {
	case strings.HasPrefix(msg, "p="):
		return cf, malformedSCRAM("channel binding is not supported by this server")
	case strings.HasPrefix(msg, "n,"), strings.HasPrefix(msg, "y,"):
	default:
		return cf, malformedSCRAM("unexpected channel-binding flag")
	}
	rest := msg[2:]
	if strings.HasPrefix(rest, "a=") {
		return cf, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.FeatureNotSupported,
			Message: "client uses authorization identity, but it is not supported"}
	}
	if !strings.HasPrefix(rest, ",") {
		return cf, malformedSCRAM("comma expected after channel-binding flag")
	}
	cf.gs2Header, cf.bare = msg[:3], rest[1:]
	if strings.HasPrefix(cf.bare, "m=") {
		return cf, &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.FeatureNotSupported,
			Message: "client requires an unsupported SCRAM extension"}
	}
	attrs := strings.Split(cf.bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") || len(attrs[1]) == 2 {
		return cf, malformedSCRAM("expected user name and nonce attributes")
	}
	cf.nonce = attrs[1][2:]
	for i := 0; i < len(cf.nonce); i++ {
		if b := cf.nonce[i]; b < 0x21 || b > 0x7e {
			return cf, malformedSCRAM("nonce contains invalid characters")
		}
	}
	return cf, nil
}

func (c *conn) authSCRAM(user string) error {
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	if err := c.in.SetAuthType(pgproto3.AuthTypeSASL); err != nil {
		return fmt.Errorf("BUG: %w", err)
	}
	init, err := receiveAuth[*pgproto3.SASLInitialResponse](c)
	if err != nil {
		return err
	}
	if init.AuthMechanism != scramMechanism {
		return &pgerr.Error{Severity: pgerr.SeverityFatal, Code: pgerr.ProtocolViolation,
			Message: "client selected an invalid SASL authentication mechanism"}
	}
	cf, err := parseSCRAMClientFirst(string(init.Data))
	if err != nil {
		return err
	}
	secret, plain, err := c.storedPassword(user)
	if err != nil {
		return err
	}
	v, known, err := c.srv.scram.verifier(secret, plain, user)
	if err != nil {
		return err
	}
	snonce := make([]byte, scramNonceLen)
	if _, err := rand.Read(snonce); err != nil {
		return fmt.Errorf("pgwire: scram nonce: %w", err)
	}
	nonce := cf.nonce + base64.StdEncoding.EncodeToString(snonce)
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(v.salt), v.iterations)
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	if err := c.in.SetAuthType(pgproto3.AuthTypeSASLContinue); err != nil {
		return fmt.Errorf("BUG: %w", err)
	}
	resp, err := receiveAuth[*pgproto3.SASLResponse](c)
	if err != nil {
		return err
	}
	final := string(resp.Data)
	i := strings.LastIndex(final, ",p=")
	if i < 0 {
		return malformedSCRAM("could not find proof in client-final-message")
	}
	withoutProof, proofB64 := final[:i], final[i+3:]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || attrs[0] != "c="+base64.StdEncoding.EncodeToString([]byte(cf.gs2Header)) {
		return malformedSCRAM("unexpected SCRAM channel-binding attribute in client-final-message")
	}
	if attrs[1] != "r="+nonce {
		return malformedSCRAM("SCRAM nonce mismatch")
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != sha256.Size {
		return malformedSCRAM("malformed SCRAM proof")
	}
	authMessage := cf.bare + "," + serverFirst + "," + withoutProof
	clientSig := hmacSHA256(v.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for k := range clientKey {
		clientKey[k] = proof[k] ^ clientSig[k]
	}
	got := sha256.Sum256(clientKey)
	if !known || subtle.ConstantTimeCompare(got[:], v.storedKey) != 1 {
		return authFailed(user)
	}
	serverSig := hmacSHA256(v.serverKey, authMessage)
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSig))})
	if err := c.in.SetAuthType(pgproto3.AuthTypeOk); err != nil {
		return fmt.Errorf("BUG: %w", err)
	}
	return nil
}
