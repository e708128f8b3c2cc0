package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// BackfillListingKeys gives live jobs written before the filtered listing
// indexes existed their partition keys (account_status, account_type, and
// account_language with a language, account_source with a source job), so
// status, type, language and source_job_id filters list them. Run it once after the indexes are added to an existing table: it
// Scans the whole table (a one-off cost in proportion to the table) and
// updates only items that lack a key. Each update is conditioned on the
// status read, so a job that moves meanwhile keeps the keys its transition
// wrote (every transition writes them too). It returns the number of items
// updated; running it again updates nothing.
func (s *JobStore) BackfillListingKeys(ctx context.Context) (int, error) {
	in := &ddb.ScanInput{
		TableName: aws.String(s.tables.Jobs),
		FilterExpression: aws.String("attribute_exists(#sk) AND (attribute_not_exists(#accstatus) OR attribute_not_exists(#acctype)" +
			" OR (attribute_exists(#lang) AND attribute_not_exists(#acclang))" +
			" OR (attribute_exists(#src) AND attribute_not_exists(#accsrc)))"),
		ProjectionExpression: aws.String("#id, #acc, #status, #type, #lang, #src"),
		ExpressionAttributeNames: map[string]string{
			"#sk": attrListSK, "#accstatus": attrAccountStatus, "#acctype": attrAccountType, "#acclang": attrAccountLanguage,
			"#accsrc": attrAccountSource, "#id": attrID, "#acc": attrAccountID, "#status": attrStatus, "#type": attrType,
			"#lang": attrLanguage, "#src": attrSourceJobID,
		},
	}
	updated := 0
	for p := ddb.NewScanPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return updated, fmt.Errorf("backfill listing keys: %w", err)
		}
		for _, item := range out.Items {
			r := &itemReader{item: item}
			id, acc, status, lang, src := r.str(attrID), r.str(attrAccountID), r.str(attrStatus), r.str(attrLanguage), r.str(attrSourceJobID)
			jobType := callscribe.JobType(r.str(attrType)).OrDefault()
			if r.err != nil {
				return updated, fmt.Errorf("backfill listing keys: job %s: %w", id, r.err)
			}
			update := "SET #accstatus = :accstatus, #acctype = :acctype"
			names := map[string]string{"#sk": attrListSK, "#status": attrStatus, "#accstatus": attrAccountStatus, "#acctype": attrAccountType}
			values := map[string]types.AttributeValue{
				":status":    str(status),
				":accstatus": str(accountKey(acc, status)),
				":acctype":   str(accountKey(acc, string(jobType))),
			}
			if lang != "" {
				update += ", #acclang = :acclang"
				names["#acclang"] = attrAccountLanguage
				values[":acclang"] = str(accountKey(acc, lang))
			}
			if src != "" {
				update += ", #accsrc = :accsrc"
				names["#accsrc"] = attrAccountSource
				values[":accsrc"] = str(accountKey(acc, src))
			}
			_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
				TableName:                 aws.String(s.tables.Jobs),
				Key:                       jobKey(id),
				UpdateExpression:          aws.String(update),
				ConditionExpression:       aws.String("attribute_exists(#sk) AND #status = :status"),
				ExpressionAttributeNames:  names,
				ExpressionAttributeValues: values,
			})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				continue // deleted or transitioned since the scan: nothing to fill in
			}
			if err != nil {
				return updated, fmt.Errorf("backfill listing keys: job %s: %w", id, err)
			}
			updated++
		}
	}
	return updated, nil
}
