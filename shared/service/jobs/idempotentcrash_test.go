package jobs_test

import (
	"context"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// A create whose process died after storing the job but before its answer
// was stored is retried under the same Idempotency-Key once the key's lease
// runs out: the retry must answer with the job the first attempt made, not
// make a second one and charge the quota twice.
func TestRetryAfterACrashFindsTheFirstAttemptsJob(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const account = "acct-1"
	data := wav(t, 3)
	keyed := jobs.WithIdempotencyKey(ctx, account, "retry-me", "fingerprint-a")

	first, err := e.svc.SubmitTranscription(keyed, upload(account, data))
	if err != nil {
		t.Fatal(err)
	}
	// The answer was lost with the process; the retry runs the create again.
	again, err := e.svc.SubmitTranscription(keyed, upload(account, data))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID {
		t.Fatalf("the retry made job %s beside the first attempt's %s", again.ID, first.ID)
	}
	if got := e.usedSeconds(t, account); got != 3 {
		t.Errorf("used %v s after a retried 3 s upload, want 3 (charged once)", got)
	}
	if n := len(e.queue.messages()); n != 1 {
		t.Errorf("%d queue messages, want 1", n)
	}
	if !e.audioExists(t, first.AudioKey) {
		t.Error("the first attempt's audio is gone")
	}

	// Derived jobs likewise.
	e.finished(t, account, []callscribe.Segment{{Text: "hello", SpeakerID: 0, SpeakerAlias: "Agent", TimeEnd: 1}}, nil)
	derive := jobs.DeriveRequest{AccountID: account, Type: callscribe.TypeSummary, Text: "Agent: hello"}
	keyedDerive := jobs.WithIdempotencyKey(ctx, account, "derive-once", "fingerprint-d")
	d1, err := e.svc.Derive(keyedDerive, derive)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := e.svc.Derive(keyedDerive, derive)
	if err != nil || d2.ID != d1.ID {
		t.Fatalf("retried derive: %v, %v; want job %s again", d2, err, d1.ID)
	}

	// Another request under the same key (after the key's record expired),
	// another account, or no key at all: new jobs.
	seen := map[string]bool{first.ID: true}
	for name, c := range map[string]context.Context{
		"other fingerprint": jobs.WithIdempotencyKey(ctx, account, "retry-me", "fingerprint-b"),
		"no key":            ctx,
	} {
		j, err := e.svc.SubmitTranscription(c, upload(account, wav(t, 1)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if seen[j.ID] {
			t.Errorf("%s: reused job %s", name, j.ID)
		}
		seen[j.ID] = true
	}
	other, err := e.svc.SubmitTranscription(jobs.WithIdempotencyKey(ctx, "acct-2", "retry-me", "fingerprint-a"), upload("acct-2", data))
	if err != nil || seen[other.ID] || other.AccountID != "acct-2" {
		t.Errorf("another account's create under the same key and request: %+v, %v", other, err)
	}
}
