package train

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// Experiments: the tagger's candidate methods compared on dev (and by cross-validation
// over train+dev), printed by `go run ./infra/bench/cmd/trainmodel -experiments`
// and recorded in README.md. Nothing here reads the test split.

// Corpus is a labelled split with, optionally, the speech engine's transcript
// of each call (by file name; bench-insights' cache, see LoadSpeechCache).
type Corpus struct {
	Calls  []evalset.LabelledCall
	Speech map[string]callscribe.Transcript
}

// Method is one way of building the trained part: which lexicon its lexicon
// features and fallback read, which feature sets are searched per category,
// and what it trains on.
type Method struct {
	Name string
	// PhoneticMatch: the lexicon matches cue words by phonetic key too.
	PhoneticMatch bool
	// FeatureSets lists the feature sets searched for a category.
	FeatureSets func(cat string) []insights.FeatureSet
	// Augment: train on the speech engine's transcripts of the training calls
	// as well as on their text.
	Augment bool
	// Lambdas searched (nil: searchLambdas).
	Lambdas []float64
	// WordClasses: the table insights.FeatureSet.Clusters reads (required by the
	// methods whose feature sets use it).
	WordClasses WordClasses
	// WordVectors: the table insights.FeatureSet.Vectors reads (LoadWordVectors).
	WordVectors *WordVectors
}

// MethodResult is one method's figures for one category.
type MethodResult struct {
	Method, Category string
	// Config is the setting chosen on dev (clean text; ties: dev after speech,
	// then the model's dev log-likelihood), trained on train.
	Config insights.LinearConfig
	Dev    float64 // dev accuracy of Config, clean text
	// DevSpeech is Config's dev accuracy on the speech engine's transcripts
	// (-1 without them).
	DevSpeech float64
	// CV is the best k-fold cross-validated accuracy among the settings
	// searched (clean text): trained on the other folds of train+dev, scored on
	// the calls written after the lexicon (the 48 original calls, next to which
	// the lexicon was written, would flatter its share). CVConfig its setting.
	CV       float64
	CVConfig insights.LinearConfig
}

func (r MethodResult) String() string {
	return fmt.Sprintf("%-22s %-18s dev %5.1f%% after speech %5.1f%% | cv %5.1f%% | dev-chosen: %s λ=%g gate=%g | cv-chosen: %s λ=%g gate=%g",
		r.Method, r.Category, 100*r.Dev, 100*r.DevSpeech, 100*r.CV, r.Config.Features, r.Config.Lambda, r.Config.Gate, r.CVConfig.Features, r.CVConfig.Lambda, r.CVConfig.Gate)
}

// prepareWith analyses calls by a lexicon, from their text or, when speech is
// set, from the speech engine's transcripts (calls without one are left out).
func prepareWith(phoneticCues bool, calls []evalset.LabelledCall, speech map[string]callscribe.Transcript) *prepared {
	p := &prepared{feats: map[string][]map[string]float64{}}
	for _, c := range calls {
		tr := callscribe.Transcript{Text: c.Text}
		if speech != nil {
			s, ok := speech[c.File]
			if !ok {
				continue
			}
			tr = s
		}
		p.calls = append(p.calls, c)
		p.an = append(p.an, insights.ReadCall(tr, phoneticCues))
	}
	return p
}

// withClasses gives every call of p the word classes insights.FeatureSet.Clusters
// reads.
func (p *prepared) withClasses(wc WordClasses) *prepared {
	p.classes = wc
	return p
}

// withVectors gives every call of p the word vectors insights.FeatureSet.Vectors
// reads.
func (p *prepared) withVectors(wv *WordVectors) *prepared {
	p.vectors = wv
	return p
}

// concat is p's calls followed by q's.
func (p *prepared) concat(q *prepared) *prepared {
	return &prepared{calls: append(slices.Clone(p.calls), q.calls...), an: append(slices.Clone(p.an), q.an...), classes: p.classes, vectors: p.vectors, feats: map[string][]map[string]float64{}}
}

// firstValue is what the tagger decides first for a category from the
// lexicon's selection and the model's probabilities (nil: the lexicon alone).
func firstValue(cat string, lexSel, classes []string, p []float64, gate float64) string {
	sel, _ := insights.Combine(cat, lexSel, classes, p, gate, nil)
	if len(sel) == 0 {
		tc, _ := callscribe.TaxonomyCategoryNamed(cat)
		return tc.Default
	}
	return sel[0]
}

// gates searched, the lexicon alone last.
func experimentGates() []float64 { return append(slices.Clone(searchGates), gateLexicon) }

// Experiment compares methods: each trained on train (plus its speech
// transcripts when the method augments), its settings chosen on dev; and each
// cross-validated over train+dev in k folds (folds by call order: call i is in
// fold i mod k).
func Experiment(train, dev Corpus, methods []Method, k int, log func(string)) []MethodResult {
	var out []MethodResult
	for _, me := range methods {
		// prep analyses calls with the method's lexicon and word tables.
		prep := func(calls []evalset.LabelledCall, speech map[string]callscribe.Transcript) *prepared {
			return prepareWith(me.PhoneticMatch, calls, speech).withClasses(me.WordClasses).withVectors(me.WordVectors)
		}
		tr, dv := prep(train.Calls, nil), prep(dev.Calls, nil)
		minWords := tr.minWords()
		trFit := tr
		if me.Augment && train.Speech != nil {
			trFit = tr.concat(prep(train.Calls, train.Speech))
		}
		var dvSpeech *prepared
		if dev.Speech != nil {
			dvSpeech = prep(dev.Calls, dev.Speech)
		}
		// Cross-validation over train+dev.
		all := tr.concat(dv)
		var allSpeech *prepared
		if me.Augment && train.Speech != nil && dev.Speech != nil {
			allSpeech = prep(append(slices.Clone(train.Calls), dev.Calls...), mergeSpeech(train.Speech, dev.Speech))
		}
		scoredCV := 0
		for _, c := range all.calls {
			if c.Style != "original" {
				scoredCV++
			}
		}
		lambdas := me.Lambdas
		if lambdas == nil {
			lambdas = searchLambdas
		}
		for _, cat := range insights.LinearCategories {
			classes := classesOf(cat)
			res := MethodResult{Method: me.Name, Category: cat, Dev: -1, DevSpeech: -1, CV: -1}
			bestLL := math.Inf(-1)
			for _, fs := range me.FeatureSets(cat) {
				for _, lambda := range lambdas {
					cfg := insights.LinearConfig{Features: fs, Lambda: lambda, Iterations: trainIterations, MinDF: trainMinDF}
					m := trFit.fit(cat, cfg)
					probs, ll := predict(m, dv, cat)
					var probsS [][]float64
					if dvSpeech != nil {
						probsS, _ = predict(m, dvSpeech, cat)
					}
					cvHits := crossValidate(cat, cfg, all, allSpeech, interleavedFolds(len(all.calls), k))
					for gi, gate := range experimentGates() {
						cfg.Gate = gate
						acc := accuracy(cat, dv, classes, probs, gate, minWords)
						accS := -1.0
						if dvSpeech != nil {
							accS = accuracy(cat, dvSpeech, classes, probsS, gate, minWords)
						}
						if acc > res.Dev || acc == res.Dev && (accS > res.DevSpeech || accS == res.DevSpeech && ll > bestLL) {
							res.Dev, res.DevSpeech, res.Config, bestLL = acc, accS, cfg, ll
						}
						if cv := float64(cvHits[gi]) / float64(scoredCV); cv > res.CV {
							res.CV, res.CVConfig = cv, cfg
						}
					}
					if log != nil {
						log(fmt.Sprintf("  %s %s %s λ=%g: done", me.Name, cat, fs, lambda))
					}
				}
			}
			out = append(out, res)
			if log != nil {
				log(res.String())
			}
		}
	}
	return out
}

func mergeSpeech(a, b map[string]callscribe.Transcript) map[string]callscribe.Transcript {
	out := map[string]callscribe.Transcript{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func predict(m *insights.CategoryModel, p *prepared, cat string) ([][]float64, float64) {
	xs := p.features(cat, m.Features)
	probs := make([][]float64, len(xs))
	ll := 0.0
	for i, x := range xs {
		probs[i] = m.Probs(x)
		ll += math.Log(max(probs[i][slices.Index(m.Classes, label(p.calls[i], cat))], 1e-12))
	}
	return probs, ll / float64(max(len(xs), 1))
}

func accuracy(cat string, p *prepared, classes []string, probs [][]float64, gate float64, minWords int) float64 {
	hit := 0
	for i, a := range p.an {
		var pr []float64
		if probs != nil && a.Words() >= minWords {
			pr = probs[i]
		}
		if firstValue(cat, a.LexiconValues(cat), classes, pr, gate) == label(p.calls[i], cat) {
			hit++
		}
	}
	return float64(hit) / float64(max(len(p.an), 1))
}

// foldPlan assigns each call of a cross-validation to the fold it is held out
// in: Of[i] for call i, -1 for a call that is always trained on and never
// scored (the original calls). N is the number of folds.
type foldPlan struct {
	Of []int
	N  int
}

// interleavedFolds puts call i in fold i mod k (the original calls too, which
// are trained on in the other folds and never scored).
func interleavedFolds(n, k int) foldPlan {
	f := foldPlan{Of: make([]int, n), N: k}
	for i := range f.Of {
		f.Of[i] = i % k
	}
	return f
}

// writerFolds holds out whole writers: with at most maxWriterFolds writers
// each writer's calls (evalset.LabelledCall.Writer) form a fold, in the order of the
// writers' names; with more, the writers are dealt round the maxWriterFolds
// folds in that order, so a fold holds two or three writers. The original
// calls and any call without a writer are always trained on.
//
// Why by writer: a call's wording is most like the other calls of its writer
// (the same settings, names, turns of phrase), so folds that mix every writer
// score a setting on calls whose writer it has already read. The calls the
// service meets were written by nobody it has read; holding out whole writers
// measures that, and prefers settings that do not lean on one writer's habits.
//
// Why a cap: one fold per writer fits a model per writer for
// every setting searched, so the search grew with calls times writers, 82
// minutes on two cores at 21 writers. Dealing writers into ten folds keeps
// every scored call's writer unseen by its model, trains each on nine tenths
// of the calls instead of twenty of twenty-one, and costs ten fits a setting
// however many writers there are.
func writerFolds(calls []evalset.LabelledCall) foldPlan {
	var writers []string
	for _, c := range calls {
		if c.Style != "original" && c.Writer != "" && !slices.Contains(writers, c.Writer) {
			writers = append(writers, c.Writer)
		}
	}
	slices.Sort(writers)
	f := foldPlan{Of: make([]int, len(calls)), N: min(len(writers), maxWriterFolds)}
	for i, c := range calls {
		f.Of[i] = -1
		if c.Style != "original" {
			if w := slices.Index(writers, c.Writer); w >= 0 {
				f.Of[i] = w % maxWriterFolds
			}
		}
	}
	return f
}

// maxWriterFolds caps writerFolds' folds.
const maxWriterFolds = 10

// crossValidate returns, per gate of experimentGates, the calls of all (but
// the original ones) decided right by a model trained on the other folds
// (crossValidateProbs).
func crossValidate(cat string, cfg insights.LinearConfig, all, speech *prepared, folds foldPlan) []int {
	classes := classesOf(cat)
	hits := make([]int, len(experimentGates()))
	if folds.N < 2 {
		return hits
	}
	for i, pr := range crossValidateProbs(cat, cfg, all, speech, folds) {
		if folds.Of[i] < 0 || all.calls[i].Style == "original" {
			continue // scored on the calls written after the lexicon only
		}
		for gi, gate := range experimentGates() {
			if firstValue(cat, all.an[i].LexiconValues(cat), classes, pr, gate) == label(all.calls[i], cat) {
				hits[gi]++
			}
		}
	}
	return hits
}

// crossValidateProbs returns, for each call of all, the class probabilities
// (in classesOf(cat) order) of a model trained on the other folds (plus their
// speech transcripts when speech is set: speech.calls are all.calls' in
// order, by file); nil for a call that is never held out, or shorter than
// every call its model was trained on (the lexicon decides those, as in the
// tagger). The folds are fitted concurrently; each is deterministic and writes
// only its own calls, so the result does not depend on the scheduling.
func crossValidateProbs(cat string, cfg insights.LinearConfig, all, speech *prepared, folds foldPlan) [][]float64 {
	classes := classesOf(cat)
	out := make([][]float64, len(all.calls))
	if folds.N < 2 {
		return out
	}
	docs := all.features(cat, cfg.Features)
	var sdocs []map[string]float64
	sIndex := map[string]int{}
	if speech != nil {
		sdocs = speech.features(cat, cfg.Features)
		for i, c := range speech.calls {
			sIndex[c.File+"\x00"+c.Text] = i
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	for f := 0; f < folds.N; f++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var trDocs []map[string]float64
			var trLabels []int
			minWords := -1
			for i, c := range all.calls {
				if folds.Of[i] == f {
					continue
				}
				trDocs = append(trDocs, docs[i])
				trLabels = append(trLabels, slices.Index(classes, label(c, cat)))
				if minWords < 0 || all.an[i].Words() < minWords {
					minWords = all.an[i].Words()
				}
				if j, ok := sIndex[c.File+"\x00"+c.Text]; ok {
					trDocs = append(trDocs, sdocs[j])
					trLabels = append(trLabels, slices.Index(classes, label(c, cat)))
				}
			}
			m := trainCat(cfg, classes, trDocs, trLabels)
			for i, a := range all.an {
				if folds.Of[i] == f && a.Words() >= minWords {
					out[i] = m.Probs(docs[i])
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// ExperimentMethods are the methods compared, in report order.
// Each searches the feature sets given (the current search's for the
// baseline) with every extension on top.
//
// wordClasses (LoadWordClasses) and wordVectors (LoadWordVectors) are the
// tables of the word-class and word-vector methods; without one, its method
// is left out.
func ExperimentMethods(wordClasses WordClasses, wordVectors *WordVectors) []Method {
	// The full set and the full set without the lexicon's scores (the two
	// kinds the current search chose from), each with the extension on top;
	// λ in {0.001, 0.0003} (the current choices); gates as ever.
	with := func(f func(cat string, fs insights.FeatureSet) insights.FeatureSet) func(string) []insights.FeatureSet {
		return func(cat string) []insights.FeatureSet {
			full := insights.FeatureSet{Words: true, Chars: true, Lexicon: true, Position: cat != callscribe.CategoryCallReason}
			noLex := full
			noLex.Lexicon = false
			return []insights.FeatureSet{f(cat, full), f(cat, noLex)}
		}
	}
	same := func(cat string, fs insights.FeatureSet) insights.FeatureSet { return fs }
	phon := func(cat string, fs insights.FeatureSet) insights.FeatureSet { fs.Phonetic = true; return fs }
	turns := func(cat string, fs insights.FeatureSet) insights.FeatureSet {
		if cat == callscribe.CategoryCallReason {
			fs.Opening = true
		} else if fs.Position {
			fs.Sides = true
		}
		return fs
	}
	both := func(cat string, fs insights.FeatureSet) insights.FeatureSet { return turns(cat, phon(cat, fs)) }
	// shipped: the extension the shipped model reads (select.go).
	shipped := func(cat string, fs insights.FeatureSet) insights.FeatureSet { return extension(cat, fs) }
	clusters := func(cat string, fs insights.FeatureSet) insights.FeatureSet {
		fs = extension(cat, fs)
		fs.Clusters = true
		return fs
	}
	vectors := func(cat string, fs insights.FeatureSet) insights.FeatureSet {
		fs = extension(cat, fs)
		fs.Vectors = true
		return fs
	}
	offer := func(cat string, fs insights.FeatureSet) insights.FeatureSet {
		fs = extension(cat, fs)
		fs.Offer = true
		return fs
	}
	lambdas := []float64{0.001, 0.0003}
	ms := []Method{
		{Name: "baseline", FeatureSets: with(same)},
		{Name: "phonetic-features", FeatureSets: with(phon)},
		{Name: "phonetic-cues", PhoneticMatch: true, FeatureSets: with(same)},
		{Name: "turns", FeatureSets: with(turns)},
		{Name: "phonetic+turns", PhoneticMatch: true, FeatureSets: with(both)},
		{Name: "phonetic-features+turns", FeatureSets: with(both)},
		{Name: "augment", Augment: true, FeatureSets: with(same)},
		{Name: "augment+phonetic+turns", Augment: true, PhoneticMatch: true, FeatureSets: with(both)},
		{Name: "augment+turns", Augment: true, FeatureSets: with(turns)},
		{Name: "augment+phonetic-features+turns", Augment: true, FeatureSets: with(both)},
		{Name: "shipped", FeatureSets: with(shipped)},
		{Name: "shipped+clusters", FeatureSets: with(clusters), WordClasses: wordClasses},
		{Name: "shipped+vectors", FeatureSets: with(vectors), WordVectors: wordVectors},
		{Name: "shipped+offer", FeatureSets: with(offer)},
	}
	for i := range ms {
		ms[i].Lambdas = lambdas
	}
	ms = slices.DeleteFunc(ms, func(m Method) bool {
		return m.Name == "shipped+clusters" && wordClasses == nil || m.Name == "shipped+vectors" && wordVectors == nil
	})
	return ms
}

// MethodNames lists the names of methods, for flags.
func MethodNames(ms []Method) string {
	var n []string
	for _, m := range ms {
		n = append(n, m.Name)
	}
	return strings.Join(n, ",")
}
