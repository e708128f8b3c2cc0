// Package sqs implements callscribe.Queue on Amazon SQS with aws-sdk-go-v2.
//
// A message's body is the JSON of callscribe.Message (DecodeMessage reads it back
// on the Lambda side); `kind` and `job_id` are also sent as message attributes so
// they show in the console and logs without parsing bodies. Message.Delay becomes
// DelaySeconds, capped at SQS's maximum of 15 minutes. Queues have a dead-letter
// queue through a RedrivePolicy (maxReceiveCount), in template.yaml on AWS and in
// CreateQueues for tests and the local stack.
//
// On AWS, Lambda event source mappings poll the queues; locally, Poller does it.
package sqs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// MaxDelay is the longest delay SQS accepts; longer delays are capped to it.
const MaxDelay = 15 * time.Minute

// Message attribute names.
const (
	AttrKind      = "kind"
	AttrJobID     = "job_id"
	AttrRequestID = "request_id"
)

// Queue sends messages to one SQS queue.
type Queue struct {
	client *awssqs.Client
	url    string
}

var _ callscribe.Queue = (*Queue)(nil)

// NewQueue returns a queue sending to queueURL.
func NewQueue(client *awssqs.Client, queueURL string) *Queue {
	return &Queue{client: client, url: queueURL}
}

// Enqueue sends m. When it returns nil, SQS has stored the message durably.
func (q *Queue) Enqueue(ctx context.Context, m callscribe.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	attrs := map[string]types.MessageAttributeValue{}
	// SQS refuses empty attribute values, so absent ones are left out.
	for name, v := range map[string]string{AttrKind: string(m.Kind), AttrJobID: m.JobID, AttrRequestID: m.RequestID} {
		if v != "" {
			attrs[name] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
		}
	}
	_, err = q.client.SendMessage(ctx, &awssqs.SendMessageInput{
		QueueUrl:          aws.String(q.url),
		MessageBody:       aws.String(string(body)),
		MessageAttributes: attrs,
		DelaySeconds:      delaySeconds(m.Delay),
	})
	if err != nil {
		return fmt.Errorf("send %s message for job %s: %w", m.Kind, m.JobID, err)
	}
	return nil
}

// delaySeconds rounds a delay up to whole seconds (a message is never delivered
// early) and caps it at MaxDelay.
func delaySeconds(d time.Duration) int32 {
	if d <= 0 {
		return 0
	}
	return int32(math.Ceil(min(d, MaxDelay).Seconds()))
}

// DecodeMessage parses a message body written by Enqueue (an SQS record's Body in
// a Lambda event). Unknown fields are ignored so that older workers accept
// messages from newer senders.
func DecodeMessage(body string) (callscribe.Message, error) {
	var m callscribe.Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return callscribe.Message{}, fmt.Errorf("decode queue message: %w", err)
	}
	if m.Kind == "" || m.JobID == "" {
		return callscribe.Message{}, errors.New("decode queue message: kind and job_id are required")
	}
	return m, nil
}

// QueueOptions configure the queues CreateQueues makes.
type QueueOptions struct {
	// MaxReceiveCount is how many receives a message gets before SQS moves it to
	// the dead-letter queue; callscribe.QueueMaxReceives when zero.
	MaxReceiveCount int
	// VisibilityTimeout hides a received message from other consumers; a failed
	// message is redelivered after it. 30 s when zero.
	VisibilityTimeout time.Duration
}

// QueueURLs are a queue and its dead-letter queue.
type QueueURLs struct {
	URL    string
	DLQURL string
}

// DLQSuffix names a queue's dead-letter queue.
const DLQSuffix = "-dlq"

// CreateQueues creates each named queue with a dead-letter queue (name +
// DLQSuffix) and a RedrivePolicy, for tests and the local AWS stack (on AWS the
// template creates them). Existing queues with the same attributes are reused.
func CreateQueues(ctx context.Context, client *awssqs.Client, names []string, opts QueueOptions) (map[string]QueueURLs, error) {
	if opts.MaxReceiveCount == 0 {
		opts.MaxReceiveCount = callscribe.QueueMaxReceives
	}
	if opts.VisibilityTimeout == 0 {
		opts.VisibilityTimeout = 30 * time.Second
	}
	urls := make(map[string]QueueURLs, len(names))
	for _, name := range names {
		dlq, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{
			QueueName: aws.String(name + DLQSuffix),
			// Keep dead letters as long as SQS allows, for inspection.
			Attributes: map[string]string{string(types.QueueAttributeNameMessageRetentionPeriod): "1209600"},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name+DLQSuffix, err)
		}
		attrs, err := client.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{
			QueueUrl:       dlq.QueueUrl,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("read ARN of %s: %w", name+DLQSuffix, err)
		}
		redrive, _ := json.Marshal(map[string]string{
			"deadLetterTargetArn": attrs.Attributes[string(types.QueueAttributeNameQueueArn)],
			"maxReceiveCount":     strconv.Itoa(opts.MaxReceiveCount),
		})
		q, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{
			QueueName: aws.String(name),
			Attributes: map[string]string{
				string(types.QueueAttributeNameRedrivePolicy):     string(redrive),
				string(types.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(opts.VisibilityTimeout.Seconds())),
			},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name, err)
		}
		urls[name] = QueueURLs{URL: aws.ToString(q.QueueUrl), DLQURL: aws.ToString(dlq.QueueUrl)}
	}
	return urls, nil
}
