package callscribe

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseSearchQuery(t *testing.T) {
	q, err := ParseSearchQuery(`Refund "card  NUMBER" e-mail refund`, "agent")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, term := range q.Terms {
		got = append(got, strings.Join(term.Words, "+"))
	}
	if strings.Join(got, " ") != "refund card+number e+mail" || q.Speaker != AliasAgent {
		t.Fatalf("terms %v speaker %q", got, q.Speaker)
	}
	if q, err := ParseSearchQuery("", ""); q != nil || err != nil {
		t.Fatalf("no q: %v %v", q, err)
	}
	for name, c := range map[string][2]string{
		"SpeakerWithoutQ": {"", "Agent"},
		"OtherSpeaker":    {"refund", "Bot"},
		"NoWords":         {` "" -- `, ""},
		"UnclosedQuote":   {`"card number`, ""},
		"TooLong":         {strings.Repeat("a", MaxSearchQueryChars+1), ""},
		"TooManyWords":    {"a b c d e f g h i j k", ""},
	} {
		q, err := ParseSearchQuery(c[0], c[1])
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidFilter || q != nil {
			t.Errorf("%s: got %v, %v; want INVALID_FILTER", name, q, err)
		}
	}
	if _, err := ParseSearchQuery(strings.Repeat("é", MaxSearchQueryChars), ""); err != nil {
		t.Errorf("a query of exactly the limit in characters: %v", err)
	}
}

func TestSearchFindOnTranscription(t *testing.T) {
	result, _ := json.Marshal(TranscriptionResult{Transcript: []Segment{
		{Text: "Thank you for calling.", TimeStart: 0, TimeEnd: 1.5, SpeakerAlias: AliasAgent},
		{Text: "My card number was charged twice, I want a refund.", TimeStart: 2, TimeEnd: 5, SpeakerAlias: AliasUser},
		{Text: "I can refund the card today.", TimeStart: 6, TimeEnd: 8, SpeakerAlias: AliasAgent},
	}})
	job := &Job{Type: TypeTranscription, Status: StatusSucceeded, Result: result}
	cases := []struct {
		q, speaker string
		want       []int // matching segments; nil for no match
	}{
		{"REFUND card", "", []int{1, 2}},
		{`"card number"`, "", []int{1}},
		{`"number card"`, "", nil},
		{"refun", "", nil}, // word boundaries
		{"refund twice", "", []int{1, 2}},
		{"refund twice", "Agent", nil},
		{"refund today", "agent", []int{2}},
		{"calling refund", "", []int{0, 1, 2}},
		{`"calling my"`, "", nil}, // a phrase stays within a segment
	}
	for _, c := range cases {
		q, err := ParseSearchQuery(c.q, c.speaker)
		if err != nil {
			t.Fatal(err)
		}
		j := *job
		ok := q.Confirm(&j)
		var got []int
		for _, m := range j.Matches {
			got = append(got, m.Index)
			if m.TimeStart == nil || m.Field != SearchFieldTranscript {
				t.Errorf("%q: match without time or field: %+v", c.q, m)
			}
		}
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("%q speaker %q: matched %v at %v, want %v", c.q, c.speaker, ok, got, c.want)
		}
	}
}

func TestSearchDocumentOfDerivedJobs(t *testing.T) {
	topic := "Billing dispute"
	summary, _ := json.Marshal(SummaryResult{Topic: &topic, Summary: "The customer asked for a refund."})
	text := &Transcript{Text: "Agent: hello there. User: my router is broken\nsecond line"}
	fromText := &Job{Type: TypeSummary, Status: StatusSucceeded, Result: summary, Input: text}
	doc := SearchDocumentOf(fromText)
	var parts []string
	for _, s := range doc {
		parts = append(parts, s.Field+"/"+s.Speaker+"/"+s.Text)
	}
	want := "topic//Billing dispute|summary//The customer asked for a refund.|input/Agent/hello there.|input/User/my router is broken|input//second line"
	if strings.Join(parts, "|") != want {
		t.Fatalf("document %q\nwant %q", strings.Join(parts, "|"), want)
	}
	fromJob := &Job{Type: TypeSummary, Status: StatusSucceeded, Result: summary, SourceJobID: "s", Input: &Transcript{Text: "router"}}
	if got := len(SearchDocumentOf(fromJob)); got != 2 {
		t.Errorf("a summary of a transcription is searched by its topic and summary only; got %d segments", got)
	}
	tags := &Job{Type: TypeTags, Status: StatusQueued, Input: text}
	q, _ := ParseSearchQuery("router broken", "User")
	if !q.Confirm(tags) || len(tags.Matches) != 1 || tags.Matches[0].Index != 0 {
		t.Errorf("tags job from text: %+v", tags.Matches)
	}
	failed := &Job{Type: TypeTranscription, Status: StatusFailed}
	if SearchDocumentOf(failed) != nil {
		t.Error("a failed transcription has nothing to search")
	}
}

func TestInputLinesSpeakerMarks(t *testing.T) {
	var got []string
	for _, s := range inputLines("intro: superuser: a USER : b agent:c\nUser:") {
		got = append(got, s.Speaker+"|"+s.Text)
	}
	want := []string{"|intro: superuser: a", "User|b", "Agent|c"}
	if !slices.Equal(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
}
