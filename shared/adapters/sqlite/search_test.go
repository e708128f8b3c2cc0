package sqlite

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// searchRows counts the search index's rows (the full-text table and the map
// of jobs to its rows), which must agree.
func searchRows(t *testing.T, db *DB) int {
	t.Helper()
	var docs, texts int
	if err := db.read.QueryRowContext(t.Context(), `SELECT (SELECT count(*) FROM job_search_docs), (SELECT count(*) FROM job_search)`).Scan(&docs, &texts); err != nil {
		t.Fatal(err)
	}
	if docs != texts {
		t.Fatalf("job_search_docs has %d rows, job_search %d", docs, texts)
	}
	return docs
}

func searchFor(t *testing.T, s *JobStore, account, q string) []string {
	t.Helper()
	query, err := callscribe.ParseSearchQuery(q, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Search: query}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, j := range p.Jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// TestSearchIndexFollowsTheJob: the index row is written with the result and
// goes with a delete, and a purge leaves none (the contract suite cannot see
// rows that search confirmation hides anyway).
func TestSearchIndexFollowsTheJob(t *testing.T) {
	db := openTestDB(t)
	s := db.Jobs()
	at := time.Unix(1700000000, 0).UTC()
	job := &callscribe.Job{ID: "j1", AccountID: "acc", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateJob(t.Context(), job, nil); err != nil {
		t.Fatal(err)
	}
	if n := searchRows(t, db); n != 0 {
		t.Fatalf("a queued transcription has %d search rows", n)
	}
	result := `{"transcript":[{"text":"where is my parcel","time_start":0,"time_end":1,"speaker_id":1,"speaker_alias":"User"}]}`
	if _, err := s.TransitionJob(t.Context(), callscribe.Transition{JobID: "j1", From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded, Result: json.RawMessage(result), At: at}); err != nil {
		t.Fatal(err)
	}
	if n := searchRows(t, db); n != 1 {
		t.Fatalf("a succeeded transcription has %d search rows", n)
	}
	tags := &callscribe.Job{ID: "j2", AccountID: "acc", Type: callscribe.TypeTags, Status: callscribe.StatusQueued, Input: &callscribe.Transcript{Text: "User: parcel lost"}, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateJob(t.Context(), tags, nil); err != nil {
		t.Fatal(err)
	}
	if got := searchFor(t, s, "acc", "parcel"); !slices.Equal(got, []string{"j2", "j1"}) {
		t.Fatalf("search: %v", got)
	}
	if err := s.DeleteJob(t.Context(), "j1", at); err != nil {
		t.Fatal(err)
	}
	if n := searchRows(t, db); n != 1 {
		t.Fatalf("after a delete: %d search rows, want 1", n)
	}
	// A row left by a job deleted before the index followed deletes is
	// removed by the purge.
	if _, err := db.write.ExecContext(t.Context(), `UPDATE jobs SET deleted_at = 1 WHERE id = 'j2'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PurgeDeletedJobs(t.Context(), at); err != nil {
		t.Fatal(err)
	}
	if n := searchRows(t, db); n != 0 {
		t.Fatalf("after the purge: %d search rows", n)
	}
}

// TestSearchMigrationIndexesExistingJobs runs the search migration over rows
// written before it: live jobs with something to search are found, others
// are not indexed.
func TestSearchMigrationIndexesExistingJobs(t *testing.T) {
	db := openTestDB(t)
	i := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "CREATE VIRTUAL TABLE job_search") })
	if i < 0 {
		t.Fatal("no search migration")
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.write.ExecContext(t.Context(), q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`DROP TABLE job_search`)
	exec(`DROP TABLE job_search_docs`)
	insert := `INSERT INTO jobs (id, account_id, type, status, input, result, created_at, updated_at, deleted_at) VALUES (?, 'acc', ?, ?, ?, ?, ?, 0, ?)`
	exec(insert, "call", nil, "succeeded", nil, `{"transcript":[{"text":"Agent line","speaker_alias":"Agent"},{"text":"the invoice is wrong","speaker_alias":"User"}]}`, 5, nil)
	exec(insert, "summary", "summary", "succeeded", `{"text":"User: my modem"}`, `{"topic":"Invoice dispute","summary":"A wrong invoice."}`, 4, nil)
	exec(insert, "tags", "tags", "queued", `{"text":"User: invoice modem"}`, nil, 3, nil)
	exec(insert, "queued", "transcription", "queued", nil, nil, 2, nil)
	exec(insert, "deleted", nil, "succeeded", nil, `{"transcript":[{"text":"invoice"}]}`, 1, 7)
	exec(migrations[i])
	if n := searchRows(t, db); n != 3 {
		t.Fatalf("migration indexed %d jobs, want 3", n)
	}
	for q, want := range map[string][]string{
		"invoice":            {"call", "summary", "tags"},
		"modem":              {"summary", "tags"},
		`"invoice is wrong"`: {"call"},
		"dispute":            {"summary"},
	} {
		if got := searchFor(t, db.Jobs(), "acc", q); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}

// TestSearchQueryPlan: a search starts from the full-text index and reads
// jobs by primary key, never walking the account's jobs (the outer query
// reads the page's rows by primary key too).
func TestSearchQueryPlan(t *testing.T) {
	db := openTestDB(t)
	query, err := callscribe.ParseSearchQuery(`refund "card number"`, "")
	if err != nil {
		t.Fatal(err)
	}
	status := callscribe.JobFilter{Status: callscribe.StatusSucceeded, Search: query}
	for _, f := range []callscribe.JobFilter{{Search: query}, status} {
		query, args := searchQuery(callscribe.ListRequest{AccountID: "acc", Filter: f, After: &callscribe.Position{CreatedAt: time.Now(), JobID: "x"}, Limit: 10})
		plan := explain(t, db, query, args...)
		joined := strings.Join(plan, "\n")
		if !slices.Contains(plan, "SCAN s VIRTUAL TABLE INDEX 2:") || strings.Contains(joined, "SCAN j") || strings.Contains(joined, "SCAN d") || strings.Contains(joined, "SCAN jobs") {
			t.Errorf("plan:\n%s", joined)
		}
	}
}

// TestOptimizeSearch: the maintenance merge leaves one segment and search
// answers the same.
func TestOptimizeSearch(t *testing.T) {
	db := openTestDB(t)
	s := db.Jobs()
	at := time.Unix(1700000000, 0).UTC()
	for i := range 20 {
		text := "the router blinks"
		if i%7 == 0 {
			text = "the zebra printer jammed"
		}
		j := &callscribe.Job{ID: "j" + strconv.Itoa(100+i), AccountID: "acc", Type: callscribe.TypeTags, Status: callscribe.StatusQueued,
			Input: &callscribe.Transcript{Text: "User: " + text}, CreatedAt: at.Add(time.Duration(i) * time.Second), UpdatedAt: at}
		if err := s.CreateJob(t.Context(), j, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := searchFor(t, s, "acc", `"zebra printer"`)
	segments := func() (n int) {
		if err := db.read.QueryRowContext(t.Context(), `SELECT count(*) FROM job_search_segdir`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if segments() < 2 {
		t.Fatalf("20 writes left %d segments; the test needs several", segments())
	}
	// Below its threshold the check leaves the index as it is.
	if merged, err := db.OptimizeSearch(t.Context(), segments()+1); err != nil || merged {
		t.Fatalf("OptimizeSearch under its threshold = %v, %v; want no merge", merged, err)
	}
	for _, want := range []bool{true, false} {
		merged, err := db.OptimizeSearch(t.Context(), 2)
		if err != nil || merged != want {
			t.Fatalf("OptimizeSearch = %v, %v; want %v", merged, err, want)
		}
	}
	if n := segments(); n != 1 {
		t.Errorf("%d segments after optimizing", n)
	}
	if after := searchFor(t, s, "acc", `"zebra printer"`); !slices.Equal(before, after) || len(after) != 3 {
		t.Errorf("search before %v, after %v; want the 3 zebra jobs both times", before, after)
	}
}
