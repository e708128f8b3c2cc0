// Package evalset reads the tagger's labelled calls (the train, dev and test
// splits of testdata) and scores tags and summaries against them: what the
// benches, the trainer (insights/train) and the accuracy tests read; the
// service does not.
package evalset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
)

// LabelledCall is one call of a labelled set (testdata/insights is the train
// split, testdata/insights-dev and testdata/insights-test the others): the file
// with its dialogue and the expected tags. CallReason[0] is the primary reason.
type LabelledCall struct {
	File              string   `json:"file"`
	CallReason        []string `json:"call_reason"`
	CustomerSentiment string   `json:"customer_sentiment"`
	CallOutcome       string   `json:"call_outcome"`
	// Style is how the call was written (terse, rambling, asr, two_issues,
	// polite_unresolved, follow_up; original for the first 48 calls, written
	// next to the lexicon). Optional; it changes nothing in the scoring.
	Style string `json:"style,omitempty"`
	// TrainOnly marks calls written after the seeded split, to train on only:
	// they are always in train and outside the split's rule (TestSplitAssignment)
	// and the evaluation set's composition (TestLabelledSetComposition).
	TrainOnly bool `json:"train_only,omitempty"`
	// Writer names who wrote the call (a writer, or a round written by one
	// hand): SelectLinear cross-validates by writer (writerFolds). Every call
	// of train and dev but the original ones has one.
	Writer string `json:"writer,omitempty"`
	// Text is the dialogue, read by LoadLabelledSet.
	Text string `json:"-"`
}

// LoadLabelledSet reads labels.json and every call file of dir, checking that
// the labels are taxonomy values.
func LoadLabelledSet(dir string) ([]LabelledCall, error) {
	b, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Calls []LabelledCall `json:"calls"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("labels.json: %w", err)
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		if len(c.CallReason) == 0 || !callscribe.IsTaxonomyValue(callscribe.CategoryCustomerSentiment, c.CustomerSentiment) ||
			!callscribe.IsTaxonomyValue(callscribe.CategoryCallOutcome, c.CallOutcome) {
			return nil, fmt.Errorf("labels.json: %s: bad labels", c.File)
		}
		for _, r := range c.CallReason {
			if !callscribe.IsTaxonomyValue(callscribe.CategoryCallReason, r) {
				return nil, fmt.Errorf("labels.json: %s: call_reason %q not in the taxonomy", c.File, r)
			}
		}
		text, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			return nil, err
		}
		c.Text = string(text)
	}
	return f.Calls, nil
}

// Scores are the accuracies of a tagger over a labelled set, each a fraction of
// Calls.
//
//   - ReasonHit: the primary expected call_reason is among the predicted values
//     (at most 3). This is the headline call_reason metric.
//   - ReasonTop1: the first predicted call_reason is the primary expected one.
//   - ReasonPrecision, ReasonRecall: over every call_reason value, the
//     listed values that are labelled, and the labelled values that are
//     listed; ReasonListed is the values listed a call. ReasonHit alone would
//     reward listing more values; these show what the list costs.
//   - Sentiment, Outcome: exact match of the single value.
//   - Topic, OutcomeStated: the summary measures (insights/summaryscore.go), over the
//     Summaries calls whose summary was added (AddSummary): the topic names the
//     primary reason first; the summary contains the labelled outcome's sentence.
type Scores struct {
	Calls      int
	ReasonHit  float64
	ReasonTop1 float64
	// ReasonPrecision, ReasonRecall and ReasonListed compare the call_reason
	// lists as sets of values (see above).
	ReasonPrecision, ReasonRecall, ReasonListed float64
	Sentiment                                   float64
	Outcome                                     float64
	Summaries                                   int
	Topic                                       float64
	OutcomeStated                               float64
}

// Miss describes one disagreement, for bench output.
type Miss struct {
	File, Category, Want string
	Got                  []string
}

// ScoreCall compares one prediction with its labels and returns the misses.
func ScoreCall(c LabelledCall, tags map[string][]string) (reasonHit, reasonTop1, sentiment, outcome bool, misses []Miss) {
	got := tags[callscribe.CategoryCallReason]
	reasonHit = slices.Contains(got, c.CallReason[0])
	reasonTop1 = len(got) > 0 && got[0] == c.CallReason[0]
	sentiment = firstOf(tags[callscribe.CategoryCustomerSentiment]) == c.CustomerSentiment
	outcome = firstOf(tags[callscribe.CategoryCallOutcome]) == c.CallOutcome
	if !reasonHit {
		misses = append(misses, Miss{c.File, callscribe.CategoryCallReason, c.CallReason[0], got})
	}
	if !sentiment {
		misses = append(misses, Miss{c.File, callscribe.CategoryCustomerSentiment, c.CustomerSentiment, tags[callscribe.CategoryCustomerSentiment]})
	}
	if !outcome {
		misses = append(misses, Miss{c.File, callscribe.CategoryCallOutcome, c.CallOutcome, tags[callscribe.CategoryCallOutcome]})
	}
	return
}

// Tally accumulates ScoreCall results into Scores.
type Tally struct {
	n, top1, sent, out  int
	sums, topic, stated int
	reasons             ListScore // its primary count is the reason hit rate
	Misses              []Miss
}

// AddSummary records one call's summary (topic and text) by the summary
// measures; a topic or outcome sentence that misses is listed in Misses under
// "topic" or "summary_outcome".
func (t *Tally) AddSummary(c LabelledCall, topic, summary string) {
	t.sums++
	if insights.TopicNamesReason(topic, c.CallReason[0]) {
		t.topic++
	} else {
		t.Misses = append(t.Misses, Miss{c.File, "topic", c.CallReason[0], []string{topic}})
	}
	if insights.OutcomeStated(summary, c.CallOutcome) {
		t.stated++
	} else {
		t.Misses = append(t.Misses, Miss{c.File, "summary_outcome", c.CallOutcome, []string{summary}})
	}
}

// Add records one call.
func (t *Tally) Add(c LabelledCall, tags map[string][]string) {
	_, top1, sent, out, misses := ScoreCall(c, tags)
	t.n++
	t.top1 += b2i(top1)
	t.sent += b2i(sent)
	t.out += b2i(out)
	t.reasons.Add(tags[callscribe.CategoryCallReason], c.CallReason)
	t.Misses = append(t.Misses, misses...)
}

// Scores returns the accuracies so far.
func (t *Tally) Scores() Scores {
	if t.n == 0 {
		return Scores{}
	}
	n := float64(t.n)
	s := Scores{Calls: t.n, ReasonHit: float64(t.reasons.primary) / n, ReasonTop1: float64(t.top1) / n, Sentiment: float64(t.sent) / n, Outcome: float64(t.out) / n, Summaries: t.sums}
	s.ReasonPrecision, s.ReasonRecall, s.ReasonListed = t.reasons.precision(), t.reasons.recall(), t.reasons.perCall()
	if t.sums > 0 {
		s.Topic, s.OutcomeStated = float64(t.topic)/float64(t.sums), float64(t.stated)/float64(t.sums)
	}
	return s
}

// ListScore compares the values listed for calls with their labelled lists
// (call_reason's), summed over calls: the bench's precision and recall, and
// the F1 by which SelectLinear chooses how secondary reasons are listed.
type ListScore struct {
	calls, listed, labelled int
	right                   int // listed values that are labelled
	primary                 int // calls whose first labelled value is listed
}

// Add scores one call's listed values against its labelled ones.
func (s *ListScore) Add(listed, labelled []string) {
	s.calls++
	s.listed += len(listed)
	s.labelled += len(labelled)
	for _, v := range listed {
		if slices.Contains(labelled, v) {
			s.right++
		}
	}
	if len(labelled) > 0 && slices.Contains(listed, labelled[0]) {
		s.primary++
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (s ListScore) precision() float64 { return ratio(s.right, s.listed) }
func (s ListScore) recall() float64    { return ratio(s.right, s.labelled) }
func (s ListScore) perCall() float64   { return ratio(s.listed, s.calls) }

// F1 is the harmonic mean of precision and recall.
func (s ListScore) F1() float64 {
	p, r := s.precision(), s.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// String is the score as the training log prints it.
func (s ListScore) String() string {
	return fmt.Sprintf("F1 %.3f (precision %.3f, recall %.3f, %.2f a call, primary among them %.1f%%)",
		s.F1(), s.precision(), s.recall(), s.perCall(), 100*ratio(s.primary, s.calls))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstOf is a list's first value, "" when it is empty.
func firstOf(vals []string) string {
	if len(vals) > 0 {
		return vals[0]
	}
	return ""
}
