package sphinx

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"
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
	got := MeanNormalised(m.Apply(narrow), dim)
	want := MeanNormalised(truth(narrow), dim)
	if e := meanSquared(got, want); e > 1e-3 {
		t.Errorf("mapped frames off by mean squared %.5f", e)
	}
	// The unmapped frames are far off, so the check above means something.
	if e := meanSquared(MeanNormalised(narrow, dim), want); e < 10 {
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

// A hidden layer adds Out * relu(Hidden * x) to the affine part.
func TestFeatureMapApplyHiddenLayer(t *testing.T) {
	m := &FeatureMap{Context: 0, Dim: 1,
		Weights: [][]float32{{2, 0}},          // 2x
		Hidden:  [][]float32{{1, 0}, {-1, 0}}, // relu(x), relu(-x)
		Out:     [][]float32{{3, 0.5}},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	// Inputs are mean-normalised first: 10, 14, 12 become -2, 2, 0.
	got := m.Apply([]float32{10, 14, 12})
	want := []float32{2*-2 + 0.5*2, 2*2 + 3*2, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Fatalf("Apply = %v, want %v", got, want)
		}
	}
}

func TestParseFeatureMapRejectsDamagedMaps(t *testing.T) {
	good := FeatureMap{Context: 1, Dim: 2, Weights: [][]float32{make([]float32, 7), make([]float32, 7)}}
	for name, mutate := range map[string]func(m *FeatureMap){
		"missing row":      func(m *FeatureMap) { m.Weights = m.Weights[:1] },
		"short row":        func(m *FeatureMap) { m.Weights[1] = m.Weights[1][:6] },
		"negative context": func(m *FeatureMap) { m.Context = -1 },
		"zero dim":         func(m *FeatureMap) { m.Dim = 0 },
		"hidden no out":    func(m *FeatureMap) { m.Hidden = [][]float32{make([]float32, 7)} },
		"out wrong width": func(m *FeatureMap) {
			m.Hidden = [][]float32{make([]float32, 7)}
			m.Out = [][]float32{make([]float32, 2), make([]float32, 2)}
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := good
			m.Weights = [][]float32{append([]float32(nil), good.Weights[0]...), append([]float32(nil), good.Weights[1]...)}
			mutate(&m)
			b, _ := json.Marshal(m)
			if _, err := ParseFeatureMap(b); err == nil {
				t.Fatalf("accepted %s", b)
			}
		})
	}
	b, _ := json.Marshal(good)
	if _, err := ParseFeatureMap(b); err != nil {
		t.Fatalf("rejected a good map: %v", err)
	}
	if _, err := ParseFeatureMap([]byte(`{"context":1,`)); err == nil || !strings.Contains(err.Error(), "feature map") {
		t.Fatalf("truncated JSON: %v", err)
	}
	withUnknown := strings.Replace(string(b), `{`, `{"hidden2":[[1]],`, 1)
	if _, err := ParseFeatureMap([]byte(withUnknown)); err == nil {
		t.Fatalf("accepted a map with a field it does not know: %s", withUnknown)
	}
}

// The map the engine ships loads, is for the model's 13 cepstra and says what
// it was trained on.
func TestBuiltinNarrowbandMap(t *testing.T) {
	m, err := BuiltinNarrowbandMap()
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 13 || m.TrainedOn == "" {
		t.Fatalf("built-in map: dim %d, trained_on %q", m.Dim, m.TrainedOn)
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
	variance := func(m *FeatureMap) (out, target float64) {
		for u := range narrows {
			mapped := MeanNormalised(m.Apply(narrows[u]), dim)
			want := MeanNormalised(wides[u], dim)
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
