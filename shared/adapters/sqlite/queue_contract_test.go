package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

func TestQueueContract(t *testing.T) {
	const retry = 300 * time.Millisecond
	storetest.RunQueueTests(t, func(t *testing.T) storetest.QueueHarness {
		q := openTestDB(t).Queue()
		return storetest.QueueHarness{
			Queue: q,
			Consume: func(ctx context.Context, h callscribe.MessageHandler) {
				q.Consume(ctx, 1, h, ConsumeOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: func(int) time.Duration { return retry }})
			},
			Redelivery: retry,
		}
	})
}
