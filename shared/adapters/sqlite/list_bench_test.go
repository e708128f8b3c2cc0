package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// benchAccountJobs is the size of the account BenchmarkListJobs lists: the
// issue's measurement was on a 106k-job account.
const benchAccountJobs = 100_000

// fillAccount inserts n jobs of one account in a single transaction (CreateJob
// per job would spend the benchmark's setup on commits): transcriptions,
// mostly succeeded in en-US, 1% failed, 5% in German, 1% summaries, no tags
// job at all, one per second. A second account of n/10 jobs shares the table.
func fillAccount(tb testing.TB, db *DB, account string, n int) (newest time.Time, someID string) {
	tb.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	err := db.inWriteTx(context.Background(), func(tx *sql.Tx) error {
		stmt, err := tx.Prepare(`INSERT INTO jobs (` + jobColumns + `) VALUES (` + jobPlaceholders + `)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		insert := func(acc string, i int) error {
			j := &callscribe.Job{
				ID: fmt.Sprintf("%s-%08d", acc, i), AccountID: acc, Type: callscribe.TypeTranscription,
				Status: callscribe.StatusSucceeded, Language: "en-US", AudioSeconds: 60,
				Result:    []byte(`{"language":"en-US","duration_seconds":60,"words_count":100,"transcript":[]}`),
				CreatedAt: base.Add(time.Duration(i) * time.Second), UpdatedAt: base.Add(time.Duration(i) * time.Second),
			}
			switch {
			case i%100 == 7:
				j.Status = callscribe.StatusFailed
			case i%100 == 13:
				j.Type = callscribe.TypeSummary
			case i%20 == 3:
				j.Language = "de"
			}
			if i%1000 == 0 {
				j.Type = "" // rows from before jobs had a type
			}
			row, err := encodeJob(j, "")
			if err != nil {
				return err
			}
			_, err = stmt.Exec(row...)
			return err
		}
		for i := range n {
			if err := insert(account, i); err != nil {
				return err
			}
		}
		for i := range n / 10 {
			if err := insert(account+"-other", i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("fill account: %v", err)
	}
	if _, err := db.write.Exec(`ANALYZE`); err != nil {
		tb.Fatalf("analyze: %v", err)
	}
	return base.Add(time.Duration(n-1) * time.Second), fmt.Sprintf("%s-%08d", account, n/2)
}

// BenchmarkListJobs lists the first page (10 jobs, the API's default) of a
// 100k-job account with each filter, including filters that match nothing
// (type=tags, language=fr) and combinations.
func BenchmarkListJobs(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const account = "acc-bench"
	newest, someID := fillAccount(b, db, account, benchAccountJobs)
	lastHour := newest.Add(-time.Hour)
	s := db.Jobs()
	cases := []struct {
		name   string
		filter callscribe.JobFilter
	}{
		{"none", callscribe.JobFilter{}},
		{"status=succeeded", callscribe.JobFilter{Status: callscribe.StatusSucceeded}},
		{"status=failed", callscribe.JobFilter{Status: callscribe.StatusFailed}},
		{"status=queued(none)", callscribe.JobFilter{Status: callscribe.StatusQueued}},
		{"type=transcription", callscribe.JobFilter{Type: callscribe.TypeTranscription}},
		{"type=summary", callscribe.JobFilter{Type: callscribe.TypeSummary}},
		{"type=tags(none)", callscribe.JobFilter{Type: callscribe.TypeTags}},
		{"language=de", callscribe.JobFilter{Language: "de"}},
		{"language=fr(none)", callscribe.JobFilter{Language: "fr"}},
		{"created_after=last_hour", callscribe.JobFilter{CreatedAfter: &lastHour}},
		{"job_id", callscribe.JobFilter{JobID: someID}},
		{"status=failed&type=summary(none)", callscribe.JobFilter{Status: callscribe.StatusFailed, Type: callscribe.TypeSummary}},
		{"type=summary&language=de(none)", callscribe.JobFilter{Type: callscribe.TypeSummary, Language: "de"}},
		{"status=succeeded&language=de", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Language: "de"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req := callscribe.ListRequest{AccountID: account, Filter: c.filter, Limit: 10}
			for b.Loop() {
				if _, err := s.ListJobs(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
