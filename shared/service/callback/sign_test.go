package callback

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/client"
)

// The vector of package client's VerifyWebhook test, computed with openssl:
//
//	printf '%s' 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.1764264000.{"status":"succeeded","call_uuid":"call-42"}' |
//	  openssl dgst -sha256 -hmac 'callscribe-known-answer-key-0001' -binary | base64
func TestSignKnownAnswer(t *testing.T) {
	got, err := Sign([]string{"whsec_Y2FsbHNjcmliZS1rbm93bi1hbnN3ZXIta2V5LTAwMDE="}, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 1764264000,
		[]byte(`{"status":"succeeded","call_uuid":"call-42"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,AmA5Dwsnx8Qwl6GUGE4bz5OT3AmdTqUxNTw49jC86dE="; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
}

func TestNewSigningSecret(t *testing.T) {
	a, err := NewSigningSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSigningSecret()
	key, err := signingKey(a)
	if !strings.HasPrefix(a, "whsec_") || err != nil || len(key) != signingKeyBytes || a == b {
		t.Fatalf("secrets %q, %q: key of %d bytes, err %v", a, b, len(key), err)
	}
	if _, err := Sign([]string{"whsec_not base64"}, "id", 1, nil); err == nil {
		t.Fatal("Sign accepted a malformed secret")
	}
}

// A signed delivery carries the three headers, and the Go client verifies
// it with each active secret: the current one and, during a rotation's
// overlap, the previous one.
func TestDeliverSignsVerifiably(t *testing.T) {
	current, _ := NewSigningSecret()
	previous, _ := NewSigningSecret()
	rv := newReceiver(t, status(http.StatusNoContent))
	d := delivery(rv.URL)
	d.WebhookID, d.SigningSecrets = msgID, []string{current, previous}
	code, err := loopbackNotifier(0).DeliverStatus(t.Context(), d)
	if err != nil || code != http.StatusNoContent {
		t.Fatalf("DeliverStatus = %d, %v", code, err)
	}
	rv.mu.Lock()
	headers, body := rv.headers, rv.body
	rv.mu.Unlock()
	if headers.Get("webhook-id") != msgID || len(strings.Fields(headers.Get("webhook-signature"))) != 2 {
		t.Fatalf("headers %v", headers)
	}
	if ts := headers.Get("webhook-timestamp"); ts == "" || strings.TrimLeft(ts, "0123456789") != "" {
		t.Fatalf("webhook-timestamp %q", ts)
	}
	for _, secret := range []string{current, previous} {
		if err := client.VerifyWebhook(secret, headers, body, time.Minute); err != nil {
			t.Errorf("VerifyWebhook with an active secret: %v", err)
		}
	}
	other, _ := NewSigningSecret()
	if err := client.VerifyWebhook(other, headers, body, time.Minute); err == nil {
		t.Error("VerifyWebhook with a secret that did not sign succeeded")
	}

	// Without secrets the delivery goes unsigned, as before accounts had them.
	if _, err := loopbackNotifier(0).DeliverStatus(t.Context(), delivery(rv.URL)); err != nil {
		t.Fatal(err)
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.headers.Get("webhook-signature") != "" {
		t.Fatalf("unsigned delivery carries %q", rv.headers.Get("webhook-signature"))
	}
}

func TestSigningSecretActiveSecrets(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := &callscribe.SigningSecret{Secret: "new", Previous: "old", PreviousValidUntil: now.Add(time.Hour)}
	if got := s.ActiveSecrets(now); len(got) != 2 || got[0] != "new" || got[1] != "old" {
		t.Fatalf("during the overlap: %v", got)
	}
	if got := s.ActiveSecrets(now.Add(time.Hour)); len(got) != 1 || got[0] != "new" {
		t.Fatalf("after the overlap: %v", got)
	}
}
