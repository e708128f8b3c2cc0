package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Attributes of the idempotency table: partition account_id, sort
// idempotency_key. Times are Unix nanoseconds (numbers compare exactly);
// expires_at, the table's TTL attribute, is the expiry in Unix seconds, so
// DynamoDB deletes expired records on its own (within days: the claim's
// condition reads the exact expiry, so a record past it is free at once).
const (
	attrIdempotencyKey = "idempotency_key"
	attrFingerprint    = "fingerprint"
	attrToken          = "token"
	attrAnswerStatus   = "answer_status"
	attrAnswerBody     = "answer_body"
	attrLockedUntilNs  = "locked_until_ns"
	attrExpiresAtNs    = "expires_at_ns"
)

// IdempotencyStore is callscribe.IdempotencyStore on the Idempotency table.
type IdempotencyStore struct {
	client *ddb.Client
	table  string
}

var _ callscribe.IdempotencyStore = (*IdempotencyStore)(nil)

// NewIdempotencyStore returns the store on the Idempotency table.
func NewIdempotencyStore(client *ddb.Client, tables TableNames) *IdempotencyStore {
	return &IdempotencyStore{client: client, table: tables.Idempotency}
}

func (s *IdempotencyStore) itemKey(accountID, key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrAccountID: str(accountID), attrIdempotencyKey: str(key)}
}

// ClaimIdempotencyKey is one conditional put: it succeeds when no record is
// there, or the one there is expired or an unanswered claim past its lock.
func (s *IdempotencyStore) ClaimIdempotencyKey(ctx context.Context, rec *callscribe.IdempotencyRecord, now time.Time) (*callscribe.IdempotencyRecord, error) {
	item := s.itemKey(rec.AccountID, rec.Key)
	item[attrFingerprint] = str(rec.Fingerprint)
	item[attrToken] = str(rec.Token)
	item[attrAnswerStatus] = numInt(0)
	item[attrLockedUntilNs] = numInt(rec.LockedUntil.UnixNano())
	item[attrExpiresAtNs] = numInt(rec.ExpiresAt.UnixNano())
	item[TTLAttribute] = numInt(rec.ExpiresAt.Unix())
	// A record released between a failed put and the read that follows is
	// gone: the claim is tried again.
	for range 3 {
		_, err := s.client.PutItem(ctx, &ddb.PutItemInput{
			TableName:           aws.String(s.table),
			Item:                item,
			ConditionExpression: aws.String("attribute_not_exists(#acct) OR #exp <= :now OR (#status = :zero AND #locked <= :now)"),
			ExpressionAttributeNames: map[string]string{
				"#acct": attrAccountID, "#exp": attrExpiresAtNs, "#status": attrAnswerStatus, "#locked": attrLockedUntilNs,
			},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":now": numInt(now.UnixNano()), ":zero": numInt(0)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var ccf *types.ConditionalCheckFailedException
		if err == nil {
			return nil, nil
		}
		if !errors.As(err, &ccf) {
			return nil, fmt.Errorf("claim idempotency key: %w", err)
		}
		old := ccf.Item
		if len(old) == 0 {
			out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
				TableName: aws.String(s.table), Key: s.itemKey(rec.AccountID, rec.Key), ConsistentRead: aws.Bool(true),
			})
			if err != nil {
				return nil, fmt.Errorf("read idempotency key: %w", err)
			}
			old = out.Item
		}
		if len(old) > 0 {
			return decodeIdempotency(rec.AccountID, rec.Key, old)
		}
	}
	return nil, fmt.Errorf("claim idempotency key: the record kept changing")
}

func decodeIdempotency(accountID, key string, item map[string]types.AttributeValue) (*callscribe.IdempotencyRecord, error) {
	r := &itemReader{item: item}
	rec := &callscribe.IdempotencyRecord{
		AccountID: accountID, Key: key,
		Fingerprint: r.str(attrFingerprint),
		Token:       r.str(attrToken),
		Status:      int(r.num(attrAnswerStatus)),
	}
	if b, ok := item[attrAnswerBody].(*types.AttributeValueMemberB); ok {
		rec.Body = b.Value
	}
	var err error
	rec.LockedUntil, err = nanosAttr(item, attrLockedUntilNs)
	if err == nil {
		rec.ExpiresAt, err = nanosAttr(item, attrExpiresAtNs)
	}
	if err == nil {
		err = r.err
	}
	if err != nil {
		return nil, fmt.Errorf("decode idempotency record: %w", err)
	}
	return rec, nil
}

func nanosAttr(item map[string]types.AttributeValue, name string) (time.Time, error) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return time.Time{}, fmt.Errorf("attribute %s missing or not a number", name)
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("attribute %s: %w", name, err)
	}
	return time.Unix(0, n).UTC(), nil
}

func (s *IdempotencyStore) CompleteIdempotencyKey(ctx context.Context, accountID, key, token string, status int, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      s.itemKey(accountID, key),
		UpdateExpression:         aws.String("SET #status = :status, #body = :body"),
		ConditionExpression:      aws.String("#token = :token AND #status = :zero"),
		ExpressionAttributeNames: map[string]string{"#status": attrAnswerStatus, "#body": attrAnswerBody, "#token": attrToken},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":status": numInt(int64(status)), ":body": &types.AttributeValueMemberB{Value: body},
			":token": str(token), ":zero": numInt(0),
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return callscribe.Errorf(callscribe.CodeConflict, "The idempotency key is no longer held by this request.")
	}
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	return nil
}

func (s *IdempotencyStore) ReleaseIdempotencyKey(ctx context.Context, accountID, key, token string) error {
	_, err := s.client.DeleteItem(ctx, &ddb.DeleteItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.itemKey(accountID, key),
		ConditionExpression:       aws.String("#token = :token AND #status = :zero"),
		ExpressionAttributeNames:  map[string]string{"#status": attrAnswerStatus, "#token": attrToken},
		ExpressionAttributeValues: map[string]types.AttributeValue{":token": str(token), ":zero": numInt(0)},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// PurgeExpiredIdempotencyKeys does nothing: the table's TTL removes expired
// records, and claims already treat them as absent.
func (s *IdempotencyStore) PurgeExpiredIdempotencyKeys(ctx context.Context, before time.Time) (int, error) {
	return 0, nil
}
