package apitest

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// testIdempotency: a create sent twice with one Idempotency-Key makes one job
// and gets the same body (the second time marked Idempotent-Replayed); the key
// with a different request is 409 IDEMPOTENCY_KEY_REUSED; without a key, two
// sends are two jobs.
func (s *suite) testIdempotency(t *testing.T) {
	a := s.newAccount(t)
	wav := MakeWAV(2, 2, false)
	send := func(key string, u Upload) *Response {
		body, ct := multipartBody(u)
		opts := []reqOpt{withBearer(a.APIKey), withContentType(ct)}
		if key != "" {
			opts = append(opts, withHeader("Idempotency-Key", key))
		}
		return a.c.do(t, http.MethodPost, "/v1/transcriptions", body, opts...)
	}
	jobCount := func() int {
		return len(listItems(t, a.List(t, url.Values{"limit": {"100"}})))
	}

	key := "apitest-" + randHex(8)
	first := send(key, Upload{Filename: "call.wav", Data: wav, Language: "en"})
	if !expectStatus(t, first, http.StatusAccepted) {
		return
	}
	again := send(key, Upload{Filename: "call.wav", Data: wav, Language: "en"})
	if again.Status != http.StatusAccepted || !bytes.Equal(again.Raw, first.Raw) {
		t.Errorf("same key and request again: %s, want the first answer %s", again, first)
	}
	if again.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("Idempotent-Replayed: first %q, replay %q; want only the replay marked", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	if n := jobCount(); n != 1 {
		t.Errorf("after one create sent twice with a key the account has %d jobs, want 1", n)
	}

	other := send(key, Upload{Filename: "call.wav", Data: MakeWAV(3, 2, false), Language: "en"})
	expectError(t, other, http.StatusConflict, "IDEMPOTENCY_KEY_REUSED")
	expectError(t, send(strings.Repeat("k", 256), Upload{Filename: "call.wav", Data: wav}), http.StatusBadRequest, "INVALID_IDEMPOTENCY_KEY")

	// A derived job's key is the account's too: the same request replays.
	tagKey := "apitest-tag-" + randHex(8)
	tag := func(text string) *Response {
		return a.c.postJSON(t, "/v1/tag", map[string]any{"transcript_text": text}, withBearer(a.APIKey), withHeader("Idempotency-Key", tagKey))
	}
	t1, t2 := tag("Agent: hello. Customer: my invoice is wrong."), tag("Agent: hello. Customer: my invoice is wrong.")
	if t1.Status != http.StatusAccepted || t2.Str("job_id") != t1.Str("job_id") {
		t.Errorf("tag sent twice with one key: %s then %s, want one job", t1, t2)
	}
	expectError(t, tag("Another transcript."), http.StatusConflict, "IDEMPOTENCY_KEY_REUSED")

	before := jobCount()
	send("", Upload{Filename: "call.wav", Data: wav})
	send("", Upload{Filename: "call.wav", Data: wav})
	if n := jobCount(); n != before+2 {
		t.Errorf("two creates without a key made %d jobs, want 2", n-before)
	}
}
