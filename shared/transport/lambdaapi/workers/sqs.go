package workers

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/callscribe/callscribe/shared/adapters/sqs"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// SQSEventHandler is the Lambda handler of an SQS-triggered function.
type SQSEventHandler func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// recordReserve is the time left for a record to be worth starting; a record not
// started is reported failed and comes back, instead of being cut off by the
// function timeout mid-way (which would fail the whole batch).
const recordReserve = 5 * time.Second

// SQSBatchHandler adapts h to SQS events. Messages of a kind outside kinds were
// sent to the wrong queue: they are reported failed so they end in the DLQ for
// inspection instead of being run by a function lacking the engine or permissions.
func SQSBatchHandler(h callscribe.MessageHandler, logger *slog.Logger, kinds ...callscribe.MessageKind) SQSEventHandler {
	return func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		fail := func(id string) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		for _, rec := range event.Records {
			log := logger.With("messageId", rec.MessageId, "receiveCount", rec.Attributes["ApproximateReceiveCount"])
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < recordReserve {
				log.Warn("not enough time left in this invocation; leaving the message for redelivery")
				fail(rec.MessageId)
				continue
			}
			m, err := sqs.DecodeMessage(rec.Body)
			if err != nil {
				log.Error("undecodable message; it goes to the dead-letter queue after its last receive", "err", err)
				fail(rec.MessageId)
				continue
			}
			log = log.With("requestId", m.RequestID, "jobId", m.JobID, "kind", m.Kind)
			if len(kinds) > 0 && !slices.Contains(kinds, m.Kind) {
				log.Error("message of a kind this worker does not handle; it goes to the dead-letter queue after its last receive")
				fail(rec.MessageId)
				continue
			}
			if err := h.HandleMessage(ctx, m); err != nil {
				log.Warn("message failed; SQS will redeliver it", "err", err)
				fail(rec.MessageId)
			}
		}
		return resp, nil
	}
}
