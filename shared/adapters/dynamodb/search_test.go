package dynamodb

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// searchAccount stores n succeeded transcriptions of one account, all saying
// "internet", the ones whose index is in rare also "zebra"; it returns the
// account and the rare jobs' ids, newest first.
func searchAccount(t *testing.T, s countingJobStore, n int, rare map[int]bool) (string, []string) {
	t.Helper()
	account := fmt.Sprintf("acc-%d", time.Now().UnixNano())
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	slots := make(chan struct{}, 8)
	var rareIDs []string
	for i := range n {
		text := "my internet is down"
		if rare[i] {
			text = "a zebra ate my internet cable"
		}
		result, _ := json.Marshal(callscribe.TranscriptionResult{Transcript: []callscribe.Segment{{Text: text, SpeakerAlias: callscribe.AliasUser, SpeakerID: 1}}})
		at := base.Add(time.Duration(i) * time.Second)
		j := &callscribe.Job{ID: fmt.Sprintf("job-%05d", i), AccountID: account, Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued, CreatedAt: at, UpdatedAt: at}
		if rare[i] {
			rareIDs = append([]string{j.ID}, rareIDs...)
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			err := s.CreateJob(t.Context(), j, nil)
			if err == nil {
				_, err = s.TransitionJob(t.Context(), callscribe.Transition{JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded, Result: result, At: at})
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return account, rareIDs
}

// TestSearchReadsTheRarestWord: a search whose rarest word matches a few of
// an account's many jobs reads those, plus one probe of each other word,
// not the account.
func TestSearchReadsTheRarestWord(t *testing.T) {
	s := newCountingJobStore(t)
	const n = 600
	account, rareIDs := searchAccount(t, s, n, map[int]bool{7: true, 300: true, 599: true})
	q, err := callscribe.ParseSearchQuery("internet ZEBRA", "")
	if err != nil {
		t.Fatal(err)
	}
	before := s.ItemsRead()
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Search: q}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	read := s.ItemsRead() - before
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.ID)
	}
	if fmt.Sprint(got) != fmt.Sprint(rareIDs) || p.Next != nil {
		t.Fatalf("listed %v (next %v), want %v", got, p.Next, rareIDs)
	}
	// The zebra partition (3 items), the first probe of internet's, the 3
	// candidates' internet items (that partition was not read to its end)
	// and the 3 jobs.
	if limit := int64(3 + searchProbe + 3 + 3); read > limit {
		t.Errorf("the search read %d items of an account of %d jobs; want at most %d", read, n, limit)
	}
}

// TestSearchBoundsReadsPerCall: when the other filters drop every candidate,
// each call reads at most the budget and returns a short page with Next, and
// paging on ends.
func TestSearchBoundsReadsPerCall(t *testing.T) {
	s := newCountingJobStore(t)
	s.listBudget = 100
	const n = 350
	account, _ := searchAccount(t, s, n, nil)
	q, err := callscribe.ParseSearchQuery("internet", "")
	if err != nil {
		t.Fatal(err)
	}
	req := callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Type: callscribe.TypeSummary, Search: q}, Limit: 10}
	calls := 0
	for {
		before := s.ItemsRead()
		p, err := s.ListJobs(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if len(p.Jobs) != 0 {
			t.Fatalf("listed %d summaries; there are none", len(p.Jobs))
		}
		// The driver's items and the jobs read to confirm them.
		if read := s.ItemsRead() - before; read > int64(2*s.listBudget) {
			t.Fatalf("call %d read %d items; budget %d", calls, read, s.listBudget)
		}
		if p.Next == nil {
			break
		}
		req.After = p.Next
	}
	if calls != 4 {
		t.Errorf("%d calls to page through %d candidates with a budget of %d; want 4", calls, n, s.listBudget)
	}
}

// TestBackfillSearchTerms: jobs stored without term items (as before the
// search table existed) are found after the backfill; a deleted one is not
// indexed, and a second run indexes the same jobs again without harm.
func TestBackfillSearchTerms(t *testing.T) {
	s := newCountingJobStore(t)
	account, rareIDs := searchAccount(t, s, 5, map[int]bool{1: true, 3: true})
	for _, id := range append(rareIDs, "job-00000", "job-00002", "job-00004") {
		j, err := s.GetJob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.unindexJob(t.Context(), mustItem(t, j)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteJob(t.Context(), "job-00004", time.Now()); err != nil {
		t.Fatal(err)
	}
	q, _ := callscribe.ParseSearchQuery("internet", "")
	list := func() []string {
		p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Search: q}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		return ids
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("before the backfill: %v", got)
	}
	for range 2 {
		n, err := s.BackfillSearchTerms(t.Context())
		if err != nil || n < 4 {
			t.Fatalf("backfill: %d, %v", n, err)
		}
		if got := fmt.Sprint(list()); got != "[job-00003 job-00002 job-00001 job-00000]" {
			t.Fatalf("after the backfill: %s", got)
		}
	}
}

func mustItem(t *testing.T, j *callscribe.Job) map[string]types.AttributeValue {
	t.Helper()
	item, err := jobItem(j)
	if err != nil {
		t.Fatal(err)
	}
	return item
}
