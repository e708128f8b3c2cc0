package sphinx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// syntheticModel is a model of codebooks × densities Gaussians over streams
// with means drawn at random and variances in 0.5..2.
func syntheticModel(rng *rand.Rand, codebooks, densities int, streams []int) (means, vars *GaussianParams) {
	means = NewGaussianParams(codebooks, densities, streams)
	vars = NewGaussianParams(codebooks, densities, streams)
	for i := range means.values {
		means.values[i] = float32(rng.NormFloat64() * 3)
		vars.values[i] = float32(0.5 + 1.5*rng.Float64())
	}
	return means, vars
}

// statisticsFrom makes bw-like statistics of frames whose mean, for each
// Gaussian, is where transformOf(its class) moves the Gaussian's mean: the
// sums are occupancy times that point, each Gaussian with occupancy occ.
func statisticsFrom(means *GaussianParams, class []int, transformOf func(class, stream int) (A [][]float64, b []float64), occ float32) *gaussianCounts {
	c := &gaussianCounts{
		mean: NewGaussianParams(means.codebooks, means.densities, means.streams),
		sq:   NewGaussianParams(means.codebooks, means.densities, means.streams),
		occ:  make([]float32, means.codebooks*len(means.streams)*means.densities),
	}
	for cb := 0; cb < means.codebooks; cb++ {
		for s, n := range means.streams {
			for d := 0; d < means.densities; d++ {
				A, b := transformOf(class[cb*means.densities+d], s)
				mu, sum, sq := means.At(cb, s, d), c.mean.At(cb, s, d), c.sq.At(cb, s, d)
				for l := 0; l < n; l++ {
					v := b[l]
					for k := 0; k < n; k++ {
						v += A[l][k] * float64(mu[k])
					}
					sum[l] = occ * float32(v)
					sq[l] = occ * float32(v*v+1)
				}
				c.occ[(cb*len(means.streams)+s)*means.densities+d] = occ
			}
		}
	}
	return c
}

// Frames that follow a different transform in each class give each class its
// own transform back, and a prior pulls a class towards the one-class
// transform by its frames' share.
func TestClassMeansRecoverEachClassTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	streams := []int{3, 2}
	means, vars := syntheticModel(rng, 4, 16, streams)
	class := alternateClasses(means)
	// Class 0 is lifted and squeezed, class 1 only shifted a little.
	transformOf := func(k, s int) ([][]float64, []float64) {
		n := streams[s]
		A := make([][]float64, n)
		b := make([]float64, n)
		for l := range A {
			A[l] = make([]float64, n)
			A[l][l] = 1
			if k == 0 {
				A[l][l] = 0.6
				b[l] = 2 + float64(l)
				if l > 0 {
					A[l][0] = 0.1
				}
			} else {
				b[l] = 0.25
			}
		}
		return A, b
	}
	const occ = 50
	c := statisticsFrom(means, class, transformOf, occ)
	global := identityMLLR(streams)
	moved, frames, err := classMeans(means, vars, c, class, 2, global, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range frames {
		if want := float64(occ * 4 * 16 / 2); math.Abs(f-want) > 1e-6 {
			t.Errorf("class %d: %v frames, want %v", k, f, want)
		}
	}
	worst := 0.0
	for cb := 0; cb < means.codebooks; cb++ {
		for s, n := range streams {
			for d := 0; d < means.densities; d++ {
				A, b := transformOf(class[cb*means.densities+d], s)
				mu, got := means.At(cb, s, d), moved.At(cb, s, d)
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
		t.Fatalf("moved means are up to %v from the class transforms'", worst)
	}

	// A prior worth as many frames as the class saw lands each mean half
	// way between its class's point and the global transform's (here the
	// identity: the mean itself).
	half, _, err := classMeans(means, vars, c, class, 2, global, float64(occ*4*16/2))
	if err != nil {
		t.Fatal(err)
	}
	worst = 0
	for i := range half.values {
		want := (float64(moved.values[i]) + float64(means.values[i])) / 2
		worst = max(worst, math.Abs(float64(half.values[i])-want))
	}
	if worst > 1e-3 {
		t.Fatalf("with the prior, means are up to %v from half way", worst)
	}
}

// A class that saw no frames cannot be solved for and takes the one-class
// transform as it is.
func TestClassWithoutFramesTakesTheGlobalTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	streams := []int{2}
	means, vars := syntheticModel(rng, 2, 8, streams)
	class := alternateClasses(means)
	c := statisticsFrom(means, class, func(k, s int) ([][]float64, []float64) {
		return [][]float64{{1, 0}, {0, 1}}, []float64{1, 1}
	}, 20)
	for cb := 0; cb < means.codebooks; cb++ {
		for d := 0; d < means.densities; d++ {
			if class[cb*means.densities+d] == 1 {
				c.occ[cb*means.densities+d] = 0
			}
		}
	}
	global := identityMLLR(streams)
	global.Values[4], global.Values[5] = -3, 5 // b = (-3, 5)
	moved, frames, err := classMeans(means, vars, c, class, 2, global, 0)
	if err != nil {
		t.Fatal(err)
	}
	if frames[1] != 0 {
		t.Fatalf("class 1 saw %v frames, want 0", frames[1])
	}
	for cb := 0; cb < means.codebooks; cb++ {
		for d := 0; d < means.densities; d++ {
			mu, got := means.At(cb, 0, d), moved.At(cb, 0, d)
			want := []float64{float64(mu[0]) + 1, float64(mu[1]) + 1}
			if class[cb*means.densities+d] == 1 {
				want = []float64{float64(mu[0]) - 3, float64(mu[1]) + 5}
			}
			for l := range want {
				if math.Abs(float64(got[l])-want[l]) > 1e-3 {
					t.Fatalf("codebook %d density %d (class %d): %v, want %v", cb, d, class[cb*means.densities+d], got, want)
				}
			}
		}
	}
}

// alternateClasses puts every other codebook's Gaussians in class 1.
func alternateClasses(means *GaussianParams) []int {
	class := make([]int, means.codebooks*means.densities)
	for i := range class {
		class[i] = (i / means.densities) % 2
	}
	return class
}

// A model definition's base phones come out in order with their fillers
// marked, and each phone's codebook gets its broad class.
func TestPhoneClassesFromTheModelDefinition(t *testing.T) {
	mdef := []byte(`0.3
5 n_base
9 n_tri
#
# Columns definitions
#base lft  rt p attrib tmat      ... state id's ...
+NSN+   -   - - filler    0      0      1      2 N
   AA   -   - -    n/a    1      3      4      5 N
    S   -   - -    n/a    2      6      7      8 N
  SIL   -   - - filler    3      9     10     11 N
    M   -   - -    n/a    4     12     13     14 N
   AA    S   M b    n/a    1     15     16     17 N
`)
	bases, filler, err := readBasePhones(mdef)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(bases, filler); got != "[+NSN+ AA S SIL M] [true false false true false]" {
		t.Fatalf("base phones %s", got)
	}
	means, _ := syntheticModel(rand.New(rand.NewPCG(5, 6)), 5, 2, []int{1})
	class, err := phoneClasses(means, bases, filler)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{silenceClass, silenceClass, sonorantClass, sonorantClass, obstruentClass, obstruentClass,
		silenceClass, silenceClass, sonorantClass, sonorantClass}
	if fmt.Sprint(class) != fmt.Sprint(want) {
		t.Fatalf("classes %v, want %v", class, want)
	}
	// A model whose codebooks are not its base phones has no such classes.
	other, _ := syntheticModel(rand.New(rand.NewPCG(5, 6)), 7, 2, []int{1})
	if _, err := phoneClasses(other, bases, filler); err == nil {
		t.Fatal("7 codebooks for 5 phones were given classes")
	}
	for _, bad := range []string{"0.3\n#\n", "0.3\nx n_base\n", "0.3\n3 n_base\n#\nAA - - - n/a 0 0 1 2 N\n"} {
		if _, _, err := readBasePhones([]byte(bad)); err == nil {
			t.Errorf("%q read as a model definition", bad)
		}
	}
}

// The class transforms for the engine's model size (42 codebooks of 128
// densities, three streams of 13, three classes), with the means they move
// written for the decoder: what each adapted channel pays for its classes
// on top of the alignment.
func BenchmarkClassMeans(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	streams := []int{13, 13, 13}
	means, vars := syntheticModel(rng, 42, 128, streams)
	class := make([]int, 42*128)
	for i := range class {
		class[i] = (i / 128) % phoneClassCount
	}
	c := statisticsFrom(means, class, func(k, s int) ([][]float64, []float64) {
		A := make([][]float64, 13)
		for l := range A {
			A[l] = make([]float64, 13)
			A[l][l] = 1 - 0.1*float64(k)
		}
		return A, make([]float64, 13)
	}, 2)
	path := filepath.Join(b.TempDir(), "means")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		moved, _, err := classMeans(means, vars, c, class, phoneClassCount, identityMLLR(streams), DefaultSpeakerClassPrior)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteGaussianParams(path, moved); err != nil {
			b.Fatal(err)
		}
	}
}
