package insights_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// The tagger and summarizer measured on the labelled calls (package evalset,
// which imports this one: hence an external test package).

func TestSummariesOfTheLabelledSet(t *testing.T) {
	calls, err := evalset.LoadLabelledSet("../../../testdata/insights")
	if err != nil {
		t.Fatal(err)
	}
	s := insights.NewSummarizer()
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
func originalCalls(tb testing.TB) []evalset.LabelledCall {
	tb.Helper()
	calls, err := evalset.LoadLabelledSet("../../../testdata/insights")
	if err != nil {
		tb.Fatal(err)
	}
	var out []evalset.LabelledCall
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
	tg := insights.NewTagger()
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
	s := insights.NewSummarizer()
	b.SetBytes(int64(len(tr.Text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Summarize(context.Background(), tr); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDevSplitAccuracy keeps the trained model's dev figures (the split its
// settings were chosen on; make train-insights prints them) from slipping:
// the floors sit one call below model v10's measured 78.4% (first reason),
// 91.9% and 86.5%. Dev is held out of the fit and only breaks ties in the
// search, which chooses by cross-validation over
// writers (v10: 1,581 calls of 29 writers), not on dev's 37 calls of one
// writer: v8 read one dev call's reason worse than v7 and one call each of
// sentiment and outcome better, v10 one outcome worse than v9.
func TestDevSplitAccuracy(t *testing.T) {
	calls, err := evalset.LoadLabelledSet("../../../testdata/insights-dev")
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
	if res.MetaData["model_version"] == nil || len(by) != len(insights.LinearCategories) {
		t.Fatalf("meta %v", res.MetaData)
	}
	// The version names these weights: another model file reports another one.
	sum := sha256.Sum256(insights.EmbeddedModel())
	if want := "2-" + hex.EncodeToString(sum[:4]); res.MetaData["model_version"] != want {
		t.Errorf("model_version %v, want %s", res.MetaData["model_version"], want)
	}
	ev, _ := res.MetaData["evidence"].(map[string]any)
	for _, cat := range insights.LinearCategories {
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
func scoreCalls(t *testing.T, calls []evalset.LabelledCall) *evalset.Tally {
	t.Helper()
	var tally evalset.Tally
	tagger := insights.NewTagger()
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

// TestSummaryAgreesWithTheTags: the summary's topic names the tagger's primary
// reason and states the tagger's outcome, on every original call.
func TestSummaryAgreesWithTheTags(t *testing.T) {
	s := insights.NewSummarizer()
	for _, c := range originalCalls(t) {
		tags := tag(t, c.Text).Tags
		res, err := s.Summarize(context.Background(), callscribe.Transcript{Text: c.Text})
		if err != nil {
			t.Fatal(err)
		}
		if r := tags[callscribe.CategoryCallReason][0]; !insights.TopicNamesReason(*res.Topic, r) {
			t.Errorf("%s: topic %q does not name %s", c.File, *res.Topic, r)
		}
		if o := tags[callscribe.CategoryCallOutcome][0]; !insights.OutcomeStated(res.Summary, o) {
			t.Errorf("%s: summary does not state %s: %s", c.File, o, res.Summary)
		}
	}
}

// tag runs the built-in tagger on a plain-text transcript.
func tag(t *testing.T, text string) *callscribe.TagsResult {
	t.Helper()
	res, err := insights.NewTagger().Tag(context.Background(), callscribe.Transcript{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sentenceEnd ends a sentence of a summary (as in TestSummaryShape).
var sentenceEnd = regexp.MustCompile(`[.!?]["')]*(\s|$)`)
