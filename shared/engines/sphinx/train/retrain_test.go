package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

func TestDecoderFeaturesAreMeanNormalisedCepstraWithTheirDeltas(t *testing.T) {
	cep := make([]float32, 10) // one cepstrum a frame: 0, 1, ..., 9
	for i := range cep {
		cep[i] = float32(i)
	}
	f := DecoderFeatures(cep, 1)
	if len(f) != 30 {
		t.Fatalf("%d values, want 30 (three per frame)", len(f))
	}
	for tm := 0; tm < 10; tm++ {
		static, delta, second := f[3*tm], f[3*tm+1], f[3*tm+2]
		if want := float32(tm) - 4.5; static != want {
			t.Errorf("frame %d: static %v, want %v (the mean taken off)", tm, static, want)
		}
		if tm >= 3 && tm <= 6 && (delta != 4 || second != 0) {
			t.Errorf("frame %d: delta %v and second delta %v inside a ramp, want 4 and 0", tm, delta, second)
		}
	}
	if d := f[1]; d != 2 { // c[2] - c[0], the first frame repeated before it
		t.Errorf("first frame's delta %v, want 2", d)
	}
}

// twoClusterModel is a model of one two-value stream with three codebooks of
// one Gaussian each, at (0,0), (10,10) and (100,100), variance 1.
func twoClusterModel() (means, vars *sphinx.GaussianParams) {
	means = sphinx.NewGaussianParams(3, 1, []int{2})
	vars = sphinx.NewGaussianParams(3, 1, []int{2})
	for cb, at := range []float32{0, 10, 100} {
		copy(means.At(cb, 0, 0), []float32{at, at})
		copy(vars.At(cb, 0, 0), []float32{1, 1})
	}
	return means, vars
}

// bandFrames are wideband frames around the first two Gaussians and their
// "telephone-band" counterparts, halved and shifted by (3, -1).
func bandFrames(n int) (wide, narrow []float32) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		centre := float64(10 * (i % 2))
		for d := 0; d < 2; d++ {
			y := centre + rng.NormFloat64()
			x := 0.5*y + []float64{3, -1}[d]
			wide, narrow = append(wide, float32(y)), append(narrow, float32(x))
		}
	}
	return wide, narrow
}

func near(t *testing.T, what string, got float32, want float64) {
	t.Helper()
	if math.Abs(float64(got)-want) > 0.05*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.3f, want %.3f", what, got, want)
	}
}

func TestRetrainerLearnsWhatTheBandDoesToEachGaussiansFrames(t *testing.T) {
	means, vars := twoClusterModel()
	r, err := NewRetrainer(means, vars)
	if err != nil {
		t.Fatal(err)
	}
	wide, narrow := bandFrames(4000)
	r.Add(wide, narrow)
	if r.Frames() != 4000 {
		t.Fatalf("%d frames counted, want 4000", r.Frames())
	}
	// The prior: the stock means moved by (1, 1), so a Gaussian no frame
	// reaches shows it kept the prior, not the stock mean.
	prior := sphinx.NewGaussianParams(3, 1, []int{2})
	for cb := 0; cb < 3; cb++ {
		m := means.At(cb, 0, 0)
		copy(prior.At(cb, 0, 0), []float32{m[0] + 1, m[1] + 1})
	}
	anew, err := r.Result(prior, vars, 0, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	byDiff, err := r.ResultByDifference(prior, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*RetrainedModel{anew, byDiff} {
		if m.Seen != 2 || m.Gaussians != 3 {
			t.Errorf("seen %d of %d Gaussians, want 2 of 3", m.Seen, m.Gaussians)
		}
		// Frames at (0,0) arrive at (3,-1), frames at (10,10) at (8,4); the
		// band halves their spread, so the variance is a quarter.
		near(t, "first mean[0]", m.Means.At(0, 0, 0)[0], 3)
		near(t, "first mean[1]", m.Means.At(0, 0, 0)[1], -1)
		near(t, "second mean[0]", m.Means.At(1, 0, 0)[0], 8)
		near(t, "second mean[1]", m.Means.At(1, 0, 0)[1], 4)
		near(t, "first variance", m.Variances.At(0, 0, 0)[0], 0.25)
		near(t, "second variance", m.Variances.At(1, 0, 0)[1], 0.25)
		near(t, "unseen mean", m.Means.At(2, 0, 0)[0], 101)
		near(t, "unseen variance", m.Variances.At(2, 0, 0)[0], 1)
	}
	// A prior of as many frames as a Gaussian saw pulls it half way.
	half, err := r.Result(prior, vars, 2000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "first mean[0] half way to its prior (1)", half.Means.At(0, 0, 0)[0], 2)
}

func TestRetrainerRefusesAPriorOfAnotherShape(t *testing.T) {
	means, vars := twoClusterModel()
	r, err := NewRetrainer(means, vars)
	if err != nil {
		t.Fatal(err)
	}
	other := sphinx.NewGaussianParams(2, 1, []int{2})
	if _, err := r.Result(other, vars, 0, 0.5); err == nil {
		t.Error("Result took a prior of two codebooks for a model of three")
	}
	if _, err := r.ResultByDifference(other, 0); err == nil {
		t.Error("ResultByDifference took a prior of two codebooks for a model of three")
	}
	if _, err := NewRetrainer(means, other); err == nil {
		t.Error("NewRetrainer took variances of another shape")
	}
}
