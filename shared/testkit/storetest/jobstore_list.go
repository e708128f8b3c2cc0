package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: listing pages, their order, filters and cursors.

// listAllIDs walks every page of req and returns the ids in order, checking the
// paging invariants on the way.
func listAllIDs(t *testing.T, s callscribe.JobStore, req callscribe.ListRequest) []string {
	t.Helper()
	ids, _ := listAll(t, s, req, nil)
	return ids
}

// listAll is listAllIDs that also calls onPage after each page (with the page
// and its index) and returns the number of pages. A page may be short while
// more jobs follow (a store bounding its reads per call returns what it found
// within its budget), but its Next must lie at or after its last job and
// strictly after where it started, so that paging always progresses; whether
// no job is skipped or repeated is up to the caller's comparison of the ids.
func listAll(t *testing.T, s callscribe.JobStore, req callscribe.ListRequest, onPage func(i int, p *callscribe.JobPage)) ([]string, int) {
	t.Helper()
	var ids []string
	for page := 0; ; page++ {
		if page > 10000 {
			t.Fatal("listing does not end")
		}
		p, err := s.ListJobs(t.Context(), req)
		requireNoError(t, err, "ListJobs")
		if p == nil {
			t.Fatal("ListJobs returned a nil page")
		}
		if onPage != nil {
			onPage(page, p)
		}
		if len(p.Jobs) > req.Limit {
			t.Fatalf("page of %d jobs, limit %d", len(p.Jobs), req.Limit)
		}
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		if p.Next == nil {
			return ids, page + 1
		}
		if len(p.Jobs) > 0 {
			last := p.Jobs[len(p.Jobs)-1]
			lastPos := callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
			atLast := p.Next.JobID == last.ID && p.Next.CreatedAt.Equal(last.CreatedAt)
			if !atLast && !lastPos.Follows(&callscribe.Job{CreatedAt: p.Next.CreatedAt, ID: p.Next.JobID}) {
				t.Fatalf("Next = %v/%s lies before the page's last job %v/%s", p.Next.CreatedAt, p.Next.JobID, last.CreatedAt, last.ID)
			}
		}
		if req.After != nil && !req.After.Follows(&callscribe.Job{CreatedAt: p.Next.CreatedAt, ID: p.Next.JobID}) {
			t.Fatalf("Next = %v/%s does not progress past the page's start %v/%s", p.Next.CreatedAt, p.Next.JobID, req.After.CreatedAt, req.After.JobID)
		}
		req.After = p.Next
	}
}

// newestFirst sorts jobs as listings must: CreatedAt DESC, ID DESC.
func newestFirst(jobs []*callscribe.Job) []string {
	sorted := slices.Clone(jobs)
	slices.SortFunc(sorted, func(a, b *callscribe.Job) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID > b.ID:
			return -1
		case a.ID < b.ID:
			return 1
		}
		return 0
	})
	ids := make([]string, len(sorted))
	for i, j := range sorted {
		ids[i] = j.ID
	}
	return ids
}

func testListOrder(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	// Three jobs share one instant, two share another; creation order is not
	// the listing order.
	for _, at := range []time.Time{baseTime.Add(time.Second), baseTime, baseTime.Add(time.Second), baseTime.Add(time.Second), baseTime, baseTime.Add(time.Nanosecond)} {
		j := newTranscription(account, at)
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 100})
	requireNoError(t, err, "ListJobs")
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listing order = %v, want %v", got, want)
	}
	if p.Next != nil {
		t.Fatalf("single page has Next %+v", p.Next)
	}
	// Walking the ties one at a time gives the same order.
	if got := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Limit: 1}); !slices.Equal(got, want) {
		t.Fatalf("listing order with limit 1 = %v, want %v", got, want)
	}
}

func testListLimitAndNext(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	for i := range 5 {
		j := newTranscription(account, baseTime.Add(time.Duration(i)*time.Minute))
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)

	var pages [][]string
	req := callscribe.ListRequest{AccountID: account, Limit: 2}
	for {
		p, err := s.ListJobs(t.Context(), req)
		requireNoError(t, err, "ListJobs")
		var ids []string
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		pages = append(pages, ids)
		if p.Next == nil || len(pages) > 5 {
			break
		}
		req.After = p.Next
	}
	wantPages := [][]string{want[0:2], want[2:4], want[4:5]}
	if !reflect.DeepEqual(pages, wantPages) {
		t.Fatalf("pages of 2 = %v, want %v", pages, wantPages)
	}

	for _, limit := range []int{5, 6, 100} {
		p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: limit})
		requireNoError(t, err, "ListJobs")
		if len(p.Jobs) != 5 || p.Next != nil {
			t.Fatalf("limit %d over 5 jobs: %d jobs, Next %v; want 5 jobs and no Next", limit, len(p.Jobs), p.Next)
		}
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 4})
	requireNoError(t, err, "ListJobs")
	if len(p.Jobs) != 4 || p.Next == nil {
		t.Fatalf("limit 4 over 5 jobs: %d jobs, Next %v; want 4 jobs and a Next", len(p.Jobs), p.Next)
	}
	// The page after the exact end is empty, not an error.
	p, err = s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 4, After: &callscribe.Position{CreatedAt: jobs[0].CreatedAt, JobID: jobs[0].ID}})
	requireNoError(t, err, "ListJobs after the oldest job")
	if len(p.Jobs) != 0 || p.Next != nil {
		t.Fatalf("page after the oldest job: %d jobs, Next %v; want none", len(p.Jobs), p.Next)
	}
}

func testListSummaryFields(t *testing.T, s callscribe.JobStore) {
	account := newID()
	a := newTranscription(account, baseTime)
	a.Status = callscribe.StatusProcessing
	a.UpdatedAt = baseTime.Add(time.Second + 3)
	b := newTranscription(account, baseTime.Add(time.Minute))
	b.OriginalFilename = nil
	b.Language = ""
	b.Type = callscribe.TypeSummary
	b.AudioSeconds = 0
	for _, j := range []*callscribe.Job{a, b} {
		mustCreate(t, s, j, nil)
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 10})
	requireNoError(t, err, "ListJobs")
	if len(p.Jobs) != 2 {
		t.Fatalf("listed %d jobs, want 2", len(p.Jobs))
	}
	for i, want := range []*callscribe.Job{b, a} {
		got := p.Jobs[i]
		if got.ID != want.ID || got.AccountID != want.AccountID || got.Type != want.Type || got.Status != want.Status ||
			!reflect.DeepEqual(got.OriginalFilename, want.OriginalFilename) || got.Language != want.Language ||
			got.AudioSeconds != want.AudioSeconds || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("listed job %d = %+v, want the summary fields of %+v", i, got, want)
		}
	}
}

func testListCursorAfterDelete(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	for i := range 6 {
		j := newTranscription(account, baseTime.Add(time.Duration(i/2)*time.Second)) // pairs share an instant
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 3})
	requireNoError(t, err, "ListJobs")
	if p.Next == nil {
		t.Fatal("first page of 3 over 6 jobs has no Next")
	}
	// The job the cursor points at disappears before the next page is read.
	requireNoError(t, s.DeleteJob(t.Context(), p.Next.JobID, baseTime.Add(time.Hour)), "DeleteJob")
	p, err = s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 3, After: p.Next})
	requireNoError(t, err, "ListJobs after a deleted cursor job")
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.ID)
	}
	if !slices.Equal(got, want[3:]) || p.Next != nil {
		t.Fatalf("second page = %v (Next %v), want %v and no Next", got, p.Next, want[3:])
	}
}

func testListEmpty(t *testing.T, s callscribe.JobStore) {
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: newID(), Limit: 10})
	requireNoError(t, err, "ListJobs of an account without jobs")
	if p == nil || len(p.Jobs) != 0 || p.Next != nil {
		t.Fatalf("empty listing = %+v, want no jobs and no Next", p)
	}
}

// testListPaging walks a larger data set with every filter and some
// combinations, comparing against the expected set computed here.
func testListPaging(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	types := []callscribe.JobType{callscribe.TypeTranscription, callscribe.TypeSummary, callscribe.TypeTags, ""}
	statuses := []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing, callscribe.StatusSucceeded, callscribe.StatusFailed}
	languages := []string{"en", "de", "en-US", "", "EN"}

	var live []*callscribe.Job
	var deletedIDs []string
	for i := range 250 {
		// Two of every three jobs share a creation instant and the third is one
		// nanosecond later: ties everywhere, and only nanosecond precision orders them.
		j := newTranscription(account, baseTime.Add(time.Duration(i/3)*time.Second+time.Duration(i%3/2)))
		j.Type = types[i%len(types)]
		j.Status = statuses[(i/2)%len(statuses)]
		j.Language = languages[(i/3)%len(languages)]
		mustCreate(t, s, j, nil)
		if i%17 == 5 {
			requireNoError(t, s.DeleteJob(t.Context(), j.ID, baseTime), "DeleteJob")
			deletedIDs = append(deletedIDs, j.ID)
			continue
		}
		live = append(live, j)
	}
	// Another account's jobs sit at the same instants with the same values.
	var foreign []*callscribe.Job
	for i := range 40 {
		j := newTranscription(other, baseTime.Add(time.Duration(i*5)*time.Second))
		j.Type = types[i%len(types)]
		j.Status = statuses[i%len(statuses)]
		j.Language = "en"
		mustCreate(t, s, j, nil)
		foreign = append(foreign, j)
	}

	// Sanity checks on the data set itself, so that a broken generator cannot
	// make the filter subtests vacuous.
	if len(live) < 200 || len(deletedIDs) < 10 {
		t.Fatalf("data set too small: %d live jobs, %d deleted", len(live), len(deletedIDs))
	}

	middle := live[len(live)/2].CreatedAt // may be shared by two jobs: "after" must exclude both
	matches := func(j *callscribe.Job, f callscribe.JobFilter) bool {
		return (f.Status == "" || j.Status == f.Status) &&
			(f.Type == "" || j.Type.OrDefault() == f.Type) &&
			(f.Language == "" || j.Language == f.Language) &&
			(f.CreatedAfter == nil || j.CreatedAt.After(*f.CreatedAfter)) &&
			(f.JobID == "" || j.ID == f.JobID)
	}
	filters := []struct {
		name   string
		filter callscribe.JobFilter
		limits []int
		empty  bool // the filter matches nothing on purpose
	}{
		{"None", callscribe.JobFilter{}, []int{1, 7, 100}, false},
		{"StatusQueued", callscribe.JobFilter{Status: callscribe.StatusQueued}, []int{7}, false},
		{"StatusFailed", callscribe.JobFilter{Status: callscribe.StatusFailed}, []int{10}, false},
		{"TypeTranscriptionIncludesLegacy", callscribe.JobFilter{Type: callscribe.TypeTranscription}, []int{7}, false},
		{"TypeSummary", callscribe.JobFilter{Type: callscribe.TypeSummary}, []int{7}, false},
		{"TypeTags", callscribe.JobFilter{Type: callscribe.TypeTags}, []int{3}, false},
		{"LanguageExact", callscribe.JobFilter{Language: "en"}, []int{7}, false},
		{"CreatedAfterIsStrict", callscribe.JobFilter{CreatedAfter: &middle}, []int{7}, false},
		{"JobID", callscribe.JobFilter{JobID: live[100].ID}, []int{1, 10}, false},
		{"JobIDOfDeletedJob", callscribe.JobFilter{JobID: deletedIDs[0]}, []int{10}, true},
		{"JobIDOfOtherAccount", callscribe.JobFilter{JobID: foreign[3].ID}, []int{10}, true},
		{"StatusAndType", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription}, []int{4}, false},
		{"TypeLanguageCreatedAfter", callscribe.JobFilter{Type: callscribe.TypeSummary, Language: "de", CreatedAfter: &middle}, []int{2}, false},
		{"JobIDAndWrongStatus", callscribe.JobFilter{JobID: live[100].ID, Status: otherStatus(live[100].Status)}, []int{10}, true},
		{"JobIDAndRightStatus", callscribe.JobFilter{JobID: live[100].ID, Status: live[100].Status}, []int{10}, false},
	}
	for _, f := range filters {
		var expected []*callscribe.Job
		for _, j := range live {
			if matches(j, f.filter) {
				expected = append(expected, j)
			}
		}
		if (len(expected) == 0) != f.empty {
			t.Fatalf("data set broken: filter %s matches %d jobs", f.name, len(expected))
		}
		want := newestFirst(expected)
		for _, limit := range f.limits {
			t.Run(fmt.Sprintf("%s/Limit%d", f.name, limit), func(t *testing.T) {
				got := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Filter: f.filter, Limit: limit})
				if !slices.Equal(got, want) {
					t.Fatalf("walked %d ids, want %d:\n got  %v\n want %v", len(got), len(want), got, want)
				}
			})
		}
	}
}

func otherStatus(s callscribe.JobStatus) callscribe.JobStatus {
	if s == callscribe.StatusQueued {
		return callscribe.StatusFailed
	}
	return callscribe.StatusQueued
}
