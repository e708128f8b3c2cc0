package jobs

import (
	"context"
	"net/http"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Creates (transcriptions, uploads, summaries, tags) are made safe to retry
// the way Stripe's API is: a request carrying an Idempotency-Key claims the
// key for its account before it runs and stores its answer after; a retry
// with the same key and the same request within IdempotencyKeyTTL gets that
// answer again instead of a second job (and a second quota charge).
//
//   - The same key with a different request (another fingerprint: method,
//     path and content) is IDEMPOTENCY_KEY_REUSED: answering it with the first
//     request's answer would hide the client's mistake.
//   - The same key while the first request still runs is
//     IDEMPOTENCY_KEY_IN_USE, with a short Retry-After.
//   - Only answers that a retry would get again are stored: 2xx, and 4xx
//     except 429 (quota and rate limits are "later", not "never"). A 5xx
//     releases the key so the retry can succeed.
//   - A claim whose request died with its process (no answer stored) locks
//     the key for IdempotencyLease only; then the key can be claimed again.
const (
	IdempotencyKeyTTL       = 24 * time.Hour
	IdempotencyLease        = time.Minute
	MaxIdempotencyKeyLength = 255
	idempotencyInUseRetry   = time.Second
)

// CheckIdempotencyKey accepts 1 to 255 printable ASCII characters.
func CheckIdempotencyKey(key string) error {
	ok := len(key) >= 1 && len(key) <= MaxIdempotencyKeyLength
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] >= 0x20 && key[i] <= 0x7e
	}
	if !ok {
		return callscribe.Errorf(callscribe.CodeInvalidIdempotencyKey, "The Idempotency-Key header must be 1 to %d printable ASCII characters.", MaxIdempotencyKeyLength)
	}
	return nil
}

// IdempotencyClaim is a key claimed for one running request; Finish stores
// its answer or releases the key.
type IdempotencyClaim struct {
	s   *Service
	rec callscribe.IdempotencyRecord
}

// BeginIdempotent claims key for the account's request with the given
// fingerprint. It returns the stored answer to replay when the same request
// was answered before, or the claim to Finish when this request is to run.
// Both are nil where the deployment keeps no idempotency records: the request
// just runs.
func (s *Service) BeginIdempotent(ctx context.Context, accountID, key, fingerprint string) (*callscribe.IdempotencyRecord, *IdempotencyClaim, error) {
	if s.deps.Idempotency == nil {
		return nil, nil, nil
	}
	if err := CheckIdempotencyKey(key); err != nil {
		return nil, nil, err
	}
	now := s.now()
	rec := callscribe.IdempotencyRecord{
		AccountID: accountID, Key: key, Fingerprint: fingerprint, Token: s.deps.NewID(),
		LockedUntil: now.Add(IdempotencyLease), ExpiresAt: now.Add(IdempotencyKeyTTL),
	}
	existing, err := s.deps.Idempotency.ClaimIdempotencyKey(ctx, &rec, now)
	if err != nil {
		return nil, nil, err
	}
	if existing == nil {
		return nil, &IdempotencyClaim{s: s, rec: rec}, nil
	}
	if existing.Fingerprint != fingerprint {
		return nil, nil, callscribe.Errorf(callscribe.CodeIdempotencyKeyReused,
			"This Idempotency-Key was used in the last %d hours for a different request; use a new key for a new request.", int(IdempotencyKeyTTL/time.Hour))
	}
	if !existing.Completed() {
		e := callscribe.Errorf(callscribe.CodeIdempotencyKeyInUse, "A request with this Idempotency-Key is still being handled; retry shortly.")
		e.RetryAfter = idempotencyInUseRetry
		return nil, nil, e
	}
	return existing, nil, nil
}

// Finish stores the answer of the claimed request, or releases the key when
// the answer is not one to replay (see the package's rules above). It runs
// even when the client has gone: the answer is what its retry must get.
func (c *IdempotencyClaim) Finish(ctx context.Context, status int, body []byte) error {
	ctx = context.WithoutCancel(ctx)
	store := c.s.deps.Idempotency
	if !replayable(status) {
		return store.ReleaseIdempotencyKey(ctx, c.rec.AccountID, c.rec.Key, c.rec.Token)
	}
	return store.CompleteIdempotencyKey(ctx, c.rec.AccountID, c.rec.Key, c.rec.Token, status, body)
}

// replayable reports whether an answer with this status is stored for retries.
func replayable(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// PurgeExpiredIdempotencyKeys removes records past their expiry (stores
// without expiry of their own, such as SQLite, call it periodically).
func (s *Service) PurgeExpiredIdempotencyKeys(ctx context.Context) (int, error) {
	if s.deps.Idempotency == nil {
		return 0, nil
	}
	return s.deps.Idempotency.PurgeExpiredIdempotencyKeys(ctx, s.now())
}
