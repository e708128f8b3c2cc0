package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// testSearch covers q and speaker on GET /v1/transcriptions: words, phrases
// and speakers over transcripts (the test engine's fixed lines: the Agent
// thanks the caller, the User was charged twice and wants a refund) and over
// text sent to /v1/summarize, with the other filters, the cursor, matches,
// deletes, other accounts and the INVALID_FILTER rows.
func (s *suite) testSearch(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	stereo := a.MustUpload(t, Upload{Filename: "search-stereo.wav", Data: MakeWAV(0.25, 2, false)})
	mono := a.MustUpload(t, Upload{Filename: "search-mono.wav", Data: MakeWAV(0.25, 1, false)})
	fromText := a.MustDerive(t, "tags", map[string]string{"transcript_text": "Agent: hello there.\nUser: the zebra router is broken, I want a refund"})
	if stereo == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, stereo)
	fromCall := a.MustDerive(t, "tags", map[string]string{"transcription_job_id": stereo})
	for _, id := range []string{mono, fromText, fromCall} {
		if id == "" {
			t.FailNow()
		}
		s.WaitJob(t, a, id)
	}
	b.MustUpload(t, Upload{Filename: "other.wav", Data: MakeWAV(0.25, 2, false)})

	search := func(q url.Values, limit int) []string { return ids(collect(t, a, q, limit)) }
	for _, c := range []struct {
		q    url.Values
		want []string
	}{
		// A tags job made from a transcription is found through it, not itself.
		{url.Values{"q": {"REFUND"}}, []string{fromText, stereo}},
		{url.Values{"q": {"refund charged"}}, []string{stereo}},
		{url.Values{"q": {`"charged twice"`}}, []string{stereo}},
		{url.Values{"q": {`"twice charged"`}}, nil},
		{url.Values{"q": {"refun"}}, nil},
		{url.Values{"q": {"thank calling"}}, []string{mono, stereo}},
		{url.Values{"q": {"refund"}, "speaker": {"User"}}, []string{fromText, stereo}},
		{url.Values{"q": {"refund"}, "speaker": {"agent"}}, nil},
		{url.Values{"q": {"zebra router"}}, []string{fromText}},
		{url.Values{"q": {"refund"}, "type": {"transcription"}}, []string{stereo}},
		{url.Values{"q": {"calling"}, "job_id": {mono}}, []string{mono}},
	} {
		for _, limit := range []int{1, 10} {
			if got := search(c.q, limit); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("search %v, limit %d: %v, want %v", c.q, limit, got, c.want)
			}
		}
	}

	// Each hit says where.
	r := a.List(t, url.Values{"q": {`"want a refund"`}, "type": {"transcription"}})
	items := listItems(t, r)
	if len(items) != 1 {
		t.Fatalf("%s: want the stereo call", r)
	}
	matches, _ := items[0]["matches"].([]any)
	if len(matches) != 1 {
		t.Fatalf("%s: want one match", r)
	}
	m, _ := matches[0].(map[string]any)
	if m["field"] != "transcript" || fmt.Sprint(m["segment"]) != "1" || m["speaker_alias"] != "User" || m["time_start"] == nil ||
		!strings.Contains(m["text"].(string), "refund") {
		t.Errorf("match %v", m)
	}
	if _, ok := listItems(t, a.List(t, nil))[0]["matches"]; ok {
		t.Error("a listing without q carries matches")
	}

	// Deleting leaves search at once; other accounts never show.
	expectStatus(t, a.Delete(t, mono), http.StatusAccepted)
	if got := search(url.Values{"q": {"calling"}}, 10); !slices.Equal(got, []string{stereo}) {
		t.Errorf("after deleting %s: %v", mono, got)
	}
	if got := ids(collect(t, b, url.Values{"q": {"zebra"}}, 10)); len(got) != 0 {
		t.Errorf("another account's search: %v", got)
	}

	for _, f := range []url.Values{
		{"q": {strings.Repeat("a", 201)}},
		{"q": {"one two three four five six seven eight nine ten eleven"}},
		{"q": {`"unclosed phrase`}},
		{"q": {"-- !!"}},
		{"q": {"refund"}, "speaker": {"Bot"}},
		{"speaker": {"Agent"}},
	} {
		expectError(t, a.List(t, f), http.StatusBadRequest, "INVALID_FILTER")
	}
}
