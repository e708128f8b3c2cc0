package sphinx

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// writeGaussianCounts writes statistics the way bw writes gauden_counts:
// flags, codebook and density counts, the stream lengths, the sums of frames
// and of their squares, then the occupancies, each array with its count.
func writeGaussianCounts(t *testing.T, path string, codebooks, densities int, streams []int, sum, sq, occ []float32) {
	t.Helper()
	b := []byte("s3\nversion 1.0\nchksum0 yes\nendhdr\n")
	u := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	fs := func(vs []float32) {
		u(uint32(len(vs)))
		for _, v := range vs {
			u(math.Float32bits(v))
		}
	}
	u(0x11223344)
	for _, v := range []int{1, 1, 0, codebooks, densities, len(streams)} {
		u(uint32(v))
	}
	for _, n := range streams {
		u(uint32(n))
	}
	fs(sum)
	fs(sq)
	for _, v := range []int{codebooks, len(streams), densities} {
		u(uint32(v))
	}
	fs(occ)
	u(0) // checksum, not read
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The scale is the frames' spread around the transformed means in units of
// the model's variances: frames drawn from a Gaussian half as wide as the
// model's (around a mean the transform moves them to) give a quarter.
func TestVarianceScaleFromStatistics(t *testing.T) {
	dir := t.TempDir()
	streams := []int{2}
	// One codebook, two densities; each dimension's model mean and variance.
	means := []float32{1, -1, 0, 2}
	vars := []float32{4, 1, 4, 1}
	if err := writeS3(filepath.Join(dir, "means"), []uint32{1, 1, 2, 2}, means); err != nil {
		t.Fatal(err)
	}
	if err := writeS3(filepath.Join(dir, "variances"), []uint32{1, 1, 2, 2}, vars); err != nil {
		t.Fatal(err)
	}
	// The transform adds 3 to the first dimension and doubles the second.
	m := identityMLLR(streams)
	m.Values[3] = 2 // A[1][1]
	m.Values[4] = 3 // b[0]
	// Frames at moved mean ± half a model deviation, occupancy 10 per density:
	// sum = occ·μ', squares = occ·(μ'² + (σ/2)²).
	var sum, sq []float32
	occ := []float32{10, 10}
	for d := 0; d < 2; d++ {
		moved := []float64{float64(means[2*d]) + 3, 2 * float64(means[2*d+1])}
		for l := 0; l < 2; l++ {
			spread := float64(vars[2*d+l]) / 4
			sum = append(sum, float32(10*moved[l]))
			sq = append(sq, float32(10*(moved[l]*moved[l]+spread)))
		}
	}
	writeGaussianCounts(t, filepath.Join(dir, "gauden_counts"), 1, 2, streams, sum, sq, occ)

	mp, err := ReadGaussianParams(filepath.Join(dir, "means"))
	if err != nil {
		t.Fatal(err)
	}
	vp, err := ReadGaussianParams(filepath.Join(dir, "variances"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := readGaussianCounts(filepath.Join(dir, "gauden_counts"))
	if err != nil {
		t.Fatal(err)
	}
	// Without a prior the estimate itself; with a prior worth as many frames
	// as were aligned (20), half way between it and 1.
	for _, tc := range []struct{ prior, want float64 }{{0, 0.25}, {20, 0.625}} {
		h, frames, err := varianceScale(m, mp, vp, c, tc.prior)
		if err != nil {
			t.Fatal(err)
		}
		if frames != 20 {
			t.Errorf("prior %v: %v frames, want 20", tc.prior, frames)
		}
		for l, got := range h[0] {
			if math.Abs(got-tc.want) > 1e-4 {
				t.Errorf("prior %v: dimension %d scale %.4f, want %.4f", tc.prior, l, got, tc.want)
			}
		}
		m.setVarianceScale(h)
		if got := m.Values[2*2+2*1 : 2*2+2*2]; got[0] != h[0][0] || got[1] != h[0][1] {
			t.Errorf("prior %v: transform's h row %v, want %v", tc.prior, got, h[0])
		}
	}
	// Measured around the untransformed means instead, the frames look
	// farther out than they are: the scale comes from the transform's means.
	h, _, err := varianceScale(identityMLLR(streams), mp, vp, c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h[0][0] <= 0.25+1e-3 || h[0][1] <= 0.25+1e-3 {
		t.Errorf("around the stock means the scale is %v; it should be larger than the transformed means' 0.25", h[0])
	}
}

// Statistics that do not fit the model are an error, not a scale.
func TestVarianceScaleRejectsMismatchedStatistics(t *testing.T) {
	dir := t.TempDir()
	if err := writeS3(filepath.Join(dir, "means"), []uint32{1, 1, 2, 2}, make([]float32, 4)); err != nil {
		t.Fatal(err)
	}
	mp, err := ReadGaussianParams(filepath.Join(dir, "means"))
	if err != nil {
		t.Fatal(err)
	}
	writeGaussianCounts(t, filepath.Join(dir, "gauden_counts"), 1, 3, []int{2}, make([]float32, 6), make([]float32, 6), []float32{1, 1, 1})
	c, err := readGaussianCounts(filepath.Join(dir, "gauden_counts"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := varianceScale(identityMLLR([]int{2}), mp, mp, c, 0); err == nil {
		t.Error("three densities of statistics against a two-density model: no error")
	}
	// Nor do statistics whose stream is longer than the model's (indexing it
	// by the model's shape would run past the sums).
	writeGaussianCounts(t, filepath.Join(dir, "long"), 1, 2, []int{3}, make([]float32, 6), make([]float32, 6), []float32{1, 1})
	if c, err = readGaussianCounts(filepath.Join(dir, "long")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := varianceScale(identityMLLR([]int{2}), mp, mp, c, 0); err == nil {
		t.Error("a three-long stream of statistics against a two-long model stream: no error")
	}
	// Sums that are not numbers give an error, not NaN variances.
	nan := float32(math.NaN())
	writeGaussianCounts(t, filepath.Join(dir, "nan"), 1, 2, []int{2}, []float32{nan, 0, 0, 0}, make([]float32, 4), []float32{1, 1})
	if c, err = readGaussianCounts(filepath.Join(dir, "nan")); err != nil {
		t.Fatal(err)
	}
	if h, _, err := varianceScale(identityMLLR([]int{2}), mp, mp, c, DefaultSpeakerVariancePrior); err == nil {
		t.Errorf("sums that are not numbers: scale %v, no error", h)
	}
	os.WriteFile(filepath.Join(dir, "short"), []byte("s3\nendhdr\n\x44\x33\x22\x11\x01\x00"), 0o600)
	if _, err := readGaussianCounts(filepath.Join(dir, "short")); err == nil {
		t.Error("a truncated file: no error")
	}
}

// The scale for the engine's model size (42 codebooks of 128 densities, three
// streams of 13): what each adapted channel pays on top of the alignment.
func BenchmarkVarianceScale(b *testing.B) {
	streams := []int{13, 13, 13}
	params := func(v float32) *GaussianParams {
		g := NewGaussianParams(42, 128, streams)
		for i := range g.values {
			g.values[i] = v + float32(i%7)/10
		}
		return g
	}
	c := &gaussianCounts{mean: params(1), sq: params(3), occ: make([]float32, 42*3*128)}
	for i := range c.occ {
		c.occ[i] = 0.5
	}
	means, vars, m := params(0.5), params(1), identityMLLR(streams)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := varianceScale(m, means, vars, c, DefaultSpeakerVariancePrior); err != nil {
			b.Fatal(err)
		}
	}
}
