package apitest

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// politeTransport does what the service asks of a client over its request
// budget: a 429 with Retry-After (RATE_LIMITED) is retried after the wait, a
// few times. A 429 without it (QUOTA_EXCEEDED: retrying cannot help) and a
// request whose body cannot be replayed come back as they are.
type politeTransport struct{ next http.RoundTripper }

const maxRateLimitRetries = 8

func (p politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := p.next.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || attempt == maxRateLimitRetries {
			return resp, err
		}
		secs, convErr := strconv.Atoi(resp.Header.Get("Retry-After"))
		if convErr != nil || (req.Body != nil && req.GetBody == nil) {
			return resp, err
		}
		resp.Body.Close()
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(time.Duration(secs) * time.Second):
		}
		next := req.Clone(req.Context())
		if req.Body != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}

// politeClient is hc with its transport wrapped in politeTransport.
func politeClient(hc *http.Client) *http.Client {
	c := *hc
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = politeTransport{next: next}
	return &c
}

// testRateLimit spends one fresh API key's budget as fast as it can, without
// the suite's polite retries, on the cheapest API-key route (the taxonomy:
// authentication and nothing else): past the burst the service answers 429
// RATE_LIMITED with Retry-After in whole seconds and the same figure in
// details.retry_after_seconds, and nothing but 200 or that. It stops at the
// first 429; a target too slow to outrun its own refill fails after maxTries.
func (s *suite) testRateLimit(t *testing.T) {
	if s.opts.RateLimitBurst <= 0 {
		t.Skip("Options.RateLimitBurst not set: the target's request budget is unknown")
	}
	a := s.newAccount(t)
	raw := &client{base: s.c.base, hc: s.impatient, gateway: s.c.gateway}
	const path = "/v1/tags/taxonomy"
	maxTries := s.opts.RateLimitBurst * 20
	var (
		mu      sync.Mutex
		limited *Response
		sent    int
		wg      sync.WaitGroup
	)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if limited != nil || sent >= maxTries {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				r := raw.do(t, http.MethodGet, path, nil, withBearer(a.APIKey))
				switch r.Status {
				case http.StatusOK:
				case http.StatusTooManyRequests:
					mu.Lock()
					if limited == nil {
						limited = r
					}
					mu.Unlock()
				default:
					t.Errorf("burst request: %s", r)
					return
				}
			}
		}()
	}
	wg.Wait()
	if limited == nil {
		t.Fatalf("%d requests as fast as they go on one key (burst %d): none was limited", sent, s.opts.RateLimitBurst)
	}
	r := limited
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if r.ErrCode() != "RATE_LIMITED" || err != nil || secs < 1 {
		t.Fatalf("429 over the budget: Retry-After %q, %s", r.Header.Get("Retry-After"), r)
	}
	details, _ := r.Body["error"].(map[string]any)["details"].(map[string]any)
	if got, ok := num(details["retry_after_seconds"]); !ok || got != float64(secs) {
		t.Errorf("details.retry_after_seconds %v, Retry-After %d: %s", details["retry_after_seconds"], secs, r)
	}
	// The budget refills: after the wait the key works again.
	time.Sleep(time.Duration(secs) * time.Second)
	if r := raw.do(t, http.MethodGet, path, nil, withBearer(a.APIKey)); r.Status != http.StatusOK {
		t.Fatalf("after Retry-After: %s", r)
	}
}
