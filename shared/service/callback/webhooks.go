package callback

import (
	"context"
	"net/url"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Webhooks keeps what receivers need to trust deliveries and what users need
// to see them: each account's signing secret (created on first need, rotated
// with an overlap) and the record of each job's delivery attempts.
type Webhooks struct {
	store callscribe.WebhookStore
	now   func() time.Time
}

// NewWebhooks returns Webhooks over store; now nil means time.Now.
func NewWebhooks(store callscribe.WebhookStore, now func() time.Time) *Webhooks {
	if now == nil {
		now = time.Now
	}
	return &Webhooks{store: store, now: now}
}

func (w *Webhooks) clock() time.Time { return w.now().UTC().Truncate(time.Millisecond) }

// SigningSecret returns the account's secret, creating it on first need: the
// first delivery of a new account signs with the secret its dashboard will
// show, whichever of the two asks first.
func (w *Webhooks) SigningSecret(ctx context.Context, accountID string) (*callscribe.SigningSecret, error) {
	s, err := w.store.SigningSecret(ctx, accountID)
	if !callscribe.IsCode(err, callscribe.CodeNotFound) {
		return s, err
	}
	secret, err := NewSigningSecret()
	if err != nil {
		return nil, err
	}
	fresh := &callscribe.SigningSecret{AccountID: accountID, Secret: secret, CreatedAt: w.clock()}
	err = w.store.PutSigningSecret(ctx, fresh, "")
	if callscribe.IsCode(err, callscribe.CodeConflict) {
		// Another request created it first; its secret is the account's.
		return w.store.SigningSecret(ctx, accountID)
	}
	if err != nil {
		return nil, err
	}
	return fresh, nil
}

// RotateSigningSecret replaces the account's secret with a new one. The
// replaced secret keeps signing beside the new one for
// callscribe.SigningSecretOverlap; a secret replaced before then (two
// rotations within the overlap) stops at once, as only one previous secret
// is kept.
func (w *Webhooks) RotateSigningSecret(ctx context.Context, accountID string) (*callscribe.SigningSecret, error) {
	const attempts = 5 // concurrent rotations: each retry re-reads the winner's secret
	var err error
	for range attempts {
		var cur *callscribe.SigningSecret
		cur, err = w.SigningSecret(ctx, accountID)
		if err != nil {
			return nil, err
		}
		var secret string
		if secret, err = NewSigningSecret(); err != nil {
			return nil, err
		}
		now := w.clock()
		next := &callscribe.SigningSecret{
			AccountID: accountID, Secret: secret, CreatedAt: now,
			Previous: cur.Secret, PreviousValidUntil: now.Add(callscribe.SigningSecretOverlap),
		}
		err = w.store.PutSigningSecret(ctx, next, cur.Secret)
		if err == nil {
			return next, nil
		}
		if !callscribe.IsCode(err, callscribe.CodeConflict) {
			return nil, err
		}
	}
	return nil, err
}

// ActiveSecrets returns the secrets a delivery made now is signed with.
func (w *Webhooks) ActiveSecrets(ctx context.Context, accountID string) ([]string, error) {
	s, err := w.SigningSecret(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.ActiveSecrets(w.now()), nil
}

// Record stores one delivery attempt.
func (w *Webhooks) Record(ctx context.Context, d *callscribe.DeliveryAttempt) error {
	return w.store.RecordDelivery(ctx, d)
}

// Deliveries returns a job's recorded attempts, newest first.
func (w *Webhooks) Deliveries(ctx context.Context, jobID string) ([]*callscribe.DeliveryAttempt, error) {
	return w.store.Deliveries(ctx, jobID)
}

// Now is the clock the records and signatures use.
func (w *Webhooks) Now() time.Time { return w.clock() }

// URLHost is what a delivery record keeps of a callback URL: its host and
// port, never the path or query, which may carry the receiver's secrets.
func URLHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
