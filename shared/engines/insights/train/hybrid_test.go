//go:build trainer

package train

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// The hybrid search: `go test -tags trainer -run TestSentimentHybrid -v
// ./shared/engines/insights/train` compares ways of combining model v10's
// call-level customer_sentiment with callsentiment's rule over the customer's
// turns, by cross-validation with whole writers held out over train and dev
// (the model's own fold plan, writerFolds). Each call gets the out-of-fold
// decision and top probability of v10's settings refitted without its fold
// (only customer_sentiment: reason and outcome are not refitted) and the
// out-of-fold label of the turn rule (turn model fitted, rule thresholds
// chosen, without the fold; the six-turn train calls always trained on). A
// candidate's parameter is chosen on the other folds' out-of-fold decisions
// and applied to the fold. Dev and the six-turn held-out calls are then
// scored with the shipped model, turn scorer and rule, the parameter chosen on
// every fold. HYBRID_SIX_SPEECH names a directory of the bench's cached
// six-turn transcripts (<hash>.txt the call's text, <hash>-*.json its
// segments). It reads no test split.

const sixTurnDir = "../../../../testdata/insights-sixturn"

// hybridCall is one call's two decisions and what the hybrid reads of its turns.
type hybridCall struct {
	label, v10, turns string
	top               float64 // v10's top probability (0: the lexicon decided)
	ct                []callsentiment.Turn
	duration          float64
	short             bool
}

// candidate decides from a call's two decisions with parameter p.
type candidate struct {
	name   string
	params []float64
	decide func(c hybridCall, p float64) string
}

// strongTurn reports whether the call holds a customer turn with |score| >=
// h, only in the last third of the call when late is set.
func strongTurn(c hybridCall, h float64, late bool) bool {
	for _, t := range c.ct {
		if math.Abs(t.Score) < h || late && c.duration > 0 && (t.Start+t.End)/2 < c.duration*2/3 {
			continue
		}
		return true
	}
	return false
}

func hybridCandidates() []candidate {
	strong := []float64{0.6, 0.7, 0.8, 0.85, 0.9, 0.95}
	return []candidate{
		{"(a) v10 alone", []float64{0}, func(c hybridCall, _ float64) string { return c.v10 }},
		{"(b) turns alone", []float64{0}, func(c hybridCall, _ float64) string { return c.turns }},
		{"(c) v10 unless neutral with a strong turn", strong, func(c hybridCall, h float64) string {
			if c.v10 == callscribe.SentimentNeutral && strongTurn(c, h, false) {
				return c.turns
			}
			return c.v10
		}},
		{"(d) as (c), strong turn in the last third", strong, func(c hybridCall, h float64) string {
			if c.v10 == callscribe.SentimentNeutral && strongTurn(c, h, true) {
				return c.turns
			}
			return c.v10
		}},
		{"(e) turns when v10's top probability < g", []float64{0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8}, func(c hybridCall, g float64) string {
			if c.top < g {
				return c.turns
			}
			return c.v10
		}},
	}
}

func hits(cd candidate, calls []hybridCall, p float64, keep func(hybridCall) bool) (int, int) {
	h, n := 0, 0
	for _, c := range calls {
		if keep != nil && !keep(c) {
			continue
		}
		n++
		if cd.decide(c, p) == c.label {
			h++
		}
	}
	return h, n
}

// bestParam is the candidate's parameter with the most hits on calls (first on ties).
func bestParam(cd candidate, calls []hybridCall) float64 {
	bp, bh := cd.params[0], -1
	for _, p := range cd.params {
		if h, _ := hits(cd, calls, p, nil); h > bh {
			bp, bh = p, h
		}
	}
	return bp
}

func pct(h, n int) string {
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(h)/float64(max(n, 1)), h, n)
}

// shortCall: the short-call proxy for short outside dialogues.
func shortCall(text string) bool {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n <= 8
}

func TestSentimentHybrid(t *testing.T) {
	cat := callscribe.CategoryCustomerSentiment
	train, six, dev := loadSentimentSets(t)
	cfgs, err := insights.ConfigsOf(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := cfgs[cat]
	classes := classesOf(cat)
	tr := prepare(train)
	all := tr.concat(prepare(dev))
	folds := writerFolds(all.calls)
	probs := crossValidateProbs(cat, cfg, all, nil, folds)
	fitIterations = 1000
	if it := os.Getenv("SENTIMENT_ITERATIONS"); it != "" {
		fmt.Sscan(it, &fitIterations)
	}
	sc := sentCalls(t, all.calls)
	sixTrain := sentCalls(t, six)
	m := milMethod("MIL", 1e-4, nil)
	byFold := make([][]hybridCall, folds.N)
	for f := 0; f < folds.N; f++ {
		var in []sentCall
		for i, c := range sc {
			if folds.Of[i] != f && c.style != "original" {
				in = append(in, c)
			}
		}
		in = append(in, sixTrain...)
		score := m.fit(in)
		r := best(rescored(in, score))
		for i, c := range sc {
			if folds.Of[i] != f || c.style == "original" {
				continue
			}
			rc := rescored([]sentCall{c}, score)[0]
			res := r.Speaker(rc.turns, rc.duration)
			hc := hybridCall{label: c.label, turns: res.Label, ct: rc.turns, duration: rc.duration, short: shortCall(all.calls[i].Text)}
			hc.v10 = firstValue(cat, all.an[i].LexiconValues(cat), classes, probs[i], cfg.Gate)
			if probs[i] != nil {
				hc.top = slices.Max(probs[i])
			}
			byFold[f] = append(byFold[f], hc)
		}
		t.Logf("fold %d: %d held out, rule %+v", f, len(byFold[f]), r)
	}
	var pooled []hybridCall
	for _, fc := range byFold {
		pooled = append(pooled, fc...)
	}
	isShort := func(c hybridCall) bool { return c.short }

	// The shipped side: v10 as model.json (refitted on train, as shipped),
	// the shipped turn scorer and callsentiment.Default.
	vm := tr.fit(cat, cfg)
	shipped := func(calls []evalset.LabelledCall, speech map[string]callscribe.Transcript) []hybridCall {
		p := prepareWith(false, calls, speech)
		pr, _ := predict(vm, p, cat)
		minWords := tr.minWords()
		var out []hybridCall
		for i, c := range p.calls {
			tx := callscribe.Transcript{Text: c.Text}
			if speech != nil {
				tx = speech[c.File]
			}
			turns, d := insights.CustomerTurns(tx)
			ct := insights.RuleTurns(turns)
			res := callsentiment.Default.Speaker(ct, d)
			var pp []float64
			if p.an[i].Words() >= minWords {
				pp = pr[i]
			}
			hc := hybridCall{label: c.CustomerSentiment, turns: res.Label, ct: ct, duration: d}
			hc.v10 = firstValue(cat, p.an[i].LexiconValues(cat), classes, pp, cfg.Gate)
			if pp != nil {
				hc.top = slices.Max(pp)
			}
			out = append(out, hc)
		}
		return out
	}
	devSpeech := map[string]callscribe.Transcript{}
	for _, c := range dev {
		b, err := os.ReadFile(filepath.Join(devSpeechDir, strings.TrimSuffix(c.File, ".txt")+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var segs []callscribe.Segment
		if err := json.Unmarshal(b, &segs); err != nil {
			t.Fatal(err)
		}
		devSpeech[c.File] = callscribe.Transcript{Segments: segs}
	}
	sixHeld, err := evalset.LoadLabelledSet(sixTurnDir)
	if err != nil {
		t.Fatal(err)
	}
	var sixSpeech map[string]callscribe.Transcript
	if dir := os.Getenv("HYBRID_SIX_SPEECH"); dir != "" {
		sixSpeech = map[string]callscribe.Transcript{}
		txts, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		for _, f := range txts {
			b, _ := os.ReadFile(f)
			for _, c := range sixHeld {
				if strings.TrimSpace(string(b)) != strings.TrimSpace(c.Text) {
					continue
				}
				js, _ := filepath.Glob(strings.TrimSuffix(f, ".txt") + "-*.json")
				if len(js) != 1 {
					continue
				}
				jb, _ := os.ReadFile(js[0])
				var segs []callscribe.Segment
				if json.Unmarshal(jb, &segs) == nil {
					sixSpeech[c.File] = callscribe.Transcript{Segments: segs}
				}
			}
		}
		t.Logf("six-turn after speech: %d of %d calls' transcripts found", len(sixSpeech), len(sixHeld))
	}
	sets := []struct {
		name  string
		calls []hybridCall
	}{
		{"dev clean", shipped(dev, nil)},
		{"dev after speech", shipped(dev, devSpeech)},
		{"six-turn held out clean", shipped(sixHeld, nil)},
	}
	if len(sixSpeech) > 0 {
		sets = append(sets, struct {
			name  string
			calls []hybridCall
		}{"six-turn held out after speech", shipped(sixHeld, sixSpeech)})
	}
	for _, cd := range hybridCandidates() {
		// nested: each fold's parameter chosen on the other folds' calls
		h, n, hs, ns := 0, 0, 0, 0
		var chosen []float64
		for f, fc := range byFold {
			var rest []hybridCall
			for g, oc := range byFold {
				if g != f {
					rest = append(rest, oc...)
				}
			}
			p := bestParam(cd, rest)
			chosen = append(chosen, p)
			a, b := hits(cd, fc, p, nil)
			h, n = h+a, n+b
			a, b = hits(cd, fc, p, isShort)
			hs, ns = hs+a, ns+b
		}
		p := bestParam(cd, pooled)
		line := fmt.Sprintf("%-45s CV writer %s  short (<= 8 turns) %s  params %v, on all %g", cd.name, pct(h, n), pct(hs, ns), chosen, p)
		for _, s := range sets {
			a, b := hits(cd, s.calls, p, nil)
			line += fmt.Sprintf("  | %s %s", s.name, pct(a, b))
		}
		t.Log(line)
		for _, q := range cd.params {
			a, b := hits(cd, pooled, q, nil)
			c, d := hits(cd, pooled, q, isShort)
			t.Logf("    param %g: pooled CV %s, short %s", q, pct(a, b), pct(c, d))
		}
	}
}
