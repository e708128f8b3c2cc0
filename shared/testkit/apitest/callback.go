package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
)

// receivedCallback is one POST the receiver got.
type receivedCallback struct {
	contentType, apikey string
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
		r.got = append(r.got, receivedCallback{contentType: req.Header.Get("Content-Type"), apikey: req.Header.Get("apikey"), body: body, raw: raw, invalid: invalid})
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
