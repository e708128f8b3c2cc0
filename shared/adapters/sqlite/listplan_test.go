package sqlite

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// queryPlan returns the EXPLAIN QUERY PLAN lines of the listing query of req.
func queryPlan(t *testing.T, db *DB, req callscribe.ListRequest) []string {
	t.Helper()
	query, args := listQuery(req)
	return explain(t, db, query, args...)
}

// explain returns the steps of SQLite's plan for query.
func explain(t *testing.T, db *DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.read.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN: %v", err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestListQueryPlans pins the plan of every filter and the common
// combinations: one SEARCH (a range scan, never a full SCAN) of the intended
// index, bounded by the account, the indexed filter and the created_at range
// where there is one, and no temporary b-tree (the index gives the order, so
// the scan stops after limit+1 rows).
func TestListQueryPlans(t *testing.T) {
	db := openTestDB(t)
	// A few rows and statistics, so the plans are those of a used database.
	for i := range 50 {
		j := &callscribe.Job{ID: "j" + string(rune('a'+i%26)) + string(rune('a'+i/26)), AccountID: "acc", Type: callscribe.TypeTranscription,
			Status: callscribe.StatusSucceeded, Language: "en", CreatedAt: time.Unix(int64(i), 0), UpdatedAt: time.Unix(int64(i), 0)}
		if err := db.Jobs().CreateJob(t.Context(), j, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.write.ExecContext(t.Context(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	after := time.Unix(10, 0)
	cursor := &callscribe.Position{CreatedAt: time.Unix(40, 0), JobID: "jx"}
	cases := []struct {
		name   string
		filter callscribe.JobFilter
		index  string
		bounds []string // what the SEARCH must be bounded by, beside account_id=?
	}{
		{"None", callscribe.JobFilter{}, "jobs_by_account", nil},
		{"Status", callscribe.JobFilter{Status: callscribe.StatusFailed}, "jobs_by_account_status", []string{"status=?"}},
		{"StatusSucceeded", callscribe.JobFilter{Status: callscribe.StatusSucceeded}, "jobs_by_account_status", []string{"status=?"}},
		{"Type", callscribe.JobFilter{Type: callscribe.TypeTags}, "jobs_by_account_type", []string{"<expr>=?"}},
		{"TypeTranscription", callscribe.JobFilter{Type: callscribe.TypeTranscription}, "jobs_by_account_type", []string{"<expr>=?"}},
		{"Language", callscribe.JobFilter{Language: "de"}, "jobs_by_account_language", []string{"language=?"}},
		{"CreatedAfter", callscribe.JobFilter{CreatedAfter: &after}, "jobs_by_account", []string{"created_at>?"}},
		{"JobID", callscribe.JobFilter{JobID: "ja"}, "sqlite_autoindex_jobs_1", []string{"id=?"}},
		{"JobIDAndStatus", callscribe.JobFilter{JobID: "ja", Status: callscribe.StatusFailed}, "sqlite_autoindex_jobs_1", []string{"id=?"}},
		{"StatusAndType", callscribe.JobFilter{Status: callscribe.StatusFailed, Type: callscribe.TypeTags}, "jobs_by_account_status", []string{"status=?"}},
		{"SucceededAndType", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTags}, "jobs_by_account_type", []string{"<expr>=?"}},
		{"SucceededAndLanguage", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Language: "de"}, "jobs_by_account_language", []string{"language=?"}},
		{"TypeAndLanguage", callscribe.JobFilter{Type: callscribe.TypeSummary, Language: "de"}, "jobs_by_account_type", []string{"<expr>=?"}},
		{"StatusAndCreatedAfter", callscribe.JobFilter{Status: callscribe.StatusQueued, CreatedAfter: &after}, "jobs_by_account_status", []string{"status=?", "created_at>?"}},
		{"TypeAndCreatedAfter", callscribe.JobFilter{Type: callscribe.TypeTags, CreatedAfter: &after}, "jobs_by_account_type", []string{"<expr>=?", "created_at>?"}},
		{"LanguageAndCreatedAfter", callscribe.JobFilter{Language: "de", CreatedAfter: &after}, "jobs_by_account_language", []string{"language=?", "created_at>?"}},
		{"All", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription, Language: "de", CreatedAfter: &after}, "jobs_by_account_language", []string{"language=?", "created_at>?"}},
		{"Source", callscribe.JobFilter{SourceJobID: "ja"}, "jobs_by_account_source", []string{"source_job_id=?"}},
		{"SourceAndType", callscribe.JobFilter{SourceJobID: "ja", Type: callscribe.TypeTags}, "jobs_by_account_source", []string{"source_job_id=?"}},
		{"SourceAndFailed", callscribe.JobFilter{SourceJobID: "ja", Status: callscribe.StatusFailed}, "jobs_by_account_source", []string{"source_job_id=?"}},
		{"SourceAndCreatedAfter", callscribe.JobFilter{SourceJobID: "ja", CreatedAfter: &after}, "jobs_by_account_source", []string{"source_job_id=?", "created_at>?"}},
	}
	for _, c := range cases {
		for _, next := range []bool{false, true} {
			name := c.name
			req := callscribe.ListRequest{AccountID: "acc", Filter: c.filter, Limit: 10}
			if next {
				name += "/NextPage"
				req.After = cursor
			}
			t.Run(name, func(t *testing.T) {
				plan := queryPlan(t, db, req)
				text := strings.Join(plan, " | ")
				if len(plan) != 1 {
					t.Fatalf("plan has %d steps, want one SEARCH: %s", len(plan), text)
				}
				want := "SEARCH jobs USING INDEX " + c.index + " ("
				if strings.HasPrefix(plan[0], "SEARCH jobs USING PRIMARY KEY") || !strings.HasPrefix(plan[0], want) {
					t.Fatalf("plan %q, want %q...", text, want)
				}
				if strings.Contains(text, "TEMP B-TREE") || strings.Contains(text, "SCAN") {
					t.Fatalf("plan %q scans or sorts", text)
				}
				bounds := c.bounds
				if c.filter.JobID == "" {
					bounds = append([]string{"account_id=?"}, bounds...)
					if next {
						bounds = append(bounds, "(created_at,id)<(?,?)")
					}
				}
				for _, b := range bounds {
					if !strings.Contains(plan[0], b) {
						t.Errorf("plan %q is not bounded by %s", text, b)
					}
				}
			})
		}
	}
}

// TestMigrationsIndexAnExistingDatabase opens a database left at schema
// version 1 with a job from before jobs had a type (type NULL): migration 2
// adds the filter indexes, and the type=transcription filter, now a range of
// jobs_by_account_type, still lists that job; migration 4 indexes the summary
// already made from it, so the source filter lists that.
func TestMigrationsIndexAnExistingDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		migrations[0],
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (1)`,
		`INSERT INTO jobs (id, account_id, type, status, language, created_at, updated_at) VALUES ('legacy', 'acc', NULL, 'succeeded', 'en', 1, 1)`,
		`INSERT INTO jobs (id, account_id, type, status, source_job_id, language, created_at, updated_at) VALUES ('summary', 'acc', 'summary', 'succeeded', 'legacy', 'en', 2, 2)`,
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := reopen(t, path)
	if v, err := db.SchemaVersion(t.Context()); err != nil || v != len(migrations) || v < 2 {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
	}
	for _, c := range []struct {
		filter callscribe.JobFilter
		want   []string
	}{
		{callscribe.JobFilter{Type: callscribe.TypeTranscription}, []string{"legacy"}},
		{callscribe.JobFilter{Type: callscribe.TypeSummary}, []string{"summary"}},
		{callscribe.JobFilter{Status: callscribe.StatusSucceeded}, []string{"summary", "legacy"}},
		{callscribe.JobFilter{Language: "en", Type: callscribe.TypeTranscription}, []string{"legacy"}},
		{callscribe.JobFilter{SourceJobID: "legacy"}, []string{"summary"}},
		{callscribe.JobFilter{SourceJobID: "summary"}, nil},
	} {
		page, err := db.Jobs().ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc", Filter: c.filter, Limit: 10})
		if err != nil {
			t.Fatalf("ListJobs %+v: %v", c.filter, err)
		}
		var got []string
		for _, j := range page.Jobs {
			got = append(got, j.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ListJobs %+v = %v, want %v", c.filter, got, c.want)
		}
	}
}

// TestUnfinishedQueryPlan checks that restart recovery reads the partial index
// jobs_unfinished: the query's status list, derived from the state machine,
// must be the one the index was created with.
func TestUnfinishedQueryPlan(t *testing.T) {
	db := openTestDB(t)
	if want := `'queued', 'processing'`; sqlStatuses(callscribe.UnfinishedStatuses()) != want {
		t.Fatalf("unfinished statuses as SQL = %s, want %s (the WHERE of jobs_unfinished)", sqlStatuses(callscribe.UnfinishedStatuses()), want)
	}
	plan := explain(t, db, unfinishedQuery, 10)
	if len(plan) != 1 || !strings.Contains(plan[0], "jobs_unfinished") {
		t.Fatalf("plan %q, want one step on jobs_unfinished", plan)
	}
}
