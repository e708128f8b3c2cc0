package insights

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
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
//   - Topic, OutcomeStated: the summary measures (summaryscore.go), over the
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
	for _, v := range got {
		reasonHit = reasonHit || v == c.CallReason[0]
	}
	reasonTop1 = len(got) > 0 && got[0] == c.CallReason[0]
	sentiment = first(tags[callscribe.CategoryCustomerSentiment], "") == c.CustomerSentiment
	outcome = first(tags[callscribe.CategoryCallOutcome], "") == c.CallOutcome
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
	n, hit, top1, sent, out int
	sums, topic, stated     int
	// call_reason values listed, labelled, and both (precision and recall)
	listed, labelled, right int
	Misses                  []Miss
}

// AddSummary records one call's summary (topic and text) by the summary
// measures; a topic or outcome sentence that misses is listed in Misses under
// "topic" or "summary_outcome".
func (t *Tally) AddSummary(c LabelledCall, topic, summary string) {
	t.sums++
	if TopicNamesReason(topic, c.CallReason[0]) {
		t.topic++
	} else {
		t.Misses = append(t.Misses, Miss{c.File, "topic", c.CallReason[0], []string{topic}})
	}
	if OutcomeStated(summary, c.CallOutcome) {
		t.stated++
	} else {
		t.Misses = append(t.Misses, Miss{c.File, "summary_outcome", c.CallOutcome, []string{summary}})
	}
}

// Add records one call.
func (t *Tally) Add(c LabelledCall, tags map[string][]string) {
	hit, top1, sent, out, misses := ScoreCall(c, tags)
	t.n++
	t.hit += b2i(hit)
	t.top1 += b2i(top1)
	t.sent += b2i(sent)
	t.out += b2i(out)
	got := tags[callscribe.CategoryCallReason]
	t.listed += len(got)
	t.labelled += len(c.CallReason)
	for _, v := range got {
		if slices.Contains(c.CallReason, v) {
			t.right++
		}
	}
	t.Misses = append(t.Misses, misses...)
}

// Scores returns the accuracies so far.
func (t *Tally) Scores() Scores {
	if t.n == 0 {
		return Scores{}
	}
	n := float64(t.n)
	s := Scores{Calls: t.n, ReasonHit: float64(t.hit) / n, ReasonTop1: float64(t.top1) / n, Sentiment: float64(t.sent) / n, Outcome: float64(t.out) / n, Summaries: t.sums}
	s.ReasonListed = float64(t.listed) / n
	if t.listed > 0 {
		s.ReasonPrecision = float64(t.right) / float64(t.listed)
	}
	if t.labelled > 0 {
		s.ReasonRecall = float64(t.right) / float64(t.labelled)
	}
	if t.sums > 0 {
		s.Topic, s.OutcomeStated = float64(t.topic)/float64(t.sums), float64(t.stated)/float64(t.sums)
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
