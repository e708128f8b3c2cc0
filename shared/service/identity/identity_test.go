package identity

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPasswordHashRoundTrip(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "correct") {
		t.Fatal("hash contains the password")
	}
	if !CheckPassword(h, "correct horse battery") {
		t.Fatal("right password rejected")
	}
	if CheckPassword(h, "correct horse batterY") {
		t.Fatal("wrong password accepted")
	}
}

func TestAPIKeysAreUniqueAndHashed(t *testing.T) {
	s1, p1, h1, err := NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	s2, _, h2, _ := NewAPIKey()
	if s1 == s2 || h1 == h2 {
		t.Fatal("two keys collided")
	}
	if !strings.HasPrefix(s1, p1) || len(p1) >= len(s1) {
		t.Fatalf("prefix %q is not a proper prefix of the key", p1)
	}
	if HashAPIKey(s1) != h1 || len(h1) != 64 {
		t.Fatalf("hash %q is not the SHA-256 hex of the key", h1)
	}
}

func TestSessionsVerifyExpiryAndTampering(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := NewSessions([]byte("secret-1"), time.Hour, clock)
	tok, exp := s.Issue("acct-1")
	if !exp.Equal(now.Add(time.Hour)) {
		t.Fatalf("expiry %v, want %v", exp, now.Add(time.Hour))
	}
	if got, err := s.Verify(tok); err != nil || got != "acct-1" {
		t.Fatalf("Verify = %q, %v", got, err)
	}
	other := NewSessions([]byte("secret-2"), time.Hour, clock)
	if _, err := other.Verify(tok); err == nil {
		t.Fatal("token signed with another secret accepted")
	}
	tampered := tok[:len(tok)-2] + "AA"
	if _, err := s.Verify(tampered); err == nil {
		t.Fatal("tampered token accepted")
	}
	for _, bad := range []string{"", "css.", "css.abc", "cs_abcdef", tok + "."} {
		if _, err := s.Verify(bad); err == nil {
			t.Fatalf("malformed token %q accepted", bad)
		}
	}
	now = now.Add(time.Hour)
	if _, err := s.Verify(tok); err == nil {
		t.Fatal("expired token accepted")
	}
}

// A Signer's tokens are the package's, open with it, refuse tampering and
// another key, and stay right under concurrent use (its HMAC states are pooled
// and reset between uses).
func TestSignerMatchesSignAndOpen(t *testing.T) {
	key := []byte("cursor-key")
	s := NewSigner(key)
	other := NewSigner([]byte("other-key"))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				payload := []byte(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))
				token := s.Sign(payload)
				if token != Sign(key, payload) {
					t.Errorf("Signer token %q differs from Sign's", token)
					return
				}
				got, err := s.Open(token)
				if err != nil || string(got) != string(payload) {
					t.Errorf("Open(%q) = %s, %v", token, got, err)
					return
				}
				if _, err := other.Open(token); err == nil {
					t.Error("a token opened with another key")
					return
				}
				tampered := []byte(token)
				tampered[i%len(tampered)] ^= 1
				if _, err := s.Open(string(tampered)); err == nil {
					t.Errorf("tampered token %q opened", tampered)
					return
				}
			}
		}()
	}
	wg.Wait()
}
