package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

func openTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "callscribe.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestJobStoreContract(t *testing.T) {
	storetest.RunJobStoreTests(t, func(t *testing.T) callscribe.JobStore { return openTestDB(t).Jobs() })
}

func TestAccountStoreContract(t *testing.T) {
	storetest.RunAccountStoreTests(t, func(t *testing.T) callscribe.AccountStore { return openTestDB(t).Accounts() })
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "callscribe.db")
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	job := &callscribe.Job{ID: "j1", AccountID: "a1", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued,
		CreatedAt: time.Unix(0, 1_700_000_000_123_456_789), UpdatedAt: time.Unix(0, 1_700_000_000_123_456_789)}
	if err := db.Jobs().CreateJob(t.Context(), job, nil); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	db = reopen(t, path)
	v, err := db.SchemaVersion(t.Context())
	if err != nil || v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
	}
	got, err := db.Jobs().GetJob(t.Context(), "j1")
	if err != nil || !got.CreatedAt.Equal(job.CreatedAt) {
		t.Fatalf("job after reopen: %+v, %v", got, err)
	}
	var journal, synchronous string
	if err := db.write.QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&journal); err != nil || journal != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", journal, err)
	}
	// 1 = NORMAL.
	if err := db.write.QueryRowContext(t.Context(), `PRAGMA synchronous`).Scan(&synchronous); err != nil || synchronous != "1" {
		t.Fatalf("synchronous = %q, %v; want 1 (NORMAL)", synchronous, err)
	}
}

func reopen(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "callscribe.db")
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := db.write.ExecContext(t.Context(), `UPDATE schema_version SET version = 999`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err := Open(path); err == nil {
		db.Close()
		t.Fatal("Open of a database with a newer schema succeeded")
	}
}

func TestReadPoolIsReadOnly(t *testing.T) {
	db := openTestDB(t)
	if _, err := db.read.ExecContext(t.Context(), `DELETE FROM jobs`); err == nil {
		t.Fatal("the read pool accepted a write")
	}
}

func TestLegacyRowWithNullType(t *testing.T) {
	db := openTestDB(t)
	// A row as written before jobs had a type.
	_, err := db.write.ExecContext(t.Context(), `INSERT INTO jobs (id, account_id, status, created_at, updated_at) VALUES ('legacy', 'acc', 'succeeded', 1, 2)`)
	if err != nil {
		t.Fatal(err)
	}
	job, err := db.Jobs().GetJob(t.Context(), "legacy")
	if err != nil {
		t.Fatalf("GetJob: %v", err)
	}
	if job.Type != callscribe.TypeTranscription || job.OriginalFilename != nil || job.Metadata != nil || job.Input != nil || job.Error != nil {
		t.Fatalf("legacy job = %+v", job)
	}
	page, err := db.Jobs().ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc", Filter: callscribe.JobFilter{Type: callscribe.TypeTranscription}, Limit: 10})
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("type=transcription listing: %+v, %v", page, err)
	}
}

// TestListingUsesTheIndex checks the plan of the listing query: a range search
// of jobs_by_account with no temporary sort, for each filter shape.
func TestListingUsesTheIndex(t *testing.T) {
	db := openTestDB(t)
	after := &callscribe.Position{CreatedAt: time.Now(), JobID: "x"}
	created := time.Now()
	for _, f := range []callscribe.JobFilter{
		{},
		{Status: callscribe.StatusQueued, Type: callscribe.TypeSummary, Language: "en", CreatedAfter: &created},
	} {
		plan := explainListing(t, db, callscribe.ListRequest{AccountID: "a", Filter: f, After: after, Limit: 10})
		if !strings.Contains(plan, "jobs_by_account") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("plan for %+v:\n%s\nwant a jobs_by_account search without a temporary sort", f, plan)
		}
	}
}

// explainListing returns SQLite's plan for the query ListJobs runs for req.
func explainListing(t *testing.T, db *DB, req callscribe.ListRequest) string {
	t.Helper()
	query, args := listQuery(req)
	rows, err := db.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "\n")
	}
	return plan.String()
}

// TestConcurrentOpenOfNewFile stands in for several processes starting at once
// on a fresh file: the migration runs once and every handle works.
func TestConcurrentOpenOfNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "callscribe.db")
	const handles = 4
	dbs := make([]*DB, handles)
	errs := make([]error, handles)
	var wg sync.WaitGroup
	for i := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = Open(path)
		}()
	}
	wg.Wait()
	for i, db := range dbs {
		if errs[i] != nil {
			t.Fatalf("Open %d: %v", i, errs[i])
		}
		t.Cleanup(func() { db.Close() })
	}
	for i, db := range dbs {
		job := &callscribe.Job{ID: fmt.Sprint("job-", i), AccountID: "a", Status: callscribe.StatusQueued, CreatedAt: time.Unix(0, int64(i)), UpdatedAt: time.Unix(0, int64(i))}
		if err := db.Jobs().CreateJob(t.Context(), job, nil); err != nil {
			t.Fatalf("CreateJob through handle %d: %v", i, err)
		}
	}
	page, err := dbs[0].Jobs().ListJobs(t.Context(), callscribe.ListRequest{AccountID: "a", Limit: 10})
	if err != nil || len(page.Jobs) != handles {
		t.Fatalf("listing through handle 0: %d jobs, %v; want %d", len(page.Jobs), err, handles)
	}
	if v, err := dbs[handles-1].SchemaVersion(t.Context()); err != nil || v != len(migrations) {
		t.Fatalf("SchemaVersion = %d, %v", v, err)
	}
}

func TestIdempotencyStoreContract(t *testing.T) {
	storetest.RunIdempotencyStoreTests(t, func(t *testing.T) callscribe.IdempotencyStore { return openTestDB(t).Idempotency() })
}

func TestWebhookStoreContract(t *testing.T) {
	storetest.RunWebhookStoreTests(t, func(t *testing.T) (callscribe.JobStore, callscribe.WebhookStore) {
		db := openTestDB(t)
		return db.Jobs(), db.Webhooks()
	})
}

// Purging a job removes its delivery rows (a trigger on jobs), which the
// contract suite cannot see: a deleted job's deliveries already read as none.
func TestPurgeRemovesDeliveryRows(t *testing.T) {
	db := openTestDB(t)
	now := time.Now().UTC()
	job := &callscribe.Job{ID: "5f0c8a52-3a6e-4c4e-9a38-2b9e0c1d7a11", AccountID: "acct", Type: callscribe.TypeTags, Status: callscribe.StatusSucceeded, CreatedAt: now, UpdatedAt: now}
	if err := db.Jobs().CreateJob(t.Context(), job, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		d := &callscribe.DeliveryAttempt{JobID: job.ID, Attempt: i + 1, WebhookID: "w", At: now.Add(time.Duration(i) * time.Minute), Host: "h", Outcome: callscribe.DeliveryRetrying}
		if err := db.Webhooks().RecordDelivery(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() (n int) {
		if err := db.read.QueryRowContext(t.Context(), `SELECT count(*) FROM callback_deliveries WHERE job_id = ?`, job.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 3 {
		t.Fatalf("%d delivery rows before the purge, want 3", n)
	}
	if err := db.Jobs().DeleteJob(t.Context(), job.ID, now); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 3 {
		t.Fatalf("%d delivery rows after the delete, want 3 until the purge", n)
	}
	if _, err := db.Jobs().PurgeDeletedJobs(t.Context(), now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 0 {
		t.Fatalf("%d delivery rows after the purge, want 0", n)
	}
}
