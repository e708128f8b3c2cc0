package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// QueueHarness is one Queue implementation under test: the queue, and how its
// messages reach a handler (the local process's consumer loop; for SQS, the
// poller that stands in for Lambda's event source). Consume runs until ctx is
// done. Redelivery bounds how long a message whose handler failed stays away
// before it is delivered again (the adapter's retry backoff or visibility
// timeout, as the harness configured it).
type QueueHarness struct {
	Queue      callscribe.Queue
	Consume    func(ctx context.Context, h callscribe.MessageHandler)
	Redelivery time.Duration
}

// RunQueueTests runs the Queue contract: delivery at least once with every
// field intact, Delay respected, redelivery after a failed handler, and no
// redelivery of an acknowledged message. newHarness is called once per
// subtest and must return an empty queue.
func RunQueueTests(t *testing.T, newHarness func(t *testing.T) QueueHarness) {
	tests := []struct {
		name string
		run  func(t *testing.T, h QueueHarness)
	}{
		{"Delivery/EveryMessageWithItsFields", testQueueDelivery},
		{"Delivery/DelayPostponesTheFirstDelivery", testQueueDelay},
		{"Delivery/FailedHandlingIsRedeliveredAndAckedOnce", testQueueRedelivery},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits on its own queue
			tc.run(t, newHarness(t))
		})
	}
}

// recorder is a handler that records each delivery and answers with fail's
// verdict for it (nil acknowledges).
type recorder struct {
	mu    sync.Mutex
	got   []callscribe.Message
	at    []time.Time
	fail  func(m callscribe.Message, nth int) error
	count map[string]int
}

func (r *recorder) HandleMessage(_ context.Context, m callscribe.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == nil {
		r.count = map[string]int{}
	}
	r.count[m.JobID]++
	r.got = append(r.got, m)
	r.at = append(r.at, time.Now())
	if r.fail != nil {
		return r.fail(m, r.count[m.JobID])
	}
	return nil
}

func (r *recorder) deliveries(jobID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[jobID]
}

func (r *recorder) snapshot() ([]callscribe.Message, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]callscribe.Message(nil), r.got...), append([]time.Time(nil), r.at...)
}

// consume runs the harness's consumer until stop is called.
func consume(h QueueHarness, r *recorder) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Consume(ctx, r)
	}()
	return func() { cancel(); <-done }
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

func testQueueDelivery(t *testing.T, h QueueHarness) {
	sent := []callscribe.Message{
		{Kind: callscribe.KindTranscribe, JobID: newID(), RequestID: "req-1"},
		{Kind: callscribe.KindTranscribe, JobID: newID(), Recheck: 7, RequestID: "req-2"},
		{Kind: callscribe.KindDerive, JobID: newID()},
		{Kind: callscribe.KindDeliverCallback, JobID: newID(), Attempt: 3, CallbackMsgID: newID(), RequestID: "req-4"},
	}
	for _, m := range sent {
		requireNoError(t, h.Queue.Enqueue(t.Context(), m), "Enqueue")
	}
	r := &recorder{}
	stop := consume(h, r)
	defer stop()
	if !waitFor(10*time.Second, func() bool { got, _ := r.snapshot(); return len(got) >= len(sent) }) {
		got, _ := r.snapshot()
		t.Fatalf("%d of %d messages delivered", len(got), len(sent))
	}
	got, _ := r.snapshot()
	byJob := map[string]callscribe.Message{}
	for _, m := range got {
		byJob[m.JobID] = m
	}
	for _, m := range sent {
		if byJob[m.JobID] != m {
			t.Errorf("delivered %+v, sent %+v", byJob[m.JobID], m)
		}
	}
}

func testQueueDelay(t *testing.T, h QueueHarness) {
	const delay = 2 * time.Second // whole seconds: SQS delays have second granularity
	delayed := callscribe.Message{Kind: callscribe.KindDeliverCallback, JobID: newID(), Attempt: 2, Delay: delay}
	prompt := callscribe.Message{Kind: callscribe.KindDeliverCallback, JobID: newID(), Attempt: 1}
	r := &recorder{}
	stop := consume(h, r)
	defer stop()
	sentAt := time.Now()
	requireNoError(t, h.Queue.Enqueue(t.Context(), delayed), "Enqueue delayed")
	requireNoError(t, h.Queue.Enqueue(t.Context(), prompt), "Enqueue")
	if !waitFor(10*time.Second, func() bool { return r.deliveries(delayed.JobID) > 0 }) {
		t.Fatal("the delayed message was never delivered")
	}
	got, at := r.snapshot()
	for i, m := range got {
		if m.JobID == delayed.JobID {
			// A little slack for clocks: the adapter counts from its own receipt.
			if early := delay - at[i].Sub(sentAt); early > 100*time.Millisecond {
				t.Fatalf("delivered %v early (after %v of a %v delay)", early, at[i].Sub(sentAt), delay)
			}
		}
	}
	if r.deliveries(prompt.JobID) != 1 {
		t.Fatal("a message without delay waited for the delayed one")
	}
}

func testQueueRedelivery(t *testing.T, h QueueHarness) {
	flaky := callscribe.Message{Kind: callscribe.KindTranscribe, JobID: newID(), RequestID: "req-flaky"}
	r := &recorder{fail: func(m callscribe.Message, nth int) error {
		if m.JobID == flaky.JobID && nth == 1 {
			return errors.New("engine busy")
		}
		return nil
	}}
	requireNoError(t, h.Queue.Enqueue(t.Context(), flaky), "Enqueue")
	stop := consume(h, r)
	defer stop()
	if !waitFor(h.Redelivery+10*time.Second, func() bool { return r.deliveries(flaky.JobID) >= 2 }) {
		t.Fatalf("a failed message was delivered %d times, want a redelivery", r.deliveries(flaky.JobID))
	}
	// Acknowledged on the second delivery: it does not come back.
	time.Sleep(h.Redelivery + 500*time.Millisecond)
	if n := r.deliveries(flaky.JobID); n != 2 {
		t.Fatalf("delivered %d times, want exactly 2 (failed, then acknowledged)", n)
	}
	got, _ := r.snapshot()
	if got[len(got)-1] != flaky {
		t.Fatalf("redelivered %+v, sent %+v", got[len(got)-1], flaky)
	}
}
