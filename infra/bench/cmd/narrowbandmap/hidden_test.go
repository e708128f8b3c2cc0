package main

import (
	"math"
	"math/rand"
	"testing"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

// utterance returns n frames of dim values around a per-utterance offset, so
// that mean normalisation has something to remove.
func utterance(rng *rand.Rand, n, dim int) []float32 {
	out := make([]float32, n*dim)
	offset := make([]float64, dim)
	for i := range offset {
		offset[i] = rng.NormFloat64() * 20
	}
	for i := range out {
		out[i] = float32(offset[i%dim] + rng.NormFloat64()*5)
	}
	return out
}

func squaredError(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return s / float64(len(a))
}

// Where the wideband frame depends on the narrowband one through a bend no
// affine map can follow, the hidden layer takes the error well below the
// linear map's.
func TestTrainHiddenLearnsWhatLinearCannot(t *testing.T) {
	const dim, n = 2, 300
	rng := rand.New(rand.NewSource(3))
	var pairs []FramePair
	f := train.NewFeatureMapFitter(dim, 0)
	for u := 0; u < 20; u++ {
		narrow := utterance(rng, n, dim)
		norm := sphinx.MeanNormalised(narrow, dim)
		wide := make([]float32, len(narrow))
		for i := 0; i < len(norm); i += dim {
			wide[i] = norm[i] + 2*float32(math.Abs(float64(norm[i+1])))
			wide[i+1] = norm[i+1]
		}
		pairs = append(pairs, FramePair{Narrow: narrow, Wide: wide})
		f.Add(narrow, wide)
	}
	linear, err := f.Fit(1e-6, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	mlp, err := TrainHidden(linear, pairs, HiddenTraining{Units: 16, Epochs: 30, Batch: 64, Rate: 3e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var linErr, mlpErr float64
	for _, p := range pairs[:5] {
		want := sphinx.MeanNormalised(p.Wide, dim)
		linErr += squaredError(sphinx.MeanNormalised(linear.Apply(p.Narrow), dim), want)
		mlpErr += squaredError(sphinx.MeanNormalised(mlp.Apply(p.Narrow), dim), want)
	}
	t.Logf("mean squared error: linear %.3f, with hidden layer %.3f", linErr, mlpErr)
	if linErr < 5 {
		t.Fatalf("test data too easy: linear error %.3f", linErr)
	}
	if mlpErr > linErr/4 {
		t.Errorf("hidden layer error %.3f, linear %.3f: want at most a quarter", mlpErr, linErr)
	}
}
