package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// countingAccounts counts the store calls authentication makes.
type countingAccounts struct {
	callscribe.AccountStore
	lookups, touches atomic.Int64
}

func (c *countingAccounts) APIKeyByHash(ctx context.Context, hash string) (*callscribe.APIKey, error) {
	c.lookups.Add(1)
	return c.AccountStore.APIKeyByHash(ctx, hash)
}

func (c *countingAccounts) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	c.touches.Add(1)
	return c.AccountStore.TouchAPIKey(ctx, keyID, at)
}

// instance is one process (a Lambda instance, say) over the shared store.
func (e *env) instance(accounts callscribe.AccountStore) *jobs.Service {
	return jobs.New(jobs.Deps{
		Jobs: e.db.Jobs(), Accounts: accounts, Audio: e.audio, Queue: e.queue,
		Now: func() time.Time { return e.now },
	}, jobs.Config{QuotaMinutes: quotaMinutes})
}

func TestAuthenticationReadsBrieflyCachedKeysAndRecordsUseOncePerMinute(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acct, _ := e.svc.Signup(ctx, "ann@example.com", "long-enough-password")
	created, err := e.svc.CreateAPIKey(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	store := &countingAccounts{AccountStore: e.db.Accounts()}
	svc := e.instance(store)
	start := e.now

	for i := 0; i < 100; i++ {
		if _, err := svc.AuthenticateAPIKey(ctx, created.Secret); err != nil {
			t.Fatal(err)
		}
	}
	if store.lookups.Load() != 1 || store.touches.Load() != 1 {
		t.Fatalf("100 authentications in one instant: %d lookups, %d writes; want 1 and 1", store.lookups.Load(), store.touches.Load())
	}
	keys, _ := e.svc.ListAPIKeys(ctx, acct.ID)
	if keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(start) {
		t.Fatalf("last_used_at %v, want %v", keys[0].LastUsedAt, start)
	}

	// After the TTL the key is read again, but its use is not written again
	// within the minute.
	e.now = start.Add(jobs.DefaultAPIKeyCacheTTL)
	svc.AuthenticateAPIKey(ctx, created.Secret)
	if store.lookups.Load() != 2 || store.touches.Load() != 1 {
		t.Fatalf("after the TTL: %d lookups, %d writes; want 2 and 1", store.lookups.Load(), store.touches.Load())
	}
	e.now = start.Add(jobs.KeyUseRecordInterval)
	svc.AuthenticateAPIKey(ctx, created.Secret)
	if store.touches.Load() != 2 {
		t.Fatalf("a minute later: %d writes, want 2", store.touches.Load())
	}
	keys, _ = e.svc.ListAPIKeys(ctx, acct.ID)
	if !keys[0].LastUsedAt.Equal(e.now) {
		t.Fatalf("last_used_at %v, want %v", keys[0].LastUsedAt, e.now)
	}
}

func TestRevokedKeyFailsAtOnceHereAndWithinTheTTLElsewhere(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acct, _ := e.svc.Signup(ctx, "ann@example.com", "long-enough-password")
	created, _ := e.svc.CreateAPIKey(ctx, acct.ID)
	here, elsewhere := e.instance(e.db.Accounts()), e.instance(e.db.Accounts())
	for _, svc := range []*jobs.Service{here, elsewhere} {
		if _, err := svc.AuthenticateAPIKey(ctx, created.Secret); err != nil {
			t.Fatal(err)
		}
	}
	revokedAt := e.now
	if err := here.RevokeAPIKey(ctx, acct.ID, created.Key.ID); err != nil {
		t.Fatal(err)
	}
	_, err := here.AuthenticateAPIKey(ctx, created.Secret)
	requireCode(t, err, callscribe.CodeUnauthorized)

	// The other instance may still accept it until its entry expires, and
	// never after: the documented bound.
	e.now = revokedAt.Add(jobs.DefaultAPIKeyCacheTTL - time.Millisecond)
	if _, err := elsewhere.AuthenticateAPIKey(ctx, created.Secret); err != nil {
		t.Fatalf("within the TTL the other instance's cached key: %v", err)
	}
	e.now = revokedAt.Add(jobs.DefaultAPIKeyCacheTTL)
	_, err = elsewhere.AuthenticateAPIKey(ctx, created.Secret)
	requireCode(t, err, callscribe.CodeUnauthorized)
}

// A key created in one instance works in another at once: unknown hashes are
// never cached.
func TestNewKeyWorksAtOnceInEveryInstance(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	acct, _ := e.svc.Signup(ctx, "ann@example.com", "long-enough-password")
	other := e.instance(e.db.Accounts())
	if _, err := other.AuthenticateAPIKey(ctx, "cs_not-a-key"); !callscribe.IsCode(err, callscribe.CodeUnauthorized) {
		t.Fatalf("unknown key: %v", err)
	}
	created, _ := e.svc.CreateAPIKey(ctx, acct.ID)
	if _, err := other.AuthenticateAPIKey(ctx, created.Secret); err != nil {
		t.Fatalf("new key in another instance: %v", err)
	}
}
