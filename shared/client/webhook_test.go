package client

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// The known-answer vector was computed outside Go, with
//
//	printf '%s' 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.1764264000.{"status":"succeeded","call_uuid":"call-42"}' |
//	  openssl dgst -sha256 -hmac 'callscribe-known-answer-key-0001' -binary | base64
//
// where whsec_Y2Fs... is "whsec_" + base64 of that key (printf ... | base64).
const (
	vectorSecret    = "whsec_Y2FsbHNjcmliZS1rbm93bi1hbnN3ZXIta2V5LTAwMDE="
	vectorID        = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"
	vectorTimestamp = "1764264000"
	vectorBody      = `{"status":"succeeded","call_uuid":"call-42"}`
	vectorSignature = "v1,AmA5Dwsnx8Qwl6GUGE4bz5OT3AmdTqUxNTw49jC86dE="
	// otherSecret signs nothing in the vector.
	otherSecret = "whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC0wMDAx"
)

var vectorTime = time.Unix(1764264000, 0)

func vectorHeaders(signature string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", vectorTimestamp)
	h.Set("webhook-signature", signature)
	return h
}

func TestVerifyWebhookKnownAnswer(t *testing.T) {
	if err := verifyWebhookAt(vectorSecret, vectorHeaders(vectorSignature), []byte(vectorBody), 0, vectorTime); err != nil {
		t.Fatalf("the known-answer vector does not verify: %v", err)
	}
}

func TestVerifyWebhookRejects(t *testing.T) {
	body := []byte(vectorBody)
	for _, tc := range []struct {
		name    string
		secret  string
		headers http.Header
		body    []byte
		at      time.Time
		want    error
	}{
		{"wrong secret", otherSecret, vectorHeaders(vectorSignature), body, vectorTime, ErrWebhookSignature},
		{"changed body", vectorSecret, vectorHeaders(vectorSignature), []byte(`{"status":"failed","call_uuid":"call-42"}`), vectorTime, ErrWebhookSignature},
		{"other id", vectorSecret, func() http.Header { h := vectorHeaders(vectorSignature); h.Set("webhook-id", "msg_other"); return h }(), body, vectorTime, ErrWebhookSignature},
		// Moving the timestamp changes the signed content, even within the tolerance.
		{"other timestamp", vectorSecret, func() http.Header {
			h := vectorHeaders(vectorSignature)
			h.Set("webhook-timestamp", "1764264001")
			return h
		}(), body, vectorTime, ErrWebhookSignature},
		{"too old", vectorSecret, vectorHeaders(vectorSignature), body, vectorTime.Add(DefaultWebhookTolerance + time.Second), ErrWebhookTimestamp},
		{"from the future", vectorSecret, vectorHeaders(vectorSignature), body, vectorTime.Add(-DefaultWebhookTolerance - time.Second), ErrWebhookTimestamp},
		{"no signature", vectorSecret, func() http.Header { h := vectorHeaders(vectorSignature); h.Del("webhook-signature"); return h }(), body, vectorTime, ErrWebhookHeaders},
		{"no id", vectorSecret, func() http.Header { h := vectorHeaders(vectorSignature); h.Del("webhook-id"); return h }(), body, vectorTime, ErrWebhookHeaders},
		{"timestamp not a number", vectorSecret, func() http.Header { h := vectorHeaders(vectorSignature); h.Set("webhook-timestamp", "soon"); return h }(), body, vectorTime, ErrWebhookHeaders},
		{"another scheme only", vectorSecret, vectorHeaders("v1a,AmA5Dwsnx8Qwl6GUGE4bz5OT3AmdTqUxNTw49jC86dE="), body, vectorTime, ErrWebhookSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := verifyWebhookAt(tc.secret, tc.headers, tc.body, 0, tc.at); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestVerifyWebhookToleranceAndSeveralSignatures(t *testing.T) {
	body := []byte(vectorBody)
	// Within a custom tolerance, and just outside it.
	if err := verifyWebhookAt(vectorSecret, vectorHeaders(vectorSignature), body, time.Hour, vectorTime.Add(59*time.Minute)); err != nil {
		t.Fatalf("within a one-hour tolerance: %v", err)
	}
	if err := verifyWebhookAt(vectorSecret, vectorHeaders(vectorSignature), body, time.Minute, vectorTime.Add(61*time.Second)); !errors.Is(err, ErrWebhookTimestamp) {
		t.Fatalf("outside a one-minute tolerance: %v", err)
	}
	// A rotation sends a signature per active secret; the matching one may come
	// second, after one this secret did not make and a malformed entry.
	sigs := "v1,bm90IGEgc2lnbmF0dXJlIG9mIHRoaXMgc2VjcmV0IQ== v1,%%% " + vectorSignature
	if err := verifyWebhookAt(vectorSecret, vectorHeaders(sigs), body, 0, vectorTime); err != nil {
		t.Fatalf("several signatures: %v", err)
	}
	if err := verifyWebhookAt(otherSecret, vectorHeaders(sigs), body, 0, vectorTime); !errors.Is(err, ErrWebhookSignature) {
		t.Fatalf("several signatures, none of otherSecret: %v", err)
	}
	// The public function reads the clock: the vector is long past.
	if err := VerifyWebhook(vectorSecret, vectorHeaders(vectorSignature), body, 0); !errors.Is(err, ErrWebhookTimestamp) {
		t.Fatalf("VerifyWebhook of an old delivery: %v", err)
	}
	if err := VerifyWebhook("not-base64!", vectorHeaders(vectorSignature), body, 0); err == nil {
		t.Fatal("a malformed secret verified")
	}
}
