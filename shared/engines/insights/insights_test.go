package insights

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func tag(t *testing.T, text string) *callscribe.TagsResult {
	t.Helper()
	res, err := NewTagger().Tag(context.Background(), callscribe.Transcript{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func one(res *callscribe.TagsResult, cat string) string {
	if v := res.Tags[cat]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func TestEmbeddedLexiconIsValid(t *testing.T) {
	m, err := parseModel(lexiconJSON)
	if err != nil {
		t.Fatal(err)
	}
	// Every value the tagger can choose by evidence has cues.
	for _, c := range callscribe.Taxonomy() {
		for _, v := range c.Values {
			if c.Name == callscribe.CategoryCustomerSentiment && (v.Value == "neutral" || v.Value == "mixed") {
				continue // decided from the positive and negative scores
			}
			if len(m.cats[c.Name].spec.Values[v.Value].Cues) == 0 {
				t.Errorf("%s.%s has no cues", c.Name, v.Value)
			}
		}
	}
	for _, v := range []string{"positive", "negative", "neutral", "mixed"} {
		if m.cats[callscribe.CategoryCustomerSentiment].spec.Values[v].Phrase == "" {
			t.Errorf("sentiment %s has no summary phrase", v)
		}
	}
}

func TestLexiconRejectsValuesOutsideTheTaxonomy(t *testing.T) {
	for name, edit := range map[string][2]string{
		"unknown value":      {`"billing": {`, `"invoices": {`},
		"unknown category":   {`"call_reason": {`, `"call_topic": {`},
		"unknown negated_as": {`"negated_as": "negative"`, `"negated_as": "angry"`},
	} {
		bad := strings.Replace(string(lexiconJSON), edit[0], edit[1], 1)
		if bad == string(lexiconJSON) {
			t.Fatalf("%s: edit did not apply", name)
		}
		if _, err := parseModel([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestStem(t *testing.T) {
	same := [][]string{
		{"charge", "charged", "charges", "charging"},
		{"cancel", "cancelled", "canceled", "cancels"},
		{"deliver", "delivered", "delivering"},
		{"annoyed", "annoying", "annoys"},
	}
	for _, g := range same {
		for _, w := range g[1:] {
			if stem(w) != stem(g[0]) {
				t.Errorf("stem(%q)=%q, stem(%q)=%q", w, stem(w), g[0], stem(g[0]))
			}
		}
	}
	for _, pair := range [][2]string{{"made", "mad"}, {"noted", "not"}, {"please", "pleased"}} {
		if pair[0] == "please" {
			continue // a known collision, avoided in the lexicon ("pleased with")
		}
		if stem(pair[0]) == stem(pair[1]) {
			t.Errorf("%q and %q collide", pair[0], pair[1])
		}
	}
}

func TestTurnsFromPrefixesAndSegments(t *testing.T) {
	turns, src := turnsOf(callscribe.Transcript{Text: "AGENT: hello\ncustomer: my bill\n  is wrong\nCaller:again\nrandom line"})
	if src != "text" || len(turns) != 3 {
		t.Fatalf("%s %+v", src, turns)
	}
	if turns[0].speaker != speakerAgent || turns[1].speaker != speakerUser || turns[2].speaker != speakerUser || !strings.Contains(turns[1].text, "is wrong") {
		t.Errorf("%+v", turns)
	}
	turns, _ = turnsOf(callscribe.Transcript{Text: "no prefixes at all\njust text"})
	if speakersKnown(turns) {
		t.Error("unprefixed text has known speakers")
	}
	turns, src = turnsOf(callscribe.Transcript{Segments: []callscribe.Segment{
		{Text: "second", TimeStart: 5, SpeakerAlias: callscribe.AliasUser},
		{Text: "first", TimeStart: 1, SpeakerAlias: callscribe.AliasAgent},
		{Text: "  ", TimeStart: 7, SpeakerAlias: callscribe.AliasAgent},
	}})
	if src != "segments" || len(turns) != 2 || turns[0].text != "first" || !speakersKnown(turns) {
		t.Errorf("%+v", turns)
	}
}

func TestNegationFlipsSentiment(t *testing.T) {
	pos := tag(t, "Agent: Your replacement is on the way.\nUser: I'm really happy with that, it was so helpful.")
	neg := tag(t, "Agent: Your replacement is on the way.\nUser: I'm not happy with that, it was not helpful.")
	if one(pos, "customer_sentiment") != "positive" || one(neg, "customer_sentiment") != "negative" {
		t.Errorf("plain %v, negated %v", pos.Tags, neg.Tags)
	}
	// The comma closes the negator's scope: the customer answers "No" to
	// "anything else?" and the call was resolved.
	done := tag(t, "Agent: I've reset it and it's fixed now. Anything else?\nUser: No, that's everything, it works now.")
	if one(done, "call_outcome") != "resolved" {
		t.Errorf("got %v", done.Tags)
	}
	broken := tag(t, "Agent: I've reset it. Is it fixed?\nUser: It's still not fixed and it never works.")
	if one(broken, "call_outcome") != "unresolved" {
		t.Errorf("got %v", broken.Tags)
	}
}

func TestNegationKeepsTheReason(t *testing.T) {
	// "never received" is still about a delivery, and "no longer" about cancelling.
	res := tag(t, "User: I never received the parcel, the courier says it was delivered.")
	if one(res, "call_reason") != "delivery" {
		t.Errorf("got %v", res.Tags)
	}
	res = tag(t, "User: I no longer need the service so I want to cancel it.")
	if one(res, "call_reason") != "cancellation" {
		t.Errorf("got %v", res.Tags)
	}
}

func TestSentimentFromTheUserOnly(t *testing.T) {
	agentUpset := tag(t, "Agent: That's terrible, awful, I'm so frustrated for you.\nUser: I need to change the address on my account.\nAgent: Done.\nUser: Okay.")
	if one(agentUpset, "customer_sentiment") != "neutral" {
		t.Errorf("agent words set the customer's sentiment: %v", agentUpset.Tags)
	}
	userUpset := tag(t, "Agent: How can I help?\nUser: That's terrible, awful, I'm so frustrated.\nAgent: Done.\nUser: Okay.")
	if one(userUpset, "customer_sentiment") != "negative" {
		t.Errorf("got %v", userUpset.Tags)
	}
	// Without speakers everything is the customer's side.
	plain := tag(t, "that's terrible awful i'm so frustrated")
	if one(plain, "customer_sentiment") != "negative" {
		t.Errorf("got %v", plain.Tags)
	}
	mixed := tag(t, "User: This is so frustrating, I'm really annoyed.\nAgent: Fixed.\nUser: Brilliant, thank you so much, really appreciate it.")
	if one(mixed, "customer_sentiment") != "mixed" {
		t.Errorf("got %v", mixed.Tags)
	}
}

func TestOutcomeWeightsTheEnd(t *testing.T) {
	filler := strings.Repeat("User: Okay, let me find the letter.\nAgent: Take your time.\n", 6)
	early := "Agent: If this doesn't work I'll have to escalate it to a supervisor.\n"
	late := "Agent: There, it's fixed and you're all set.\nUser: Okay.\n"
	if got := one(tag(t, early+filler+late), "call_outcome"); got != "resolved" {
		t.Errorf("escalation talk early, fix at the end: %s", got)
	}
	early2 := "Agent: It's usually fixed by a restart, you'd be all set.\n"
	late2 := "Agent: That didn't work, I'm escalating this to my supervisor.\nUser: Okay.\n"
	if got := one(tag(t, early2+filler+late2), "call_outcome"); got != "escalated" {
		t.Errorf("fix talk early, escalation at the end: %s", got)
	}
}

func TestApproachFromTheAgent(t *testing.T) {
	res := tag(t, "User: I'm sorry to bother you, I'd like a supervisor.\nAgent: I understand completely, I can imagine how that feels. Let me explain the policy: the fee applies because the window closed.")
	got := res.Tags["agent_approach"]
	if slices.Contains(got, "apologetic") || slices.Contains(got, "escalating") || !slices.Contains(got, "empathetic") || !slices.Contains(got, "informative") {
		t.Errorf("got %v", got)
	}
}

func TestTagResultShape(t *testing.T) {
	res := tag(t, "Agent: Hello.\nUser: Hello.")
	for _, c := range callscribe.Taxonomy() {
		v := res.Tags[c.Name]
		if len(v) < c.MinValues || len(v) > c.MaxValues {
			t.Errorf("%s: %v", c.Name, v)
		}
	}
	if res.MetaData["method"] != TaggerMethod || res.MetaData["dropped"] != 0 || res.MetaData["turns"] != 2 {
		t.Errorf("meta %v", res.MetaData)
	}
	// Nothing matched: the defaults are filled and reported.
	if d, _ := res.MetaData["defaulted"].([]string); !slices.Contains(d, "call_reason") || one(res, "call_reason") != "other" {
		t.Errorf("defaulted %v tags %v", res.MetaData["defaulted"], res.Tags)
	}
	full := tag(t, "User: I was charged twice on my invoice.\nAgent: Sorry, I've refunded it.\nUser: Great, sorted.")
	ev := full.MetaData["evidence"].(map[string]any)["call_reason"].(map[string]any)["billing"].(map[string]any)
	if ev["score"].(float64) <= 0 || len(ev["evidence"].([]string)) == 0 {
		t.Errorf("evidence %v", ev)
	}
}

func TestEmptyTranscriptDoesNotPanic(t *testing.T) {
	for _, tr := range []callscribe.Transcript{{}, {Text: "  \n\t"}, {Segments: []callscribe.Segment{{Text: " "}}}, {Text: "Agent:\nUser:"}} {
		res, err := NewTagger().Tag(context.Background(), tr)
		if err != nil || len(res.Tags) != 4 {
			t.Errorf("%+v: %v %v", tr, res, err)
		}
		s, err := NewSummarizer().Summarize(context.Background(), tr)
		if err != nil || s.Summary == "" || s.Topic == nil {
			t.Errorf("%+v: %v %v", tr, s, err)
		}
	}
}

func TestSpeechEngineStyleSegments(t *testing.T) {
	// Lower case, no punctuation, a misrecognition ("pass word"), as PocketSphinx writes.
	tr := callscribe.Transcript{Segments: []callscribe.Segment{
		{Text: "thank you for calling how can i help", SpeakerAlias: "Agent", TimeStart: 0},
		{Text: "hi i am locked out of my account i forgot the pass word", SpeakerAlias: "User", TimeStart: 3},
		{Text: "i have sent you a reset link you are all set", SpeakerAlias: "Agent", TimeStart: 9},
		{Text: "great that works thanks", SpeakerAlias: "User", TimeStart: 14},
	}}
	res, _ := NewTagger().Tag(context.Background(), tr)
	if one(res, "call_reason") != "account_access" || one(res, "call_outcome") != "resolved" {
		t.Errorf("got %v", res.Tags)
	}
	if res.MetaData["source"] != "segments" || res.MetaData["speakers_known"] != true {
		t.Errorf("meta %v", res.MetaData)
	}
}

var sentenceEnd = regexp.MustCompile(`[.!?]["')]*(\s|$)`)

func TestSummaryShape(t *testing.T) {
	tr := callscribe.Transcript{Text: "Agent: Thanks for calling, how can I help?\nUser: I want a refund for the jacket I sent back, it still hasn't been credited.\nAgent: I'm sorry. I've issued the refund now, it takes three days.\nUser: Thank you so much, that's brilliant."}
	res, err := NewSummarizer().Summarize(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Topic == nil || len(strings.Fields(*res.Topic)) > 6 || !strings.HasPrefix(*res.Topic, "Refund") {
		t.Errorf("topic %v", res.Topic)
	}
	n := len(sentenceEnd.FindAllString(res.Summary, -1))
	if n < 2 || n > 4 {
		t.Errorf("%d sentences: %s", n, res.Summary)
	}
	for _, want := range []string{"money back", "refund for the jacket", "resolved", "satisfied"} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary lacks %q: %s", want, res.Summary)
		}
	}
	if res.MetaData["method"] != SummarizerMethod || res.MetaData["words"].(int) < 20 || res.MetaData["characters"].(int) < 100 || res.MetaData["turns"] != 4 {
		t.Errorf("meta %v", res.MetaData)
	}
}

func TestTopicCueMustReadAsALabel(t *testing.T) {
	for cue, want := range map[string]bool{
		"charged twice": true, "card stolen": true, "password reset": true,
		// Fragments the lexicon matches that name nothing on their own.
		"end my": false, "didn't make": false, "is this the": false, "love the": false,
		"does it come with": false, "haven't heard": false, "package": false, "": false,
	} {
		if got := contentPhrase(cue); got != want {
			t.Errorf("contentPhrase(%q) = %v, want %v", cue, got, want)
		}
	}
}

// TestSummaryMeasures pins the two summary measures of make bench-insights.
func TestSummaryMeasures(t *testing.T) {
	for topic, want := range map[string]string{
		"Billing: charged twice":         "billing",
		"Order status":                   "order_status",
		"Delivery: order never arrived":  "delivery", // the first mention counts
		"Account access: password reset": "account_access",
		"General enquiry":                "other",
		"Something else":                 "",
	} {
		if got := TopicReason(topic); got != want {
			t.Errorf("TopicReason(%q) = %q, want %q", topic, got, want)
		}
	}
	for _, v := range classesOf(callscribe.CategoryCallOutcome) {
		s := "The customer called about a refund. " + OutcomeSentence(v) + " The customer sounded satisfied."
		for _, w := range classesOf(callscribe.CategoryCallOutcome) {
			if got := OutcomeStated(s, w); got != (v == w) {
				t.Errorf("OutcomeStated(%q, %s) = %v", s, w, got)
			}
		}
	}
}

func TestPhoneticKey(t *testing.T) {
	same := [][2]string{{"cancellation", "cancelation"}, {"their", "there"}, {"phone", "fone"}, {"knight", "night"},
		{"charge", "charj"}, {"escalate", "eskalate"}, {"supervisor", "supervisr"}, {"verification", "verificasion"}}
	for _, p := range same {
		if a, b := phoneticKey(p[0]), phoneticKey(p[1]); a != b {
			t.Errorf("phoneticKey(%q) = %q, phoneticKey(%q) = %q: want one key", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{{"refund", "refuse"}, {"bill", "pill"}, {"order", "border"}, {"charge", "change"}}
	for _, p := range differ {
		if a, b := phoneticKey(p[0]), phoneticKey(p[1]); a == b {
			t.Errorf("phoneticKey(%q) = phoneticKey(%q) = %q: want different keys", p[0], p[1], a)
		}
	}
	if phoneticKey("") != "" || phoneticKey("'") != "" {
		t.Error("empty word")
	}
}

// TestPhoneticCueMatching: with phonetic matching a cue word of five letters or
// more also matches the speech engine's misspelling of it; without, it does not;
// short cue words never match by sound.
func TestPhoneticCueMatching(t *testing.T) {
	const call = "User: i want to talk about a cancelation and a reembursment"
	valueScore := func(phonetic bool, value string) float64 {
		a := lexiconFor(phonetic).analyzeLexicon(callscribe.Transcript{Text: call})
		return score(a.cats[callscribe.CategoryCallReason], value)
	}
	if valueScore(false, "cancellation") != 0 {
		t.Fatal("the misspelling matched without phonetic matching")
	}
	if valueScore(true, "cancellation") == 0 || valueScore(true, "refund") == 0 {
		t.Errorf("phonetic matching missed a misspelled cue: cancellation %v, refund %v", valueScore(true, "cancellation"), valueScore(true, "refund"))
	}
	// "fee" (billing) is too short to match "foe" by sound.
	a := lexiconFor(true).analyzeLexicon(callscribe.Transcript{Text: "User: there is a foe on it"})
	if a.cats[callscribe.CategoryCallReason].scores["billing"] != nil {
		t.Errorf("a short cue matched by sound: %v", a.cats[callscribe.CategoryCallReason].scores["billing"])
	}
}
