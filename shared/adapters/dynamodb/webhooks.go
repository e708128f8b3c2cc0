package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Webhook attributes. The SigningSecrets table: partition account_id, with
// secret, created_at, previous and previous_valid_until (times as in the
// jobs table). A job's delivery attempts are the attribute deliveries of its
// item in the Jobs table, a JSON array of at most
// callscribe.MaxDeliveriesPerJob attempts, newest first: it goes wherever the
// item goes, so deleting the job hides it and purging (or TTL) removes it,
// with no second table to keep in step. It stays out of every index's
// projection; GetJob reads it with the item (a few KB at most).
const (
	attrSecret             = "secret"
	attrPrevious           = "previous"
	attrPreviousValidUntil = "previous_valid_until"
	attrDeliveries         = "deliveries"
)

// WebhookStore is callscribe.WebhookStore on the SigningSecrets and Jobs tables.
type WebhookStore struct {
	client  *ddb.Client
	secrets string
	jobs    string
}

var _ callscribe.WebhookStore = (*WebhookStore)(nil)

// NewWebhookStore returns the store on tables.SigningSecrets and tables.Jobs.
func NewWebhookStore(client *ddb.Client, tables TableNames) *WebhookStore {
	return &WebhookStore{client: client, secrets: tables.SigningSecrets, jobs: tables.Jobs}
}

// SigningSecret is one consistent GetItem.
func (s *WebhookStore) SigningSecret(ctx context.Context, accountID string) (*callscribe.SigningSecret, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.secrets),
		Key:            map[string]types.AttributeValue{attrAccountID: str(accountID)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("dynamodb: signing secret: %w", err)
	}
	if len(out.Item) == 0 {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "The account has no signing secret.")
	}
	r := &itemReader{item: out.Item}
	sec := &callscribe.SigningSecret{
		AccountID: accountID,
		Secret:    r.str(attrSecret),
		CreatedAt: r.time(attrCreatedAt),
		Previous:  r.str(attrPrevious),
	}
	if r.has(attrPreviousValidUntil) {
		sec.PreviousValidUntil = r.time(attrPreviousValidUntil)
	}
	if r.err != nil {
		return nil, fmt.Errorf("dynamodb: signing secret of %s: %w", accountID, r.err)
	}
	return sec, nil
}

// PutSigningSecret is one PutItem conditioned on the stored secret.
func (s *WebhookStore) PutSigningSecret(ctx context.Context, sec *callscribe.SigningSecret, replacing string) error {
	item := map[string]types.AttributeValue{
		attrAccountID: str(sec.AccountID),
		attrSecret:    str(sec.Secret),
		attrCreatedAt: str(formatTime(sec.CreatedAt)),
	}
	if sec.Previous != "" {
		item[attrPrevious] = str(sec.Previous)
		item[attrPreviousValidUntil] = str(formatTime(sec.PreviousValidUntil))
	}
	in := &ddb.PutItemInput{TableName: aws.String(s.secrets), Item: item}
	if replacing == "" {
		in.ConditionExpression = aws.String("attribute_not_exists(account_id)")
	} else {
		in.ConditionExpression = aws.String("secret = :replacing")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":replacing": str(replacing)}
	}
	_, err := s.client.PutItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return callscribe.Errorf(callscribe.CodeConflict, "The account's signing secret changed meanwhile.")
	}
	if err != nil {
		return fmt.Errorf("dynamodb: put signing secret: %w", err)
	}
	return nil
}

// deliveryRecord is one attempt in the deliveries attribute.
type deliveryRecord struct {
	At            time.Time  `json:"at"`
	Attempt       int        `json:"attempt"`
	WebhookID     string     `json:"webhook_id"`
	Host          string     `json:"host"`
	StatusCode    int        `json:"status_code,omitempty"`
	Error         string     `json:"error,omitempty"`
	Outcome       string     `json:"outcome"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

// readDeliveries reads a live job's deliveries attribute as stored (for the
// compare-and-set) and decoded. found is false for an absent or deleted job.
func (s *WebhookStore) readDeliveries(ctx context.Context, jobID string) (raw *string, recs []deliveryRecord, found bool, err error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:            aws.String(s.jobs),
		Key:                  jobKey(jobID),
		ConsistentRead:       aws.Bool(true),
		ProjectionExpression: aws.String("#id, #del, #dl"),
		ExpressionAttributeNames: map[string]string{
			"#id": attrID, "#del": attrDeletedAt, "#dl": attrDeliveries,
		},
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("dynamodb: deliveries of %s: %w", jobID, err)
	}
	if len(out.Item) == 0 {
		return nil, nil, false, nil
	}
	if _, deleted := out.Item[attrDeletedAt]; deleted {
		return nil, nil, false, nil
	}
	if v, ok := out.Item[attrDeliveries].(*types.AttributeValueMemberS); ok {
		if err := json.Unmarshal([]byte(v.Value), &recs); err != nil {
			return nil, nil, false, fmt.Errorf("dynamodb: deliveries of %s: %w", jobID, err)
		}
		raw = &v.Value
	}
	return raw, recs, true, nil
}

// RecordDelivery rewrites the job's deliveries attribute with the attempt
// added, conditioned on the value it read (a compare-and-set; a concurrent
// writer makes it read again).
func (s *WebhookStore) RecordDelivery(ctx context.Context, d *callscribe.DeliveryAttempt) error {
	rec := deliveryRecord{
		At: d.At.UTC(), Attempt: d.Attempt, WebhookID: d.WebhookID, Host: d.Host,
		StatusCode: d.StatusCode, Error: d.Error, Outcome: string(d.Outcome), NextAttemptAt: d.NextAttemptAt,
	}
	for attempt := 1; ; attempt++ {
		raw, recs, found, err := s.readDeliveries(ctx, d.JobID)
		if err != nil {
			return err
		}
		if !found {
			return callscribe.Errorf(callscribe.CodeJobNotFound, "Job %s was not found.", d.JobID)
		}
		if slices.ContainsFunc(recs, func(r deliveryRecord) bool { return r.Attempt == rec.Attempt && r.At.Equal(rec.At) }) {
			return nil
		}
		recs = append(recs, rec)
		slices.SortStableFunc(recs, func(a, b deliveryRecord) int {
			if c := b.At.Compare(a.At); c != 0 {
				return c
			}
			return b.Attempt - a.Attempt
		})
		recs = recs[:min(len(recs), callscribe.MaxDeliveriesPerJob)]
		body, err := json.Marshal(recs)
		if err != nil {
			return fmt.Errorf("dynamodb: record delivery: %w", err)
		}
		cond := "attribute_exists(#id) AND attribute_not_exists(#del) AND attribute_not_exists(#dl)"
		values := map[string]types.AttributeValue{":dl": str(string(body))}
		if raw != nil {
			cond = "attribute_exists(#id) AND attribute_not_exists(#del) AND #dl = :old"
			values[":old"] = str(*raw)
		}
		_, err = s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                 aws.String(s.jobs),
			Key:                       jobKey(d.JobID),
			UpdateExpression:          aws.String("SET #dl = :dl"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  map[string]string{"#id": attrID, "#del": attrDeletedAt, "#dl": attrDeliveries},
			ExpressionAttributeValues: values,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && attempt < callscribe.StoreTransactionAttempts {
			time.Sleep(callscribe.StoreConflictBackoff(attempt))
			continue
		}
		if err != nil {
			return fmt.Errorf("dynamodb: record delivery: %w", err)
		}
		return nil
	}
}

// Deliveries is one consistent GetItem of the job's deliveries attribute.
func (s *WebhookStore) Deliveries(ctx context.Context, jobID string) ([]*callscribe.DeliveryAttempt, error) {
	_, recs, _, err := s.readDeliveries(ctx, jobID)
	if err != nil {
		return nil, err
	}
	out := make([]*callscribe.DeliveryAttempt, 0, len(recs))
	for _, r := range recs {
		out = append(out, &callscribe.DeliveryAttempt{
			JobID: jobID, Attempt: r.Attempt, WebhookID: r.WebhookID, At: r.At, Host: r.Host,
			StatusCode: r.StatusCode, Error: r.Error, Outcome: callscribe.DeliveryOutcome(r.Outcome), NextAttemptAt: r.NextAttemptAt,
		})
	}
	return out, nil
}
