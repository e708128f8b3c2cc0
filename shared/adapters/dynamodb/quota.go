package dynamodb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// quotaExceeded reads the month's usage for the error details. Nothing was written.
func (s *JobStore) quotaExceeded(ctx context.Context, accountID string, quota *callscribe.QuotaReservation, file float64) error {
	used, err := s.UsedSeconds(ctx, accountID, quota.Month)
	if err != nil {
		return err
	}
	return callscribe.QuotaExceeded(quota.LimitSeconds, used, file)
}

func usageKey(accountID, month string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrAccountID: str(accountID), attrMonth: str(month)}
}

func (s *JobStore) UsedSeconds(ctx context.Context, accountID, month string) (float64, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.Usage),
		Key:            usageKey(accountID, month),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, fmt.Errorf("read usage of %s in %s: %w", accountID, month, err)
	}
	r := &itemReader{item: out.Item}
	used := r.num(attrUsedSeconds)
	if r.err != nil {
		return 0, fmt.Errorf("read usage of %s in %s: %w", accountID, month, r.err)
	}
	return used, nil
}
