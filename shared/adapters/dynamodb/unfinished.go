package dynamodb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (s *JobStore) UnfinishedJobIDs(ctx context.Context, limit int) ([]string, error) {
	in := &ddb.QueryInput{
		TableName:                 aws.String(s.tables.Jobs),
		IndexName:                 aws.String(IndexLifecycle),
		KeyConditionExpression:    aws.String("#lc = :unfinished"),
		ExpressionAttributeNames:  map[string]string{"#lc": attrLifecycle},
		ExpressionAttributeValues: map[string]types.AttributeValue{":unfinished": str(lifecycleUnfinished)},
		ScanIndexForward:          aws.Bool(true), // lifecycle_at = created_at#id: oldest first
	}
	if limit > 0 {
		in.Limit = aws.Int32(int32(limit))
	}
	ids := []string{}
	for p := ddb.NewQueryPaginator(s.client, in); p.HasMorePages() && (limit <= 0 || len(ids) < limit); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list unfinished jobs: %w", err)
		}
		for _, item := range out.Items {
			if limit > 0 && len(ids) == limit {
				break
			}
			ids = append(ids, (&itemReader{item: item}).str(attrID))
		}
	}
	return ids, nil
}
