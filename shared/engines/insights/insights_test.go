package insights

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

func TestSummariesOfTheLabelledSet(t *testing.T) {
	calls, err := LoadLabelledSet("../../../testdata/insights")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSummarizer()
	for _, c := range calls {
		res, err := s.Summarize(context.Background(), callscribe.Transcript{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		n := len(sentenceEnd.FindAllString(res.Summary, -1))
		if res.Topic == nil || len(strings.Fields(*res.Topic)) > 6 || n < 2 || n > 4 || !strings.HasPrefix(res.Summary, "The customer called about ") {
			t.Errorf("%s: topic %q, %d sentences: %s", c.File, *res.Topic, n, res.Summary)
		}
	}
}

// TestLabelledSetAccuracy guards against regressions of the lexicon. The floors
// sit a little below the measured figures (make bench-insights prints them);
// raise them when the model improves.
//
// It reads the 48 original calls of the train split only (style "original"):
// the floors were set on them, next to which the lexicon was written. The
// calls added later are measured by make bench-insights, per split.
func TestLabelledSetAccuracy(t *testing.T) {
	calls := originalCalls(t)
	if len(calls) < 40 {
		t.Fatalf("labelled set has %d calls, want at least 40", len(calls))
	}
	// The set covers every reason twice as primary and every sentiment and outcome.
	primary := map[string]int{}
	seen := map[string]bool{}
	for _, c := range calls {
		primary[c.CallReason[0]]++
		seen[c.CustomerSentiment], seen[c.CallOutcome] = true, true
	}
	for _, cat := range callscribe.Taxonomy() {
		for _, v := range cat.Values {
			switch cat.Name {
			case callscribe.CategoryCallReason:
				if primary[v.Value] < 2 {
					t.Errorf("call_reason %s is primary in %d calls", v.Value, primary[v.Value])
				}
			case callscribe.CategoryCustomerSentiment, callscribe.CategoryCallOutcome:
				if !seen[v.Value] {
					t.Errorf("%s %s not covered", cat.Name, v.Value)
				}
			}
		}
	}
	tally := scoreCalls(t, calls)
	s := tally.Scores()
	t.Logf("call_reason %.1f%% (top-1 %.1f%%), sentiment %.1f%%, outcome %.1f%%", 100*s.ReasonHit, 100*s.ReasonTop1, 100*s.Sentiment, 100*s.Outcome)
	requireFloors(t, "", floor{"call_reason", s.ReasonHit, 0.93}, floor{"customer_sentiment", s.Sentiment, 0.83}, floor{"call_outcome", s.Outcome, 0.85})
	if t.Failed() {
		for _, m := range tally.Misses {
			t.Logf("miss %s %s: want %s got %v", m.File, m.Category, m.Want, m.Got)
		}
	}
}

// originalCalls are the 48 calls of the train split written next to the
// lexicon (style "original"), the set the regression floors were set on.
func originalCalls(tb testing.TB) []LabelledCall {
	tb.Helper()
	calls, err := LoadLabelledSet("../../../testdata/insights")
	if err != nil {
		tb.Fatal(err)
	}
	var out []LabelledCall
	for _, c := range calls {
		if c.Style == "original" {
			out = append(out, c)
		}
	}
	if len(out) != 48 {
		tb.Fatalf("train split has %d original calls, want 48", len(out))
	}
	return out
}

// longCall is the original 48 calls as one call, about 48 calls' worth of turns.
func longCall(b *testing.B) callscribe.Transcript {
	calls := originalCalls(b)
	var sb strings.Builder
	for _, c := range calls {
		sb.WriteString(c.Text)
	}
	return callscribe.Transcript{Text: sb.String()}
}

func BenchmarkTag(b *testing.B) {
	tr := longCall(b)
	tg := NewTagger()
	b.SetBytes(int64(len(tr.Text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := tg.Tag(context.Background(), tr); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	tr := longCall(b)
	s := NewSummarizer()
	b.SetBytes(int64(len(tr.Text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Summarize(context.Background(), tr); err != nil {
			b.Fatal(err)
		}
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

// TestModelIsReproducible retrains the embedded model.json from the train split
// with the settings it records and compares the bytes: the file is what
// `make train-insights` writes, nothing edited by hand.
func TestModelIsReproducible(t *testing.T) {
	train, err := LoadLabelledSet("../../../testdata/insights")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := ConfigsOf(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != len(LinearCategories) {
		t.Fatalf("model.json decides %d categories, want %d", len(cfgs), len(LinearCategories))
	}
	b, err := TrainLinear(train, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, EmbeddedModel()) {
		t.Errorf("retraining gives %d bytes that differ from the embedded model.json (%d bytes): run make train-insights", len(b), len(EmbeddedModel()))
	}
}

// TestDevSplitAccuracy keeps the trained model's dev figures (the split its
// settings were chosen on; make train-insights prints them) from slipping:
// the floors sit one call below model v10's measured 78.4% (first reason),
// 91.9% and 86.5%. Dev is held out of the fit and only breaks ties in the
// search, which since the sixth round chooses by cross-validation over
// writers (v10: 1,581 calls of 29 writers), not on dev's 37 calls of one
// writer: v8 read one dev call's reason worse than v7 and one call each of
// sentiment and outcome better, v10 one outcome worse than v9.
func TestDevSplitAccuracy(t *testing.T) {
	calls, err := LoadLabelledSet("../../../testdata/insights-dev")
	if err != nil {
		t.Fatal(err)
	}
	s := scoreCalls(t, calls).Scores()
	t.Logf("dev: call_reason %.1f%% (top-1 %.1f%%), sentiment %.1f%%, outcome %.1f%%", 100*s.ReasonHit, 100*s.ReasonTop1, 100*s.Sentiment, 100*s.Outcome)
	requireFloors(t, "dev ", floor{"call_reason first value", s.ReasonTop1, 0.75}, floor{"customer_sentiment", s.Sentiment, 0.89}, floor{"call_outcome", s.Outcome, 0.83})
}

// TestModelDecisionIsReported: on a whole call the trained model runs for its
// three categories, its values are taxonomy values, and meta_data says who
// decided and with what probability.
func TestModelDecisionIsReported(t *testing.T) {
	calls := originalCalls(t)
	res := tag(t, calls[0].Text)
	by, _ := res.MetaData["decided_by"].(map[string]any)
	if res.MetaData["model_version"] == nil || len(by) != len(LinearCategories) {
		t.Fatalf("meta %v", res.MetaData)
	}
	// The version names these weights: another model file reports another one.
	sum := sha256.Sum256(EmbeddedModel())
	if want := "2-" + hex.EncodeToString(sum[:4]); res.MetaData["model_version"] != want {
		t.Errorf("model_version %v, want %s", res.MetaData["model_version"], want)
	}
	ev, _ := res.MetaData["evidence"].(map[string]any)
	for _, cat := range LinearCategories {
		if by[cat] != "model" && by[cat] != "lexicon" {
			t.Errorf("%s decided by %v", cat, by[cat])
		}
		vals := res.Tags[cat]
		if len(vals) == 0 {
			t.Fatalf("%s: no value", cat)
		}
		for _, v := range vals {
			if !callscribe.IsTaxonomyValue(cat, v) {
				t.Errorf("%s: %q not in the taxonomy", cat, v)
			}
		}
		e, _ := ev[cat].(map[string]any)[vals[0]].(map[string]any)
		if p, ok := e["model_probability"].(float64); !ok || p <= 0 || p > 1 {
			t.Errorf("%s: evidence %v", cat, ev[cat])
		}
	}
	// A snippet shorter than the shortest training call is left to the lexicon.
	short := tag(t, "User: I want to cancel my membership.")
	if short.MetaData["decided_by"].(map[string]any)[callscribe.CategoryCallReason] != nil {
		t.Errorf("the model decided a one-line snippet: %v", short.MetaData)
	}
}

// scoreCalls tags every call's clean text and scores the tags.
func scoreCalls(t *testing.T, calls []LabelledCall) *Tally {
	t.Helper()
	var tally Tally
	tagger := NewTagger()
	for _, c := range calls {
		res, err := tagger.Tag(context.Background(), callscribe.Transcript{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		tally.Add(c, res.Tags)
	}
	return &tally
}

// floor is a minimum accuracy a test keeps.
type floor struct {
	name       string
	got, floor float64
}

func requireFloors(t *testing.T, prefix string, floors ...floor) {
	t.Helper()
	for _, f := range floors {
		if f.got < f.floor {
			t.Errorf("%s%s accuracy %.1f%% below the floor %.0f%%", prefix, f.name, 100*f.got, 100*f.floor)
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

// TestSummaryAgreesWithTheTags: the summary's topic names the tagger's primary
// reason and states the tagger's outcome, on every original call.
func TestSummaryAgreesWithTheTags(t *testing.T) {
	s := NewSummarizer()
	for _, c := range originalCalls(t) {
		tags := tag(t, c.Text).Tags
		res, err := s.Summarize(context.Background(), callscribe.Transcript{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		if r := tags[callscribe.CategoryCallReason][0]; !TopicNamesReason(*res.Topic, r) {
			t.Errorf("%s: topic %q does not name %s", c.File, *res.Topic, r)
		}
		if o := tags[callscribe.CategoryCallOutcome][0]; !OutcomeStated(res.Summary, o) {
			t.Errorf("%s: summary does not state %s: %s", c.File, o, res.Summary)
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
