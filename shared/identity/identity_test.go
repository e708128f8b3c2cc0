package identity

import (
	"strings"
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
