package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: filters served by indexes, kept in step by every write,
// and the number of items a listing page reads.

// ReadCounter is implemented by a store under test that can tell how much it
// reads (usually a test wrapper counting the database's answers, such as
// DynamoDB's ScannedCount). With it the suite checks the cost of listings, not
// only their answers; without it those checks are skipped (the SQLite store
// checks its query plans instead).
type ReadCounter interface {
	// ItemsRead returns how many items the store has read so far, matching or not.
	ItemsRead() int64
	// ListReadBudget returns the most items one ListJobs call may read when a
	// combination of filters leaves some to be checked item by item.
	ListReadBudget() int
}

// BulkCreator may be implemented by a store under test to set up the 10k-job
// listing test quickly (a network store takes many seconds for 10k CreateJob
// calls): CreateJobsForTest must store each job exactly as CreateJob without
// a quota reservation would.
type BulkCreator interface {
	CreateJobsForTest(ctx context.Context, jobs []*callscribe.Job) error
}

// listFilterCase is one listing the suite walks and compares with the expected
// set, computed here with callscribe.JobFilter.Matches.
type listFilterCase struct {
	name   string
	filter callscribe.JobFilter
	limit  int
}

func expectedIDs(jobs []*callscribe.Job, f callscribe.JobFilter) []string {
	var matching []*callscribe.Job
	for _, j := range jobs {
		if f.Matches(j) {
			matching = append(matching, j)
		}
	}
	return newestFirst(matching)
}

func requireListing(t *testing.T, s callscribe.JobStore, account string, jobs []*callscribe.Job, c listFilterCase) {
	t.Helper()
	want := expectedIDs(jobs, c.filter)
	got := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Filter: c.filter, Limit: c.limit})
	if !slices.Equal(got, want) {
		t.Fatalf("%s: walked %d ids, want %d:\n got  %v\n want %v", c.name, len(got), len(want), got, want)
	}
}

// testListFiltersFollowTransitions moves jobs through their lifecycle and
// checks that status and language filters list each job under its current
// values only (stores that index the filtered values must move the job between
// index entries in the same write as the transition), and that a deleted job
// leaves every filtered listing at once.
func testListFiltersFollowTransitions(t *testing.T, s callscribe.JobStore) {
	account := newID()
	mk := func(i int, typ callscribe.JobType, lang string) *callscribe.Job {
		j := newTranscription(account, baseTime.Add(time.Duration(i)*time.Second))
		j.Type, j.Language = typ, lang
		mustCreate(t, s, j, nil)
		return j
	}
	processing, succeededEN, detected, failed, queuedTags := mk(0, callscribe.TypeTranscription, "en"),
		mk(1, callscribe.TypeTranscription, "en"), mk(2, "", ""), mk(3, callscribe.TypeTranscription, ""), mk(4, callscribe.TypeTags, "")
	move := func(j *callscribe.Job, from, to callscribe.JobStatus, lang string) {
		t.Helper()
		tr := callscribe.Transition{JobID: j.ID, From: []callscribe.JobStatus{from}, To: to, Language: lang, At: baseTime.Add(time.Hour)}
		switch to {
		case callscribe.StatusSucceeded:
			tr.Result = []byte(`{"transcript":[]}`)
		case callscribe.StatusFailed:
			tr.Error = &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "no audio"}
		}
		_, err := s.TransitionJob(t.Context(), tr)
		requireNoError(t, err, "TransitionJob "+string(from)+"->"+string(to))
	}
	move(processing, callscribe.StatusQueued, callscribe.StatusProcessing, "")
	move(succeededEN, callscribe.StatusQueued, callscribe.StatusProcessing, "")
	move(succeededEN, callscribe.StatusProcessing, callscribe.StatusSucceeded, "de") // requested "en" stays
	move(detected, callscribe.StatusQueued, callscribe.StatusProcessing, "")
	move(detected, callscribe.StatusProcessing, callscribe.StatusSucceeded, "fr") // none requested: detected "fr"
	move(failed, callscribe.StatusQueued, callscribe.StatusFailed, "")
	_ = queuedTags

	current := func() []*callscribe.Job {
		var jobs []*callscribe.Job
		for _, j := range []*callscribe.Job{processing, succeededEN, detected, failed, queuedTags} {
			got, err := s.GetJob(t.Context(), j.ID)
			if callscribe.IsCode(err, callscribe.CodeJobNotFound) {
				continue
			}
			requireNoError(t, err, "GetJob")
			jobs = append(jobs, got)
		}
		return jobs
	}
	jobs := current()
	if jobs[2].Language != "fr" || jobs[1].Language != "en" {
		t.Fatalf("languages after transitions = %q, %q; want fr (detected) and en (requested)", jobs[2].Language, jobs[1].Language)
	}
	cases := []listFilterCase{
		{"StatusQueued", callscribe.JobFilter{Status: callscribe.StatusQueued}, 10},
		{"StatusProcessing", callscribe.JobFilter{Status: callscribe.StatusProcessing}, 10},
		{"StatusSucceeded", callscribe.JobFilter{Status: callscribe.StatusSucceeded}, 1},
		{"StatusFailed", callscribe.JobFilter{Status: callscribe.StatusFailed}, 10},
		{"TypeTranscription", callscribe.JobFilter{Type: callscribe.TypeTranscription}, 2},
		{"TypeTags", callscribe.JobFilter{Type: callscribe.TypeTags}, 10},
		{"LanguageEN", callscribe.JobFilter{Language: "en"}, 10},
		{"LanguageFRDetected", callscribe.JobFilter{Language: "fr"}, 10},
		{"LanguageDENotRecorded", callscribe.JobFilter{Language: "de"}, 10},
		{"SucceededAndFR", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Language: "fr"}, 10},
		{"ProcessingAndTranscription", callscribe.JobFilter{Status: callscribe.StatusProcessing, Type: callscribe.TypeTranscription}, 10},
		{"SucceededAndTranscriptionAndEN", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription, Language: "en"}, 10},
	}
	for _, c := range cases {
		requireListing(t, s, account, jobs, c)
	}
	if got := expectedIDs(jobs, callscribe.JobFilter{Status: callscribe.StatusSucceeded}); len(got) != 2 {
		t.Fatalf("data set broken: %d succeeded jobs, want 2", len(got))
	}

	requireNoError(t, s.DeleteJob(t.Context(), detected.ID, baseTime.Add(2*time.Hour)), "DeleteJob")
	requireNoError(t, s.DeleteJob(t.Context(), queuedTags.ID, baseTime.Add(2*time.Hour)), "DeleteJob")
	jobs = current()
	if len(jobs) != 3 {
		t.Fatalf("%d jobs left after deleting 2 of 5", len(jobs))
	}
	for _, c := range cases {
		requireListing(t, s, account, jobs, c)
	}
}

// testListFilterMatchingNothing: filters that match none of an account's
// jobs (while another account has such jobs) give one empty last page.
func testListFilterMatchingNothing(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	for i := range 30 {
		j := newTranscription(account, baseTime.Add(time.Duration(i)*time.Second))
		j.Status = callscribe.StatusSucceeded
		mustCreate(t, s, j, nil)
		o := newTranscription(other, baseTime.Add(time.Duration(i)*time.Second))
		o.Type, o.Status, o.Language = callscribe.TypeTags, callscribe.StatusFailed, "xx"
		mustCreate(t, s, o, nil)
	}
	future := baseTime.Add(time.Hour)
	for _, f := range []callscribe.JobFilter{
		{Type: callscribe.TypeTags},
		{Status: callscribe.StatusFailed},
		{Status: callscribe.StatusQueued},
		{Language: "xx"},
		{Type: callscribe.TypeSummary, Status: callscribe.StatusSucceeded},
		{Type: callscribe.TypeTranscription, Status: callscribe.StatusFailed},
		{Type: callscribe.TypeTranscription, Language: "xx"},
		{Status: callscribe.StatusSucceeded, CreatedAfter: &future},
		{JobID: newID()},
	} {
		p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: f, Limit: 10})
		requireNoError(t, err, "ListJobs")
		if len(p.Jobs) != 0 || p.Next != nil {
			t.Fatalf("filter %+v: %d jobs, Next %v; want an empty last page", f, len(p.Jobs), p.Next)
		}
	}
}

// scaleJobs is the size of the account testListReadsPerPage lists.
const scaleJobs = 10_000

// testListReadsPerPage lists a 10k-job account with each kind of filter and
// checks every walk against the expected set. With a ReadCounter it also
// checks what each page costs: with no filter or one equality filter (an
// index of its own) a page reads at most limit+1 items, so a filter that
// matches nothing reads (almost) nothing; a combination whose leftover filter
// matches rarely reads at most the store's budget per page, returning short
// pages that still walk every match exactly once, in order.
func testListReadsPerPage(t *testing.T, s callscribe.JobStore) {
	account := newID()
	jobs := make([]*callscribe.Job, scaleJobs)
	for i := range jobs {
		// Pairs share a creation instant: ties throughout.
		j := newTranscription(account, baseTime.Add(time.Duration(i/2)*time.Millisecond))
		j.Metadata, j.OriginalFilename = nil, nil
		j.Status, j.Language = callscribe.StatusProcessing, "en"
		switch {
		case i%500 == 0: // 20 succeeded German transcriptions, spread evenly
			j.Status, j.Language = callscribe.StatusSucceeded, "de"
		case i%250 == 125: // 40 failed summaries of the first transcription
			j.Type, j.Status, j.SourceJobID = callscribe.TypeSummary, callscribe.StatusFailed, jobs[0].ID
		}
		jobs[i] = j
	}
	createAll(t, s, jobs)

	counter, counting := s.(ReadCounter)
	budget := 0
	if counting {
		budget = counter.ListReadBudget()
		if budget <= 0 || budget >= scaleJobs/2 {
			t.Fatalf("ListReadBudget() = %d; the suite needs 0 < budget < %d", budget, scaleJobs/2)
		}
	}
	recent := jobs[scaleJobs-1000].CreatedAt
	cases := []struct {
		listFilterCase
		indexed bool // served by one index range: at most limit+1 items read per page
		walk    bool // walk every page (otherwise the first page only)
	}{
		{listFilterCase{"None", callscribe.JobFilter{}, 100}, true, false},
		{listFilterCase{"TypeTagsMatchesNothing", callscribe.JobFilter{Type: callscribe.TypeTags}, 10}, true, true},
		{listFilterCase{"LanguageFRMatchesNothing", callscribe.JobFilter{Language: "fr"}, 10}, true, true},
		{listFilterCase{"StatusFailed", callscribe.JobFilter{Status: callscribe.StatusFailed}, 10}, true, true},
		{listFilterCase{"TypeSummary", callscribe.JobFilter{Type: callscribe.TypeSummary}, 7}, true, true},
		{listFilterCase{"LanguageDE", callscribe.JobFilter{Language: "de"}, 10}, true, true},
		{listFilterCase{"StatusProcessing", callscribe.JobFilter{Status: callscribe.StatusProcessing}, 100}, true, false},
		{listFilterCase{"CreatedAfter", callscribe.JobFilter{CreatedAfter: &recent}, 100}, true, true},
		{listFilterCase{"StatusProcessingCreatedAfter", callscribe.JobFilter{Status: callscribe.StatusProcessing, CreatedAfter: &recent}, 100}, true, true},
		{listFilterCase{"JobID", callscribe.JobFilter{JobID: jobs[4321].ID}, 10}, true, true},
		{listFilterCase{"Source", callscribe.JobFilter{SourceJobID: jobs[0].ID}, 7}, true, true},
		{listFilterCase{"SourceMatchesNothing", callscribe.JobFilter{SourceJobID: jobs[500].ID}, 10}, true, true},
		{listFilterCase{"SourceAndQueuedMatchesNothing", callscribe.JobFilter{SourceJobID: jobs[0].ID, Status: callscribe.StatusQueued}, 10}, false, true},
		{listFilterCase{"StatusQueuedAndENMatchesNothing", callscribe.JobFilter{Status: callscribe.StatusQueued, Language: "en"}, 10}, false, true},
		{listFilterCase{"SummaryAndDEMatchesNothing", callscribe.JobFilter{Type: callscribe.TypeSummary, Language: "de"}, 10}, false, true},
		{listFilterCase{"FailedAndSummary", callscribe.JobFilter{Status: callscribe.StatusFailed, Type: callscribe.TypeSummary}, 10}, false, true},
		// The rare combination: neither succeeded nor transcription is a
		// selective filter on its own, and 20 jobs of 10k have both.
		{listFilterCase{"SucceededAndTranscription", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription}, 10}, false, true},
		{listFilterCase{"SucceededTranscriptionDE", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription, Language: "de"}, 10}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := expectedIDs(jobs, c.filter)
			req := callscribe.ListRequest{AccountID: account, Filter: c.filter, Limit: c.limit}
			var before int64
			if counting {
				before = counter.ItemsRead()
			}
			maxRead := int64(0)
			onPage := func(i int, p *callscribe.JobPage) {
				if !counting {
					return
				}
				now := counter.ItemsRead()
				read := now - before
				before = now
				maxRead = max(maxRead, read)
				if c.indexed && read > int64(c.limit+1) {
					t.Errorf("page %d read %d items; an indexed listing reads at most limit+1 = %d", i, read, c.limit+1)
				}
				if read > int64(budget) {
					t.Errorf("page %d read %d items, over the store's budget of %d", i, read, budget)
				}
			}
			if !c.walk {
				p, err := s.ListJobs(t.Context(), req)
				requireNoError(t, err, "ListJobs")
				onPage(0, p)
				var got []string
				for _, j := range p.Jobs {
					got = append(got, j.ID)
				}
				if !slices.Equal(got, want[:c.limit]) || p.Next == nil {
					t.Fatalf("first page = %d jobs (Next %v), want the newest %d of %d", len(got), p.Next, c.limit, len(want))
				}
				return
			}
			got, pages := listAll(t, s, req, onPage)
			if !slices.Equal(got, want) {
				t.Fatalf("walked %d ids, want %d:\n got  %v\n want %v", len(got), len(want), got, want)
			}
			if counting && !c.indexed {
				// Pages end when full or when the budget is spent, so a walk
				// takes about scaleJobs/budget pages beyond the full ones.
				if limitPages := 2*scaleJobs/budget + len(want)/c.limit + 3; pages > limitPages {
					t.Errorf("walk took %d pages, want at most %d", pages, limitPages)
				}
			}
			if counting {
				t.Logf("%d matching jobs in %d pages, at most %d items read by one page", len(got), pages, maxRead)
			}
		})
	}
}

// createAll creates jobs, in bulk when the store offers it, otherwise by
// concurrent CreateJob calls.
func createAll(t *testing.T, s callscribe.JobStore, jobs []*callscribe.Job) {
	t.Helper()
	if b, ok := s.(BulkCreator); ok {
		requireNoError(t, b.CreateJobsForTest(t.Context(), jobs), "CreateJobsForTest")
		return
	}
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan *callscribe.Job)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if err := s.CreateJob(t.Context(), j, nil); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("CreateJob: %v", err)
	}
}
