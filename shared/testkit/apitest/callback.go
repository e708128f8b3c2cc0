package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	csclient "github.com/callscribe/callscribe/shared/client"
)

// receivedCallback is one POST the receiver got.
type receivedCallback struct {
	contentType, apikey string
	header              http.Header
	body                map[string]any
	raw                 []byte
	// invalid is why the OpenAPI document's tagDelivered webhook rejects it.
	invalid string
}

// callbackReceiver is a tagDelivered receiver on 127.0.0.1 that refuses the
// first `refuse` attempts with 503, then accepts with 204.
type callbackReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	refuse int
	got    []receivedCallback
}

func (s *suite) newCallbackReceiver(t testing.TB, refuse int) *callbackReceiver {
	r := &callbackReceiver{refuse: refuse}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		var invalid string
		if s.validator != nil {
			if err := s.validator.ValidateWebhook(req.Context(), "tagDelivered", req, raw); err != nil {
				invalid = err.Error()
			}
		}
		r.mu.Lock()
		r.got = append(r.got, receivedCallback{contentType: req.Header.Get("Content-Type"), apikey: req.Header.Get("apikey"), header: req.Header.Clone(), body: body, raw: raw, invalid: invalid})
		n := len(r.got)
		r.mu.Unlock()
		if req.Method != http.MethodPost || n <= r.refuse {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

// waitFor returns the received callbacks once there are n, or what arrived by
// the deadline; it reports those the OpenAPI document's webhook rejects.
func (r *callbackReceiver) waitFor(t testing.TB, n int, timeout time.Duration) []receivedCallback {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		got := slices.Clone(r.got)
		r.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			for i, c := range got {
				if c.invalid != "" {
					t.Errorf("OpenAPI: callback %d (%s) does not match webhooks.tagDelivered: %s", i+1, c.raw, c.invalid)
				}
			}
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RunCallbacks checks tagDelivered end to end through a running service that
// allows callbacks to 127.0.0.1 (CALLBACK_ALLOW_HOSTS) and retries quickly
// (a short CALLBACK_BACKOFF_BASE): a receiver that refuses the first attempt
// gets the spec's body twice with one msg_id, the tags of the job, the apikey
// header; call_uuid defaults to the source transcription's id; a summary job
// sends nothing.
func RunCallbacks(t *testing.T, target Target, opts Options) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)

	t.Run("RetriedUntilAccepted", func(t *testing.T) {
		rcv := s.newCallbackReceiver(t, 1)
		id := a.MustDerive(t, "tags", map[string]string{
			"transcript_text": "Agent: Thanks for calling, how can I help?\nUser: I was charged twice on my bill and I want a refund.\nAgent: Sorry about that, I have refunded the second charge.\nUser: Great, thank you so much.",
			"callback_url":    rcv.URL + "/hooks/tags", "callback_apikey": "receiver-key", "call_uuid": "call-42",
		})
		if id == "" {
			t.FailNow()
		}
		job := s.mustSucceed(t, a, id)
		tags := job.Body["result"].(map[string]any)["tags"].(map[string]any)
		got := rcv.waitFor(t, 2, s.opts.JobTimeout)
		if len(got) != 2 {
			t.Fatalf("receiver got %d attempts, want 2 (the first refused): %v", len(got), got)
		}
		msgIDs := map[any]bool{}
		for i, c := range got {
			if c.contentType != "application/json" || c.apikey != "receiver-key" {
				t.Errorf("attempt %d: Content-Type %q, apikey %q", i+1, c.contentType, c.apikey)
			}
			b := c.body
			data, _ := b["data"].(map[string]any)
			if b["status"] != "succeeded" || b["call_uuid"] != "call-42" || data["request_id"] != id {
				t.Errorf("attempt %d: body %s", i+1, c.raw)
			}
			checkUUID(t, job, "data.msg_id", data["msg_id"])
			msgIDs[data["msg_id"]] = true
			items, _ := data["tags"].([]any)
			if len(items) != 1 {
				t.Fatalf("attempt %d: data.tags %s, want one object", i+1, c.raw)
			}
			item := items[0].(map[string]any)
			for _, cat := range []string{"agent_approach", "call_outcome", "customer_sentiment"} {
				if !sameStrings(item[cat], tags[cat]) {
					t.Errorf("attempt %d: data.tags[0].%s = %v, the job's result has %v", i+1, cat, item[cat], tags[cat])
				}
			}
		}
		if len(msgIDs) != 1 {
			t.Errorf("msg_id changed across retries: %v", msgIDs)
		}
		// Both attempts are signed with the account's secret, under one
		// webhook-id (the msg_id), each with its own timestamp.
		secret := s.signingSecret(t, a)
		for i, c := range got {
			if err := csclient.VerifyWebhook(secret, c.header, c.raw, 5*time.Minute); err != nil {
				t.Errorf("attempt %d: VerifyWebhook: %v (headers %v)", i+1, err, c.header)
			}
			if data, _ := c.body["data"].(map[string]any); c.header.Get("webhook-id") != data["msg_id"] {
				t.Errorf("attempt %d: webhook-id %q, msg_id %v", i+1, c.header.Get("webhook-id"), data["msg_id"])
			}
		}
		// The record: newest first, the refused attempt with its status and
		// the time of the retry it queued, then the accepted one.
		deliveries := s.waitDeliveries(t, a, id, 2)
		host := strings.TrimPrefix(rcv.URL, "http://")
		checkDelivery(t, deliveries[0], 2, "delivered", 204, host, false)
		checkDelivery(t, deliveries[1], 1, "retrying", 503, host, true)
		if deliveries[0]["webhook_id"] != got[0].header.Get("webhook-id") || deliveries[1]["webhook_id"] != deliveries[0]["webhook_id"] {
			t.Errorf("recorded webhook ids %v, %v; sent %q", deliveries[0]["webhook_id"], deliveries[1]["webhook_id"], got[0].header.Get("webhook-id"))
		}
		// The dashboard's mirror reads the same record.
		r := s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id+"/deliveries", nil, withBearer(a.Token))
		if expectStatus(t, r, http.StatusOK) {
			if list, _ := r.Body["deliveries"].([]any); len(list) != 2 {
				t.Errorf("dashboard deliveries: %s", r.Raw)
			}
		}
		// Another account's key may not read it.
		b := s.newAccount(t)
		expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions/"+id+"/deliveries", nil, withBearer(b.APIKey)), http.StatusForbidden, "FORBIDDEN")
	})

	t.Run("FailingReceiverRecordsEveryAttempt", func(t *testing.T) {
		rcv := s.newCallbackReceiver(t, callscribe.CallbackMaxAttempts)
		id := a.MustDerive(t, "tags", map[string]string{"transcript_text": "User: my order has not arrived", "callback_url": rcv.URL + "/down"})
		s.WaitJob(t, a, id)
		if got := rcv.waitFor(t, callscribe.CallbackMaxAttempts, s.opts.JobTimeout); len(got) != callscribe.CallbackMaxAttempts {
			t.Fatalf("receiver got %d attempts, want %d", len(got), callscribe.CallbackMaxAttempts)
		}
		deliveries := s.waitDeliveries(t, a, id, callscribe.CallbackMaxAttempts)
		host := strings.TrimPrefix(rcv.URL, "http://")
		checkDelivery(t, deliveries[0], 3, "abandoned", 503, host, false)
		checkDelivery(t, deliveries[1], 2, "retrying", 503, host, true)
		checkDelivery(t, deliveries[2], 1, "retrying", 503, host, true)
		// Each retry was due after the attempt that queued it, and came no sooner.
		for i := 1; i < len(deliveries); i++ {
			next, _ := time.Parse(time.RFC3339Nano, str(deliveries[i]["next_attempt_at"]))
			at, _ := time.Parse(time.RFC3339Nano, str(deliveries[i]["at"]))
			nextAt, _ := time.Parse(time.RFC3339Nano, str(deliveries[i-1]["at"]))
			if !next.After(at) || nextAt.Before(next.Add(-time.Millisecond)) {
				t.Errorf("attempt %d at %s queued the next for %s, which came at %s", 3-i, at, next, nextAt)
			}
		}
		// No callback, no record.
		plain := a.MustDerive(t, "tags", map[string]string{"transcript_text": "User: thanks"})
		s.WaitJob(t, a, plain)
		if r := s.c.do(t, http.MethodGet, "/v1/transcriptions/"+plain+"/deliveries", nil, withBearer(a.APIKey)); expectStatus(t, r, http.StatusOK) {
			if list, _ := r.Body["deliveries"].([]any); len(list) != 0 {
				t.Errorf("a job without a callback has deliveries: %s", r.Raw)
			}
		}
	})

	t.Run("CallUUIDDefaultsToTheTranscription", func(t *testing.T) {
		rcv := s.newCallbackReceiver(t, 0)
		tx := a.MustUpload(t, Upload{Filename: "cb.wav", Data: MakeWAV(1, 2, false)})
		s.mustSucceed(t, a, tx)
		id := a.MustDerive(t, "tags", map[string]string{"transcription_job_id": tx, "callback_url": rcv.URL})
		s.WaitJob(t, a, id)
		got := rcv.waitFor(t, 1, s.opts.JobTimeout)
		if len(got) != 1 || got[0].body["call_uuid"] != tx || got[0].apikey != "" {
			t.Fatalf("receiver got %d callbacks; want one with call_uuid %s and no apikey header: %v", len(got), tx, got)
		}
	})

	t.Run("CallUUIDDefaultsToTheTagsJob", func(t *testing.T) {
		// No source transcription and a blank call_uuid (counts as not supplied).
		rcv := s.newCallbackReceiver(t, 0)
		id := a.MustDerive(t, "tags", map[string]string{"transcript_text": "User: my order has not arrived", "callback_url": rcv.URL, "call_uuid": " "})
		s.WaitJob(t, a, id)
		got := rcv.waitFor(t, 1, s.opts.JobTimeout)
		if len(got) != 1 || got[0].body["call_uuid"] != id {
			t.Fatalf("receiver got %d callbacks; want one with call_uuid %s: %v", len(got), id, got)
		}
	})

	t.Run("RotationSignsWithBothSecretsDuringTheOverlap", func(t *testing.T) {
		before := s.signingSecret(t, a)
		r := s.c.do(t, http.MethodPost, "/dashboard/signing-secret/rotate", nil, withBearer(a.Token))
		if !expectStatus(t, r, http.StatusOK) {
			t.FailNow()
		}
		after := str(r.Body["signing_secret"])
		until, err := time.Parse(time.RFC3339Nano, str(r.Body["previous_valid_until"]))
		if after == before || !strings.HasPrefix(after, "whsec_") || err != nil || time.Until(until) < 23*time.Hour || time.Until(until) > 25*time.Hour {
			t.Fatalf("rotation answered %s (secret before %q)", r.Raw, before)
		}
		if now := s.signingSecret(t, a); now != after {
			t.Fatalf("GET after rotation shows %q, rotation answered %q", now, after)
		}
		rcv := s.newCallbackReceiver(t, 0)
		id := a.MustDerive(t, "tags", map[string]string{"transcript_text": "User: my order has not arrived", "callback_url": rcv.URL})
		s.WaitJob(t, a, id)
		got := rcv.waitFor(t, 1, s.opts.JobTimeout)
		if len(got) != 1 {
			t.Fatalf("receiver got %d callbacks, want 1", len(got))
		}
		if n := len(strings.Fields(got[0].header.Get("webhook-signature"))); n != 2 {
			t.Errorf("webhook-signature %q: want a signature per active secret", got[0].header.Get("webhook-signature"))
		}
		for _, secret := range []string{after, before} {
			if err := csclient.VerifyWebhook(secret, got[0].header, got[0].raw, 5*time.Minute); err != nil {
				t.Errorf("VerifyWebhook during the overlap: %v", err)
			}
		}
		// Another account's secret verifies nothing of this one.
		if err := csclient.VerifyWebhook(s.signingSecret(t, s.newAccount(t)), got[0].header, got[0].raw, 5*time.Minute); err == nil {
			t.Error("another account's secret verified the delivery")
		}
	})

	t.Run("SummaryJobsSendNothing", func(t *testing.T) {
		rcv := s.newCallbackReceiver(t, 0)
		id := a.MustDerive(t, "summary", map[string]string{"transcript_text": "User: my order has not arrived", "callback_url": rcv.URL})
		s.mustSucceed(t, a, id)
		if got := rcv.waitFor(t, 1, time.Second); len(got) != 0 {
			t.Errorf("a summary job sent a callback: %s", got[0].raw)
		}
	})
}

// sameStrings compares two JSON arrays of strings as sets.
func sameStrings(a, b any) bool {
	list := func(v any) []string {
		arr, _ := v.([]any)
		out := make([]string, 0, len(arr))
		for _, x := range arr {
			s, _ := x.(string)
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	return slices.Equal(list(a), list(b))
}

// signingSecret returns the account's webhook signing secret (dashboard session).
func (s *suite) signingSecret(t testing.TB, a *Account) string {
	t.Helper()
	r := s.c.do(t, http.MethodGet, "/dashboard/signing-secret", nil, withBearer(a.Token))
	if !expectStatus(t, r, http.StatusOK) {
		t.FailNow()
	}
	secret := str(r.Body["signing_secret"])
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("signing secret %q", secret)
	}
	return secret
}

// waitDeliveries polls a job's delivery record until it holds n attempts: the
// worker records an attempt just after the receiver answered it.
func (s *suite) waitDeliveries(t testing.TB, a *Account, jobID string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(s.opts.JobTimeout)
	for {
		r := s.c.do(t, http.MethodGet, "/v1/transcriptions/"+jobID+"/deliveries", nil, withBearer(a.APIKey))
		if !expectStatus(t, r, http.StatusOK) {
			t.FailNow()
		}
		list, _ := r.Body["deliveries"].([]any)
		if len(list) >= n || time.Now().After(deadline) {
			if len(list) != n {
				t.Fatalf("deliveries of %s: %d attempts, want %d: %s", jobID, len(list), n, r.Raw)
			}
			out := make([]map[string]any, len(list))
			for i, d := range list {
				out[i], _ = d.(map[string]any)
			}
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkDelivery checks one recorded attempt.
func checkDelivery(t testing.TB, d map[string]any, attempt int, outcome string, status int, host string, retried bool) {
	t.Helper()
	if fmt.Sprint(d["attempt"]) != fmt.Sprint(attempt) || d["outcome"] != outcome || fmt.Sprint(d["status_code"]) != fmt.Sprint(status) || d["host"] != host {
		t.Errorf("delivery %v: want attempt %d, outcome %s, status %d, host %s", d, attempt, outcome, status, host)
	}
	if _, has := d["next_attempt_at"]; has != retried {
		t.Errorf("delivery %v: next_attempt_at present %v, want %v", d, has, retried)
	}
	if (outcome == "delivered") == (d["error"] != nil) {
		t.Errorf("delivery %v: error present when delivered, or absent when not", d)
	}
}

func str(v any) string { s, _ := v.(string); return s }

// RunCallbackRestart checks that a tagDelivered retry outlives the process:
// the receiver refuses the first attempt; once the record shows the retry
// queued, the service is killed (SIGKILL) and started again on the same
// state, and the second attempt still arrives, signed, and is recorded. The
// target must retry after seconds, not milliseconds (CALLBACK_BACKOFF_BASE of
// a few seconds), so the kill lands between the two attempts: the retry is a
// delayed queue message, not a timer in the killed process.
func RunCallbackRestart(t *testing.T, target Restarter, opts Options) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	rcv := s.newCallbackReceiver(t, 1)
	id := a.MustDerive(t, "tags", map[string]string{"transcript_text": "User: my order has not arrived", "callback_url": rcv.URL})
	if id == "" {
		t.FailNow()
	}
	first := s.waitDeliveries(t, a, id, 1)[0]
	checkDelivery(t, first, 1, "retrying", 503, strings.TrimPrefix(rcv.URL, "http://"), true)
	due, err := time.Parse(time.RFC3339Nano, str(first["next_attempt_at"]))
	if err != nil || time.Until(due) < 500*time.Millisecond {
		t.Fatalf("the retry is due at %v (%v): too soon to kill the service before it; lengthen CALLBACK_BACKOFF_BASE", first["next_attempt_at"], err)
	}
	if err := target.Kill9(); err != nil {
		t.Fatal(err)
	}
	if got := rcv.waitFor(t, 2, 0); len(got) != 1 {
		t.Fatalf("the receiver got %d attempts before the restart, want 1", len(got))
	}
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	got := rcv.waitFor(t, 2, s.opts.JobTimeout)
	if len(got) != 2 {
		t.Fatalf("after the restart the receiver got %d attempts in all, want 2", len(got))
	}
	if err := csclient.VerifyWebhook(s.signingSecret(t, a), got[1].header, got[1].raw, 5*time.Minute); err != nil {
		t.Errorf("the attempt after the restart: VerifyWebhook: %v", err)
	}
	deliveries := s.waitDeliveries(t, a, id, 2)
	checkDelivery(t, deliveries[0], 2, "delivered", 204, strings.TrimPrefix(rcv.URL, "http://"), false)
}
