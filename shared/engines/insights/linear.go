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
	"strconv"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The trained part of the tagger (issue 12): a multinomial logistic regression
// per single-decision category, over word and character n-grams, words of the
// last turns and the lexicon's own scores. It is trained on the train split by
// `make train-insights` (infra/bench/cmd/trainmodel), which chooses the
// settings on the dev split and writes model.json; TestModelIsReproducible
// retrains it and compares the bytes.

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
// Why the model and not the lexicon alone (eighth round): cross-validated by
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

// linearCat is one category's trained model.
type linearCat struct {
	LinearConfig
	Classes []string             `json:"classes"`
	Weights map[string][]float64 `json:"weights"` // feature -> one weight per class
}

type linearFile struct {
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
	ReasonMinWords int                   `json:"reason_min_words,omitempty"`
	Categories     map[string]*linearCat `json:"categories"`
	// Digest names the weights, not just the format: the file's version plus
	// the start of its SHA-256, reported as meta_data.model_version, so that two
	// trainings never report the same version (a hand-bumped number was
	// forgotten once: two models shipped as "2").
	Digest string `json:"-"`
}

// defaultLinear is the embedded model; nil when the file is empty.
var defaultLinear = mustLinear(modelJSON)

func mustLinear(b []byte) *linearFile {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	f, err := parseLinear(b)
	if err != nil {
		panic("insights: model.json: " + err.Error())
	}
	return f
}

func parseLinear(b []byte) (*linearFile, error) {
	var f linearFile
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

// probs returns the class probabilities for a call's features.
func (c *linearCat) probs(x map[string]float64) []float64 {
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
	softmax(z)
	return z
}

func softmax(z []float64) {
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

// combine decides a category from the lexicon's selection and the model's
// probabilities. The model's top class wins when it is at least gate likely or
// the lexicon found nothing. call_reason then lists secondary reasons (at most
// three in all; "other" never accompanies a specific reason): those sec
// admits, or, without a rule, the lexicon's other values.
func combine(cat string, lexSel, classes []string, p []float64, gate float64, sec *SecondaryRule) (sel []string, byModel bool) {
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
func (f *linearFile) apply(a *analysis) {
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
		p := c.probs(features(a, name, c.Features, r))
		r.model = map[string]float64{}
		for i, v := range c.Classes {
			r.model[v] = p[i]
		}
		r.selected, r.byModel = combine(name, r.selected, c.Classes, p, c.Gate, c.Secondary)
	}
}

// ---- training ----

// sparse is one call's features as indices into the vocabulary.
type sparse struct {
	idx []int
	val []float64
}

// trainCat fits one category on docs with labels (indices into classes):
// full-batch gradient descent with Nesterov momentum from zero weights, a fixed
// step and a fixed number of iterations, over a sorted vocabulary, so the same
// calls give the same weights. Products are converted explicitly
// (float64(x*y)) so that no platform fuses them into FMA instructions, which
// would round differently.
func trainCat(cfg LinearConfig, classes []string, docs []map[string]float64, labels []int) *linearCat {
	df := map[string]int{}
	for _, d := range docs {
		for k := range d {
			df[k]++
		}
	}
	var vocab []string
	for k, n := range df {
		if n >= cfg.MinDF || k == "bias" || strings.HasPrefix(k, "x:") {
			vocab = append(vocab, k)
		}
	}
	slices.Sort(vocab)
	index := make(map[string]int, len(vocab))
	for i, k := range vocab {
		index[k] = i
	}
	xs := make([]sparse, len(docs))
	meanVal := make([]float64, len(vocab)) // a feature's mean value where present
	maxNorm := 0.0
	for i, d := range docs {
		var s sparse
		for _, k := range vocab {
			if v, ok := d[k]; ok {
				s.idx = append(s.idx, index[k])
				s.val = append(s.val, v)
				meanVal[index[k]] += v / float64(df[k])
			}
		}
		n := 0.0
		for _, v := range s.val {
			n += float64(v * v)
		}
		maxNorm = max(maxNorm, n)
		xs[i] = s
	}
	K, D := len(classes), len(vocab)
	bias := index["bias"]
	// Step 1/L with L bounding the curvature: softmax cross-entropy's Hessian is
	// at most 0.5·|x|² per call, the penalty adds lambda.
	lr := 1 / (float64(0.5*maxNorm) + cfg.Lambda)
	w := make([]float64, D*K)
	prev := make([]float64, D*K)
	y := make([]float64, D*K)
	g := make([]float64, D*K)
	z := make([]float64, K)
	invN := 1 / float64(len(docs))
	for it := 0; it < cfg.Iterations; it++ {
		mom := float64(it) / float64(it+3)
		// One pass over the dense arrays (the same operations per element as
		// separate loops, so the same bits, in less memory traffic).
		for j := range y {
			y[j] = w[j] + float64(mom*(w[j]-prev[j]))
			g[j] = float64(cfg.Lambda * y[j])
		}
		for k := 0; k < K; k++ {
			g[bias*K+k] = 0
		}
		for i, x := range xs {
			for k := range z {
				z[k] = 0
			}
			for t, j := range x.idx {
				for k := 0; k < K; k++ {
					z[k] += float64(x.val[t] * y[j*K+k])
				}
			}
			softmax(z)
			z[labels[i]] -= 1
			for t, j := range x.idx {
				for k := 0; k < K; k++ {
					g[j*K+k] += float64(float64(x.val[t]*z[k]) * invN)
				}
			}
		}
		for j := range w {
			prev[j], w[j] = w[j], y[j]-float64(lr*g[j])
		}
	}
	c := &linearCat{LinearConfig: cfg, Classes: classes, Weights: map[string][]float64{}}
	for j, k := range vocab {
		row := make([]float64, K)
		keep := false
		for i := range row {
			row[i] = round4(w[j*K+i])
			keep = keep || math.Abs(row[i])*meanVal[j] >= pruneBelow
		}
		if keep || k == "bias" {
			c.Weights[k] = row
		}
	}
	return c
}

// pruneBelow: a feature whose weights, times the feature's mean value where it
// occurs in training, are all smaller than this is left out of model.json: it
// moves a class's log-odds by less than pruneBelow.
const pruneBelow = 0.01

func round4(f float64) float64 {
	r := math.Round(f*1e4) / 1e4
	if r == 0 {
		return 0 // no -0 in the file
	}
	return r
}

// classesOf lists a category's taxonomy values in taxonomy order.
func classesOf(cat string) []string {
	tc, _ := callscribe.TaxonomyCategoryNamed(cat)
	var out []string
	for _, v := range tc.Values {
		out = append(out, v.Value)
	}
	return out
}

// label is a call's expected value for a category (the primary reason).
func label(c LabelledCall, cat string) string {
	switch cat {
	case callscribe.CategoryCallReason:
		return c.CallReason[0]
	case callscribe.CategoryCustomerSentiment:
		return c.CustomerSentiment
	}
	return c.CallOutcome
}

// lexiconOnly is the lexicon without the trained model: what the model's
// lexicon features and the fallback read.
var lexiconOnly = mustModel(lexiconJSON)

// prepared is a labelled set analysed once by the lexicon.
type prepared struct {
	calls []LabelledCall
	an    []*analysis
	feats map[string][]map[string]float64 // cat + feature set -> per call
}

func prepare(calls []LabelledCall) *prepared {
	p := &prepared{calls: calls, feats: map[string][]map[string]float64{}}
	for _, c := range calls {
		p.an = append(p.an, lexiconOnly.analyzeLexicon(callscribe.Transcript{Text: c.Text}))
	}
	return p
}

// modelMinWords is the shortest call whose call_reason the model decides
// (ReasonMinWords). It was the shortest training call (25, then 23 words);
// dev's terse calls are shorter than any training call ("Is the hybrid estate
// available to test drive?" and a transfer: 18 words) and the lexicon alone
// missed them. Chosen on dev: first call_reason 64.9% -> 70.3% on clean text.
// The same floor for sentiment and outcome changed nothing on dev and broke
// snippets the lexicon reads right (a complaint that ends in thanks is mixed,
// the model said positive), so they keep the shortest training call.
const modelMinWords = 8

// minWords is the length in words (tokens) of the shortest call.
func (p *prepared) minWords() int {
	n := 0
	for i, a := range p.an {
		if i == 0 || len(a.toks) < n {
			n = len(a.toks)
		}
	}
	return n
}

func (p *prepared) features(cat string, fs FeatureSet) []map[string]float64 {
	key := cat + "/" + fs.String()
	if f, ok := p.feats[key]; ok {
		return f
	}
	out := make([]map[string]float64, len(p.an))
	for i, a := range p.an {
		out[i] = features(a, cat, fs, a.cats[cat])
	}
	p.feats[key] = out
	return out
}

func (p *prepared) fit(cat string, cfg LinearConfig) *linearCat {
	classes := classesOf(cat)
	var labels []int
	for _, c := range p.calls {
		labels = append(labels, slices.Index(classes, label(c, cat)))
	}
	return trainCat(cfg, classes, p.features(cat, cfg.Features), labels)
}

// TrainLinear fits every category of configs on the train calls and returns
// model.json's bytes.
func TrainLinear(train []LabelledCall, configs map[string]LinearConfig) ([]byte, error) {
	p := prepare(train)
	f := &linearFile{Version: "2", MinWords: p.minWords(), ReasonMinWords: min(p.minWords(), modelMinWords), Categories: map[string]*linearCat{}}
	for _, name := range LinearCategories {
		cfg, ok := configs[name]
		if !ok {
			continue
		}
		f.Categories[name] = p.fit(name, cfg)
	}
	return encodeLinear(f), nil
}

// ConfigsOf returns the settings recorded in a model file (the embedded one
// when b is nil), for retraining.
func ConfigsOf(b []byte) (map[string]LinearConfig, error) {
	if b == nil {
		b = modelJSON
	}
	f, err := parseLinear(b)
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

var linearAbout = []string{
	"The built-in tagger's trained part (issue 12): per category a multinomial logistic regression,",
	"written by `make train-insights` (infra/bench/cmd/trainmodel) from the train split (testdata/insights) with",
	"the settings chosen on the dev split; do not edit by hand, retrain. weights: feature -> one weight per class",
	"(in classes order), rounded to 4 decimals, features that move no class's log-odds by 0.01 (weight x mean value) left out.",
	"Features: bias; w: word stem unigrams and bigrams; c: character 3-5-grams of the stems (< > mark the word's ends);",
	"e: words of the last two turns of each speaker (call_outcome) or of the customer (customer_sentiment),",
	"with sides: e:a1: the agent's last turn, e:u2: the customer's one before (e:?n: speakers unknown);",
	"p: phonetic keys of the stems (unigrams, bigrams); f: words of the customer's first two turns (call_reason);",
	"x: log(1+score) of the lexicon's score for that value. Text groups are binary, scaled to unit length.",
	"gate: the model decides when its top probability reaches it, the lexicon (lexicon.json) otherwise;",
	"min_words: calls shorter than the shortest training call (in words) are left to the lexicon;",
	"reason_min_words: the same for call_reason, at most 8 words.",
}

// encodeLinear writes the file with one line per feature, keys sorted.
func encodeLinear(f *linearFile) []byte {
	var b bytes.Buffer
	js := func(v any) string {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false) // "c:<re", not "c:\u003cre"
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		return strings.TrimSuffix(out.String(), "\n")
	}
	b.WriteString("{\n \"_about\": [\n")
	for i, s := range linearAbout {
		b.WriteString("  " + js(s))
		if i < len(linearAbout)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(" ],\n \"version\": " + js(f.Version) + ",\n \"min_words\": " + js(f.MinWords) + ",\n \"reason_min_words\": " + js(f.ReasonMinWords) + ",\n \"categories\": {\n")
	var names []string
	for k := range f.Categories {
		names = append(names, k)
	}
	slices.Sort(names)
	for ci, name := range names {
		c := f.Categories[name]
		cfg := js(c.LinearConfig)
		b.WriteString("  " + js(name) + ": {\n   " + cfg[1:len(cfg)-1] + ",\n")
		b.WriteString("   \"classes\": " + js(c.Classes) + ",\n   \"weights\": {\n")
		var keys []string
		for k := range c.Weights {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			b.WriteString("    " + js(k) + ": [")
			for j, w := range c.Weights[k] {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString(strconv.FormatFloat(w, 'f', -1, 64))
			}
			b.WriteString("]")
			if i < len(keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("   }\n  }")
		if ci < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(" }\n}\n")
	return b.Bytes()
}
