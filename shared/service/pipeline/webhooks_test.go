package pipeline

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/callback"
)

// With Webhooks, every attempt is recorded from what the worker knows: its
// number, host, status, outcome, and for a retry the time the queued message
// becomes due (the attempt's time plus the delay it was queued with).
func TestCallbackAttemptsAreRecorded(t *testing.T) {
	e := newEnv(t, nil)
	e.w.Webhooks = callback.NewWebhooks(e.db.Webhooks(), nil)
	rcv := newReceiver(t, func(int) int { return http.StatusBadGateway })
	e.tagsJob(t, "tags-rec", rcv.srv.URL+"/hook?token=receiver-secret")
	e.queue.Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-rec"})

	var delays []time.Duration // of the queued callback messages, in order
	for range 10 {
		msgs := e.queue.take()
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			if m.Kind == callscribe.KindDeliverCallback && m.Attempt > 1 {
				delays = append(delays, m.Delay)
			}
			if err := e.w.HandleMessage(context.Background(), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := e.w.Webhooks.Deliveries(context.Background(), "tags-rec")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != callscribe.CallbackMaxAttempts || len(delays) != callscribe.CallbackMaxAttempts-1 {
		t.Fatalf("%d attempts recorded, %d retries queued", len(got), len(delays))
	}
	host := rcv.srv.Listener.Addr().String()
	for i, d := range got {
		attempt := callscribe.CallbackMaxAttempts - i
		want := callscribe.DeliveryRetrying
		if attempt == callscribe.CallbackMaxAttempts {
			want = callscribe.DeliveryAbandoned
		}
		if d.Attempt != attempt || d.Outcome != want || d.StatusCode != http.StatusBadGateway || d.Host != host || d.Error == "" || d.WebhookID == "" {
			t.Errorf("record %d: %+v", i, d)
		}
		if want == callscribe.DeliveryRetrying {
			if d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(d.At.Add(delays[attempt-1])) {
				t.Errorf("attempt %d at %s: next attempt %v, queued with delay %s", attempt, d.At, d.NextAttemptAt, delays[attempt-1])
			}
		} else if d.NextAttemptAt != nil {
			t.Errorf("the last attempt has a next attempt: %v", d.NextAttemptAt)
		}
	}
}
