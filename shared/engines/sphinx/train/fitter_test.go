package train

import (
	"math"
	"math/rand"
	"testing"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// randomFrames returns n frames of dim values, with a per-utterance offset so
// that mean normalisation has something to remove.
func randomFrames(rng *rand.Rand, n, dim int) []float32 {
	out := make([]float32, n*dim)
	offset := make([]float32, dim)
	for i := range offset {
		offset[i] = float32(rng.NormFloat64() * 20)
	}
	for t := 0; t < n; t++ {
		for i := 0; i < dim; i++ {
			out[t*dim+i] = offset[i] + float32(rng.NormFloat64()*5)
		}
	}
	return out
}

func meanSquared(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return s / float64(len(a))
}

// The fitter recovers a map that uses the neighbouring frames: wide[t] is a
// mix of narrow[t-1], narrow[t] and narrow[t+1] (plus an offset that CMN
// removes), and after fitting Apply reproduces it on utterances it never saw.
func TestFeatureMapFitRecoversContextMap(t *testing.T) {
	const dim, n = 3, 400
	rng := rand.New(rand.NewSource(7))
	truth := func(narrow []float32) []float32 {
		m := len(narrow) / dim
		wide := make([]float32, len(narrow))
		for ti := 0; ti < m; ti++ {
			prev, next := max(ti-1, 0), min(ti+1, m-1)
			for i := 0; i < dim; i++ {
				wide[ti*dim+i] = 0.5*narrow[prev*dim+i] + narrow[ti*dim+(i+1)%dim] - 0.25*narrow[next*dim+i] + 13
			}
		}
		return wide
	}
	f := NewFeatureMapFitter(dim, 1)
	for u := 0; u < 20; u++ {
		narrow := randomFrames(rng, n, dim)
		f.Add(narrow, truth(narrow))
	}
	if f.Frames() != 20*n {
		t.Fatalf("frames %d, want %d", f.Frames(), 20*n)
	}
	m, err := f.Fit(1e-6, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	narrow := randomFrames(rng, n, dim)
	got := sphinx.MeanNormalised(m.Apply(narrow), dim)
	want := sphinx.MeanNormalised(truth(narrow), dim)
	if e := meanSquared(got, want); e > 1e-3 {
		t.Errorf("mapped frames off by mean squared %.5f", e)
	}
	// The unmapped frames are far off, so the check above means something.
	if e := meanSquared(sphinx.MeanNormalised(narrow, dim), want); e < 10 {
		t.Errorf("test data too easy: unmapped error %.3f", e)
	}
}

func TestFeatureMapFitNeedsData(t *testing.T) {
	f := NewFeatureMapFitter(13, 2)
	f.Add(make([]float32, 13*5), make([]float32, 13*5))
	if _, err := f.Fit(1e-4, false, ""); err == nil {
		t.Fatal("a fit on 5 frames succeeded")
	}
}

// With matchVariance the outputs have the targets' variance: where the target
// is half noise, a least-squares map's outputs have about half its variance.
func TestFeatureMapFitMatchesVariance(t *testing.T) {
	const dim, n = 2, 500
	rng := rand.New(rand.NewSource(11))
	f := NewFeatureMapFitter(dim, 0)
	var narrows, wides [][]float32
	for u := 0; u < 20; u++ {
		narrow := randomFrames(rng, n, dim)
		wide := make([]float32, len(narrow))
		for i, v := range narrow {
			wide[i] = 3*v + float32(rng.NormFloat64()*15) // signal variance 225, noise 225
		}
		f.Add(narrow, wide)
		narrows, wides = append(narrows, narrow), append(wides, wide)
	}
	variance := func(m *sphinx.FeatureMap) (out, target float64) {
		for u := range narrows {
			mapped := sphinx.MeanNormalised(m.Apply(narrows[u]), dim)
			want := sphinx.MeanNormalised(wides[u], dim)
			for i := range mapped {
				out += float64(mapped[i]) * float64(mapped[i])
				target += float64(want[i]) * float64(want[i])
			}
		}
		return out, target
	}
	plain, err := f.Fit(1e-6, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	matched, err := f.Fit(1e-6, true, "test")
	if err != nil {
		t.Fatal(err)
	}
	if out, target := variance(plain); out > 0.6*target || out < 0.4*target {
		t.Errorf("least squares: output variance %.0f, target %.0f: want about half", out, target)
	}
	if out, target := variance(matched); math.Abs(out/target-1) > 0.02 {
		t.Errorf("matched: output variance %.0f, target %.0f", out, target)
	}
}
