package sqlite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// BenchmarkSearchJobs lists the first page of a search that matches 10 of
// an account's jobs (summaries made from text, as make bench-api fills), of
// one that matches every job, and the unfiltered first page for comparison;
// Candidates is the search's query alone. It logs the fill's time and the
// full-text index's segment count (see mergeSearchSegments). cpu-ns/op is
// the process's CPU time.
// BENCH_SEARCH_JOBS sets the account's size; BENCH_SEARCH_OPTIMIZE=1 merges the
// index into one segment (OptimizeSearch) before measuring.
func BenchmarkSearchJobs(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := db.Jobs()
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("BENCH_SEARCH_JOBS")); err == nil && v >= 10 {
		n = v
	}
	topic := "Internet outage"
	result, _ := json.Marshal(callscribe.SummaryResult{Topic: &topic, Summary: `The customer reports an internet outage: "my internet is down since this morning".`,
		MetaData: map[string]any{"method": "lexicon", "lexicon_version": "v10", "tokens": 20, "sentences": 2}})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fillStart := time.Now()
	defer func() { b.Logf("fill %s", time.Since(fillStart)) }()
	for i := range n {
		text := fmt.Sprintf("Agent: thank you for calling, this is call %d. User: my internet is down since this morning.", i)
		if i%(n/10) == 0 {
			text = fmt.Sprintf("Agent: thank you for calling, this is call %d. User: my zebra printer jammed and my internet is down.", i)
		}
		at := base.Add(time.Duration(i) * time.Second)
		j := &callscribe.Job{ID: fmt.Sprintf("job-%06d", i), AccountID: "acc", Type: callscribe.TypeSummary, Status: callscribe.StatusQueued,
			Input: &callscribe.Transcript{Text: text}, CreatedAt: at, UpdatedAt: at}
		if err := s.CreateJob(b.Context(), j, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := s.TransitionJob(b.Context(), callscribe.Transition{JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded, Result: result, At: at}); err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv("BENCH_SEARCH_OPTIMIZE") != "" {
		start := time.Now()
		if _, err := db.OptimizeSearch(b.Context(), 2); err != nil {
			b.Fatal(err)
		}
		b.Logf("optimize %s", time.Since(start))
	}
	var segments int
	db.write.QueryRow(`SELECT count(*) FROM job_search_segdir`).Scan(&segments)
	b.Logf("%d segments", segments)
	query, _ := callscribe.ParseSearchQuery("zebra printer", "")
	common, _ := callscribe.ParseSearchQuery("internet", "")
	for _, c := range []struct {
		name string
		f    callscribe.JobFilter
		want int
	}{{"FirstPage", callscribe.JobFilter{}, 10}, {"Search10", callscribe.JobFilter{Search: query}, 10}, {"SearchEveryJob", callscribe.JobFilter{Search: common}, 10}} {
		b.Run(c.name+"Candidates", func(b *testing.B) {
			if c.f.Search == nil {
				b.Skip("no search")
			}
			defer reportCPU(b)()
			for b.Loop() {
				ids, _, err := s.searchCandidates(b.Context(), callscribe.ListRequest{AccountID: "acc", Filter: c.f}, nil, 11)
				if err != nil || len(ids) != c.want+1 && len(ids) != c.want {
					b.Fatal(ids, err)
				}
			}
		})
		b.Run(c.name, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				p, err := s.ListJobs(b.Context(), callscribe.ListRequest{AccountID: "acc", Filter: c.f, Limit: 10})
				if err != nil || len(p.Jobs) != c.want {
					b.Fatalf("%v, %v", p, err)
				}
			}
		})
	}
}

// reportCPU reports the process's CPU time per operation, which other work
// on a shared machine moves far less than the wall time.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}
