package sphinx

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A transform per base phone, estimated from frames that follow a different
// transform in each codebook, is written as one MLLR file with a class a
// codebook; read back, it moves each Gaussian by its own codebook's
// transform, and it keeps the one-class transform's variance scales.
func TestClassTransformWritesEachPhonesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	streams := []int{3, 2}
	means, vars := syntheticModel(rng, 5, 8, streams)
	bases := []string{"AA", "S", "SIL", "T", "N"}
	class, err := gaussianClasses(means.codebooks, means, bases, make([]bool, len(bases)))
	if err != nil {
		t.Fatal(err)
	}
	transformOf := func(k, s int) ([][]float64, []float64) {
		n := streams[s]
		A := make([][]float64, n)
		b := make([]float64, n)
		for l := range A {
			A[l] = make([]float64, n)
			A[l][l] = 1 - 0.1*float64(k)
			b[l] = float64(k) - 0.5*float64(l)
		}
		return A, b
	}
	c := statisticsFrom(means, class, transformOf, 40)
	global := identityMLLR(streams)
	// A variance scale on the global transform, which the classes keep.
	global.setVarianceScale([][]float64{{0.8, 0.9, 1.1}, {0.7, 1.2}})
	m, frames, err := classTransform(means, vars, c, class, means.codebooks, global, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Classes != 5 || len(frames) != 5 {
		t.Fatalf("%d classes and %d frame counts, want 5 each", m.Classes, len(frames))
	}
	back, err := ParseMLLR(m.Format())
	if err != nil {
		t.Fatalf("the written transform does not read back: %v", err)
	}
	moved, err := classTransformedMeans(back, means, class)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for cb := 0; cb < means.codebooks; cb++ {
		for s, n := range streams {
			for d := 0; d < means.densities; d++ {
				A, b := transformOf(cb, s)
				mu, got := means.at(cb, s, d), moved.at(cb, s, d)
				for l := 0; l < n; l++ {
					want := b[l]
					for j := 0; j < n; j++ {
						want += A[l][j] * float64(mu[j])
					}
					worst = max(worst, math.Abs(float64(got[l])-want))
				}
			}
		}
	}
	if worst > 1e-3 {
		t.Fatalf("read back, the classes move means up to %v from their codebook's transform", worst)
	}
	// Each class of each stream ends with the global variance scale.
	at := 0
	for s, n := range streams {
		want := [][]float64{{0.8, 0.9, 1.1}, {0.7, 1.2}}[s]
		for k := 0; k < back.Classes; k++ {
			h := back.Values[at+n*n+n : at+n*n+2*n]
			for l := range h {
				if math.Abs(h[l]-want[l]) > 1e-12 {
					t.Fatalf("stream %d class %d: variance scale %v, want %v", s, k, h, want)
				}
			}
			at += n*n + 2*n
		}
	}
}

// The class count names the scheme: one transform, the broad phonetic
// classes, or one a base phone; any other count is refused, since the engine
// could not tell which Gaussians a class holds.
func TestGaussianClassesByCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	means, _ := syntheticModel(rng, 4, 2, []int{2})
	bases := []string{"SIL", "AA", "S", "+NSN+"}
	filler := []bool{false, false, false, true}
	if c, err := gaussianClasses(1, means, bases, filler); err != nil || c != nil {
		t.Errorf("one class: %v, %v; want no classes", c, err)
	}
	broad, err := gaussianClasses(phoneClassCount, means, bases, filler)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{silenceClass, silenceClass, sonorantClass, sonorantClass, obstruentClass, obstruentClass, silenceClass, silenceClass}; !slices.Equal(broad, want) {
		t.Errorf("broad classes %v, want %v", broad, want)
	}
	phone, err := gaussianClasses(4, means, bases, filler)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 1, 1, 2, 2, 3, 3}; !slices.Equal(phone, want) {
		t.Errorf("phone classes %v, want %v", phone, want)
	}
	if _, err := gaussianClasses(2, means, bases, filler); err == nil || !strings.Contains(err.Error(), "2 classes") {
		t.Errorf("two classes: %v, want an error naming the count", err)
	}
	for scheme, want := range map[string]int{ClassesOne: 1, ClassesBroad: 3, ClassesPhone: 42} {
		if n, err := schemeClasses(scheme, 42); err != nil || n != want {
			t.Errorf("scheme %s: %d, %v; want %d", scheme, n, err, want)
		}
	}
	if _, err := schemeClasses("fricatives", 42); err == nil {
		t.Error("an unknown scheme was accepted")
	}
}
