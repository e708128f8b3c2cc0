package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: search (the list filter q, callscribe.SearchQuery). Every
// store lists exactly the jobs whose own text the query matches, in listing
// order, with the other filters and the cursor, and marks where each matched.

// succeedWithTranscript moves a queued transcription to succeeded with a
// transcript of alternating Agent and User segments, 2 seconds each.
func succeedWithTranscript(t *testing.T, s callscribe.JobStore, j *callscribe.Job, lines ...string) {
	t.Helper()
	r := callscribe.TranscriptionResult{Transcript: []callscribe.Segment{}}
	for i, line := range lines {
		alias := callscribe.AliasAgent
		if i%2 == 1 {
			alias = callscribe.AliasUser
		}
		r.Transcript = append(r.Transcript, callscribe.Segment{Text: line, TimeStart: float64(2 * i), TimeEnd: float64(2*i + 2), SpeakerID: i % 2, SpeakerAlias: alias})
	}
	raw, err := json.Marshal(r)
	requireNoError(t, err, "encode result")
	_, err = s.TransitionJob(t.Context(), callscribe.Transition{JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded, Result: raw, At: j.CreatedAt})
	requireNoError(t, err, "TransitionJob to succeeded")
}

func mustQuery(t *testing.T, q, speaker string) *callscribe.SearchQuery {
	t.Helper()
	query, err := callscribe.ParseSearchQuery(q, speaker)
	requireNoError(t, err, "ParseSearchQuery "+q)
	return query
}

// searchIDs lists every page of a search of the account with the filter.
func searchIDs(t *testing.T, s callscribe.JobStore, account string, f callscribe.JobFilter, limit int) []string {
	t.Helper()
	return listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Filter: f, Limit: limit})
}

func requireIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: listed %v, want %v", what, got, want)
	}
}

// testSearch: words, phrases, case, word boundaries, speaker, derived jobs,
// the other filters, paging, and another account's jobs.
func testSearch(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Second) }

	charged := newTranscription(account, at(1))
	mustCreate(t, s, charged, nil)
	succeedWithTranscript(t, s, charged, "Thank you for calling.", "My card number was charged twice.", "I will refund the card today.")
	router := newTranscription(account, at(2))
	mustCreate(t, s, router, nil)
	succeedWithTranscript(t, s, router, "Is the router on?", "The ROUTER is on, I want a refund!")
	queued := newTranscription(account, at(3)) // no result yet: nothing to search
	mustCreate(t, s, queued, nil)
	summary := newDerived(account, "", callscribe.TypeSummary, callscribe.StatusQueued, at(4))
	summary.Input = &callscribe.Transcript{Text: "Agent: hello. User: my modem blinks."}
	mustCreate(t, s, summary, nil)
	topic := "Refund request"
	sumResult, _ := json.Marshal(callscribe.SummaryResult{Topic: &topic, Summary: "The caller asked about a card charge."})
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{JobID: summary.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded, Result: sumResult, At: at(4)})
	requireNoError(t, err, "TransitionJob summary")
	tagsFromText := newDerived(account, "", callscribe.TypeTags, callscribe.StatusQueued, at(5))
	tagsFromText.Input = &callscribe.Transcript{Text: "User: the router needs a refund"}
	mustCreate(t, s, tagsFromText, nil)
	tagsFromCall := newDerived(account, charged.ID, callscribe.TypeTags, callscribe.StatusSucceeded, at(6))
	tagsFromCall.Input = &callscribe.Transcript{Segments: []callscribe.Segment{{Text: "refund card router", SpeakerAlias: callscribe.AliasUser}}}
	mustCreate(t, s, tagsFromCall, nil)
	foreign := newTranscription(other, at(1))
	mustCreate(t, s, foreign, nil)
	succeedWithTranscript(t, s, foreign, "refund card router modem")

	search := func(q, speaker string) callscribe.JobFilter {
		return callscribe.JobFilter{Search: mustQuery(t, q, speaker)}
	}
	cases := []struct {
		name   string
		filter callscribe.JobFilter
		want   []string
	}{
		{"Word", search("refund", ""), []string{tagsFromText.ID, summary.ID, router.ID, charged.ID}},
		{"CaseInsensitive", search("Router", ""), []string{tagsFromText.ID, router.ID}},
		{"AllWords", search("refund card", ""), []string{summary.ID, charged.ID}},
		{"WordBoundaries", search("refun", ""), nil},
		{"Phrase", search(`"card number"`, ""), []string{charged.ID}},
		{"PhraseOrder", search(`"number card"`, ""), nil},
		{"SpeakerUser", search("refund", "User"), []string{tagsFromText.ID, router.ID}},
		{"SpeakerAgent", search("refund", "Agent"), []string{charged.ID}},
		{"SummaryInputText", search("modem blinks", ""), []string{summary.ID}},
		{"WithType", callscribe.JobFilter{Type: callscribe.TypeTranscription, Search: mustQuery(t, "refund", "")}, []string{router.ID, charged.ID}},
		{"WithCreatedAfter", callscribe.JobFilter{CreatedAfter: ptr(at(2)), Search: mustQuery(t, "refund", "")}, []string{tagsFromText.ID, summary.ID}},
		{"WithJobID", callscribe.JobFilter{JobID: router.ID, Search: mustQuery(t, "refund", "")}, []string{router.ID}},
		{"WithJobIDNotMatching", callscribe.JobFilter{JobID: router.ID, Search: mustQuery(t, "card", "")}, nil},
		{"WithSource", callscribe.JobFilter{SourceJobID: charged.ID, Search: mustQuery(t, "refund", "")}, nil},
	}
	for _, c := range cases {
		for _, limit := range []int{1, 2, 10} {
			requireIDs(t, fmt.Sprintf("%s, limit %d", c.name, limit), searchIDs(t, s, account, c.filter, limit), c.want...)
		}
	}
}

// testSearchMatches: each listed job of a search says where it matched, and
// the page's jobs carry the listing fields like any listing.
func testSearchMatches(t *testing.T, s callscribe.JobStore) {
	account := newID()
	j := newTranscription(account, baseTime)
	mustCreate(t, s, j, nil)
	succeedWithTranscript(t, s, j, "Hello, how can I help?", "My refund has not arrived.", "Let me check.", "A refund was promised.", "refund", "refund please")
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Search: mustQuery(t, "refund", "User")}, Limit: 10})
	requireNoError(t, err, "ListJobs")
	if len(p.Jobs) != 1 || p.Next != nil {
		t.Fatalf("listed %d jobs (next %v), want 1", len(p.Jobs), p.Next)
	}
	got := p.Jobs[0]
	if got.ID != j.ID || got.Status != callscribe.StatusSucceeded || got.AudioSeconds != j.AudioSeconds || !got.CreatedAt.Equal(j.CreatedAt) {
		t.Errorf("listing fields: %+v", got)
	}
	var where []string
	for _, m := range got.Matches {
		where = append(where, fmt.Sprintf("%d %s %v-%v %s %q", m.Index, m.Field, *m.TimeStart, *m.TimeEnd, m.Speaker, m.Text))
	}
	want := []string{
		`1 transcript 2-4 User "My refund has not arrived."`,
		`3 transcript 6-8 User "A refund was promised."`,
		`5 transcript 10-12 User "refund please"`,
	}
	if !slices.Equal(where, want) {
		t.Errorf("matches:\n%q\nwant\n%q", where, want)
	}
}

// testSearchFollowsDeletes: a deleted job leaves search at once; a purge
// leaves nothing behind, and a later job with the same words is found.
func testSearchFollowsDeletes(t *testing.T, s callscribe.JobStore) {
	account := newID()
	a := newTranscription(account, baseTime)
	b := newTranscription(account, baseTime.Add(time.Second))
	for _, j := range []*callscribe.Job{a, b} {
		mustCreate(t, s, j, nil)
		succeedWithTranscript(t, s, j, "the parcel never came")
	}
	f := callscribe.JobFilter{Search: mustQuery(t, "parcel", "")}
	requireIDs(t, "before delete", searchIDs(t, s, account, f, 10), b.ID, a.ID)
	requireNoError(t, s.DeleteJob(t.Context(), b.ID, baseTime.Add(time.Hour)), "DeleteJob")
	requireIDs(t, "after delete", searchIDs(t, s, account, f, 10), a.ID)
	requireIDs(t, "after delete, one per page", searchIDs(t, s, account, f, 1), a.ID)
	_, err := s.PurgeDeletedJobs(t.Context(), baseTime.Add(2*time.Hour))
	requireNoError(t, err, "PurgeDeletedJobs")
	requireIDs(t, "after purge", searchIDs(t, s, account, f, 10), a.ID)
	c := newTranscription(account, baseTime.Add(2*time.Second))
	mustCreate(t, s, c, nil)
	succeedWithTranscript(t, s, c, "a parcel came today")
	requireIDs(t, "a new job", searchIDs(t, s, account, f, 10), c.ID, a.ID)
}

// testSearchPagingAmongMany: a word most of an account's jobs have, and a
// phrase only some have in order (the others have its words apart), page
// through every match once, in order.
func testSearchPagingAmongMany(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var all, phrase []*callscribe.Job
	for i := range 40 {
		j := newTranscription(account, baseTime.Add(time.Duration(i%13)*time.Second))
		mustCreate(t, s, j, nil)
		if i%5 == 0 {
			succeedWithTranscript(t, s, j, "my internet is down", "since this morning")
			phrase = append(phrase, j)
		} else {
			succeedWithTranscript(t, s, j, "down the road my internet works", "is it")
		}
		all = append(all, j)
	}
	for _, limit := range []int{1, 3, 100} {
		requireIDs(t, fmt.Sprintf("word, limit %d", limit), searchIDs(t, s, account, callscribe.JobFilter{Search: mustQuery(t, "internet", "")}, limit), newestFirst(all)...)
		requireIDs(t, fmt.Sprintf("phrase, limit %d", limit), searchIDs(t, s, account, callscribe.JobFilter{Search: mustQuery(t, `"internet is down"`, "")}, limit), newestFirst(phrase)...)
	}
}
