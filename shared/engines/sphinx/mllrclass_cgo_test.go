//go:build cgo

package sphinx

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// With one class and no prior, the engine's own estimate is the transform
// SphinxTrain's mllr_solve finds from the same statistics, so the classes
// start from the same equations the shipped one-class transform solves.
func TestOneClassMatchesMLLRSolve(t *testing.T) {
	needSphinxTrain(t)
	rng := rand.New(rand.NewPCG(7, 8))
	streams := []int{3, 3}
	means, vars := syntheticModel(rng, 3, 8, streams)
	class := make([]int, 3*8)
	// Frames spread around a transform of the means, with uneven
	// occupancies, so the estimate is a weighted fit, not an exact one.
	c := statisticsFrom(means, class, func(k, s int) ([][]float64, []float64) {
		return [][]float64{{0.9, 0.1, 0}, {0, 1.1, -0.2}, {0.05, 0, 0.8}}, []float64{0.5, -1, 2}
	}, 1)
	for i := range c.occ {
		c.occ[i] = float32(5 + 40*rng.Float64())
	}
	for cb := 0; cb < 3; cb++ {
		for s, n := range streams {
			for d := 0; d < 8; d++ {
				occ := c.occ[(cb*len(streams)+s)*8+d]
				sum := c.mean.At(cb, s, d)
				for l := 0; l < n; l++ {
					sum[l] = occ * (sum[l] + float32(rng.NormFloat64()))
				}
			}
		}
	}
	dir := t.TempDir()
	if err := WriteGaussianParams(filepath.Join(dir, "means"), means); err != nil {
		t.Fatal(err)
	}
	if err := WriteGaussianParams(filepath.Join(dir, "variances"), vars); err != nil {
		t.Fatal(err)
	}
	accum := filepath.Join(dir, "accum")
	if err := os.Mkdir(accum, 0o700); err != nil {
		t.Fatal(err)
	}
	counts := filepath.Join(accum, "gauden_counts")
	writeGaussianCounts(t, counts, 3, 8, streams, c.mean.values, c.sq.values, c.occ)
	setChecksum(t, counts)
	solved, err := SolveMLLR(context.Background(), DefaultSphinxTrainDir, dir, accum, filepath.Join(dir, "out.mllr"), filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := transformedMeans(solved, means)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := classMeans(means, vars, c, class, 1, identityMLLR(streams), 0)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range want.values {
		worst = max(worst, math.Abs(float64(got.values[i]-want.values[i])))
	}
	if worst > 1e-3 {
		t.Fatalf("the engine's one-class means are up to %v from mllr_solve's", worst)
	}
}

// setChecksum writes the checksum SphinxTrain's readers verify into the last
// word of a file written by writeGaussianCounts: every 32-bit word after the
// byte-order mark, each added to the running sum rotated left by 20 bits.
func setChecksum(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Index(b, []byte("endhdr\n")) + len("endhdr\n") + 4
	var sum uint32
	for i := body; i < len(b)-4; i += 4 {
		sum = (sum<<20 | sum>>12) + binary.LittleEndian.Uint32(b[i:])
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], sum)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Means the engine moves itself reach the decoder: the model's means moved
// by a transform and loaded with the identity transform decode exactly as
// the transform applied by PocketSphinx does, and the next transform acts on
// the model's own means again.
func TestDecoderLoadsMovedMeans(t *testing.T) {
	t.Parallel()
	tr, d := oneDecoder(t)
	cep, err := d.cepstra(speak(t, "slt", shortLine, 16000))
	if err != nil {
		t.Fatal(err)
	}
	decodeWith := func(means, transform string) string {
		t.Helper()
		if err := d.setModel(means, transform, tr.identityPath); err != nil {
			t.Fatal(err)
		}
		words, err := d.decodeCepstra(cep)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(words) // text, frames and posterior of each word
	}
	transformed := decodeWith("", tr.mappedMLLRPath)
	stock, err := ReadGaussianParams(d.stockMeans)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := transformedMeans(tr.mappedMLLR, stock)
	if err != nil {
		t.Fatal(err)
	}
	movedPath := filepath.Join(t.TempDir(), "means")
	if err := WriteGaussianParams(movedPath, moved); err != nil {
		t.Fatal(err)
	}
	if got := decodeWith(movedPath, ""); got != transformed {
		t.Errorf("moved means with the identity:\n%s\nthe transform on the model's means:\n%s", got, transformed)
	}
	if plain := decodeWith("", ""); plain == transformed {
		t.Fatalf("the transform left the decode as it was (%s): this test would prove nothing", plain)
	}
	if again := decodeWith("", tr.mappedMLLRPath); again != transformed {
		t.Errorf("after the moved means, the transform decoded\n%s\nwant\n%s", again, transformed)
	}
}
