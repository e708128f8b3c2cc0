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

// transact runs a TransactWriteItems, retrying cancellations caused by concurrent
// transactions (DynamoDB does not queue them, it cancels one) up to
// callscribe.StoreTransactionAttempts times. decide maps other cancellations to an error; when it returns
// false the cancellation is reported as an unexpected error.
func (s *JobStore) transact(ctx context.Context, items []types.TransactWriteItem, decide func([]types.CancellationReason) (error, bool)) error {
	for attempt := 1; ; attempt++ {
		_, err := s.client.TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			var tcf *types.TransactionConflictException
			if errors.As(err, &tcf) && attempt < callscribe.StoreTransactionAttempts {
				if err := backoff(ctx, attempt); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("transact write: %w", err)
		}
		if e, ok := decide(tce.CancellationReasons); ok {
			return e
		}
		if anyReason(tce.CancellationReasons, "TransactionConflict") && attempt < callscribe.StoreTransactionAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		return fmt.Errorf("transact write: %w", err)
	}
}

// backoff waits out the retry policy's delay after the attempt-th collision
// of a transaction (callscribe.StoreConflictBackoff).
func backoff(ctx context.Context, attempt int) error {
	d := callscribe.StoreConflictBackoff(attempt)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func reasonIs(reasons []types.CancellationReason, i int, code string) bool {
	return i < len(reasons) && aws.ToString(reasons[i].Code) == code
}

func anyReason(reasons []types.CancellationReason, code string) bool {
	for _, r := range reasons {
		if aws.ToString(r.Code) == code {
			return true
		}
	}
	return false
}
