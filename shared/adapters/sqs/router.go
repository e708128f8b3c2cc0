package sqs

import (
	"context"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Router sends each message to the queue of its kind. On AWS every kind has its
// own queue (transcription, derived, callback) so that each worker function
// scales, times out and dead-letters independently, while the API and the
// pipeline keep seeing one callscribe.Queue.
//
// A function is given only the queues it sends to (least privilege); sending a
// kind with no queue is an error rather than a silent drop.
type Router map[callscribe.MessageKind]callscribe.Queue

var _ callscribe.Queue = Router(nil)

// Enqueue implements callscribe.Queue.
func (r Router) Enqueue(ctx context.Context, m callscribe.Message) error {
	q, ok := r[m.Kind]
	if !ok || q == nil {
		return fmt.Errorf("no queue configured for %s messages (job %s)", m.Kind, m.JobID)
	}
	return q.Enqueue(ctx, m)
}
