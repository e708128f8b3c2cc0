package insights

import (
	"context"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
)

// turnsLabel is the customer's label by the rule that the tagger reports in
// meta_data.customer_turns.
func turnsLabel(t *testing.T, res *callscribe.TagsResult) string {
	t.Helper()
	ct, _ := res.MetaData["customer_turns"].(map[string]any)
	l, _ := ct["label"].(string)
	if l == "" {
		t.Fatalf("meta_data.customer_turns %v", res.MetaData["customer_turns"])
	}
	return l
}

// The tagger reports the rule's User label, on text (Agent:/User: prefixes)
// and on a speech engine's segments; on segments it is the label a
// transcription result's sentiment gives the User.
func TestSentimentTurnsLabelIsTheRulesLabel(t *testing.T) {
	texts := []string{
		"Agent: Spokes and Gears, how can I help?\nUser: My order was late again and nobody told me, I'm annoyed.\nAgent: It arrives today, and I've refunded the shipping.\nUser: Excellent, thank you for the quick help.",
		"Agent: How can I help?\nUser: I'd like my invoice.\nAgent: Sent.\nUser: Okay, thanks, bye.",
		"Agent: How can I help?\nUser: The engineer never came, this is ridiculous.\nAgent: I'll pass it on.\nUser: Useless, I'm fed up.",
		"Agent: Hello.\nUser: Hi, I want to upgrade.\nAgent: Done, it's active.\nUser: Brilliant, cheers, that's exactly what I needed!",
	}
	scorer := sentiment.NewScorer()
	for _, text := range texts {
		res := tag(t, text)
		turns, d := CustomerTurns(callscribe.Transcript{Text: text})
		want := callsentiment.Default.Speaker(RuleTurns(turns), d).Label
		if got := turnsLabel(t, res); got != want {
			t.Errorf("text: reported %s, rule %s: %q", got, want, text)
		}
		// The same call as a speech engine's segments, one a line, 3 s each.
		var segs []callscribe.Segment
		all, _ := turnsOf(callscribe.Transcript{Text: text})
		for i, tu := range all {
			id, alias := 0, callscribe.AliasAgent
			if tu.speaker == speakerUser {
				id, alias = 1, callscribe.AliasUser
			}
			s := callscribe.Segment{Text: tu.text, TimeStart: float64(3 * i), TimeEnd: float64(3*i + 3), SpeakerID: id, SpeakerAlias: alias}
			s.Sentiment = scorer.ScoreSentiment(s.Text)
			segs = append(segs, s)
		}
		r, err := NewTagger().Tag(context.Background(), callscribe.Transcript{Segments: segs})
		if err != nil {
			t.Fatal(err)
		}
		cs := callsentiment.Compute(segs, 0)
		if cs == nil || len(cs.Speakers) != 2 || cs.Speakers[1].SpeakerAlias != callscribe.AliasUser {
			t.Fatalf("result sentiment %+v", cs)
		}
		if got := turnsLabel(t, r); got != cs.Speakers[1].Label {
			t.Errorf("segments: reported %s, result's User label %s: %q", got, cs.Speakers[1].Label, text)
		}
	}
}

// meta_data shows why: the decisive turns, their scores and phrases.
func TestSentimentTurnsEvidence(t *testing.T) {
	res := tag(t, "Agent: How can I help?\nUser: The engineer never came, this is ridiculous.\nAgent: I'll pass it on.\nUser: Okay.")
	if one(res, callscribe.CategoryCustomerSentiment) != callscribe.SentimentNegative || turnsLabel(t, res) != callscribe.SentimentNegative {
		t.Fatalf("tags %v, turns %v", res.Tags, res.MetaData["customer_turns"])
	}
	ev := res.MetaData["customer_turns"].(map[string]any)
	turns, _ := ev["decisive_turns"].([]any)
	if len(turns) != 1 || ev["customer_turns"] != 2 {
		t.Fatalf("evidence %v", ev)
	}
	d := turns[0].(map[string]any)
	if d["turn"] != 1 || d["label"] != callscribe.SentimentNegative || d["text"] != "The engineer never came, this is ridiculous." {
		t.Fatalf("decisive turn %v", d)
	}
}

// A transcript without customer turns reports none.
func TestSentimentWithoutCustomerTurns(t *testing.T) {
	res := tag(t, "")
	if one(res, callscribe.CategoryCustomerSentiment) != callscribe.SentimentNeutral || res.MetaData["customer_turns"] != nil {
		t.Fatalf("tags %v, meta %v", res.Tags, res.MetaData)
	}
}
