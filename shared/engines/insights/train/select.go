package train

import (
	"fmt"
	"math"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// The settings searched by SelectLinear, in order (ties keep the first).
// λ and the feature sets are those compared by Experiment (README.md,
// "Methods that generalise"); gate 2 is the lexicon alone.
//
// λ 1e-5 sits at the grid's edge. A step further down (3e-6) was
// searched on v8's data: call_reason kept 1e-5, sentiment and
// outcome gained 2 calls each of 749 held out (87.0% → 87.2%, 90.1% → 90.3%),
// within noise, so the grid stayed. With v9's data every category chose
// 1e-5 again, and none had chosen 3e-4 since v7; with more calls the best
// penalty only falls, so from v10 on the grid moves one step down instead of
// growing.
var (
	searchLambdas = []float64{0.0001, 0.00003, 0.00001, 0.000003}
	searchGates   = []float64{0, 0.3, 0.4, 0.5, 0.6, 0.7}
)

const (
	trainIterations = 300
	trainMinDF      = 2
	gateLexicon     = 2 // a gate above 1: the lexicon always decides
)

// extension is the feature groups each category adds to the base sets, the
// method that won on dev (clean text plus after speech) among those Experiment
// compares: call_reason reads the customer's opening turns; call_outcome the
// last turns by speaker and the phonetic keys; customer_sentiment nothing more.
// From v7 on call_outcome also reads the second half's words
// (Late): held out by writer it scored the same as without (86.7% of 541
// calls at v7's λ), and without it the model read "I'll have to escalate it
// if this fails" at the start of a call that ends fixed as escalated
// (TestOutcomeWeightsTheEnd).
func extension(cat string, fs insights.FeatureSet) insights.FeatureSet {
	switch cat {
	case callscribe.CategoryCallReason:
		fs.Opening = true
	case callscribe.CategoryCallOutcome:
		fs.Phonetic, fs.Sides, fs.Late = true, true, true
	}
	return fs
}

// searchFeatureSets are the feature sets tried for a category: the full set
// and the full set without the lexicon's scores, each with the category's
// extension.
func searchFeatureSets(cat string) []insights.FeatureSet {
	full := insights.FeatureSet{Words: true, Chars: true, Lexicon: true, Position: cat != callscribe.CategoryCallReason}
	noLex := full
	noLex.Lexicon = false
	return []insights.FeatureSet{extension(cat, full), extension(cat, noLex)}
}

// Alternative is one setting tried for a category with its dev accuracy.
type Alternative struct {
	Category string
	Method   string // lexicon, model, blend
	Config   insights.LinearConfig
	// CV: accuracy over train+dev cross-validated by writer (writerFolds),
	// scored on the calls written after the lexicon: what SelectLinear
	// chooses by.
	CV  float64
	Dev float64 // accuracy on dev (the first tie break)
	// DevSpeech: accuracy on dev's speech-engine transcripts (the second tie
	// break; -1 without them).
	DevSpeech float64
	DevLL     float64 // mean log-likelihood of the model on dev (the last tie break)
	// Note is the whole report line of a method "secondary" entry (how
	// call_reason's secondary values are listed, chooseSecondary).
	Note string
}

func (a Alternative) String() string {
	switch a.Method {
	case "secondary":
		return fmt.Sprintf("%-18s %s", a.Category, a.Note)
	case "lexicon":
		return fmt.Sprintf("%-18s lexicon alone                                                    dev %5.1f%%, after speech %5.1f%%, cv %5.1f%%", a.Category, 100*a.Dev, 100*a.DevSpeech, 100*a.CV)
	}
	return fmt.Sprintf("%-18s %-6s %-45s lambda %-6g gate %-4g dev %5.1f%%, after speech %5.1f%%, cv %5.1f%% (ll %.3f)", a.Category, a.Method, a.Config.Features, a.Config.Lambda, a.Config.Gate, 100*a.Dev, 100*a.DevSpeech, 100*a.CV, a.DevLL)
}

// devAccuracy scores a category's decisions on the dev calls.
// Calls shorter than minWords are left to the lexicon, as the tagger does.
func devAccuracy(cat string, dev *prepared, cls []string, probs [][]float64, gate float64, minWords int) float64 {
	tc, _ := callscribe.TaxonomyCategoryNamed(cat)
	hit := 0
	for i, a := range dev.an {
		var p []float64
		if probs != nil && a.Words() >= minWords {
			p = probs[i]
		}
		sel, _ := insights.Combine(cat, a.LexiconValues(cat), cls, p, gate, nil)
		want := label(dev.calls[i], cat)
		if len(sel) == 0 {
			sel = []string{tc.Default}
		}
		// The first value, for call_reason too: scoring a reason as found
		// anywhere among up to three picks rewards listing more reasons (the
		// model listed 1.49 a call on dev against the lexicon's 1.16 and won
		// that way while its first reason was worse), which a user reads as
		// less precise tags, not better ones.
		if sel[0] == want {
			hit++
		}
	}
	return float64(hit) / float64(len(dev.an))
}

// SelectLinear chooses each category's settings by their accuracy over
// train+dev cross-validated by writer (writerFolds: each writer's calls held
// out in turn, the model trained on the other writers' calls and the original
// ones), scored on the calls written after the lexicon (ties: dev accuracy on
// clean text, then after speech when devSpeech holds every dev call's
// speech-engine transcript, then the model's dev log-likelihood, then the
// search order). The model it returns the settings of is then trained on
// train only, so dev stays a held-out check (TestDevSplitAccuracy).
//
// Why cross-validation first (from v7 on): before it dev decided and
// cross-validation broke ties, and dev's 37 calls, one writer's, preferred
// blends with the lexicon by a call or two where cross-validation over ~300
// held-out calls put the model alone 5 to 9 points ahead (v6: call_reason
// 77.7% against the chosen blend's 69.2%, call_outcome 79.8% against 75.1%).
// A difference of one or two calls on 37 is noise; one of tens of calls over
// hundreds from several writers is not. The rule was changed before the second
// test split (testdata/insights-test2) was read at all. It returns the chosen
// settings and every alternative tried, best per feature set and method, for
// the report.
func SelectLinear(train, devCalls []evalset.LabelledCall, devSpeech map[string]callscribe.Transcript) (map[string]insights.LinearConfig, []Alternative) {
	tr, dev := prepare(train), prepare(devCalls)
	var devS *prepared
	if len(devSpeech) == len(devCalls) {
		devS = prepareWith(false, devCalls, devSpeech)
	}
	minWords := tr.minWords()
	all := tr.concat(dev)
	folds := writerFolds(all.calls)
	scoredCV := 0
	for _, c := range all.calls {
		if c.Style != "original" {
			scoredCV++
		}
	}
	cvAcc := func(hits []int, gate float64) float64 {
		return float64(hits[slices.Index(experimentGates(), gate)]) / float64(max(scoredCV, 1))
	}
	// The lexicon alone decides without a fit, so its cross-validated
	// accuracy is its accuracy on the calls crossValidate scores.
	lexiconCV := func(cat string) float64 {
		hit := 0
		for i, a := range all.an {
			if all.calls[i].Style != "original" && firstValue(cat, a.LexiconValues(cat), nil, nil, gateLexicon) == label(all.calls[i], cat) {
				hit++
			}
		}
		return float64(hit) / float64(max(scoredCV, 1))
	}
	speechAcc := func(cat string, cls []string, probs [][]float64, gate float64) float64 {
		if devS == nil {
			return -1
		}
		return accuracy(cat, devS, cls, probs, gate, minWords)
	}
	chosen := map[string]insights.LinearConfig{}
	var report []Alternative
	for _, cat := range insights.LinearCategories {
		lex := Alternative{Category: cat, Method: "lexicon", Config: insights.LinearConfig{Gate: gateLexicon},
			Dev: devAccuracy(cat, dev, nil, nil, gateLexicon, 0), DevSpeech: speechAcc(cat, nil, nil, gateLexicon), CV: lexiconCV(cat), DevLL: math.Inf(-1)}
		report = append(report, lex)
		best := lex
		for _, fs := range searchFeatureSets(cat) {
			bestModel, bestBlend := Alternative{CV: -1}, Alternative{CV: -1}
			for _, lambda := range searchLambdas {
				cfg := insights.LinearConfig{Features: fs, Lambda: lambda, Iterations: trainIterations, MinDF: trainMinDF}
				cvHits := crossValidate(cat, cfg, all, nil, folds)
				m := tr.fit(cat, cfg)
				probs, ll := predict(m, dev, cat)
				var probsS [][]float64
				if devS != nil {
					probsS, _ = predict(m, devS, cat)
				}
				for _, gate := range searchGates {
					cfg.Gate = gate
					alt := Alternative{Category: cat, Method: "model", Config: cfg, Dev: devAccuracy(cat, dev, m.Classes, probs, gate, minWords),
						DevSpeech: speechAcc(cat, m.Classes, probsS, gate), CV: cvAcc(cvHits, gate), DevLL: ll}
					if gate > 0 {
						alt.Method = "blend"
					}
					if better(alt, best) {
						best = alt
					}
					if alt.Method == "model" && better(alt, bestModel) {
						bestModel = alt
					}
					if alt.Method == "blend" && better(alt, bestBlend) {
						bestBlend = alt
					}
				}
			}
			report = append(report, bestModel, bestBlend)
		}
		if cat == callscribe.CategoryCallReason && best.Method != "lexicon" {
			probs := crossValidateProbs(cat, best.Config, all, nil, folds)
			rule, notes := chooseSecondary(cat, all, folds, probs, best.Config.Gate)
			best.Config.Secondary = rule
			for _, n := range notes {
				report = append(report, Alternative{Category: cat, Method: "secondary", Note: n})
			}
		}
		chosen[cat] = best.Config
		best.Method = "chosen: " + best.Method
		report = append(report, best)
	}
	return chosen, report
}

// Thresholds searched by chooseSecondary (LexiconMin at most Min).
var (
	secondaryMins        = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5}
	secondaryLexiconMins = []float64{0, 0.01, 0.03, 0.05, 0.1, 0.15, 0.2}
)

// chooseSecondary (call_reason, the one category with lists) picks the
// insights.SecondaryRule whose lists best match the labelled reason lists (F1 over the
// values, every held-out call scored once) given the cross-validated
// probabilities of the chosen model; ties keep the first in search order. It
// returns nil (the lexicon's other values) when no rule beats that, and the
// report lines of the rule without and with it.
func chooseSecondary(cat string, all *prepared, folds foldPlan, probs [][]float64, gate float64) (*insights.SecondaryRule, []string) {
	classes := classesOf(cat)
	score := func(rule *insights.SecondaryRule) evalset.ListScore {
		var s evalset.ListScore
		for i, c := range all.calls {
			if folds.Of[i] < 0 || c.Style == "original" {
				continue
			}
			sel, _ := insights.Combine(cat, all.an[i].LexiconValues(cat), classes, probs[i], gate, rule)
			if len(sel) == 0 {
				tc, _ := callscribe.TaxonomyCategoryNamed(cat)
				sel = []string{tc.Default}
			}
			s.Add(sel, c.CallReason)
		}
		return s
	}
	legacy := score(nil)
	var best *insights.SecondaryRule
	bestScore := legacy
	for _, m := range secondaryMins {
		for _, l := range secondaryLexiconMins {
			if l > m {
				continue
			}
			r := &insights.SecondaryRule{Min: m, LexiconMin: l}
			if s := score(r); s.F1() > bestScore.F1() {
				best, bestScore = r, s
			}
		}
	}
	notes := []string{"secondary values: the lexicon's other values: " + legacy.String()}
	if best != nil {
		notes = append(notes, fmt.Sprintf("secondary values: the model's at %g, or %g with the lexicon (chosen): %s", best.Min, best.LexiconMin, bestScore))
	}
	return best, notes
}

func better(a, b Alternative) bool {
	if a.CV != b.CV {
		return a.CV > b.CV
	}
	if a.Dev != b.Dev {
		return a.Dev > b.Dev
	}
	if a.DevSpeech != b.DevSpeech {
		return a.DevSpeech > b.DevSpeech
	}
	return a.DevLL > b.DevLL
}
