//go:build trainer

package train

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
)

// The sentiment rule's search: `go test -tags trainer -run TestSentimentRuleSearch
// -v ./shared/engines/insights/train` prints the cross-validated accuracy of
// customer_sentiment by callsentiment's rule over the scorer's turns, holding
// out whole writers and whole styles, and the figures of the chosen rule on
// dev (clean and after speech). It reads no test split.

const (
	sixTurnTrainDir = "../../../../testdata/insights-sixturn-train"
	devSpeechDir    = "../../../../testdata/insights-dev-speech"
)

type sentCall struct {
	label, writer, style string
	turns                []callsentiment.Turn // scored by the embedded scorer
	duration             float64
	sc                   SentimentCall
	lex                  []float64 // the lexicon's turn scores
}

func newSentCall(label, writer, style string, turns []insights.ScoredTurn, d float64) sentCall {
	c := sentCall{label: label, writer: writer, style: style, turns: insights.RuleTurns(turns), duration: d}
	c.sc = SentimentCall{Label: label, Duration: d}
	for _, t := range turns {
		x, a := sentiment.TurnFeatures(t.Text)
		c.sc.Features = append(c.sc.Features, x)
		c.sc.Starts = append(c.sc.Starts, t.Start)
		c.sc.Ends = append(c.sc.Ends, t.End)
		c.lex = append(c.lex, sentiment.LexiconScore(a))
	}
	return c
}

// rescored are the calls with turn scores by score(turn's features, lexicon score).
func rescored(calls []sentCall, score func(x map[string]float64, lex float64) float64) []sentCall {
	out := make([]sentCall, len(calls))
	for i, c := range calls {
		c.turns = slices.Clone(c.turns)
		for j := range c.turns {
			c.turns[j].Score = score(c.sc.Features[j], c.lex[j])
		}
		out[i] = c
	}
	return out
}

func sentCalls(t *testing.T, calls []evalset.LabelledCall) []sentCall {
	out := make([]sentCall, 0, len(calls))
	for _, c := range calls {
		turns, d := insights.CustomerTurns(callscribe.Transcript{Text: c.Text})
		out = append(out, newSentCall(c.CustomerSentiment, cmpOr(c.Writer, "original"), cmpOr(c.Style, "original"), turns, d))
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func speechCalls(t *testing.T, calls []evalset.LabelledCall, dir string) []sentCall {
	var out []sentCall
	for _, c := range calls {
		b, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(c.File, ".txt")+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var segs []callscribe.Segment
		if err := json.Unmarshal(b, &segs); err != nil {
			t.Fatal(err)
		}
		turns, d := insights.CustomerTurns(callscribe.Transcript{Segments: segs})
		out = append(out, newSentCall(c.CustomerSentiment, c.Writer, c.Style, turns, d))
	}
	return out
}

// endWeight is the rule's and the fit's (SENTIMENT_END overrides Default's).
var endWeight = callsentiment.Default.EndWeight

var confusionCV = map[string]int{}

func ruleGrid() []callsentiment.Rule {
	var out []callsentiment.Rule
	for _, strong := range []float64{0.4, 0.5, 0.6, 0.8, 1.01} {
		for _, mixed := range []float64{0.15, 0.3, 0.6} {
			for _, pb := range []float64{0.05, 0.1, 0.2, 0.3, 0.45} {
				for _, nb := range []float64{0.05, 0.1, 0.2, 0.3, 0.45} {
					r := callsentiment.Default
					r.Strong, r.MixedRatio, r.Positive, r.Negative, r.EndWeight = strong, mixed, pb, nb, endWeight
					out = append(out, r)
				}
			}
		}
	}
	return out
}

func ruleAcc(r callsentiment.Rule, calls []sentCall) float64 {
	hit := 0
	for _, c := range calls {
		if r.Speaker(c.turns, c.duration).Label == c.label {
			hit++
		}
	}
	return float64(hit) / float64(max(1, len(calls)))
}

// best is the grid's rule with the best accuracy on calls (first in grid
// order on ties).
func best(calls []sentCall) callsentiment.Rule {
	var br callsentiment.Rule
	ba := -1.0
	for _, r := range ruleGrid() {
		if a := ruleAcc(r, calls); a > ba {
			br, ba = r, a
		}
	}
	return br
}

// method is a way to score turns: fit (nil: nothing to fit) on the training
// calls returns the turn scorer.
type method struct {
	name string
	fit  func(train []sentCall) func(x map[string]float64, lex float64) float64
}

func lexiconMethod() method {
	return method{"lexicon", func([]sentCall) func(map[string]float64, float64) float64 {
		return func(_ map[string]float64, lex float64) float64 { return lex }
	}}
}

func learnedMethod(name string, lambda float64, keep func(string) bool) method {
	return method{name, func(train []sentCall) func(map[string]float64, float64) float64 {
		var scs []SentimentCall
		for _, c := range train {
			sc := c.sc
			sc.Features = filtered(sc.Features, keep)
			scs = append(scs, sc)
		}
		m := FitTurnModel(scs, lambda, endWeight, 2)
		return func(x map[string]float64, _ float64) float64 {
			return math.Round(math.Tanh(m.Apply(filtered([]map[string]float64{x}, keep)[0]))*1000) / 1000
		}
	}}
}

func milMethod(name string, lambda float64, keep func(string) bool) method {
	return method{name, func(train []sentCall) func(map[string]float64, float64) float64 {
		var scs []SentimentCall
		for _, c := range train {
			sc := c.sc
			sc.Features = filtered(sc.Features, keep)
			scs = append(scs, sc)
		}
		m := FitTurnMIL(scs, lambda, 2)
		return func(x map[string]float64, _ float64) float64 {
			return math.Round(math.Tanh(m.Apply(filtered([]map[string]float64{x}, keep)[0])/TurnMargin)*1000) / 1000
		}
	}}
}

func filtered(xs []map[string]float64, keep func(string) bool) []map[string]float64 {
	if keep == nil {
		return xs
	}
	out := make([]map[string]float64, len(xs))
	for i, x := range xs {
		y := map[string]float64{}
		for k, v := range x {
			if keep(k) {
				y[k] = v
			}
		}
		out[i] = y
	}
	return out
}

// heldOutM fits the method and chooses the rule without each group's calls
// and scores the group's: the pooled accuracy, and per group.
func heldOutM(m method, calls []sentCall, group func(sentCall) string) (float64, map[string]string) {
	return groupHeldOut(calls, group, func(in, out []sentCall) []sentCall {
		score := m.fit(in)
		r := best(rescored(in, score))
		var right []sentCall
		for _, c := range rescored(out, score) {
			got := r.Speaker(c.turns, c.duration).Label
			confusionCV[c.label+" -> "+got]++
			if got == c.label {
				right = append(right, c)
			}
		}
		return right
	})
}

// heldOut chooses the rule without each group's calls and scores the group's:
// the pooled accuracy, and per group.
func heldOut(calls []sentCall, group func(sentCall) string) (float64, map[string]string) {
	return groupHeldOut(calls, group, func(in, out []sentCall) []sentCall {
		r := best(in)
		var right []sentCall
		for _, c := range out {
			if r.Speaker(c.turns, c.duration).Label == c.label {
				right = append(right, c)
			}
		}
		return right
	})
}

// groupHeldOut holds each group's calls out in turn, groups in name order:
// fold gets the other groups' calls and the held-out ones and returns the
// held-out calls it labelled right. The pooled accuracy, and per group.
func groupHeldOut(calls []sentCall, group func(sentCall) string, fold func(in, out []sentCall) []sentCall) (float64, map[string]string) {
	groups := map[string]bool{}
	for _, c := range calls {
		groups[group(c)] = true
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	hit, n := 0, 0
	per := map[string]string{}
	for _, g := range names {
		var in, out []sentCall
		for _, c := range calls {
			if group(c) == g {
				out = append(out, c)
			} else {
				in = append(in, c)
			}
		}
		h := len(fold(in, out))
		hit += h
		n += len(out)
		per[g] = fmt.Sprintf("%d/%d", h, len(out))
	}
	return float64(hit) / float64(n), per
}

func TestSentimentRuleSearch(t *testing.T) {
	train, six, dev := loadSentimentSets(t)
	all := sentCalls(t, slices.Concat(train, six, dev))
	var scored []sentCall // the 48 original calls were written next to the tagger's lexicon: never scored
	for _, c := range all {
		if c.style != "original" {
			scored = append(scored, c)
		}
	}
	byWriter, perW := heldOut(scored, func(c sentCall) string { return c.writer })
	byStyle, perS := heldOut(scored, func(c sentCall) string { return c.style })
	t.Logf("calls %d; CV by held-out writer %.1f%% %v", len(scored), 100*byWriter, perW)
	t.Logf("CV by held-out style %.1f%% %v", 100*byStyle, perS)
	chosen := best(scored)
	t.Logf("chosen on all: %+v; in-sample %.1f%%", chosen, 100*ruleAcc(chosen, scored))
	t.Logf("default rule in-sample %.1f%%", 100*ruleAcc(callsentiment.Default, scored))
	devS := speechCalls(t, dev, devSpeechDir)
	t.Logf("default rule: dev clean %.1f%%, dev after speech %.1f%%, six-turn train %.1f%%",
		100*ruleAcc(callsentiment.Default, sentCalls(t, dev)), 100*ruleAcc(callsentiment.Default, devS), 100*ruleAcc(callsentiment.Default, sentCalls(t, six)))
	confusion(t, callsentiment.Default, scored)
}

func confusion(t *testing.T, r callsentiment.Rule, calls []sentCall) {
	m := map[string]int{}
	for _, c := range calls {
		m[c.label+" -> "+r.Speaker(c.turns, c.duration).Label]++
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %-22s %d", k, m[k])
	}
}

func TestSentimentMethods(t *testing.T) {
	train, six, dev := loadSentimentSets(t)
	var scored []sentCall
	for _, c := range sentCalls(t, slices.Concat(train, six, dev)) {
		if c.style != "original" {
			scored = append(scored, c)
		}
	}
	lexOnly := func(k string) bool { return !strings.HasPrefix(k, "w:") && !strings.HasPrefix(k, "b:") }
	noLex := func(k string) bool { return k != "lex+" && k != "lex-" }
	noBigram := func(k string) bool { return !strings.HasPrefix(k, "b:") }
	methods := []method{lexiconMethod()}
	for _, l := range strings.Split(os.Getenv("SENTIMENT_LAMBDAS"), ",") {
		var lambda float64
		if _, err := fmt.Sscan(l, &lambda); err != nil {
			continue
		}
		methods = append(methods,
			milMethod(fmt.Sprintf("MIL lexicon+words+pairs, l=%g", lambda), lambda, nil),
			milMethod(fmt.Sprintf("MIL lexicon calibrated, l=%g", lambda), lambda, lexOnly),
			learnedMethod(fmt.Sprintf("lexicon calibrated, l=%g", lambda), lambda, lexOnly),
			learnedMethod(fmt.Sprintf("lexicon+words+pairs, l=%g", lambda), lambda, nil),
			learnedMethod(fmt.Sprintf("lexicon+words, l=%g", lambda), lambda, noBigram),
			learnedMethod(fmt.Sprintf("words+pairs, no lexicon, l=%g", lambda), lambda, noLex))
	}
	if only := os.Getenv("SENTIMENT_METHODS"); only != "" {
		methods = slices.DeleteFunc(methods, func(m method) bool { return !strings.Contains(m.name, only) })
	}
	if e := os.Getenv("SENTIMENT_END"); e != "" {
		fmt.Sscan(e, &endWeight)
	}
	if it := os.Getenv("SENTIMENT_ITERATIONS"); it != "" {
		fmt.Sscan(it, &fitIterations)
	}
	devC := sentCalls(t, dev)
	devS := speechCalls(t, dev, devSpeechDir)
	for _, m := range methods {
		clear(confusionCV)
		w, _ := heldOutM(m, scored, writerFold(scored))
		t.Logf("%s CV by writer: %v", m.name, confusionCV)
		s, perS := heldOutM(m, scored, func(c sentCall) string { return c.style })
		// dev: fitted on train (and the six-turn train calls) only
		var trainOnly []sentCall
		for _, c := range sentCalls(t, slices.Concat(train, six)) {
			if c.style != "original" {
				trainOnly = append(trainOnly, c)
			}
		}
		score := m.fit(trainOnly)
		r := best(rescored(trainOnly, score))
		t.Logf("%s: in-sample (train) %.1f%%", m.name, 100*ruleAcc(r, rescored(trainOnly, score)))
		t.Logf("%-40s CV writer %.1f%%  CV style %.1f%%  dev %.1f%%  dev speech %.1f%%  rule %+v  styles %v", m.name, 100*w, 100*s,
			100*ruleAcc(r, rescored(devC, score)), 100*ruleAcc(r, rescored(devS, score)), r, perS)
	}
}

// writerFold deals the writers, in name order, into at most ten folds (as
// the model's search does).
func writerFold(calls []sentCall) func(sentCall) string {
	var ws []string
	for _, c := range calls {
		if !slices.Contains(ws, c.writer) {
			ws = append(ws, c.writer)
		}
	}
	sort.Strings(ws)
	fold := map[string]string{}
	for i, w := range ws {
		fold[w] = fmt.Sprint(i % 10)
	}
	return func(c sentCall) string { return fold[c.writer] }
}

// TestWriteTurnModel fits the shipped turn model (SENTIMENT_WRITE=1 writes
// sentiment/turnmodel.json): FitTurnMIL on train and the six-turn train calls,
// lexicon and words and word pairs, lambda 1e-4, 1000 iterations; then the
// rule's thresholds chosen on the same calls (the 48 original ones not scored),
// to copy into callsentiment.Default. Dev stays held out.
func TestWriteTurnModel(t *testing.T) {
	if os.Getenv("SENTIMENT_WRITE") == "" {
		t.Skip("SENTIMENT_WRITE not set")
	}
	train, six, dev := loadSentimentSets(t)
	fitIterations = 1000
	calls := sentCalls(t, slices.Concat(train, six))
	var scs []SentimentCall
	var scored []sentCall
	for _, c := range calls {
		scs = append(scs, c.sc)
		if c.style != "original" {
			scored = append(scored, c)
		}
	}
	lambda := 1e-4
	if l := os.Getenv("SENTIMENT_LAMBDA"); l != "" {
		fmt.Sscan(l, &lambda)
	}
	m := FitTurnMIL(scs, lambda, 2)
	m.Version = "1"
	score := func(x map[string]float64, _ float64) float64 {
		return math.Round(math.Tanh(m.Apply(x)/TurnMargin)*1000) / 1000
	}
	r := best(rescored(scored, score))
	t.Logf("rule %+v; train in-sample %.1f%%; dev %.1f%%; dev after speech %.1f%%", r, 100*ruleAcc(r, rescored(scored, score)),
		100*ruleAcc(r, rescored(sentCalls(t, dev), score)), 100*ruleAcc(r, rescored(speechCalls(t, dev, devSpeechDir), score)))
	m.Margin = TurnMargin
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("../sentiment/turnmodel.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadSentimentSets loads the labelled calls the sentiment experiments read:
// the training set, the six-turn training calls and the dev set.
func loadSentimentSets(t *testing.T) (train, six, dev []evalset.LabelledCall) {
	t.Helper()
	load := func(dir string) []evalset.LabelledCall {
		calls, err := evalset.LoadLabelledSet(dir)
		if err != nil {
			t.Fatal(err)
		}
		return calls
	}
	return load(trainDir), load(sixTurnTrainDir), load(devDir)
}
