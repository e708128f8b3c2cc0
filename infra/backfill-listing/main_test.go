package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

// Against DynamoDB Local: a job whose listing keys were stripped (as one
// written before the filtered indexes) is missing from a filtered listing until
// the command runs, and listed after; a second run does nothing.
func TestBackfillGivesOldJobsTheirListingKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local")
	}
	servers := awstest.StartT(t, awstest.Options{DynamoDB: true})
	client := ddb.NewFromConfig(servers.DynamoDBConfig())
	names := dynamodb.TableNames{Jobs: "bf-jobs", Usage: "bf-usage", Accounts: "bf-accounts", APIKeys: "bf-keys", Idempotency: "bf-idempotency"}
	if err := dynamodb.CreateTables(t.Context(), client, names); err != nil {
		t.Fatal(err)
	}
	store := dynamodb.NewJobStore(client, names, 0)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	job := &callscribe.Job{ID: "6f1c9a4e-8a43-4c1b-9a55-0d6c2d0b4a11", AccountID: "acct", Type: callscribe.TypeSummary,
		Status: callscribe.StatusQueued, Language: "de", CreatedAt: now, UpdatedAt: now}
	if err := store.CreateJob(t.Context(), job, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UpdateItem(t.Context(), &ddb.UpdateItemInput{
		TableName: aws.String(names.Jobs),
		Key:       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: job.ID}},
		// The keys an item written before the filtered indexes lacks.
		UpdateExpression: aws.String("REMOVE account_status, account_type, account_language"),
	}); err != nil {
		t.Fatal(err)
	}
	listed := func() int {
		page, err := store.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acct", Limit: 10, Filter: callscribe.JobFilter{Type: callscribe.TypeSummary}})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Jobs)
	}
	if n := listed(); n != 0 {
		t.Fatalf("before the backfill the stripped job is listed by type (%d): the test does not strip what it should", n)
	}
	var out strings.Builder
	if err := backfill(t.Context(), client, names.Jobs, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "bf-jobs: 1 jobs given their listing keys\n" || listed() != 1 {
		t.Fatalf("after the backfill: %q, %d listed", out.String(), listed())
	}
	out.Reset()
	if err := backfill(t.Context(), client, names.Jobs, &out); err != nil || !strings.Contains(out.String(), ": 0 jobs") {
		t.Fatalf("second run: %q, %v", out.String(), err)
	}
}
