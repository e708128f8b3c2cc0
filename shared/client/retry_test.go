package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

// The retry policy is transport behaviour: these tests use an httptest server
// that fails in chosen ways before it answers.

var quick = client.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// flaky answers the first failures requests with fail, then 200 with body.
func flaky(t *testing.T, failures int32, fail func(w http.ResponseWriter, r *http.Request), body string) (*client.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= failures {
			fail(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.WithAPIKey("k"), client.WithRetryPolicy(quick))
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

func status(code int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

const jobBody = `{"job_id":"j1","type":"transcription","status":"processing","requestId":"r"}`

func TestRetryGETOn5xx(t *testing.T) {
	for _, code := range []int{500, 502, 503, 504} {
		c, calls := flaky(t, 2, status(code, `<html>upstream error</html>`), jobBody)
		job, err := c.GetJob(t.Context(), "j1")
		if err != nil || job.ID != "j1" || calls.Load() != 3 {
			t.Errorf("%d: %+v, %v after %d calls", code, job, err, calls.Load())
		}
	}
	// DELETE is idempotent too.
	c, calls := flaky(t, 1, status(503, ""), `{"requestId":"r"}`)
	if err := c.DeleteJob(t.Context(), "j1"); err != nil || calls.Load() != 2 {
		t.Errorf("DELETE: %v after %d calls", err, calls.Load())
	}
}

func TestRetryGivesUpAfterMaxAttempts(t *testing.T) {
	c, calls := flaky(t, 100, status(502, `{"message":"Internal server error"}`), jobBody)
	_, err := c.GetJob(t.Context(), "j1")
	e, ok := client.AsError(err)
	if !ok || e.Status != 502 || e.Code != "HTTP_502" || !strings.Contains(e.Message, "Internal server error") || calls.Load() != 3 {
		t.Errorf("%v after %d calls", err, calls.Load())
	}
	// NoRetries: one attempt.
	calls.Store(0)
	_, err = c.With(client.WithRetryPolicy(client.NoRetries)).GetJob(t.Context(), "j1")
	if client.ErrorStatus(err) != 502 || calls.Load() != 1 {
		t.Errorf("NoRetries: %v after %d calls", err, calls.Load())
	}
}

// A create carries an Idempotency-Key, so it is retried like a GET, with the
// same key; a POST without one (not a create) is not.
func TestNoRetryOnPOSTWithoutKeyOr4xx(t *testing.T) {
	var keys []string
	c, calls := flaky(t, 1, func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		status(503, `{"error":{"code":"INTERNAL_ERROR","message":"x"},"requestId":"r1"}`)(w, r)
	}, `{"job_id":"j2","type":"summary","status":"queued","requestId":"r"}`)
	if _, err := c.Summarize(t.Context(), client.SummarizeRequest{TranscriptText: "hi"}); err != nil || calls.Load() != 2 || len(keys) != 1 || keys[0] == "" {
		t.Errorf("create on 503: %v after %d calls, keys %q", err, calls.Load(), keys)
	}
	c, calls = flaky(t, 1, status(503, `{"error":{"code":"INTERNAL_ERROR","message":"x"},"requestId":"r1"}`), `{"requestId":"r"}`)
	_, err := c.CreateAPIKey(t.Context(), "ci")
	if e, ok := client.AsError(err); !ok || e.Status != 503 || e.Code != client.CodeInternal || e.RequestID != "r1" || calls.Load() != 1 {
		t.Errorf("POST without a key on 503: %v after %d calls", err, calls.Load())
	}
	for _, code := range []int{400, 401, 404, 409, 429} {
		c, calls := flaky(t, 1, status(code, `{"error":{"code":"X","message":"no"},"requestId":"r"}`), jobBody)
		if _, err := c.GetJob(t.Context(), "j1"); client.ErrorStatus(err) != code || calls.Load() != 1 {
			t.Errorf("GET on %d: %v after %d calls", code, err, calls.Load())
		}
	}
}

func TestRetryAfter(t *testing.T) {
	retryAfter := func(v string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", v)
			w.WriteHeader(503)
		}
	}
	// Honoured when within the policy's cap (1 s here).
	c, calls := flaky(t, 1, retryAfter("1"), jobBody)
	c = c.With(client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Second}))
	start := time.Now()
	if _, err := c.GetJob(t.Context(), "j1"); err != nil || calls.Load() != 2 {
		t.Errorf("%v after %d calls", err, calls.Load())
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("retried after %s, before Retry-After's 1 s", d)
	}
	// Longer than the cap: no retry, and the error says how long to wait.
	c, calls = flaky(t, 1, retryAfter("120"), jobBody)
	_, err := c.GetJob(t.Context(), "j1")
	if e, ok := client.AsError(err); !ok || e.RetryAfter != 120*time.Second || calls.Load() != 1 {
		t.Errorf("long Retry-After: %v after %d calls", err, calls.Load())
	}
	// A gateway's throttling is rate limiting, not the quota.
	c, _ = flaky(t, 1, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
		w.Write([]byte(`{"message":"Too Many Requests"}`))
	}, jobBody)
	_, err = c.GetJob(t.Context(), "j1")
	if !client.IsRateLimited(err) || client.IsQuotaExceeded(err) {
		t.Errorf("throttled: %v", err)
	}
}

// A connection dropped mid-request is retried for a GET and a create (its
// Idempotency-Key makes the retry safe), not for another POST.
func TestRetryTransportErrors(t *testing.T) {
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	c, calls := flaky(t, 2, hangUp, jobBody)
	if _, err := c.GetJob(t.Context(), "j1"); err != nil || calls.Load() != 3 {
		t.Errorf("GET: %v after %d calls", err, calls.Load())
	}
	c, calls = flaky(t, 1, hangUp, `{"job_id":"j2","type":"tags","status":"queued","requestId":"r"}`)
	if _, err := c.Tag(t.Context(), client.TagRequest{TranscriptText: "hi"}); err != nil || calls.Load() != 2 {
		t.Errorf("create: %v after %d calls", err, calls.Load())
	}
	c, calls = flaky(t, 1, hangUp, `{"requestId":"r"}`)
	_, err := c.CreateAPIKey(t.Context(), "ci")
	if _, isAPI := client.AsError(err); err == nil || isAPI || calls.Load() != 1 {
		t.Errorf("POST without a key: %v after %d calls", err, calls.Load())
	}

	// A POST whose connection could not be made at all was never sent: retried.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the dial is refused
	refused, _ := client.New("http://"+addr, client.WithRetryPolicy(quick))
	var dials atomic.Int32
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}}}
	_, err = refused.With(client.WithHTTPClient(hc)).Summarize(t.Context(), client.SummarizeRequest{TranscriptText: "hi"})
	if err == nil || dials.Load() != 3 {
		t.Errorf("refused POST: %v after %d dials", err, dials.Load())
	}
}

func TestRequestTimeoutAndContext(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	c, calls := flaky(t, 100, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}, jobBody)
	// Each attempt times out; a GET is retried, then the error is the timeout.
	_, err := c.With(client.WithRequestTimeout(20*time.Millisecond)).GetJob(t.Context(), "j1")
	if !errors.Is(err, context.DeadlineExceeded) || calls.Load() != 3 {
		t.Errorf("timeouts: %v after %d calls", err, calls.Load())
	}
	// The caller's context ends everything, backoff included.
	slow := c.With(client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 10, BaseDelay: time.Hour, MaxDelay: time.Hour}), client.WithRequestTimeout(10*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = slow.GetJob(ctx, "j1")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled: %v after %s", err, time.Since(start))
	}
}

func TestWaitForJobExhausted(t *testing.T) {
	c, calls := flaky(t, 0, nil, jobBody) // always processing
	var polls int
	job, err := c.WaitForJob(t.Context(), "j1", client.WaitOptions{Interval: time.Millisecond, MaxAttempts: 4, OnPoll: func(*client.Job) { polls++ }})
	if !errors.Is(err, client.ErrWaitExhausted) || job == nil || job.Status != client.StatusProcessing || calls.Load() != 4 || polls != 4 {
		t.Errorf("%+v, %v after %d calls, %d polls", job, err, calls.Load(), polls)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = c.WaitForJob(ctx, "j1", client.WaitOptions{}) // the defaults: 2 s between polls
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled wait: %v", err)
	}
}

func TestNew(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://host", "http://", "http://host/?q=1"} {
		if _, err := client.New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	c, err := client.New("https://api.example.com/prod/")
	if err != nil || c.BaseURL() != "https://api.example.com/prod" {
		t.Errorf("%v, %v", c, err)
	}
	if c.With(client.WithAPIKey("k")) == c {
		t.Error("With returned the same client")
	}
	if client.DefaultUserAgent != "callscribe-go/"+client.Version || client.DefaultPollInterval != 2*time.Second ||
		client.DefaultPollMaxAttempts != 60 || client.DefaultRequestTimeout != 30*time.Second {
		t.Error("defaults differ from the spec")
	}
	if p := client.DefaultRetryPolicy; p.MaxAttempts != 3 || p.BaseDelay != 500*time.Millisecond || p.MaxDelay != 10*time.Second {
		t.Errorf("DefaultRetryPolicy %+v", p)
	}
}

// A body that is not the service's error shape still becomes an *Error.
func TestNonJSONErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		ctype, body, want string
	}{
		{"text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html body"},
		{"text/plain", "upstream connect error or disconnect/reset before headers", "upstream connect error"},
		{"application/json", `{"message":"Forbidden"}`, "Forbidden"},
		{"", "", "unexpected 502 Bad Gateway response"},
	} {
		c, _ := flaky(t, 1, func(w http.ResponseWriter, r *http.Request) {
			if tc.ctype != "" {
				w.Header().Set("Content-Type", tc.ctype)
			}
			w.Header().Set("X-Request-Id", "gw-1")
			w.WriteHeader(502)
			w.Write([]byte(tc.body))
		}, jobBody)
		_, err := c.With(client.WithRetryPolicy(client.NoRetries)).GetJob(t.Context(), "j1")
		e, ok := client.AsError(err)
		if !ok || e.Status != 502 || e.Code != "HTTP_502" || e.RequestID != "gw-1" || !strings.Contains(e.Message, tc.want) || !strings.Contains(err.Error(), "gw-1") {
			t.Errorf("%s %q: %v", tc.ctype, tc.body, err)
		}
	}
}

// WaitOptions.RequestTimeout bounds each poll.
func TestWaitRequestTimeout(t *testing.T) {
	c, _ := flaky(t, 100, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
	}, jobBody)
	start := time.Now()
	_, err := c.With(client.WithRetryPolicy(client.NoRetries)).WaitForJob(t.Context(), "j1", client.WaitOptions{RequestTimeout: 20 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
		t.Errorf("%v after %s", err, time.Since(start))
	}
}

// 429 RATE_LIMITED is retried after its Retry-After for any method, a create
// included: the service refuses over-budget requests before doing anything.
// 429 QUOTA_EXCEEDED is never retried.
func TestRetryRateLimitedEvenPOST(t *testing.T) {
	limited := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(429)
		w.Write([]byte(`{"error":{"code":"RATE_LIMITED","message":"slow down","details":{"retry_after_seconds":1}},"requestId":"r"}`))
	}
	c, calls := flaky(t, 1, limited, `{"job_id":"j2","type":"summary","status":"queued","requestId":"r"}`)
	c = c.With(client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Second}))
	job, err := c.Summarize(t.Context(), client.SummarizeRequest{TranscriptText: "hi"})
	if err != nil || job.ID != "j2" || calls.Load() != 2 {
		t.Fatalf("POST after RATE_LIMITED: %+v, %v after %d calls", job, err, calls.Load())
	}
	c, calls = flaky(t, 1, status(429, `{"error":{"code":"QUOTA_EXCEEDED","message":"over","details":{"limit_minutes":5,"used_minutes":5,"file_minutes":1}},"requestId":"r"}`), jobBody)
	if _, err := c.Summarize(t.Context(), client.SummarizeRequest{TranscriptText: "hi"}); !client.IsQuotaExceeded(err) || client.IsRateLimited(err) || calls.Load() != 1 {
		t.Fatalf("QUOTA_EXCEEDED: %v after %d calls", err, calls.Load())
	}
}
