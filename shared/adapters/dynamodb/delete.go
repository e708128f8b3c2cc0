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

// DeleteJob hides the job from reads and listings, then removes its search
// terms (search confirms on the job, so it leaves search at once either way).
func (s *JobStore) DeleteJob(ctx context.Context, id string, at time.Time) error {
	out, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		ReturnValues: types.ReturnValueAllOld,
		TableName:    aws.String(s.tables.Jobs),
		Key:          jobKey(id),
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
	return s.unindexJob(ctx, out.Attributes)
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
			del, err := s.client.DeleteItem(ctx, &ddb.DeleteItemInput{
				TableName:    aws.String(s.tables.Jobs),
				ReturnValues: types.ReturnValueAllOld,
				Key:          jobKey(id),
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
			// Terms a failed removal at delete time left behind.
			if err := s.unindexJob(ctx, del.Attributes); err != nil {
				return purged, err
			}
			purged++
		}
	}
	return purged, nil
}
