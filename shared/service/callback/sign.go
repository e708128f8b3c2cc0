package callback

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// The Standard Webhooks headers (https://www.standardwebhooks.com/) every
// tagDelivered delivery carries beside the spec's apikey header.
const (
	// HeaderWebhookID is the delivery's id, the same on each of its attempts.
	HeaderWebhookID = "webhook-id"
	// HeaderWebhookTimestamp is the attempt's time in Unix seconds.
	HeaderWebhookTimestamp = "webhook-timestamp"
	// HeaderWebhookSignature holds one "v1,<base64>" signature per active
	// signing secret, separated by spaces.
	HeaderWebhookSignature = "webhook-signature"
)

// signingSecretPrefix marks a signing secret the way Standard Webhooks
// libraries expect it; the rest is the base64 of the HMAC key.
const signingSecretPrefix = "whsec_"

// signingKeyBytes is the HMAC key's size: SHA-256's block-size-independent
// strength is 256 bits, and the standard asks for 24 to 64 bytes.
const signingKeyBytes = 32

// NewSigningSecret returns a fresh secret, "whsec_" + base64 of random bytes.
func NewSigningSecret() (string, error) {
	key := make([]byte, signingKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("callback: signing secret: %w", err)
	}
	return signingSecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// signingKey decodes a secret into its HMAC key.
func signingKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, signingSecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("callback: malformed signing secret")
	}
	return key, nil
}

// Sign returns the webhook-signature value of a delivery: for each secret,
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)),
// joined by spaces.
func Sign(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	content := make([]byte, 0, len(id)+len(body)+22)
	content = append(content, id...)
	content = append(content, '.')
	content = strconv.AppendInt(content, timestamp, 10)
	content = append(content, '.')
	content = append(content, body...)
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		key, err := signingKey(secret)
		if err != nil {
			return "", err
		}
		m := hmac.New(sha256.New, key)
		m.Write(content)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
