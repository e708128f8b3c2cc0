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
// written before the filtered indexes) and a derived job without only its
// account_source (written before account-source-index) are missing from
// filtered listings until the command runs, and listed after; a second run
// does nothing.
func TestBackfillGivesOldJobsTheirListingKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local")
	}
	servers := awstest.StartT(t, awstest.Options{DynamoDB: true})
	client := ddb.NewFromConfig(servers.DynamoDBConfig())
	names := dynamodb.TableNames{Jobs: "bf-jobs", Usage: "bf-usage", Accounts: "bf-accounts", APIKeys: "bf-keys", Idempotency: "bf-idempotency", SigningSecrets: "bf-signing-secrets", Search: "bf-search"}
	if err := dynamodb.CreateTables(t.Context(), client, names); err != nil {
		t.Fatal(err)
	}
	store := dynamodb.NewJobStore(client, names, 0)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	const source = "0b7d3f52-1c8e-4e0a-8f4b-5a9e2c7d6b13"
	job := &callscribe.Job{ID: "6f1c9a4e-8a43-4c1b-9a55-0d6c2d0b4a11", AccountID: "acct", Type: callscribe.TypeSummary,
		Status: callscribe.StatusQueued, SourceJobID: source, Language: "de", CreatedAt: now, UpdatedAt: now}
	tags := &callscribe.Job{ID: "9a2e7c41-3b5d-4f6a-b8c9-1d0e2f3a4b5c", AccountID: "acct", Type: callscribe.TypeTags,
		Status: callscribe.StatusSucceeded, SourceJobID: source, CreatedAt: now.Add(time.Second), UpdatedAt: now.Add(time.Second)}
	for _, c := range []struct {
		job    *callscribe.Job
		remove string
	}{
		// The keys an item written before the filtered indexes lacks.
		{job, "REMOVE account_status, account_type, account_language, account_source"},
		// The key a derived job written before account-source-index lacks.
		{tags, "REMOVE account_source"},
	} {
		if err := store.CreateJob(t.Context(), c.job, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := client.UpdateItem(t.Context(), &ddb.UpdateItemInput{
			TableName:        aws.String(names.Jobs),
			Key:              map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: c.job.ID}},
			UpdateExpression: aws.String(c.remove),
		}); err != nil {
			t.Fatal(err)
		}
	}
	listed := func(f callscribe.JobFilter) int {
		page, err := store.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acct", Limit: 10, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Jobs)
	}
	byType, bySource := callscribe.JobFilter{Type: callscribe.TypeSummary}, callscribe.JobFilter{SourceJobID: source}
	if n, m := listed(byType), listed(bySource); n != 0 || m != 0 {
		t.Fatalf("before the backfill the stripped jobs are listed by type (%d) or source (%d): the test does not strip what it should", n, m)
	}
	var out strings.Builder
	if err := backfill(t.Context(), client, names.Jobs, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "bf-jobs: 2 jobs given their listing keys\n" || listed(byType) != 1 || listed(bySource) != 2 {
		t.Fatalf("after the backfill: %q, %d listed by type, %d by source", out.String(), listed(byType), listed(bySource))
	}
	out.Reset()
	if err := backfill(t.Context(), client, names.Jobs, &out); err != nil || !strings.Contains(out.String(), ": 0 jobs") {
		t.Fatalf("second run: %q, %v", out.String(), err)
	}
}
