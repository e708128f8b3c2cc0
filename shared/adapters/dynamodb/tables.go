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
)

// TableNames are the physical table names; template.yaml passes them to the
// functions through environment variables.
type TableNames struct {
	Jobs     string
	Usage    string
	Accounts string
	APIKeys  string
	// Idempotency keeps the answers of creates sent with an Idempotency-Key.
	Idempotency string
	// SigningSecrets keeps each account's webhook signing secret.
	SigningSecrets string
	// Search is the term index of search across calls (search.go).
	Search string
}

// PrefixedTableNames returns the conventional names with a prefix, e.g. a stack
// name or a per-test random prefix.
func PrefixedTableNames(prefix string) TableNames {
	return TableNames{
		Jobs:           prefix + "jobs",
		Usage:          prefix + "usage",
		Accounts:       prefix + "accounts",
		APIKeys:        prefix + "api_keys",
		Idempotency:    prefix + "idempotency",
		SigningSecrets: prefix + "signing_secrets",
		Search:         prefix + "search",
	}
}

// Index names and the TTL attribute, shared with template.yaml.
const (
	IndexAccountCreated  = "account-created-index"
	IndexAccountStatus   = "account-status-index"
	IndexAccountType     = "account-type-index"
	IndexAccountLanguage = "account-language-index"
	IndexAccountSource   = "account-source-index"
	IndexLifecycle       = "lifecycle-index"
	IndexAPIKeyAccount   = "account-index"
	IndexAPIKeyID        = "id-index"
	TTLAttribute         = "expires_at"
)

// listedAttributes are the job attributes projected into account-created-index:
// the job summary of a listing plus what its filters read. Results, inputs,
// metadata and errors (the bulk of an item, up to hundreds of KB for a long
// transcript) stay out of the index, so listing reads and index writes stay small.
var listedAttributes = []string{
	attrType, attrStatus, attrSourceJobID, attrOriginalFilename, attrLanguage,
	attrAudioSeconds, attrAudioFormat, attrQuotaMonth, attrAttempts, attrCreatedAt, attrUpdatedAt,
}

// filteredListedAttributes are projected into the filtered listing indexes
// (account-status-index, account-type-index, account-language-index,
// account-source-index): the
// same job summary, plus account_id, which is a key only of
// account-created-index.
var filteredListedAttributes = append([]string{attrAccountID}, listedAttributes...)

// TableDefinitions returns the CreateTable inputs of every table. template.yaml
// declares the same tables; keep the two in step (the template test compares them).
func TableDefinitions(n TableNames) []*ddb.CreateTableInput {
	s := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	key := func(hash, rng string) []types.KeySchemaElement {
		k := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
		if rng != "" {
			k = append(k, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
		}
		return k
	}
	gsi := func(name, hash, rng string, p types.ProjectionType, include ...string) types.GlobalSecondaryIndex {
		proj := &types.Projection{ProjectionType: p}
		if p == types.ProjectionTypeInclude {
			proj.NonKeyAttributes = include
		}
		return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: key(hash, rng), Projection: proj}
	}
	return []*ddb.CreateTableInput{
		{
			TableName:   aws.String(n.Jobs),
			BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				s(attrID), s(attrAccountID), s(attrListSK), s(attrLifecycle), s(attrLifecycleAt),
				s(attrAccountStatus), s(attrAccountType), s(attrAccountLanguage), s(attrAccountSource),
			},
			KeySchema: key(attrID, ""),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				gsi(IndexAccountCreated, attrAccountID, attrListSK, types.ProjectionTypeInclude, listedAttributes...),
				gsi(IndexAccountStatus, attrAccountStatus, attrListSK, types.ProjectionTypeInclude, filteredListedAttributes...),
				gsi(IndexAccountType, attrAccountType, attrListSK, types.ProjectionTypeInclude, filteredListedAttributes...),
				gsi(IndexAccountLanguage, attrAccountLanguage, attrListSK, types.ProjectionTypeInclude, filteredListedAttributes...),
				gsi(IndexAccountSource, attrAccountSource, attrListSK, types.ProjectionTypeInclude, filteredListedAttributes...),
				gsi(IndexLifecycle, attrLifecycle, attrLifecycleAt, types.ProjectionTypeKeysOnly),
			},
		},
		{
			TableName:            aws.String(n.Usage),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrAccountID), s(attrMonth)},
			KeySchema:            key(attrAccountID, attrMonth),
		},
		{
			TableName:            aws.String(n.Accounts),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrEmail)},
			KeySchema:            key(attrEmail, ""),
		},
		{
			TableName:            aws.String(n.APIKeys),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrHash), s(attrAccountID), s(attrListSK), s(attrID)},
			KeySchema:            key(attrHash, ""),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				gsi(IndexAPIKeyAccount, attrAccountID, attrListSK, types.ProjectionTypeAll),
				gsi(IndexAPIKeyID, attrID, "", types.ProjectionTypeKeysOnly),
			},
		},
		{
			TableName:            aws.String(n.Idempotency),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrAccountID), s(attrIdempotencyKey)},
			KeySchema:            key(attrAccountID, attrIdempotencyKey),
		},
		{
			TableName:            aws.String(n.SigningSecrets),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrAccountID)},
			KeySchema:            key(attrAccountID, ""),
		},
		{
			TableName:            aws.String(n.Search),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{s(attrTermKey), s(attrListSK)},
			KeySchema:            key(attrTermKey, attrListSK),
		},
	}
}

// CreateTables creates the tables (tests and the local AWS stack; on AWS the
// template creates them), waits until they are active and enables TTL on the jobs
// and idempotency tables. Tables that already exist are left as they are.
func CreateTables(ctx context.Context, client *ddb.Client, names TableNames) error {
	defs := TableDefinitions(names)
	for _, def := range defs {
		_, err := client.CreateTable(ctx, def)
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s: %w", aws.ToString(def.TableName), err)
		}
	}
	waiter := ddb.NewTableExistsWaiter(client, func(o *ddb.TableExistsWaiterOptions) { o.MinDelay = 100 * time.Millisecond })
	for _, def := range defs {
		if err := waiter.Wait(ctx, &ddb.DescribeTableInput{TableName: def.TableName}, 2*time.Minute); err != nil {
			return fmt.Errorf("wait for table %s: %w", aws.ToString(def.TableName), err)
		}
	}
	for _, table := range []string{names.Jobs, names.Idempotency} {
		_, err := client.UpdateTimeToLive(ctx, &ddb.UpdateTimeToLiveInput{
			TableName:               aws.String(table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true)},
		})
		if err != nil && !isTTLAlreadyEnabled(err) {
			return fmt.Errorf("enable TTL on %s: %w", table, err)
		}
	}
	return nil
}

// isTTLAlreadyEnabled recognises the ValidationException DynamoDB returns when TTL
// is enabled a second time (CreateTables on existing tables).
func isTTLAlreadyEnabled(err error) bool {
	var apiErr interface{ ErrorMessage() string }
	return errors.As(err, &apiErr) && strings.Contains(strings.ToLower(apiErr.ErrorMessage()), "already enabled")
}
