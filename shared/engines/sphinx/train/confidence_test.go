package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// synthetic draws words whose posterior is uniform on [0, 1] and which are
// right with probability truth(posterior).
func synthetic(n int, seed uint64, truth func(float64) float64) ([]float64, []bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	post := make([]float64, n)
	right := make([]bool, n)
	for i := range post {
		post[i] = rng.Float64()
		right[i] = rng.Float64() < truth(post[i])
	}
	return post, right
}

func TestFitIsotonicRecoversAKnownCalibration(t *testing.T) {
	truth := func(p float64) float64 { return p * p }
	post, right := synthetic(40000, 7, truth)
	curve, err := FitIsotonic(post, right, 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		if got := curve.Apply(p); math.Abs(got-truth(p)) > 0.04 {
			t.Errorf("confidence at %.1f = %.3f, want %.3f", p, got, truth(p))
		}
	}
	// The fitted map calibrates fresh words from the same source.
	post2, right2 := synthetic(40000, 8, truth)
	conf := make([]float64, len(post2))
	for i, p := range post2 {
		conf[i] = curve.Apply(p)
	}
	_, before := Calibration(post2, right2, 10)
	_, after := Calibration(conf, right2, 10)
	if before < 0.1 || after > 0.015 {
		t.Errorf("ECE %.3f before the map, %.3f after", before, after)
	}
}

func TestFitIsotonicPoolsViolatorsAndSmallBlocks(t *testing.T) {
	// Posteriors 0.1..0.6; the outcomes fall from 0.2 to 0.3 (right, wrong),
	// which must be pooled; equal posteriors share a block.
	post := []float64{0.1, 0.1, 0.2, 0.3, 0.5, 0.5, 0.6}
	right := []bool{false, false, true, false, true, true, true}
	curve, err := FitIsotonic(post, right, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantX := []float64{0.1, 0.25, 0.5 + 1.0/30}
	wantY := []float64{0, 0.5, 1}
	if len(curve.Posterior) != 3 {
		t.Fatalf("knots %v %v", curve.Posterior, curve.Confidence)
	}
	for i := range wantX {
		if math.Abs(curve.Posterior[i]-wantX[i]) > 1e-12 || curve.Confidence[i] != wantY[i] {
			t.Errorf("knot %d (%g, %g), want (%g, %g)", i, curve.Posterior[i], curve.Confidence[i], wantX[i], wantY[i])
		}
	}
	// With at least 3 words a block, the first two blocks (2 words each) pool.
	curve, err = FitIsotonic(post, right, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve.Posterior) != 2 || curve.Confidence[0] != 0.25 || curve.Confidence[1] != 1 {
		t.Errorf("knots %v %v, want two: 0.25 and 1", curve.Posterior, curve.Confidence)
	}
	if _, err := FitIsotonic(nil, nil, 1); err == nil {
		t.Error("no words: fitted a curve")
	}
}

func TestCalibrationTable(t *testing.T) {
	conf := []float64{0.05, 0.15, 0.95, 0.95, 1}
	right := []bool{false, true, true, false, true}
	table, ece := Calibration(conf, right, 10)
	if table[0].Words != 1 || table[1].Words != 1 || table[9].Words != 3 {
		t.Fatalf("bins %+v", table)
	}
	if math.Abs(table[9].MeanConfidence-2.9/3) > 1e-12 || math.Abs(table[9].FractionRight-2.0/3) > 1e-12 {
		t.Errorf("last bin %+v", table[9])
	}
	// |0.05-0| + |0.15-1| + 3*|0.9667-0.6667|, over 5 words.
	want := (0.05 + 0.85 + 3*(2.9/3-2.0/3)) / 5
	if math.Abs(ece-want) > 1e-12 {
		t.Errorf("ECE %.4f, want %.4f", ece, want)
	}
}

func TestFitLogisticRecoversItsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := []float64{-0.5, 2, -1}
	var x [][]float64
	var right []bool
	for i := 0; i < 20000; i++ {
		xi := []float64{rng.NormFloat64(), rng.NormFloat64()}
		x = append(x, xi)
		right = append(right, rng.Float64() < Logistic(w, xi))
	}
	got := FitLogistic(x, right, 1e-6)
	for j := range w {
		if math.Abs(got[j]-w[j]) > 0.1 {
			t.Errorf("weights %v, want %v", got, w)
			break
		}
	}
}
