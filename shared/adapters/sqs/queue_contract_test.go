package sqs

import (
	"context"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

// SQS runs the Queue contract with the Poller standing in for Lambda's event
// source, as the local AWS stack does.
func TestQueueContract(t *testing.T) {
	const visibility = time.Second
	storetest.RunQueueTests(t, func(t *testing.T) storetest.QueueHarness {
		urls := newQueue(t, QueueOptions{VisibilityTimeout: visibility})
		return storetest.QueueHarness{
			Queue: NewQueue(client, urls.URL),
			Consume: func(ctx context.Context, h callscribe.MessageHandler) {
				(&Poller{Client: client, QueueURL: urls.URL, Handle: Decoded(h), Wait: time.Second}).Run(ctx)
			},
			// The visibility timeout, plus one long poll that may be waiting.
			Redelivery: visibility + time.Second,
		}
	})
}
