package jobs

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

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
//   - A job made under a key has an id derived from the account, the key and
//     the request's fingerprint (idempotentJobID). So when a process dies
//     after storing the job but before storing the answer, the retry that
//     claims the key again finds that job and answers with it: no second job,
//     no second quota charge.
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

// idempotentRequest is the claimed key of the create a context carries.
type idempotentRequest struct{ accountID, key, fingerprint string }

type idempotentRequestKey struct{}

// WithIdempotencyKey marks ctx as running the create of accountID claimed
// under key with the given request fingerprint: the job it makes gets the id
// idempotentJobID derives, and an earlier attempt's job is answered instead.
func WithIdempotencyKey(ctx context.Context, accountID, key, fingerprint string) context.Context {
	return context.WithValue(ctx, idempotentRequestKey{}, idempotentRequest{accountID, key, fingerprint})
}

// idempotentJobNamespace is the UUID namespace of job ids derived from
// Idempotency-Keys (a fixed random UUID: ids made under it never collide
// with another namespace's).
var idempotentJobNamespace = uuid.MustParse("8f4d0c55-3b1e-4f6a-9b53-2f8a1c7e6d90")

// newJobID is the id of a job a create makes: derived from the account, key
// and fingerprint under an Idempotency-Key (the same request always names the
// same job), random otherwise.
func (s *Service) newJobID(ctx context.Context, accountID string) string {
	if r, ok := ctx.Value(idempotentRequestKey{}).(idempotentRequest); ok && r.accountID == accountID {
		return uuid.NewSHA1(idempotentJobNamespace, []byte(r.accountID+"\x00"+r.key+"\x00"+r.fingerprint)).String()
	}
	return s.deps.NewID()
}

// earlierAttempt returns the job an earlier attempt of this create made under
// the same Idempotency-Key and request, when that attempt stored the job but
// died before its answer was stored; nil without a key or such a job.
func (s *Service) earlierAttempt(ctx context.Context, accountID string) *callscribe.Job {
	if _, ok := ctx.Value(idempotentRequestKey{}).(idempotentRequest); !ok {
		return nil
	}
	job, err := s.deps.Jobs.GetJob(ctx, s.newJobID(ctx, accountID))
	if err != nil || job.AccountID != accountID {
		return nil
	}
	s.logger(ctx).InfoContext(ctx, "an earlier attempt of this idempotent create made the job; answering with it", "jobId", job.ID)
	return job
}
