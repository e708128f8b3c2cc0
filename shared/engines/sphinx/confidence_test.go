package sphinx

import (
	"math"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestConfidenceCurveApply(t *testing.T) {
	c := ConfidenceCurve{Posterior: []float64{0.2, 0.6, 1}, Confidence: []float64{0.1, 0.3, 0.9}}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want float64 }{
		{0, 0.1}, {0.2, 0.1}, {0.4, 0.2}, {0.6, 0.3}, {0.8, 0.6}, {1, 0.9}, {1.5, 0.9},
	} {
		if got := c.Apply(tc.in); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Apply(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestConfidenceCurveCheckRejects(t *testing.T) {
	for name, c := range map[string]ConfidenceCurve{
		"no knots":              {},
		"lengths differ":        {Posterior: []float64{0, 1}, Confidence: []float64{0.5}},
		"decreasing":            {Posterior: []float64{0, 1}, Confidence: []float64{0.6, 0.5}},
		"posteriors not rising": {Posterior: []float64{0.5, 0.5}, Confidence: []float64{0.1, 0.2}},
		"above 1":               {Posterior: []float64{0, 1}, Confidence: []float64{0.5, 1.2}},
		"below 0":               {Posterior: []float64{-0.1, 1}, Confidence: []float64{0, 1}},
	} {
		if c.Check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseConfidenceMap([]byte(`{"narrowband":{"posterior":[0,1],"confidence":[0.5,0.4]},"wideband":{"posterior":[0,1],"confidence":[0,1]}}`)); err == nil {
		t.Error("ParseConfidenceMap accepted a decreasing curve")
	}
}

// The built-in map loads, and each curve is a monotone map into [0, 1] over
// the whole range of posteriors.
func TestBuiltinConfidenceMapIsMonotone(t *testing.T) {
	m, err := BuiltinConfidenceMap()
	if err != nil {
		t.Fatal(err)
	}
	for _, rate := range []int{8000, 16000} {
		prev := -1.0
		for i := 0; i <= 1000; i++ {
			c := m.Apply(float64(i)/1000, rate)
			if c < 0 || c > 1 || c < prev {
				t.Fatalf("rate %d: confidence %g at posterior %g after %g", rate, c, float64(i)/1000, prev)
			}
			prev = c
		}
	}
}

func TestCalibrateAppliesTheBandsCurve(t *testing.T) {
	m := &ConfidenceMap{
		Narrowband: ConfidenceCurve{Posterior: []float64{0, 1}, Confidence: []float64{0, 0.5}},
		Wideband:   ConfidenceCurve{Posterior: []float64{0, 1}, Confidence: []float64{0.5, 1}},
	}
	words := func() []callscribe.Word {
		p := 0.8
		return []callscribe.Word{{Text: "a", Confidence: &p}, {Text: "b"}}
	}
	for _, tc := range []struct {
		rate int
		want float64
	}{{8000, 0.4}, {16000, 0.9}} {
		w := words()
		calibrate(w, tc.rate, m)
		if math.Abs(*w[0].Confidence-tc.want) > 1e-12 || w[1].Confidence != nil {
			t.Errorf("rate %d: confidences %v %v, want %g and none", tc.rate, *w[0].Confidence, w[1].Confidence, tc.want)
		}
	}
	w := words()
	calibrate(w, 8000, nil)
	if *w[0].Confidence != 0.8 {
		t.Errorf("no map: confidence %g, want the posterior 0.8", *w[0].Confidence)
	}
}
