package sqs

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

var (
	client *awssqs.Client
	queueN atomic.Int64
)

func TestMain(m *testing.M) {
	awstest.RunMain(m, awstest.Options{SQS: true}, func(s *awstest.Servers) {
		client = awssqs.NewFromConfig(s.SQSConfig())
	})
}

func newQueue(t *testing.T, opts QueueOptions) QueueURLs {
	t.Helper()
	name := fmt.Sprintf("work-%d", queueN.Add(1))
	urls, err := CreateQueues(t.Context(), client, []string{name}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return urls[name]
}

func receive(t *testing.T, url string, wait int32) []types.Message {
	t.Helper()
	out, err := client.ReceiveMessage(t.Context(), &awssqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: 1, WaitTimeSeconds: wait,
		MessageAttributeNames: []string{"All"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

func TestEnqueueBodyAndAttributes(t *testing.T) {
	q := newQueue(t, QueueOptions{})
	sent := callscribe.Message{Kind: callscribe.KindDeliverCallback, JobID: "job-1", Attempt: 2, CallbackMsgID: "msg-9", RequestID: "req-7"}
	if err := NewQueue(client, q.URL).Enqueue(t.Context(), sent); err != nil {
		t.Fatal(err)
	}
	msgs := receive(t, q.URL, 1)
	if len(msgs) != 1 {
		t.Fatalf("received %d messages, want 1", len(msgs))
	}
	got, err := DecodeMessage(aws.ToString(msgs[0].Body))
	if err != nil || got != sent {
		t.Fatalf("DecodeMessage = %+v, %v; want %+v", got, err, sent)
	}
	for name, want := range map[string]string{AttrKind: "deliver_callback", AttrJobID: "job-1", AttrRequestID: "req-7"} {
		if v := msgs[0].MessageAttributes[name]; aws.ToString(v.StringValue) != want || aws.ToString(v.DataType) != "String" {
			t.Errorf("attribute %s = %+v, want String %q", name, v, want)
		}
	}
}

func TestEnqueueDelay(t *testing.T) {
	t.Parallel() // seconds of waiting on its own queue
	q := newQueue(t, QueueOptions{})
	if err := NewQueue(client, q.URL).Enqueue(t.Context(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "j", Delay: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if msgs := receive(t, q.URL, 0); len(msgs) != 0 {
		t.Fatal("a delayed message was delivered at once")
	}
	// 1.5 s rounds up to 2 s: never early.
	for time.Since(sent) < 5*time.Second {
		if msgs := receive(t, q.URL, 1); len(msgs) == 1 {
			if d := time.Since(sent); d < 1900*time.Millisecond {
				t.Fatalf("delayed message delivered after %s, want >= 2 s", d)
			}
			return
		}
	}
	t.Fatal("delayed message never delivered")
}

func TestDelaySeconds(t *testing.T) {
	for d, want := range map[time.Duration]int32{
		-time.Second: 0, 0: 0, time.Millisecond: 1, time.Second: 1, 90 * time.Second: 90,
		MaxDelay: 900, time.Hour: 900,
	} {
		if got := delaySeconds(d); got != want {
			t.Errorf("delaySeconds(%s) = %d, want %d", d, got, want)
		}
	}
}

func TestDecodeMessageRejectsGarbage(t *testing.T) {
	for _, body := range []string{"", "not json", `{"kind":"transcribe"}`, `{"job_id":"x"}`} {
		if _, err := DecodeMessage(body); err == nil {
			t.Errorf("DecodeMessage(%q) = nil error", body)
		}
	}
	m, err := DecodeMessage(`{"kind":"transcribe","job_id":"x","future_field":1}`)
	if err != nil || m.Kind != callscribe.KindTranscribe || m.JobID != "x" {
		t.Fatalf("DecodeMessage with an unknown field = %+v, %v", m, err)
	}
}

type handlerFunc func(context.Context, callscribe.Message) error

func (f handlerFunc) HandleMessage(ctx context.Context, m callscribe.Message) error { return f(ctx, m) }

// TestPollerDeletesHandledMessages: a handled message is gone (not redelivered
// after the visibility timeout).
func TestPollerDeletesHandledMessages(t *testing.T) {
	t.Parallel() // seconds of waiting on its own queue
	q := newQueue(t, QueueOptions{VisibilityTimeout: time.Second})
	queue := NewQueue(client, q.URL)
	for i := range 3 {
		if err := queue.Enqueue(t.Context(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var handled []string
	p := &Poller{Client: client, QueueURL: q.URL, Handle: Decoded(handlerFunc(func(_ context.Context, m callscribe.Message) error {
		handled = append(handled, m.JobID)
		return nil
	}))}
	for range 3 {
		if ok, err := p.PollOnce(t.Context()); !ok || err != nil {
			t.Fatalf("PollOnce = %v, %v", ok, err)
		}
	}
	if len(handled) != 3 {
		t.Fatalf("handled %v, want 3 messages", handled)
	}
	time.Sleep(1200 * time.Millisecond) // past the visibility timeout
	if msgs := receive(t, q.URL, 0); len(msgs) != 0 {
		t.Fatalf("handled message redelivered: %s", aws.ToString(msgs[0].Body))
	}
}

// TestPollerRedeliversAndDeadLetters: a failing message comes back after the
// visibility timeout and moves to the dead-letter queue after maxReceiveCount
// receives (local-aws-sqs implements the RedrivePolicy).
func TestPollerRedeliversAndDeadLetters(t *testing.T) {
	t.Parallel() // seconds of waiting on its own queue
	q := newQueue(t, QueueOptions{MaxReceiveCount: 2, VisibilityTimeout: time.Second})
	if err := NewQueue(client, q.URL).Enqueue(t.Context(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "poison"}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("provider down")
	var attempts atomic.Int32
	var reported atomic.Int32
	p := &Poller{Client: client, QueueURL: q.URL, Wait: time.Second,
		Handle:  func(context.Context, types.Message) error { attempts.Add(1); return boom },
		OnError: func(err error) { reported.Add(1) },
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Second)
	defer cancel()
	go p.Run(ctx)

	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		if msgs := receive(t, q.DLQURL, 1); len(msgs) == 1 {
			cancel()
			if m, err := DecodeMessage(aws.ToString(msgs[0].Body)); err != nil || m.JobID != "poison" {
				t.Fatalf("dead letter = %+v, %v", m, err)
			}
			if n := attempts.Load(); n != 2 {
				t.Fatalf("handler ran %d times before dead-lettering, want maxReceiveCount = 2", n)
			}
			if reported.Load() < 2 {
				t.Fatalf("OnError saw %d errors, want 2", reported.Load())
			}
			return
		}
	}
	t.Fatalf("message not dead-lettered; handler ran %d times", attempts.Load())
}

func TestCreateQueuesIsRepeatable(t *testing.T) {
	first, err := CreateQueues(t.Context(), client, []string{"repeat"}, QueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := CreateQueues(t.Context(), client, []string{"repeat"}, QueueOptions{})
	if err != nil || second["repeat"] != first["repeat"] {
		t.Fatalf("second CreateQueues = %v, %v; want the same URLs %v", second, err, first)
	}
	attrs, err := client.GetQueueAttributes(t.Context(), &awssqs.GetQueueAttributesInput{
		QueueUrl: aws.String(first["repeat"].URL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameRedrivePolicy},
	})
	if err != nil || attrs.Attributes[string(types.QueueAttributeNameRedrivePolicy)] == "" {
		t.Fatalf("queue has no RedrivePolicy: %v, %v", attrs, err)
	}
}
