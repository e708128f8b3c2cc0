package train

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

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
func trainCat(cfg insights.LinearConfig, classes []string, docs []map[string]float64, labels []int) *insights.CategoryModel {
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
			insights.Softmax(z)
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
	c := &insights.CategoryModel{LinearConfig: cfg, Classes: classes, Weights: map[string][]float64{}}
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

// label is a call's expected value for a category (the primary reason).
func label(c evalset.LabelledCall, cat string) string {
	switch cat {
	case callscribe.CategoryCallReason:
		return c.CallReason[0]
	case callscribe.CategoryCustomerSentiment:
		return c.CustomerSentiment
	}
	return c.CallOutcome
}

// prepared is a labelled set analysed once by the lexicon.
type prepared struct {
	calls []evalset.LabelledCall
	an    []*insights.Call
	// classes and vectors: the tables insights.FeatureSet.Clusters and
	// Vectors read (experiments only; nil otherwise).
	classes WordClasses
	vectors *WordVectors
	feats   map[string][]map[string]float64 // cat + feature set -> per call
}

// prepare analyses calls' text by the lexicon without the trained model:
// what the model's lexicon features and the fallback read.
func prepare(calls []evalset.LabelledCall) *prepared {
	return prepareWith(false, calls, nil)
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
		if i == 0 || a.Words() < n {
			n = a.Words()
		}
	}
	return n
}

func (p *prepared) features(cat string, fs insights.FeatureSet) []map[string]float64 {
	key := cat + "/" + fs.String()
	if f, ok := p.feats[key]; ok {
		return f
	}
	out := make([]map[string]float64, len(p.an))
	for i, a := range p.an {
		out[i] = p.featuresOf(a, cat, fs)
	}
	p.feats[key] = out
	return out
}

func (p *prepared) fit(cat string, cfg insights.LinearConfig) *insights.CategoryModel {
	classes := classesOf(cat)
	var labels []int
	for _, c := range p.calls {
		labels = append(labels, slices.Index(classes, label(c, cat)))
	}
	return trainCat(cfg, classes, p.features(cat, cfg.Features), labels)
}

// TrainLinear fits every category of configs on the train calls and returns
// model.json's bytes.
func TrainLinear(train []evalset.LabelledCall, configs map[string]insights.LinearConfig) ([]byte, error) {
	p := prepare(train)
	f := &insights.ModelFile{Version: "2", MinWords: p.minWords(), ReasonMinWords: min(p.minWords(), modelMinWords), Categories: map[string]*insights.CategoryModel{}}
	for _, name := range insights.LinearCategories {
		cfg, ok := configs[name]
		if !ok {
			continue
		}
		f.Categories[name] = p.fit(name, cfg)
	}
	return encodeLinear(f), nil
}

var linearAbout = []string{
	"The built-in tagger's trained part: per category a multinomial logistic regression,",
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
func encodeLinear(f *insights.ModelFile) []byte {
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
