package sqs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Poller stands in for a Lambda SQS event source in the local AWS stack: it
// receives messages one at a time, hands each to Handle, deletes it when Handle
// succeeds and leaves it for redelivery (after the visibility timeout, and to
// the dead-letter queue after maxReceiveCount) when Handle fails, as Lambda does
// with ReportBatchItemFailures.
//
// It receives one message per call: local-aws-sqs with MaxNumberOfMessages > 1
// waits the whole WaitTimeSeconds even when messages are available.
type Poller struct {
	Client   *awssqs.Client
	QueueURL string
	// Handle processes one message; the raw SQS message lets the local stack build
	// a Lambda SQS event from it. Wrap a callscribe.MessageHandler with Decoded.
	Handle func(ctx context.Context, m types.Message) error
	// Wait is the long-poll time of each receive; 1 s when zero (short, so that
	// Run stops soon after its context is cancelled).
	Wait time.Duration
	// Concurrency is how many messages are processed at once; 1 when zero.
	Concurrency int
	// OnError sees handler and SQS errors (the local stack logs them); may be nil.
	OnError func(error)
}

// Decoded adapts a callscribe.MessageHandler to Poller.Handle. A body that does
// not decode is an error, so the message ends in the dead-letter queue.
func Decoded(h callscribe.MessageHandler) func(context.Context, types.Message) error {
	return func(ctx context.Context, m types.Message) error {
		msg, err := DecodeMessage(aws.ToString(m.Body))
		if err != nil {
			return err
		}
		return h.HandleMessage(ctx, msg)
	}
}

// Run polls until ctx is cancelled, then returns nil after in-flight handlers finish.
func (p *Poller) Run(ctx context.Context) error {
	n := max(p.Concurrency, 1)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := p.PollOnce(ctx); err != nil && ctx.Err() == nil {
					p.report(err)
					var herr *handlerError
					if !errors.As(err, &herr) {
						// SQS itself failed (e.g. the server is restarting): do not spin.
						select {
						case <-ctx.Done():
						case <-time.After(time.Second):
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

// handlerError marks an error returned by Handle (the message stays queued).
type handlerError struct {
	id  string
	err error
}

func (e *handlerError) Error() string { return fmt.Sprintf("message %s: %v", e.id, e.err) }
func (e *handlerError) Unwrap() error { return e.err }

// PollOnce receives at most one message and processes it. It reports whether a
// message was received; a handler error is returned (wrapped) after leaving the
// message for redelivery.
func (p *Poller) PollOnce(ctx context.Context) (bool, error) {
	wait := p.Wait
	if wait == 0 {
		wait = time.Second
	}
	out, err := p.Client.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(p.QueueURL),
		MaxNumberOfMessages:         1,
		WaitTimeSeconds:             int32(wait / time.Second),
		MessageAttributeNames:       []string{"All"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	if err != nil {
		return false, fmt.Errorf("receive from %s: %w", p.QueueURL, err)
	}
	if len(out.Messages) == 0 {
		return false, nil
	}
	m := out.Messages[0]
	if err := p.Handle(ctx, m); err != nil {
		return true, &handlerError{id: aws.ToString(m.MessageId), err: err}
	}
	// A context cancelled after a successful handler must not lose the delete:
	// the work is done, and redelivery would repeat it.
	_, err = p.Client.DeleteMessage(context.WithoutCancel(ctx), &awssqs.DeleteMessageInput{
		QueueUrl:      aws.String(p.QueueURL),
		ReceiptHandle: m.ReceiptHandle,
	})
	if err != nil {
		return true, fmt.Errorf("delete message %s: %w", aws.ToString(m.MessageId), err)
	}
	return true, nil
}

func (p *Poller) report(err error) {
	if p.OnError != nil {
		p.OnError(err)
	}
}
