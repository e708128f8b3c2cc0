package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunIdempotencyStoreTests runs the contract of callscribe.IdempotencyStore
// against stores from newStore (an empty store per subtest).
func RunIdempotencyStoreTests(t *testing.T, newStore func(t *testing.T) callscribe.IdempotencyStore) {
	// The wall clock, not a fixed date: a store with its own expiry (DynamoDB's
	// TTL) may delete a record whose expiry is already in the real past.
	now := time.Now().UTC().Truncate(time.Millisecond)
	record := func(account, key, fingerprint, token string, at time.Time) *callscribe.IdempotencyRecord {
		return &callscribe.IdempotencyRecord{
			AccountID: account, Key: key, Fingerprint: fingerprint, Token: token,
			LockedUntil: at.Add(time.Minute), ExpiresAt: at.Add(24 * time.Hour),
		}
	}
	claim := func(t *testing.T, s callscribe.IdempotencyStore, rec *callscribe.IdempotencyRecord, at time.Time) *callscribe.IdempotencyRecord {
		t.Helper()
		existing, err := s.ClaimIdempotencyKey(t.Context(), rec, at)
		requireNoError(t, err, "ClaimIdempotencyKey")
		return existing
	}

	t.Run("a claim holds the key until its answer, which later claims get", func(t *testing.T) {
		s := newStore(t)
		if got := claim(t, s, record("acct-1", "k1", "fp-a", "tok-1", now), now); got != nil {
			t.Fatalf("first claim found %+v", got)
		}
		got := claim(t, s, record("acct-1", "k1", "fp-b", "tok-2", now), now.Add(time.Second))
		if got == nil || got.Completed() || got.Fingerprint != "fp-a" || got.Token != "tok-1" {
			t.Fatalf("claim while in flight = %+v, want the unanswered first claim", got)
		}
		body := []byte(`{"job_id":"j1","requestId":"r1"}`)
		requireNoError(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "k1", "tok-1", 202, body), "CompleteIdempotencyKey")
		got = claim(t, s, record("acct-1", "k1", "fp-a", "tok-3", now), now.Add(2*time.Second))
		if got == nil || got.Status != 202 || !bytes.Equal(got.Body, body) || got.Fingerprint != "fp-a" {
			t.Fatalf("claim after the answer = %+v, want the stored answer", got)
		}
		if !got.ExpiresAt.Equal(now.Add(24 * time.Hour)) {
			t.Fatalf("ExpiresAt = %v, want %v", got.ExpiresAt, now.Add(24*time.Hour))
		}
		// Keys are per account.
		if got := claim(t, s, record("acct-2", "k1", "fp-a", "tok-4", now), now); got != nil {
			t.Fatalf("another account's claim of the same key found %+v", got)
		}
	})

	t.Run("completing needs the claim's own token", func(t *testing.T) {
		s := newStore(t)
		claim(t, s, record("acct-1", "k1", "fp", "tok-1", now), now)
		requireCode(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "k1", "tok-other", 202, []byte(`{}`)), callscribe.CodeConflict, "Complete with another token")
		requireNoError(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "k1", "tok-1", 400, []byte(`{"error":{}}`)), "Complete")
		requireCode(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "k1", "tok-1", 202, []byte(`{}`)), callscribe.CodeConflict, "Complete twice")
		if got := claim(t, s, record("acct-1", "k1", "fp", "tok-2", now), now); got == nil || got.Status != 400 {
			t.Fatalf("stored answer = %+v, want the first completion's 400", got)
		}
	})

	t.Run("a released claim frees the key; an answered one is not released", func(t *testing.T) {
		s := newStore(t)
		claim(t, s, record("acct-1", "k1", "fp", "tok-1", now), now)
		requireNoError(t, s.ReleaseIdempotencyKey(t.Context(), "acct-1", "k1", "tok-other"), "Release with another token")
		if got := claim(t, s, record("acct-1", "k1", "fp", "tok-2", now), now); got == nil || got.Token != "tok-1" {
			t.Fatalf("release with another token freed the key: %+v", got)
		}
		requireNoError(t, s.ReleaseIdempotencyKey(t.Context(), "acct-1", "k1", "tok-1"), "Release")
		if got := claim(t, s, record("acct-1", "k1", "fp", "tok-3", now), now); got != nil {
			t.Fatalf("claim after release found %+v", got)
		}
		requireNoError(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "k1", "tok-3", 202, []byte(`{}`)), "Complete")
		requireNoError(t, s.ReleaseIdempotencyKey(t.Context(), "acct-1", "k1", "tok-3"), "Release an answered claim")
		if got := claim(t, s, record("acct-1", "k1", "fp", "tok-4", now), now); got == nil || got.Status != 202 {
			t.Fatalf("an answered record was released: %+v", got)
		}
	})

	t.Run("an unanswered claim past its lock and an expired record free the key", func(t *testing.T) {
		s := newStore(t)
		claim(t, s, record("acct-1", "stale", "fp", "tok-1", now), now)
		if got := claim(t, s, record("acct-1", "stale", "fp", "tok-2", now.Add(time.Minute)), now.Add(time.Minute)); got != nil {
			t.Fatalf("claim after the lock ended found %+v", got)
		}
		// The first claim's request can no longer answer.
		requireCode(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "stale", "tok-1", 202, []byte(`{}`)), callscribe.CodeConflict, "Complete a taken-over claim")

		claim(t, s, record("acct-1", "old", "fp", "tok-3", now), now)
		requireNoError(t, s.CompleteIdempotencyKey(t.Context(), "acct-1", "old", "tok-3", 202, []byte(`{}`)), "Complete")
		if got := claim(t, s, record("acct-1", "old", "fp-new", "tok-4", now), now.Add(24*time.Hour-time.Second)); got == nil {
			t.Fatal("an answer was forgotten before it expired")
		}
		later := now.Add(24 * time.Hour)
		if got := claim(t, s, record("acct-1", "old", "fp-new", "tok-5", later), later); got != nil {
			t.Fatalf("claim after expiry found %+v", got)
		}
	})

	t.Run("purge removes only expired records", func(t *testing.T) {
		s := newStore(t)
		claim(t, s, record("acct-1", "a", "fp", "tok-1", now), now)
		claim(t, s, record("acct-1", "b", "fp", "tok-2", now.Add(time.Hour)), now.Add(time.Hour))
		_, err := s.PurgeExpiredIdempotencyKeys(t.Context(), now.Add(24*time.Hour+time.Minute))
		requireNoError(t, err, "PurgeExpiredIdempotencyKeys")
		// Whether or not the store purges on its own (DynamoDB's TTL does),
		// the live record is still there.
		if got := claim(t, s, record("acct-1", "b", "fp", "tok-3", now.Add(time.Hour)), now.Add(time.Hour)); got == nil || got.Token != "tok-2" {
			t.Fatalf("purge removed a live record: %+v", got)
		}
	})
}
