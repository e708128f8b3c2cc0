package callback

import (
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/sqlite"
	"github.com/callscribe/callscribe/shared/callscribe"
)

func newWebhooks(t *testing.T, now func() time.Time) *Webhooks {
	t.Helper()
	db, err := sqlite.Open(t.TempDir() + "/w.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewWebhooks(db.Webhooks(), now)
}

// Concurrent first uses agree on one secret.
func TestSigningSecretCreatedOnce(t *testing.T) {
	w := newWebhooks(t, nil)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		got = map[string]bool{}
	)
	for range 8 {
		wg.Go(func() {
			s, err := w.SigningSecret(t.Context(), "acct-1")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got[s.Secret] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(got) != 1 {
		t.Fatalf("concurrent first uses made %d secrets", len(got))
	}
}

func TestRotateSigningSecretOverlap(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	w := newWebhooks(t, func() time.Time { return now })
	first, err := w.SigningSecret(t.Context(), "acct-1")
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := w.RotateSigningSecret(t.Context(), "acct-1")
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Secret == first.Secret || rotated.Previous != first.Secret || !rotated.PreviousValidUntil.Equal(now.Add(callscribe.SigningSecretOverlap)) {
		t.Fatalf("rotation %+v of %+v", rotated, first)
	}
	active, _ := w.ActiveSecrets(t.Context(), "acct-1")
	if len(active) != 2 || active[0] != rotated.Secret || active[1] != first.Secret {
		t.Fatalf("active during the overlap: %v", active)
	}
	now = now.Add(callscribe.SigningSecretOverlap)
	if active, _ := w.ActiveSecrets(t.Context(), "acct-1"); len(active) != 1 || active[0] != rotated.Secret {
		t.Fatalf("active after the overlap: %v", active)
	}
}
