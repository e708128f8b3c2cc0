package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore is callscribe.JobStore on DynamoDB (key design in the package
// comment). Its files follow the contract suite's parts (package storetest):
// creating and reading jobs here, quota.go, list.go, transitions.go,
// delete.go (delete and purge), unfinished.go (restart recovery), and
// backfill.go (the one-off listing-key backfill); transact.go retries
// transactions that collided.
type JobStore struct {
	client     *ddb.Client
	tables     TableNames
	retention  time.Duration
	listBudget int // ListReadBudget
}

var _ callscribe.JobStore = (*JobStore)(nil)

// NewJobStore returns a job store on the given tables. retention is how long a
// deleted job's item is kept before DynamoDB TTL purges it (expires_at =
// deleted_at + retention).
func NewJobStore(client *ddb.Client, tables TableNames, retention time.Duration) *JobStore {
	return &JobStore{client: client, tables: tables, retention: retention, listBudget: ListReadBudget}
}

func (s *JobStore) CreateJob(ctx context.Context, job *callscribe.Job, quota *callscribe.QuotaReservation) error {
	if job.ID == "" || job.AccountID == "" {
		return fmt.Errorf("create job: id and account id are required")
	}
	// The job holds quota exactly when it reserved some: QuotaMonth comes from the
	// reservation, never from the caller's job.
	stored := *job
	stored.QuotaMonth = ""
	if quota != nil {
		stored.QuotaMonth = quota.Month
	}
	item, err := jobItem(&stored)
	if err != nil {
		return err
	}
	// A derived job made from text is searched by that text from the start
	// (search.go): its words are indexed before the job exists.
	if err := s.indexJob(ctx, &stored); err != nil {
		return err
	}
	put := &types.Put{
		TableName:                aws.String(s.tables.Jobs),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": attrID},
	}
	if quota == nil {
		_, err := s.client.PutItem(ctx, &ddb.PutItemInput{
			TableName: put.TableName, Item: put.Item,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeNames: put.ExpressionAttributeNames,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return callscribe.Errorf(callscribe.CodeConflict, "job %s already exists", job.ID)
		}
		if err != nil {
			return fmt.Errorf("put job %s: %w", job.ID, err)
		}
		job.QuotaMonth = ""
		return nil
	}

	file := job.AudioSeconds
	if !quota.Allows(0, file) {
		// Without a usage item the ADD condition below cannot fail, so a file that
		// alone exceeds the limit is refused here.
		return s.quotaExceeded(ctx, job.AccountID, quota, file)
	}
	reserve := &types.Update{
		TableName: aws.String(s.tables.Usage),
		Key:       usageKey(job.AccountID, quota.Month),
		// QuotaReservation.Allows(used, file), written as used <= MaxUsedBefore(file)
		// because condition expressions have no arithmetic.
		UpdateExpression:         aws.String("ADD #used :file"),
		ConditionExpression:      aws.String("attribute_not_exists(#used) OR #used <= :room"),
		ExpressionAttributeNames: map[string]string{"#used": attrUsedSeconds},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":file": num(file),
			":room": num(quota.MaxUsedBefore(file)),
		},
	}
	items := []types.TransactWriteItem{{Put: put}, {Update: reserve}, s.dayUsageUpdate(job, 1)}
	err = s.transact(ctx, items, func(reasons []types.CancellationReason) (error, bool) {
		switch {
		case reasonIs(reasons, 0, "ConditionalCheckFailed"):
			return callscribe.Errorf(callscribe.CodeConflict, "job %s already exists", job.ID), true
		case reasonIs(reasons, 1, "ConditionalCheckFailed"):
			return s.quotaExceeded(ctx, job.AccountID, quota, file), true
		}
		return nil, false
	})
	if err != nil {
		return err
	}
	job.QuotaMonth = quota.Month
	return nil
}

func jobKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrID: str(id)}
}

func jobNotFound(id string) error {
	return callscribe.Errorf(callscribe.CodeJobNotFound, "Job %s was not found.", id)
}

func (s *JobStore) GetJob(ctx context.Context, id string) (*callscribe.Job, error) {
	sj, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	if sj == nil || sj.deleted {
		return nil, jobNotFound(id)
	}
	return sj.job, nil
}

// read returns the stored item (deleted or not), nil when absent; strongly consistent.
func (s *JobStore) read(ctx context.Context, id string) (*storedJob, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.Jobs),
		Key:            jobKey(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return decodeJob(out.Item)
}
