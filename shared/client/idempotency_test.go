package client_test

import (
	"bytes"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

// dropFirstCreate delivers every request to the service, but loses the
// answer of the first POST: the job is made, the client never hears of it.
type dropFirstCreate struct {
	dropped atomic.Bool
	keys    []string
}

func (d *dropFirstCreate) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	d.keys = append(d.keys, r.Header.Get("Idempotency-Key"))
	if d.dropped.CompareAndSwap(false, true) {
		resp.Body.Close()
		return nil, errors.New("connection reset after the request was handled")
	}
	return resp, nil
}

func TestRetriedCreateAfterADroppedAnswerMakesOneJob(t *testing.T) {
	ctx := t.Context()
	plain, _ := client.New(baseURL)
	key, err := newAPIKey(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	rt := &dropFirstCreate{}
	c, err := client.New(baseURL, client.WithAPIKey(key),
		client.WithHTTPClient(&http.Client{Transport: rt}),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	job, err := c.CreateTranscriptionFromReader(ctx, "call.wav", bytes.NewReader(apitest.MakeWAV(3, 2, false)), client.TranscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.keys) != 2 || rt.keys[0] == "" || rt.keys[0] != rt.keys[1] {
		t.Fatalf("Idempotency-Keys sent %q, want one key sent twice", rt.keys)
	}
	page, err := c.ListJobs(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 1 || page.Jobs[0].ID != job.ID {
		t.Fatalf("the account has %d jobs (%+v), want only %s", len(page.Jobs), page.Jobs, job.ID)
	}
}
