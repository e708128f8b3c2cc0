//go:build trainer

package train

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// TestModelIsReproducible retrains the embedded model.json from the train split
// with the settings it records and compares: the file is what `make
// train-insights` writes, nothing edited by hand.
//
// It retrains the model (minutes), so it runs with the trainer, `make
// check-model` (go test -tags trainer), not in `go test ./...`.
//
// On the machine that trained it the bytes are equal. Elsewhere they may not
// be: the fit avoids fused multiply-add in its own products, but math.Exp and
// the compiler's choices differ between amd64 and arm64 in the last bits, and
// 300 iterations carry those bits on. What a retraining must reproduce is
// what the file says, so the comparison is at the file's precision: the same
// settings and classes; each weight within one unit of the 4 decimals it is
// rounded to (a last-bit difference can round the other way); a feature may
// be missing on one side only where its weights sit at the pruning line, which
// is rare (at most 1 in 1,000); and, what the service sees, the same decisions
// on every dev call, clean text.
func TestModelIsReproducible(t *testing.T) {
	train, err := evalset.LoadLabelledSet(trainDir)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := insights.ConfigsOf(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != len(insights.LinearCategories) {
		t.Fatalf("model.json decides %d categories, want %d", len(cfgs), len(insights.LinearCategories))
	}
	b, err := TrainLinear(train, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b, insights.EmbeddedModel()) {
		return
	}
	t.Logf("retraining gives %d bytes that differ from the embedded model.json (%d bytes); comparing at the file's precision", len(b), len(insights.EmbeddedModel()))
	got, err := insights.ParseModel(b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := insights.ParseModel(insights.EmbeddedModel())
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != want.Version || got.MinWords != want.MinWords || got.ReasonMinWords != want.ReasonMinWords {
		t.Fatalf("header: version %q min_words %d reason_min_words %d, want %q %d %d: run make train-insights",
			got.Version, got.MinWords, got.ReasonMinWords, want.Version, want.MinWords, want.ReasonMinWords)
	}
	const unit = 1e-4 // the weights' rounding (train/linear.go round4)
	for _, cat := range insights.LinearCategories {
		g, w := got.Categories[cat], want.Categories[cat]
		if !slices.Equal(g.Classes, w.Classes) {
			t.Fatalf("%s: classes %v, want %v", cat, g.Classes, w.Classes)
		}
		only := 0
		for k, ww := range w.Weights {
			gw, ok := g.Weights[k]
			if !ok {
				only++
				continue
			}
			for i := range ww {
				if math.Abs(gw[i]-ww[i]) > 1.5*unit { // one unit, and the decimals' binary representation
					t.Errorf("%s: %s weight %d is %v, want %v (within %g)", cat, k, i, gw[i], ww[i], unit)
				}
			}
		}
		for k := range g.Weights {
			if _, ok := w.Weights[k]; !ok {
				only++
			}
		}
		if only*1000 > len(w.Weights) {
			t.Errorf("%s: %d features in one file only, of %d: more than the pruning line explains", cat, only, len(w.Weights))
		}
	}
	devCalls, err := evalset.LoadLabelledSet(devDir)
	if err != nil {
		t.Fatal(err)
	}
	dev := prepare(devCalls)
	for _, cat := range insights.LinearCategories {
		gs, ws := decisions(got, dev, cat), decisions(want, dev, cat)
		for i := range ws {
			if !slices.Equal(gs[i], ws[i]) {
				t.Errorf("%s %s: the retrained model decides %v, the embedded one %v", devCalls[i].File, cat, gs[i], ws[i])
			}
		}
	}
}

// decisions are a model file's values of a category for each call, as the
// service decides them from the lexicon's values and the model's
// probabilities.
func decisions(f *insights.ModelFile, p *prepared, cat string) [][]string {
	c := f.Categories[cat]
	minWords := f.MinWords
	if cat == callscribe.CategoryCallReason && f.ReasonMinWords > 0 {
		minWords = f.ReasonMinWords
	}
	xs := p.features(cat, c.Features)
	out := make([][]string, len(xs))
	for i, a := range p.an {
		if a.Words() < max(minWords, 1) {
			out[i] = a.LexiconValues(cat)
			continue
		}
		out[i], _ = insights.Combine(cat, a.LexiconValues(cat), c.Classes, c.Probs(xs[i]), c.Gate, c.Secondary)
	}
	return out
}
