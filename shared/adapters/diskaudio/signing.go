package diskaudio

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"sync"
	"time"
)

// signer is what the local stand-ins for S3's presigned requests (Uploads,
// Links) share: an HMAC key, a clock, and the service's base address, known
// only once the listener is bound.
type signer struct {
	secret []byte
	now    func() time.Time

	mu   sync.RWMutex
	base string
}

func newSigner(secret []byte, now func() time.Time) signer {
	if now == nil {
		now = time.Now
	}
	return signer{secret: secret, now: now}
}

// SetBaseURL sets the service's base address (e.g. http://127.0.0.1:8080).
func (s *signer) SetBaseURL(base string) {
	s.mu.Lock()
	s.base = base
	s.mu.Unlock()
}

func (s *signer) baseURL() (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.base == "" {
		return "", errors.New("local signed URLs: base URL not set")
	}
	return s.base, nil
}

// sign is the hex HMAC-SHA256 of the fields, one per line.
func (s *signer) sign(fields ...string) string {
	m := hmac.New(sha256.New, s.secret)
	_, _ = io.WriteString(m, strings.Join(fields, "\n"))
	return hex.EncodeToString(m.Sum(nil))
}
