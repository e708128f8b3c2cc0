package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

func TestIdempotentCreateRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	begin := func(key, fingerprint string) (*callscribe.IdempotencyRecord, *jobs.IdempotencyClaim, error) {
		return e.svc.BeginIdempotent(ctx, "acct-1", key, fingerprint)
	}

	// The first request runs; a repeat while it runs is IN_USE, with a wait.
	replay, claim, err := begin("k1", "fp-a")
	if err != nil || replay != nil || claim == nil {
		t.Fatalf("first request: %v, %v, %v; want a claim", replay, claim, err)
	}
	_, _, err = begin("k1", "fp-a")
	requireCode(t, err, callscribe.CodeIdempotencyKeyInUse)
	if ce, _ := err.(*callscribe.Error); ce.RetryAfter <= 0 {
		t.Fatalf("IN_USE without a Retry-After: %+v", ce)
	}
	if err := claim.Finish(ctx, 202, []byte(`{"job_id":"j1"}`)); err != nil {
		t.Fatal(err)
	}
	// Answered: the same request replays, a different one is REUSED.
	replay, claim, err = begin("k1", "fp-a")
	if err != nil || claim != nil || replay == nil || replay.Status != 202 || string(replay.Body) != `{"job_id":"j1"}` {
		t.Fatalf("repeat: %+v, %v, %v; want the stored 202", replay, claim, err)
	}
	_, _, err = begin("k1", "fp-b")
	requireCode(t, err, callscribe.CodeIdempotencyKeyReused)

	// 5xx and 429 answers are not kept: the retry runs again. A 4xx is kept.
	for _, status := range []int{500, 502, 429} {
		_, claim, _ := begin("k-"+strings.Repeat("x", status%7+1), "fp")
		if err := claim.Finish(ctx, status, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if _, again, err := begin("k-"+strings.Repeat("x", status%7+1), "fp"); err != nil || again == nil {
			t.Fatalf("after a %d the retry got %v, %v; want to run", status, again, err)
		}
	}
	_, claim, _ = begin("k-400", "fp")
	claim.Finish(ctx, 400, []byte(`{"error":{}}`))
	if replay, _, _ := begin("k-400", "fp"); replay == nil || replay.Status != 400 {
		t.Fatalf("a 400 was not kept: %+v", replay)
	}

	// A claim whose request died frees the key after the lease; answers
	// expire after a day.
	begin("k-dead", "fp")
	e.now = e.now.Add(jobs.IdempotencyLease)
	if _, claim, err := begin("k-dead", "fp"); err != nil || claim == nil {
		t.Fatalf("after the lease: %v, %v; want a new claim", claim, err)
	}
	e.now = e.now.Add(jobs.IdempotencyKeyTTL)
	if replay, claim, err := begin("k1", "fp-b"); err != nil || replay != nil || claim == nil {
		t.Fatalf("after expiry: %v, %v, %v; want a new claim", replay, claim, err)
	}

	for _, bad := range []string{"", strings.Repeat("k", 256), "tab\tkey", "é"} {
		_, _, err := begin(bad, "fp")
		requireCode(t, err, callscribe.CodeInvalidIdempotencyKey)
	}
	if err := jobs.CheckIdempotencyKey(strings.Repeat("~", 255)); err != nil {
		t.Fatalf("255 printable characters refused: %v", err)
	}
}
