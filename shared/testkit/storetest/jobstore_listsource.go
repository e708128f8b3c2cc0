package storetest

import (
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: the source_job_id filter, which lists the summaries and
// tags made from one transcription.

// newDerived returns a derived job of the account made from source.
func newDerived(accountID, source string, jobType callscribe.JobType, status callscribe.JobStatus, createdAt time.Time) *callscribe.Job {
	return &callscribe.Job{
		ID:          newID(),
		AccountID:   accountID,
		Type:        jobType,
		Status:      status,
		SourceJobID: source,
		Input:       &callscribe.Transcript{Text: "Agent: Hello\nUser: I want to cancel."},
		CreatedAt:   createdAt,
		UpdatedAt:   createdAt,
	}
}

// testListBySource lists the derived jobs of one transcription: alone and
// combined with type, status and created_after, page by page; a transcription
// without derived jobs and another account's transcription list nothing; a
// deleted derived job leaves the listing at once.
func testListBySource(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Second) }

	source := newTranscription(account, at(0))
	source.Status = callscribe.StatusSucceeded
	bare := newTranscription(account, at(1)) // no derived jobs
	bare.Status = callscribe.StatusSucceeded
	sibling := newTranscription(account, at(2))
	sibling.Status = callscribe.StatusSucceeded
	foreign := newTranscription(other, at(0))
	foreign.Status = callscribe.StatusSucceeded
	jobs := []*callscribe.Job{source, bare, sibling}
	for _, j := range append(jobs, foreign) {
		mustCreate(t, s, j, nil)
	}

	// Seven derived jobs of source, two of them created at the same instant,
	// beside derived jobs of sibling and of the other account's transcription.
	kinds := []struct {
		jobType callscribe.JobType
		status  callscribe.JobStatus
		at      int
	}{
		{callscribe.TypeSummary, callscribe.StatusSucceeded, 3},
		{callscribe.TypeTags, callscribe.StatusSucceeded, 4},
		{callscribe.TypeSummary, callscribe.StatusFailed, 5},
		{callscribe.TypeTags, callscribe.StatusQueued, 6},
		{callscribe.TypeTags, callscribe.StatusSucceeded, 6},
		{callscribe.TypeSummary, callscribe.StatusProcessing, 7},
		{callscribe.TypeTags, callscribe.StatusFailed, 8},
	}
	var derived []*callscribe.Job
	for _, k := range kinds {
		d := newDerived(account, source.ID, k.jobType, k.status, at(k.at))
		mustCreate(t, s, d, nil)
		derived = append(derived, d)
	}
	jobs = append(jobs, derived...)
	for i, jobType := range []callscribe.JobType{callscribe.TypeSummary, callscribe.TypeTags} {
		d := newDerived(account, sibling.ID, jobType, callscribe.StatusSucceeded, at(4+i))
		mustCreate(t, s, d, nil)
		jobs = append(jobs, d)
		mustCreate(t, s, newDerived(other, foreign.ID, jobType, callscribe.StatusSucceeded, at(4+i)), nil)
		// The other account's job named after this account's source: the
		// filter is per account, whatever the source id says.
		mustCreate(t, s, newDerived(other, source.ID, jobType, callscribe.StatusSucceeded, at(4+i)), nil)
	}

	after := at(4)
	cases := []listFilterCase{
		{"Source", callscribe.JobFilter{SourceJobID: source.ID}, 100},
		{"SourcePaged", callscribe.JobFilter{SourceJobID: source.ID}, 2},
		{"SourceOnePerPage", callscribe.JobFilter{SourceJobID: source.ID}, 1},
		{"SourceAndTags", callscribe.JobFilter{SourceJobID: source.ID, Type: callscribe.TypeTags}, 2},
		{"SourceAndSummary", callscribe.JobFilter{SourceJobID: source.ID, Type: callscribe.TypeSummary}, 10},
		{"SourceAndSucceeded", callscribe.JobFilter{SourceJobID: source.ID, Status: callscribe.StatusSucceeded}, 2},
		{"SourceAndFailedTags", callscribe.JobFilter{SourceJobID: source.ID, Status: callscribe.StatusFailed, Type: callscribe.TypeTags}, 10},
		{"SourceAndCreatedAfter", callscribe.JobFilter{SourceJobID: source.ID, CreatedAfter: &after}, 2},
		{"SourceAndTranscription", callscribe.JobFilter{SourceJobID: source.ID, Type: callscribe.TypeTranscription}, 10},
		{"SourceAndJobID", callscribe.JobFilter{SourceJobID: source.ID, JobID: derived[2].ID}, 10},
		{"SourceAndOthersJobID", callscribe.JobFilter{SourceJobID: sibling.ID, JobID: derived[2].ID}, 10},
		{"Sibling", callscribe.JobFilter{SourceJobID: sibling.ID}, 1},
		{"NoDerivedJobs", callscribe.JobFilter{SourceJobID: bare.ID}, 10},
		{"ADerivedJobIsNoSource", callscribe.JobFilter{SourceJobID: derived[0].ID}, 10},
		{"OtherAccountsSource", callscribe.JobFilter{SourceJobID: foreign.ID}, 10},
	}
	sizes := map[string]int{"Source": 7, "SourceAndTags": 4, "SourceAndSucceeded": 3, "SourceAndFailedTags": 1, "SourceAndCreatedAfter": 5, "Sibling": 2}
	for name, n := range sizes {
		for _, c := range cases {
			if c.name == name && len(expectedIDs(jobs, c.filter)) != n {
				t.Fatalf("data set broken: %s expects %d jobs, want %d", name, len(expectedIDs(jobs, c.filter)), n)
			}
		}
	}
	for _, c := range cases {
		requireListing(t, s, account, jobs, c)
	}

	// Sources that have no derived job in the account: one empty last page.
	for _, id := range []string{bare.ID, foreign.ID, newID()} {
		p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{SourceJobID: id}, Limit: 10})
		requireNoError(t, err, "ListJobs")
		if len(p.Jobs) != 0 || p.Next != nil {
			t.Fatalf("source %s: %d jobs, Next %v; want an empty last page", id, len(p.Jobs), p.Next)
		}
	}
	// The other account sees its own two derived jobs of source.ID only.
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: other, Filter: callscribe.JobFilter{SourceJobID: source.ID}, Limit: 10})
	requireNoError(t, err, "ListJobs")
	for _, j := range p.Jobs {
		if j.AccountID != other && j.AccountID != "" {
			t.Fatalf("the other account's listing shows job %s of account %s", j.ID, j.AccountID)
		}
	}
	if len(p.Jobs) != 2 || p.Next != nil {
		t.Fatalf("the other account's listing by source = %d jobs (Next %v), want its own 2", len(p.Jobs), p.Next)
	}

	// Listed jobs carry their source.
	p, err = s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{SourceJobID: sibling.ID}, Limit: 10})
	requireNoError(t, err, "ListJobs")
	for _, j := range p.Jobs {
		if j.SourceJobID != sibling.ID {
			t.Fatalf("listed job %s has source %q, want %s", j.ID, j.SourceJobID, sibling.ID)
		}
	}

	// Deleting two derived jobs (one of the tied pair) takes them out at once.
	for _, d := range []*callscribe.Job{derived[1], derived[3]} {
		requireNoError(t, s.DeleteJob(t.Context(), d.ID, at(10)), "DeleteJob")
	}
	var live []*callscribe.Job
	for _, j := range jobs {
		if j != derived[1] && j != derived[3] {
			live = append(live, j)
		}
	}
	if got := len(expectedIDs(live, callscribe.JobFilter{SourceJobID: source.ID})); got != 5 {
		t.Fatalf("data set broken: %d derived jobs left, want 5", got)
	}
	for _, c := range cases {
		requireListing(t, s, account, live, c)
	}
}
