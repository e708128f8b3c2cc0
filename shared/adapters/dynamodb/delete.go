package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (s *JobStore) DeleteJob(ctx context.Context, id string, at time.Time) error {
	_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName: aws.String(s.tables.Jobs),
		Key:       jobKey(id),
		// Removing list_sk takes the job out of the (sparse) listing index.
		UpdateExpression:    aws.String("SET #deleted = :at, #expires = :expires, #lc = :deletedlc, #lcat = :lcat ADD #rev :one REMOVE #sk"),
		ConditionExpression: aws.String("attribute_exists(#id) AND attribute_not_exists(#deleted)"),
		ExpressionAttributeNames: map[string]string{
			"#id": attrID, "#deleted": attrDeletedAt, "#expires": attrExpiresAt,
			"#lc": attrLifecycle, "#lcat": attrLifecycleAt, "#rev": attrRev, "#sk": attrListSK,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":at":        str(formatTime(at)),
			":expires":   numInt(at.Add(s.retention).Unix()),
			":deletedlc": str(lifecycleDeleted),
			":lcat":      str(formatTime(at) + "#" + id),
			":one":       numInt(1),
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return jobNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete job %s: %w", id, err)
	}
	return nil
}

func (s *JobStore) PurgeDeletedJobs(ctx context.Context, deletedBefore time.Time) (int, error) {
	in := &ddb.QueryInput{
		TableName: aws.String(s.tables.Jobs),
		IndexName: aws.String(IndexLifecycle),
		// lifecycle_at = deleted_at#id, so "< deleted_at of the cutoff" is strictly before it.
		KeyConditionExpression:    aws.String("#lc = :deleted AND #lcat < :cutoff"),
		ExpressionAttributeNames:  map[string]string{"#lc": attrLifecycle, "#lcat": attrLifecycleAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":deleted": str(lifecycleDeleted), ":cutoff": str(formatTime(deletedBefore))},
	}
	purged := 0
	for p := ddb.NewQueryPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return purged, fmt.Errorf("find deleted jobs: %w", err)
		}
		for _, item := range out.Items {
			id := (&itemReader{item: item}).str(attrID)
			_, err := s.client.DeleteItem(ctx, &ddb.DeleteItemInput{
				TableName: aws.String(s.tables.Jobs),
				Key:       jobKey(id),
				// TTL may have removed it already; and never purge a live job.
				ConditionExpression:      aws.String("attribute_exists(#deleted)"),
				ExpressionAttributeNames: map[string]string{"#deleted": attrDeletedAt},
			})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				continue
			}
			if err != nil {
				return purged, fmt.Errorf("purge job %s: %w", id, err)
			}
			purged++
		}
	}
	return purged, nil
}
