package insights

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The trained part of the tagger: a multinomial logistic regression
// per single-decision category, over word and character n-grams, words of the
// last turns and the lexicon's own scores. It is trained on the train split by
// `make train-insights` (infra/bench/cmd/trainmodel, package insights/train),
// which chooses the settings on the dev split and writes model.json; `make
// check-model` retrains it and compares. This file is the part the service
// reads.

//go:embed model.json
var modelJSON []byte

// LinearCategories are the categories the trained model decides.
var LinearCategories = []string{callscribe.CategoryCallReason, callscribe.CategoryCustomerSentiment, callscribe.CategoryCallOutcome}

// LinearConfig are the settings of one category's model.
type LinearConfig struct {
	Features FeatureSet `json:"features"`
	// Lambda is the L2 penalty (the bias is not penalised).
	Lambda float64 `json:"lambda"`
	// Iterations of full-batch accelerated gradient descent from zero.
	Iterations int `json:"iterations"`
	// MinDF: an n-gram must occur in this many training calls to be a feature.
	MinDF int `json:"min_df"`
	// Gate: the model decides when its top probability reaches Gate, the
	// lexicon otherwise (0: always the model; above 1: always the lexicon).
	Gate float64 `json:"gate"`
	// Secondary (call_reason only): which of the model's other classes are
	// listed after its first; nil keeps the rule of the models trained before
	// it (the lexicon's other reasons).
	Secondary *SecondaryRule `json:"secondary,omitempty"`
}

// SecondaryRule lists a call's secondary reasons from the model's
// probabilities: a class other than the first (and never "other") is listed
// when the model gives it at least Min, or at least LexiconMin when the
// lexicon also found it; at most three reasons in all, most probable first.
//
// Why the model and not the lexicon alone: cross-validated by
// writer over train+dev, listing the lexicon's other reasons after the
// model's first put 1.38 reasons on a call at a precision of 0.73 against the
// labelled reason lists (F1 0.75); the model's own runners-up, with the
// lexicon lowering the bar, listed fewer (1.22) at a precision of 0.82 (F1
// 0.79), and found the primary reason among them more often (89.2% → 91.6%).
// SelectLinear chooses the two thresholds by that F1.
type SecondaryRule struct {
	Min        float64 `json:"min"`
	LexiconMin float64 `json:"lexicon_min"`
}

// CategoryModel is one category's trained model.
type CategoryModel struct {
	LinearConfig
	Classes []string             `json:"classes"`
	Weights map[string][]float64 `json:"weights"` // feature -> one weight per class
}

// ModelFile is model.json: what ParseModel reads and the trainer
// (insights/train) writes.
type ModelFile struct {
	About   []string `json:"_about"`
	Version string   `json:"version"`
	// MinWords: the model decides only calls of at least this many words, the
	// length of the shortest training call: it was never fitted on shorter
	// snippets ("Hello.", one sentence), whose few n-grams say little, so the
	// lexicon decides those alone, and a call without evidence still gets the
	// taxonomy defaults reported as defaulted.
	MinWords int `json:"min_words"`
	// ReasonMinWords is the same floor for call_reason alone (modelMinWords,
	// or the shortest training call if that is shorter): a reason is stated
	// in a sentence, which bag-of-words features read at any length, while
	// sentiment and outcome are about how a call develops and ends, which a
	// snippet shorter than every training call does not show.
	ReasonMinWords int                       `json:"reason_min_words,omitempty"`
	Categories     map[string]*CategoryModel `json:"categories"`
	// Digest names the weights, not just the format: the file's version plus
	// the start of its SHA-256, reported as meta_data.model_version, so that two
	// trainings never report the same version (a hand-bumped number was
	// forgotten once: two models shipped as "2").
	Digest string `json:"-"`
}

// defaultLinear is the embedded model; nil when the file is empty.
var defaultLinear = mustLinear(modelJSON)

func mustLinear(b []byte) *ModelFile {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	f, err := ParseModel(b)
	if err != nil {
		panic("insights: model.json: " + err.Error())
	}
	return f
}

// ParseModel reads and checks a model file against the taxonomy; a file
// naming an experiment's features (word classes, word vectors, priced offers),
// which the service does not compute, is refused.
func ParseModel(b []byte) (*ModelFile, error) {
	var f ModelFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	f.Digest = f.Version + "-" + hex.EncodeToString(sum[:4])
	for name, c := range f.Categories {
		if !slices.Contains(LinearCategories, name) {
			return nil, fmt.Errorf("category %q is not decided by the model", name)
		}
		if c.Features.Clusters || c.Features.Vectors {
			return nil, fmt.Errorf("%s: word classes and word vectors are an experiment's features, not the service's (no table is embedded)", name)
		}
		if c.Features.Offer {
			return nil, fmt.Errorf("%s: priced offers are an experiment's features, not the service's", name)
		}
		if r := c.Secondary; r != nil && (name != callscribe.CategoryCallReason || !(r.Min > 0 && r.Min <= 1 && r.LexiconMin >= 0 && r.LexiconMin <= r.Min)) {
			return nil, fmt.Errorf("%s: secondary rule %+v: only call_reason lists secondary values, with 0 <= lexicon_min <= min <= 1 and min > 0", name, *r)
		}
		for _, v := range c.Classes {
			if !callscribe.IsTaxonomyValue(name, v) {
				return nil, fmt.Errorf("%s: class %q is not in the taxonomy", name, v)
			}
		}
		for k, w := range c.Weights {
			if len(w) != len(c.Classes) {
				return nil, fmt.Errorf("%s: feature %q has %d weights for %d classes", name, k, len(w), len(c.Classes))
			}
		}
	}
	return &f, nil
}

// Probs returns the class probabilities for a call's features.
func (c *CategoryModel) Probs(x map[string]float64) []float64 {
	z := make([]float64, len(c.Classes))
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if w, ok := c.Weights[k]; ok {
			for i := range z {
				z[i] += float64(x[k] * w[i])
			}
		}
	}
	Softmax(z)
	return z
}

// Softmax turns scores into probabilities in place (the largest score is
// subtracted first, so no exponent overflows). The trainer calls it too, so a
// fitted model's probabilities are the ones the service computes.
func Softmax(z []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	s := 0.0
	for i, v := range z {
		z[i] = math.Exp(v - m)
		s += z[i]
	}
	for i := range z {
		z[i] /= s
	}
}

func argmax(p []float64) int {
	k := 0
	for i, v := range p {
		if v > p[k] {
			k = i
		}
	}
	return k
}

// Combine decides a category from the lexicon's selection and the model's
// probabilities. The model's top class wins when it is at least gate likely or
// the lexicon found nothing. call_reason then lists secondary reasons (at most
// three in all; "other" never accompanies a specific reason): those sec
// admits, or, without a rule, the lexicon's other values.
func Combine(cat string, lexSel, classes []string, p []float64, gate float64, sec *SecondaryRule) (sel []string, byModel bool) {
	if gate > 1 || len(p) == 0 {
		return lexSel, false
	}
	k := argmax(p)
	if p[k] < gate && len(lexSel) > 0 {
		return lexSel, false
	}
	top := classes[k]
	if cat != callscribe.CategoryCallReason || top == "other" {
		return []string{top}, true
	}
	sel = []string{top}
	if sec != nil {
		var rest []int
		for i, v := range classes {
			if i == k || v == "other" {
				continue
			}
			if p[i] >= sec.Min || p[i] >= sec.LexiconMin && slices.Contains(lexSel, v) {
				rest = append(rest, i)
			}
		}
		// Most probable first; equal probabilities keep the classes' order.
		slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(p[b], p[a]) })
		for _, i := range rest[:min(len(rest), 2)] {
			sel = append(sel, classes[i])
		}
		return sel, true
	}
	for _, v := range lexSel {
		if len(sel) == 3 {
			break
		}
		if v != "other" && !slices.Contains(sel, v) {
			sel = append(sel, v)
		}
	}
	return sel, true
}

// apply lets the trained model decide its categories of an analysis.
func (f *ModelFile) apply(a *analysis) {
	for _, name := range LinearCategories {
		c := f.Categories[name]
		r := a.cats[name]
		minWords := f.MinWords
		if name == callscribe.CategoryCallReason && f.ReasonMinWords > 0 {
			minWords = f.ReasonMinWords
		}
		if c == nil || r == nil || len(a.toks) < max(minWords, 1) {
			continue
		}
		p := c.Probs(features(a, name, c.Features, r, nil))
		r.model = map[string]float64{}
		for i, v := range c.Classes {
			r.model[v] = p[i]
		}
		r.selected, r.byModel = Combine(name, r.selected, c.Classes, p, c.Gate, c.Secondary)
	}
}

// ConfigsOf returns the settings recorded in a model file (the embedded one
// when b is nil), for retraining.
func ConfigsOf(b []byte) (map[string]LinearConfig, error) {
	if b == nil {
		b = modelJSON
	}
	f, err := ParseModel(b)
	if err != nil {
		return nil, err
	}
	out := map[string]LinearConfig{}
	for k, c := range f.Categories {
		out[k] = c.LinearConfig
	}
	return out, nil
}

// EmbeddedModel is model.json as compiled in.
func EmbeddedModel() []byte { return modelJSON }

// classesOf lists a category's taxonomy values in taxonomy order.
func classesOf(cat string) []string {
	tc, _ := callscribe.TaxonomyCategoryNamed(cat)
	var out []string
	for _, v := range tc.Values {
		out = append(out, v.Value)
	}
	return out
}
