// Package identity holds the local identity mechanics: password hashing, API key
// minting and hashing, and the signed short-lived dashboard session tokens.
package identity

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"math/big"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// MinPasswordLength is the shortest password signup accepts.
const MinPasswordLength = 10

// HashPassword returns a bcrypt hash. bcrypt caps input at 72 bytes; longer
// passwords are refused by the caller's validation rather than silently truncated.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// CheckPassword reports whether password matches the bcrypt hash.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// DummyPasswordHash is a hash of the same cost as HashPassword's that no
// password is known to match. Checking a password against it when the account
// does not exist spends the same time as checking a real one, so the time of a
// failed sign-in does not tell whether the email has an account.
func DummyPasswordHash() string {
	dummyOnce.Do(func() {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			panic(err)
		}
		h, err := bcrypt.GenerateFromPassword([]byte(base64.RawURLEncoding.EncodeToString(secret)), bcrypt.DefaultCost)
		if err != nil {
			panic(err)
		}
		dummyHash = string(h)
	})
	return dummyHash
}

var (
	dummyOnce sync.Once
	dummyHash string
)

// apiKeyPrefix marks our API keys so they are recognisable in logs and secret scanners.
const apiKeyPrefix = "cs_"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIKey mints a secret key (shown once), its display prefix and its SHA-256
// hash (the only form stored).
func NewAPIKey() (secret, prefix, hash string, err error) {
	var b strings.Builder
	b.WriteString(apiKeyPrefix)
	max := big.NewInt(int64(len(base62)))
	for range 40 { // 40 base62 chars ≈ 238 bits
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", "", "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	secret = b.String()
	return secret, secret[:len(apiKeyPrefix)+6], HashAPIKey(secret), nil
}

// HashAPIKey is the lookup hash of an API key secret.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// sessionPrefix keeps session tokens distinguishable from API keys.
const sessionPrefix = "css."

// ErrInvalidSession is returned for any token that is malformed, forged or expired.
var ErrInvalidSession = errors.New("invalid or expired session")

// Sessions issues and verifies HMAC-signed dashboard session tokens.
type Sessions struct {
	key *Signer
	ttl time.Duration
	now func() time.Time
}

// SessionTTL is the lifetime of a local dashboard session token (Cognito's
// ID tokens on AWS live as long).
const SessionTTL = time.Hour

// NewSessions derives the signing key from secret; tokens live for ttl.
func NewSessions(secret []byte, ttl time.Duration, now func() time.Time) *Sessions {
	return &Sessions{key: NewSigner(DeriveKey(secret, "dashboard-session")), ttl: ttl, now: now}
}

type sessionClaims struct {
	Sub string `json:"sub"`
	Exp int64  `json:"exp"`
}

// Issue returns a token for the account and its expiry.
func (s *Sessions) Issue(accountID string) (string, time.Time) {
	exp := s.now().Add(s.ttl).UTC().Truncate(time.Second)
	payload, _ := json.Marshal(sessionClaims{Sub: accountID, Exp: exp.Unix()})
	return sessionPrefix + s.key.Sign(payload), exp
}

// Verify returns the account of a valid, unexpired token.
func (s *Sessions) Verify(token string) (string, error) {
	rest, ok := strings.CutPrefix(token, sessionPrefix)
	if !ok {
		return "", ErrInvalidSession
	}
	payload, err := s.key.Open(rest)
	if err != nil {
		return "", ErrInvalidSession
	}
	var c sessionClaims
	if json.Unmarshal(payload, &c) != nil || c.Sub == "" || s.now().Unix() >= c.Exp {
		return "", ErrInvalidSession
	}
	return c.Sub, nil
}

// DeriveKey derives a purpose-specific key so one secret can sign several kinds of
// token without one kind being accepted as another.
func DeriveKey(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// Sign returns base64url(payload) "." base64url(HMAC-SHA256(key, payload)).
func Sign(key, payload []byte) string { return NewSigner(key).Sign(payload) }

// Signer signs and opens tokens with one key, reusing its keyed HMAC states:
// hmac.New hashes the key into two pads and allocates both digests on every
// call, which for a list page's cursor cost more than the signing itself.
// Safe for concurrent use.
type Signer struct {
	macs sync.Pool // of hash.Hash, keyed HMAC-SHA256
}

// NewSigner returns a Signer for key.
func NewSigner(key []byte) *Signer {
	key = bytes.Clone(key)
	return &Signer{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}}
}

func (s *Signer) mac(payload []byte, dst []byte) []byte {
	m := s.macs.Get().(hash.Hash)
	m.Reset()
	m.Write(payload)
	dst = m.Sum(dst)
	s.macs.Put(m)
	return dst
}

// Sign is the package's Sign with the Signer's key.
func (s *Signer) Sign(payload []byte) string {
	var sum [sha256.Size]byte
	mac := s.mac(payload, sum[:0])
	enc := base64.RawURLEncoding
	n := enc.EncodedLen(len(payload))
	token := make([]byte, n+1+enc.EncodedLen(len(mac)))
	enc.Encode(token, payload)
	token[n] = '.'
	enc.Encode(token[n+1:], mac)
	return string(token)
}

// Open is the package's Open with the Signer's key.
func (s *Signer) Open(token string) ([]byte, error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 4096 {
		return nil, ErrBadSignature
	}
	// Strict decoding: otherwise a changed final character whose extra bits are
	// ignored would decode to the same bytes and a modified token would verify.
	enc := base64.RawURLEncoding.Strict()
	payload, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, ErrBadSignature
	}
	var sum [sha256.Size]byte
	if !hmac.Equal(mac, s.mac(payload, sum[:0])) {
		return nil, ErrBadSignature
	}
	return payload, nil
}

// ErrBadSignature is returned by Open for malformed or tampered tokens.
var ErrBadSignature = errors.New("malformed or tampered token")

// Open verifies a token made by Sign and returns its payload.
func Open(key []byte, token string) ([]byte, error) { return NewSigner(key).Open(token) }
