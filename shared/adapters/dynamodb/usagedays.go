package dynamodb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Day items share the Usage table with the month items: their sort key is
// usageDayPrefix + "2006-01-02", which never equals or falls between month
// keys of the form "2006-01", so one Query by key range reads a span of days
// and nothing else.
const (
	usageDayPrefix   = "day#"
	attrDayJobs      = "jobs"
	attrLanguagePart = "lang:" // + the language given at upload ("" for detection)
)

func usageDayKey(accountID string, day string) map[string]types.AttributeValue {
	return usageKey(accountID, usageDayPrefix+day)
}

// dayUsageUpdate is the TransactWriteItems part that adds sign times the job's
// seconds and one job to its day and language: +1 with the reservation, -1
// with the release. ADD creates the item and its attributes when absent.
func (s *JobStore) dayUsageUpdate(job *callscribe.Job, sign float64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:        aws.String(s.tables.Usage),
		Key:              usageDayKey(job.AccountID, callscribe.UsageDay(job.CreatedAt)),
		UpdateExpression: aws.String("ADD #used :seconds, #jobs :one, #lang :seconds"),
		ExpressionAttributeNames: map[string]string{
			"#used": attrUsedSeconds, "#jobs": attrDayJobs, "#lang": attrLanguagePart + job.Language,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":seconds": num(sign * job.AudioSeconds), ":one": num(sign),
		},
	}}
}

// DailyUsage is one strongly consistent Query of the account's day items in
// the range (62 small items for two months).
func (s *JobStore) DailyUsage(ctx context.Context, accountID, fromDay, toDay string) ([]callscribe.DayUsage, error) {
	in := &ddb.QueryInput{
		TableName:                aws.String(s.tables.Usage),
		KeyConditionExpression:   aws.String("#acc = :acc AND #month BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#acc": attrAccountID, "#month": attrMonth},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":acc": str(accountID), ":from": str(usageDayPrefix + fromDay), ":to": str(usageDayPrefix + toDay),
		},
		ConsistentRead: aws.Bool(true),
	}
	var days []callscribe.DayUsage
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("daily usage of %s: %w", accountID, err)
		}
		for _, item := range out.Items {
			r := &itemReader{item: item}
			d := callscribe.DayUsage{
				Day:             strings.TrimPrefix(r.str(attrMonth), usageDayPrefix),
				Seconds:         max(0, r.num(attrUsedSeconds)),
				Jobs:            max(0, int(r.num(attrDayJobs))),
				LanguageSeconds: map[string]float64{},
			}
			for name := range item {
				if language, ok := strings.CutPrefix(name, attrLanguagePart); ok {
					d.LanguageSeconds[language] = max(0, r.num(name))
				}
			}
			if r.err != nil {
				return nil, fmt.Errorf("daily usage of %s: %w", accountID, r.err)
			}
			days = append(days, d)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return days, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
