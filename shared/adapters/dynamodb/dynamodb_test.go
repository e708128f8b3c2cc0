package dynamodb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

// One DynamoDB Local per test binary: the JVM start costs seconds, tables cost
// milliseconds, so every test gets fresh tables instead.
var (
	servers *awstest.Servers
	client  *ddb.Client
	tableN  atomic.Int64
)

func TestMain(m *testing.M) {
	awstest.RunMain(m, awstest.Options{DynamoDB: true}, func(s *awstest.Servers) {
		servers = s
		client = ddb.NewFromConfig(s.DynamoDBConfig())
	})
}

// newTables creates a fresh, empty set of tables for one test.
func newTables(t *testing.T) TableNames {
	t.Helper()
	names := PrefixedTableNames(fmt.Sprintf("t%d_", tableN.Add(1)))
	if err := CreateTables(t.Context(), client, names); err != nil {
		t.Fatal(err)
	}
	return names
}

const retention = 30 * 24 * time.Hour

var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

func job(account string, created time.Time) *callscribe.Job {
	return &callscribe.Job{
		ID: uuid.NewString(), AccountID: account, Type: callscribe.TypeTranscription,
		Status: callscribe.StatusQueued, AudioSeconds: 30, CreatedAt: created, UpdatedAt: created,
	}
}

func mustCreate(t *testing.T, s *JobStore, j *callscribe.Job, q *callscribe.QuotaReservation) {
	t.Helper()
	if err := s.CreateJob(t.Context(), j, q); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
}

func rawItem(t *testing.T, table, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := client.GetItem(t.Context(), &ddb.GetItemInput{TableName: aws.String(table), Key: jobKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func TestCreateTablesIsIdempotent(t *testing.T) {
	names := newTables(t)
	if err := CreateTables(t.Context(), client, names); err != nil {
		t.Fatalf("second CreateTables: %v", err)
	}
	ttl, err := client.DescribeTimeToLive(t.Context(), &ddb.DescribeTimeToLiveInput{TableName: aws.String(names.Jobs)})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d == nil || aws.ToString(d.AttributeName) != TTLAttribute || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("TTL on jobs table = %+v, want enabled on %s", ttl.TimeToLiveDescription, TTLAttribute)
	}
}

// TestDeleteSetsTTL checks the purge-by-TTL contract with DynamoDB itself:
// expires_at is epoch seconds of deleted_at + retention, and the deleted job
// leaves the listing index at once.
func TestDeleteSetsTTL(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc", t0)
	mustCreate(t, s, j, nil)
	at := t0.Add(time.Hour)
	if err := s.DeleteJob(t.Context(), j.ID, at); err != nil {
		t.Fatal(err)
	}
	item := rawItem(t, names.Jobs, j.ID)
	exp, ok := item[TTLAttribute].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("deleted item has no numeric %s: %v", TTLAttribute, item[TTLAttribute])
	}
	if want := strconv.FormatInt(at.Add(retention).Unix(), 10); exp.Value != want {
		t.Fatalf("%s = %s, want %s", TTLAttribute, exp.Value, want)
	}
	if _, ok := item[attrListSK]; ok {
		t.Fatal("deleted item still has its listing key")
	}
	page, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc", Limit: 10})
	if err != nil || len(page.Jobs) != 0 {
		t.Fatalf("listing after delete = %v, %v; want empty", page, err)
	}
}

// TestLegacyItemWithoutType writes an item as an older version did (no type
// attribute) straight into the table: it reads and filters as a transcription.
func TestLegacyItemWithoutType(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	legacy := job("acc", t0)
	legacy.Type = ""
	legacy.Language = "de"
	item, err := jobItem(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item[attrType]; ok {
		t.Fatal("jobItem wrote a type for a job without one")
	}
	// Written before the filtered listing indexes existed, too.
	delete(item, attrAccountStatus)
	delete(item, attrAccountType)
	delete(item, attrAccountLanguage)
	if _, err := client.PutItem(t.Context(), &ddb.PutItemInput{TableName: aws.String(names.Jobs), Item: item}); err != nil {
		t.Fatal(err)
	}
	summary := job("acc", t0.Add(time.Second))
	summary.Type = callscribe.TypeSummary
	mustCreate(t, s, summary, nil)

	got, err := s.GetJob(t.Context(), legacy.ID)
	if err != nil || got.Type != callscribe.TypeTranscription {
		t.Fatalf("GetJob(legacy) = %+v, %v; want type transcription", got, err)
	}
	// The type filter is a key condition of account-type-index, which the
	// legacy item is not in until BackfillListingKeys has run.
	if n, err := s.BackfillListingKeys(t.Context()); err != nil || n != 1 {
		t.Fatalf("BackfillListingKeys = %d, %v; want 1 item updated", n, err)
	}
	for _, f := range []callscribe.JobFilter{{Type: callscribe.TypeTranscription}, {Status: callscribe.StatusQueued, Type: callscribe.TypeTranscription}, {Status: callscribe.StatusQueued, Language: "de"}, {Language: "de"}} {
		page, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc", Limit: 10, Filter: f})
		if err != nil || len(page.Jobs) != 1 || page.Jobs[0].ID != legacy.ID {
			t.Fatalf("listing %+v = %v, %v; want only the legacy job", f, page, err)
		}
	}
	if n, err := s.BackfillListingKeys(t.Context()); err != nil || n != 0 {
		t.Fatalf("second BackfillListingKeys = %d, %v; want nothing to do", n, err)
	}
}

// TestListRefillsSparseMatches puts few matching jobs among many that the
// FilterExpression drops: pages must still be full, in order, with Next nil on
// the last one, even though DynamoDB returns short or empty query pages.
func TestListRefillsSparseMatches(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	var want []string
	for i := range 260 {
		j := job("acc", t0.Add(time.Duration(i)*time.Second))
		if i%37 == 0 {
			j.Language = "de"
			want = append([]string{j.ID}, want...) // newest first
		}
		mustCreate(t, s, j, nil)
	}
	req := callscribe.ListRequest{AccountID: "acc", Limit: 2, Filter: callscribe.JobFilter{Language: "de"}}
	var got []string
	for pages := 0; ; pages++ {
		page, err := s.ListJobs(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range page.Jobs {
			got = append(got, j.ID)
		}
		if page.Next == nil {
			break
		}
		if len(page.Jobs) != req.Limit {
			t.Fatalf("page %d has %d jobs while more match", pages, len(page.Jobs))
		}
		req.After = page.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
}

// TestListCreatedAfterWithCursor combines the key condition (created_after) with
// a cursor, including a cursor already past the created_after bound, which real
// DynamoDB would reject as a start key outside the key condition.
func TestListCreatedAfterWithCursor(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	var jobs []*callscribe.Job
	for i := range 5 {
		j := job("acc", t0.Add(time.Duration(i)*time.Minute))
		jobs = append(jobs, j)
		mustCreate(t, s, j, nil)
	}
	after := jobs[1].CreatedAt // strictly after: jobs 2, 3, 4
	req := callscribe.ListRequest{AccountID: "acc", Limit: 2, Filter: callscribe.JobFilter{CreatedAfter: &after}}
	p1, err := s.ListJobs(t.Context(), req)
	if err != nil || len(p1.Jobs) != 2 || p1.Jobs[0].ID != jobs[4].ID || p1.Jobs[1].ID != jobs[3].ID || p1.Next == nil {
		t.Fatalf("page 1 = %+v, %v", p1, err)
	}
	req.After = p1.Next
	p2, err := s.ListJobs(t.Context(), req)
	if err != nil || len(p2.Jobs) != 1 || p2.Jobs[0].ID != jobs[2].ID || p2.Next != nil {
		t.Fatalf("page 2 = %+v, %v", p2, err)
	}
	req.After = &callscribe.Position{CreatedAt: jobs[0].CreatedAt, JobID: jobs[0].ID}
	p3, err := s.ListJobs(t.Context(), req)
	if err != nil || len(p3.Jobs) != 0 || p3.Next != nil {
		t.Fatalf("cursor before created_after: %+v, %v; want an empty last page", p3, err)
	}
}

// TestQuotaReleaseIsOneTransaction checks the stored effects of failing a job
// that holds quota: the usage item drops and the job is marked released, and a
// concurrent change of the job between read and write is detected (revision).
func TestQuotaReleaseIsOneTransaction(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc", t0)
	mustCreate(t, s, j, &callscribe.QuotaReservation{Month: "2025-03", LimitSeconds: 600})
	if _, err := s.TransitionJob(t.Context(), callscribe.Transition{JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing, CountAttempt: true, At: t0}); err != nil {
		t.Fatal(err)
	}
	failed, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "no"}, At: t0.Add(time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	if failed.Attempts != 1 || failed.Status != callscribe.StatusFailed || failed.Error == nil || !failed.UpdatedAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("failed job = %+v", failed)
	}
	if used, err := s.UsedSeconds(t.Context(), "acc", "2025-03"); err != nil || used != 0 {
		t.Fatalf("used after failure = %v, %v; want 0", used, err)
	}
	item := rawItem(t, names.Jobs, j.ID)
	if v, ok := item[attrQuotaReleased].(*types.AttributeValueMemberBOOL); !ok || !v.Value {
		t.Fatalf("failed job not marked quota_released: %v", item[attrQuotaReleased])
	}
	if _, ok := item[attrLifecycle]; ok {
		t.Fatal("failed job still in the lifecycle index")
	}
}

func TestAPIKeyTouchOfUnknownKey(t *testing.T) {
	s := NewAccountStore(client, newTables(t))
	err := s.TouchAPIKey(t.Context(), uuid.NewString(), t0)
	if !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("TouchAPIKey(unknown) = %v, want NOT_FOUND", err)
	}
}

// TestListingCarriesSummaryOnly pins the listing index projection: listed jobs
// have the summary fields, and bulky attributes (result, input, metadata) are
// not read by listings.
func TestListingCarriesSummaryOnly(t *testing.T) {
	s := NewJobStore(client, newTables(t), retention)
	j := job("acc", t0)
	j.Status = callscribe.StatusSucceeded
	j.Language = "en"
	j.Metadata = []byte(`{"crm":"42"}`)
	j.Result = []byte(`{"transcript":[]}`)
	mustCreate(t, s, j, nil)
	page, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc", Limit: 10})
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("ListJobs = %v, %v", page, err)
	}
	got := page.Jobs[0]
	if got.ID != j.ID || got.Status != j.Status || got.Language != "en" || got.AudioSeconds != j.AudioSeconds || !got.CreatedAt.Equal(j.CreatedAt) {
		t.Fatalf("listed job %+v lacks summary fields of %+v", got, j)
	}
	if got.Result != nil || got.Metadata != nil {
		t.Fatalf("listed job carries result %s / metadata %s; the listing index should not project them", got.Result, got.Metadata)
	}
}

// TestListBudgetResumesExactly walks combinations of filters with budgets from
// 1 item up and pages of 2 and 5, so the budget runs out at
// every possible point of a page (before any match, exactly at a full page,
// between a full page and the look-ahead item): every walk lists every match
// exactly once, in order, and no call reads more than the budget.
func TestListBudgetResumesExactly(t *testing.T) {
	names := newTables(t)
	s := newCountingStoreOn(names)
	var all []*callscribe.Job
	for i := range 60 {
		j := job("acc", t0.Add(time.Duration(i/2)*time.Second)) // ties in pairs
		j.Status = callscribe.StatusSucceeded
		if i%7 == 3 || i%11 == 0 {
			j.Language = "de"
		}
		all = append(all, j)
	}
	if err := s.CreateJobsForTest(t.Context(), all); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b *callscribe.Job) int { // newest first, ties by id descending
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	// The first reads account-type-index (transcription: all 60 jobs) and
	// checks the status item by item, matching everything; the second reads
	// account-language-index and checks the status.
	filters := []callscribe.JobFilter{
		{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription},
		{Status: callscribe.StatusSucceeded, Language: "de"},
	}
	for _, filter := range filters {
		var wantF []string
		for _, j := range sorted {
			if filter.Matches(j) {
				wantF = append(wantF, j.ID)
			}
		}
		for _, budget := range []int{1, 2, 3, 5, 6, 7, 12} {
			for _, limit := range []int{2, 5} {
				s.listBudget = budget
				req := callscribe.ListRequest{AccountID: "acc", Filter: filter, Limit: limit}
				var got []string
				for pages := 0; ; pages++ {
					if pages > 200 {
						t.Fatalf("budget %d, limit %d: listing does not end", budget, limit)
					}
					before := s.ItemsRead()
					p, err := s.ListJobs(t.Context(), req)
					if err != nil {
						t.Fatal(err)
					}
					if read := s.ItemsRead() - before; read > int64(budget) {
						t.Fatalf("budget %d, limit %d: a call read %d items", budget, limit, read)
					}
					for _, j := range p.Jobs {
						got = append(got, j.ID)
					}
					if p.Next == nil {
						break
					}
					req.After = p.Next
				}
				if !slices.Equal(got, wantF) {
					t.Fatalf("filter %+v, budget %d, limit %d: listed %v, want %v", filter, budget, limit, got, wantF)
				}
			}
		}
	}
}
