package sphinx

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

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
