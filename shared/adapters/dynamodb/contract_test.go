package dynamodb

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

// The contract suites ask for an empty store per subtest; fresh tables give
// exactly that (UnfinishedJobIDs is not scoped to an account).
func TestJobStoreContract(t *testing.T) {
	storetest.RunJobStoreTests(t, func(t *testing.T) callscribe.JobStore {
		return newCountingJobStore(t)
	})
}

func TestAccountStoreContract(t *testing.T) {
	storetest.RunAccountStoreTests(t, func(t *testing.T) callscribe.AccountStore {
		return NewAccountStore(client, newTables(t))
	})
}

// countingJobStore is a JobStore whose client counts the items DynamoDB reads
// for it: a Query's or Scan's ScannedCount (items read before the
// FilterExpression, each paid for) and one per item a GetItem or BatchGetItem
// finds. It
// implements storetest.ReadCounter, so the contract suite checks how many
// items each listing page reads.
type countingJobStore struct {
	*JobStore
	reads *atomic.Int64
}

var (
	_ storetest.ReadCounter = countingJobStore{}
	_ storetest.BulkCreator = countingJobStore{}
)

// CreateJobsForTest writes the items CreateJob would write (jobItem; the
// conditional PutItem of CreateJob only adds attribute_not_exists(id)), 25 to
// a BatchWriteItem, several batches at once.
func (s countingJobStore) CreateJobsForTest(ctx context.Context, jobs []*callscribe.Job) error {
	var requests []types.WriteRequest
	for _, j := range jobs {
		stored := *j
		stored.QuotaMonth = ""
		item, err := jobItem(&stored)
		if err != nil {
			return err
		}
		requests = append(requests, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		slots    = make(chan struct{}, 8)
	)
	for batch := range slices.Chunk(requests, 25) {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			for len(batch) > 0 {
				out, err := s.client.BatchWriteItem(ctx, &ddb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.tables.Jobs: batch}})
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					return
				}
				batch = out.UnprocessedItems[s.tables.Jobs]
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func (s countingJobStore) ItemsRead() int64 { return s.reads.Load() }

func newCountingJobStore(t *testing.T) countingJobStore {
	return newCountingStoreOn(newTables(t))
}

func newCountingStoreOn(names TableNames) countingJobStore {
	reads := new(atomic.Int64)
	count := middleware.InitializeMiddlewareFunc("countItemsRead", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		switch r := out.Result.(type) {
		case *ddb.QueryOutput:
			reads.Add(int64(r.ScannedCount))
		case *ddb.ScanOutput:
			reads.Add(int64(r.ScannedCount))
		case *ddb.GetItemOutput:
			if len(r.Item) > 0 {
				reads.Add(1)
			}
		case *ddb.BatchGetItemOutput:
			for _, items := range r.Responses {
				reads.Add(int64(len(items)))
			}
		}
		return out, md, err
	})
	counting := ddb.NewFromConfig(servers.DynamoDBConfig(), func(o *ddb.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(count, middleware.After)
		})
	})
	return countingJobStore{JobStore: NewJobStore(counting, names, retention), reads: reads}
}

func TestIdempotencyStoreContract(t *testing.T) {
	storetest.RunIdempotencyStoreTests(t, func(t *testing.T) callscribe.IdempotencyStore {
		return NewIdempotencyStore(client, newTables(t))
	})
}

func TestWebhookStoreContract(t *testing.T) {
	storetest.RunWebhookStoreTests(t, func(t *testing.T) (callscribe.JobStore, callscribe.WebhookStore) {
		names := newTables(t)
		return NewJobStore(client, names, retention), NewWebhookStore(client, names)
	})
}
