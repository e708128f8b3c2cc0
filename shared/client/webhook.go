package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a delivery's webhook-timestamp may be
// from the receiver's clock: five minutes, the Standard Webhooks default.
const DefaultWebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook, for errors.Is.
var (
	// ErrWebhookHeaders: a webhook-id, webhook-timestamp or webhook-signature
	// header is missing or malformed.
	ErrWebhookHeaders = errors.New("callscribe: webhook headers missing or malformed")
	// ErrWebhookTimestamp: the delivery's timestamp is outside the tolerance.
	ErrWebhookTimestamp = errors.New("callscribe: webhook timestamp outside the tolerance")
	// ErrWebhookSignature: no signature matches the secret.
	ErrWebhookSignature = errors.New("callscribe: no webhook signature matches")
)

// VerifyWebhook checks a tagDelivered delivery the Standard Webhooks way:
// secret is the account's signing secret as the dashboard shows it
// ("whsec_..."), headers and body the request's headers and raw body, exactly
// as received (verify before decoding the JSON). It returns nil when one of
// webhook-signature's space-separated "v1,<base64>" signatures is the
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" under the secret,
// compared in constant time, and the timestamp is within tolerance of the
// current time (tolerance <= 0 means DefaultWebhookTolerance), which stops a
// captured delivery from being replayed later. During a secret rotation a
// delivery carries a signature per active secret, so verifying with either
// the new or the previous secret succeeds.
func VerifyWebhook(secret string, headers http.Header, body []byte, tolerance time.Duration) error {
	return verifyWebhookAt(secret, headers, body, tolerance, time.Now())
}

func verifyWebhookAt(secret string, headers http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return errors.New("callscribe: the signing secret is not whsec_ followed by base64")
	}
	id, ts, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q", ErrWebhookHeaders, ts)
	}
	sent := time.Unix(sec, 0)
	if d := now.Sub(sent); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: sent %s, %s from now", ErrWebhookTimestamp, sent.UTC().Format(time.RFC3339), d.Round(time.Second))
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, sig := range strings.Fields(sigs) {
		version, encoded, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue // another scheme (or a future version): not ours to judge
		}
		got, err := base64.StdEncoding.DecodeString(encoded)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}

// Deliveries returns the recorded tagDelivered attempts of a tags job, newest
// first (GET /v1/transcriptions/{job_id}/deliveries): when each went out, to
// which host, the receiver's status or the transport error, and the next
// attempt's time or the final outcome. A job without a callback has none.
func (c *Client) Deliveries(ctx context.Context, id string) ([]DeliveryAttempt, error) {
	var body DeliveryList
	req := &request{method: http.MethodGet, path: "/v1/transcriptions/" + escape(id) + "/deliveries", auth: authAPIKey, idempotent: true}
	if err := c.call(ctx, req, &body); err != nil {
		return nil, err
	}
	if body.Deliveries == nil {
		body.Deliveries = []DeliveryAttempt{}
	}
	return body.Deliveries, nil
}

// SigningSecret returns the session account's webhook signing secret, the
// secret VerifyWebhook takes (GET /dashboard/signing-secret).
func (c *Client) SigningSecret(ctx context.Context) (*SigningSecret, error) {
	var s SigningSecret
	req := &request{method: http.MethodGet, path: "/dashboard/signing-secret", auth: authSession, idempotent: true}
	if err := c.call(ctx, req, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// RotateSigningSecret replaces the session account's signing secret; the
// replaced one keeps signing deliveries beside it until PreviousValidUntil
// (POST /dashboard/signing-secret/rotate). Not retried: a retry would rotate
// again and end the first rotation's overlap.
func (c *Client) RotateSigningSecret(ctx context.Context) (*SigningSecret, error) {
	var s SigningSecret
	req := &request{method: http.MethodPost, path: "/dashboard/signing-secret/rotate", auth: authSession}
	if err := c.call(ctx, req, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
