package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// AccountStore is callscribe.AccountStore on DynamoDB (key design in the package comment).
type AccountStore struct {
	client *ddb.Client
	tables TableNames
}

var _ callscribe.AccountStore = (*AccountStore)(nil)

// NewAccountStore returns an account store on the Accounts and APIKeys tables.
func NewAccountStore(client *ddb.Client, tables TableNames) *AccountStore {
	return &AccountStore{client: client, tables: tables}
}

// emailKey is the uniqueness key: emails compare case-insensitively.
func emailKey(email string) string { return strings.ToLower(email) }

func (s *AccountStore) CreateAccount(ctx context.Context, a *callscribe.Account) error {
	_, err := s.client.PutItem(ctx, &ddb.PutItemInput{
		TableName: aws.String(s.tables.Accounts),
		Item: map[string]types.AttributeValue{
			attrEmail:        str(emailKey(a.Email)),
			attrEmailDisplay: str(a.Email),
			attrID:           str(a.ID),
			attrPasswordHash: str(a.PasswordHash),
			attrCreatedAt:    str(formatTime(a.CreatedAt)),
		},
		ConditionExpression:      aws.String("attribute_not_exists(#email)"),
		ExpressionAttributeNames: map[string]string{"#email": attrEmail},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return callscribe.Errorf(callscribe.CodeEmailTaken, "An account with this email already exists.")
	}
	if err != nil {
		return fmt.Errorf("create account: %w", err)
	}
	return nil
}

func (s *AccountStore) AccountByEmail(ctx context.Context, email string) (*callscribe.Account, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.Accounts),
		Key:            map[string]types.AttributeValue{attrEmail: str(emailKey(email))},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("read account: %w", err)
	}
	if len(out.Item) == 0 {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "No account with this email.")
	}
	r := &itemReader{item: out.Item}
	a := &callscribe.Account{
		ID:           r.str(attrID),
		Email:        r.str(attrEmailDisplay),
		PasswordHash: r.str(attrPasswordHash),
		CreatedAt:    r.time(attrCreatedAt),
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode account: %w", r.err)
	}
	return a, nil
}

func (s *AccountStore) CreateAPIKey(ctx context.Context, k *callscribe.APIKey) error {
	item := map[string]types.AttributeValue{
		attrHash:      str(k.Hash),
		attrID:        str(k.ID),
		attrAccountID: str(k.AccountID),
		attrPrefix:    str(k.Prefix),
		attrCreatedAt: str(formatTime(k.CreatedAt)),
		attrListSK:    str(listKey(k.CreatedAt, k.ID)),
	}
	if k.LastUsedAt != nil {
		item[attrLastUsedAt] = str(formatTime(*k.LastUsedAt))
	}
	_, err := s.client.PutItem(ctx, &ddb.PutItemInput{
		TableName:                aws.String(s.tables.APIKeys),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#hash)"),
		ExpressionAttributeNames: map[string]string{"#hash": attrHash},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return callscribe.Errorf(callscribe.CodeConflict, "an API key with this hash already exists")
	}
	if err != nil {
		return fmt.Errorf("create API key: %w", err)
	}
	return nil
}

func apiKeyNotFound() error {
	return callscribe.Errorf(callscribe.CodeNotFound, "API key not found.")
}

func (s *AccountStore) APIKeyByHash(ctx context.Context, hash string) (*callscribe.APIKey, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.APIKeys),
		Key:            map[string]types.AttributeValue{attrHash: str(hash)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("read API key: %w", err)
	}
	if len(out.Item) == 0 {
		return nil, apiKeyNotFound()
	}
	return decodeAPIKey(out.Item)
}

func decodeAPIKey(item map[string]types.AttributeValue) (*callscribe.APIKey, error) {
	r := &itemReader{item: item}
	k := &callscribe.APIKey{
		ID:        r.str(attrID),
		AccountID: r.str(attrAccountID),
		Prefix:    r.str(attrPrefix),
		Hash:      r.str(attrHash),
		CreatedAt: r.time(attrCreatedAt),
	}
	if r.has(attrLastUsedAt) {
		t := r.time(attrLastUsedAt)
		k.LastUsedAt = &t
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode API key: %w", r.err)
	}
	return k, nil
}

// hashOfKey maps a key id to its hash (the table key) through id-index; "" when
// there is no such key.
func (s *AccountStore) hashOfKey(ctx context.Context, keyID string) (string, error) {
	out, err := s.client.Query(ctx, &ddb.QueryInput{
		TableName:                 aws.String(s.tables.APIKeys),
		IndexName:                 aws.String(IndexAPIKeyID),
		KeyConditionExpression:    aws.String("#id = :id"),
		ExpressionAttributeNames:  map[string]string{"#id": attrID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(keyID)},
	})
	if err != nil {
		return "", fmt.Errorf("find API key %s: %w", keyID, err)
	}
	if len(out.Items) == 0 {
		return "", nil
	}
	return (&itemReader{item: out.Items[0]}).str(attrHash), nil
}

func (s *AccountStore) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	hash, err := s.hashOfKey(ctx, keyID)
	if err != nil {
		return err
	}
	if hash == "" {
		return apiKeyNotFound()
	}
	_, err = s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 aws.String(s.tables.APIKeys),
		Key:                       map[string]types.AttributeValue{attrHash: str(hash)},
		UpdateExpression:          aws.String("SET #used = :at"),
		ConditionExpression:       aws.String("attribute_exists(#hash)"), // revoked meanwhile: do not resurrect
		ExpressionAttributeNames:  map[string]string{"#used": attrLastUsedAt, "#hash": attrHash},
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(formatTime(at))},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return apiKeyNotFound()
	}
	if err != nil {
		return fmt.Errorf("touch API key %s: %w", keyID, err)
	}
	return nil
}

func (s *AccountStore) ListAPIKeys(ctx context.Context, accountID string) ([]*callscribe.APIKey, error) {
	in := &ddb.QueryInput{
		TableName:                 aws.String(s.tables.APIKeys),
		IndexName:                 aws.String(IndexAPIKeyAccount),
		KeyConditionExpression:    aws.String("#acc = :acc"),
		ExpressionAttributeNames:  map[string]string{"#acc": attrAccountID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":acc": str(accountID)},
		ScanIndexForward:          aws.Bool(false), // list_sk = created_at#id: newest first
	}
	keys := []*callscribe.APIKey{}
	for p := ddb.NewQueryPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list API keys of %s: %w", accountID, err)
		}
		for _, item := range out.Items {
			k, err := decodeAPIKey(item)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// RevokeAPIKey deletes the key's item: APIKeyByHash reads the base table
// consistently, so the key stops authenticating at once.
func (s *AccountStore) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	hash, err := s.hashOfKey(ctx, keyID)
	if err != nil {
		return err
	}
	if hash == "" {
		return apiKeyNotFound()
	}
	_, err = s.client.DeleteItem(ctx, &ddb.DeleteItemInput{
		TableName:                 aws.String(s.tables.APIKeys),
		Key:                       map[string]types.AttributeValue{attrHash: str(hash)},
		ConditionExpression:       aws.String("#acc = :acc"), // only the owner's key
		ExpressionAttributeNames:  map[string]string{"#acc": attrAccountID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":acc": str(accountID)},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return apiKeyNotFound()
	}
	if err != nil {
		return fmt.Errorf("revoke API key %s: %w", keyID, err)
	}
	return nil
}
