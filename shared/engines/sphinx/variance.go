package sphinx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
)

// An MLLR transform also carries a variance scale h per stream and
// dimension, which PocketSphinx multiplies into every Gaussian's variance
// when it applies the transform; mllr_solve leaves it at 1. varianceScale
// estimates it for one speaker from bw's statistics: how far the speaker's
// aligned frames spread around the transformed means, in units of the
// model's variances, over every Gaussian they were aligned to. A
// speaker-independent model's Gaussians are wider than one speaker's frames
// spread (0.4-1.2 by dimension, most under 0.9, on two dev calls' channels
// through a line), and a mean transform cannot narrow them: with the scale
// the model scores this speaker's sounds more sharply. The estimate is pulled
// towards 1 by a prior worth a number of frames (Config.SpeakerVariancePrior),
// so a channel with little confident speech (a LibriVox clip: 350-450
// aligned frames) keeps much of the model's width while a call's channel
// (700-1,600 frames) gets most of its own. Without the prior the clips lost
// words (28 of 71 wrong before, 31 after) while calls gained.

// GaussianParams are a SphinxTrain Gaussian parameter file's vectors (means
// or variances): codebook by stream by density, each a vector of its
// stream's length, in file order.
type GaussianParams struct {
	codebooks, densities int
	streams              []int
	values               []float32
}

// SameShape reports whether o has g's codebooks, densities and streams.
func (g *GaussianParams) SameShape(o *GaussianParams) bool {
	return g.codebooks == o.codebooks && g.densities == o.densities && slices.Equal(g.streams, o.streams)
}

// vectorsLength is the length of one codebook's density across all streams.
func vectorsLength(streams []int) int {
	n := 0
	for _, s := range streams {
		n += s
	}
	return n
}

// NewGaussianParams returns zeroed vectors of the given shape.
func NewGaussianParams(codebooks, densities int, streams []int) *GaussianParams {
	return &GaussianParams{codebooks: codebooks, densities: densities, streams: slices.Clone(streams), values: make([]float32, codebooks*densities*vectorsLength(streams))}
}

// Shape returns the codebook and density counts and each stream's length.
func (g *GaussianParams) Shape() (codebooks, densities int, streams []int) {
	return g.codebooks, g.densities, slices.Clone(g.streams)
}

// TransformedMeans returns the means a one-class transform moves these to.
func (g *GaussianParams) TransformedMeans(m *MLLR) (*GaussianParams, error) {
	return transformedMeans(m, g)
}

// At returns the vector of one codebook's density in one stream.
func (g *GaussianParams) At(cb, stream, density int) []float32 {
	off := cb * g.densities * vectorsLength(g.streams)
	for s := 0; s < stream; s++ {
		off += g.densities * g.streams[s]
	}
	off += density * g.streams[stream]
	return g.values[off : off+g.streams[stream]]
}

// s3Reader reads the body of a SphinxTrain binary file after its text header
// and byte-order mark.
type s3Reader struct {
	b     []byte
	order binary.ByteOrder
}

func newS3Reader(b []byte) (*s3Reader, error) {
	if !bytes.HasPrefix(b, []byte("s3\n")) {
		return nil, errors.New("not a SphinxTrain binary file")
	}
	i := bytes.Index(b, []byte("endhdr\n"))
	if i < 0 || len(b) < i+7+4 {
		return nil, errors.New("SphinxTrain file: no end of header")
	}
	b = b[i+7:]
	r := &s3Reader{b: b[4:]}
	switch {
	case binary.LittleEndian.Uint32(b) == 0x11223344:
		r.order = binary.LittleEndian
	case binary.BigEndian.Uint32(b) == 0x11223344:
		r.order = binary.BigEndian
	default:
		return nil, errors.New("SphinxTrain file: bad byte-order mark")
	}
	return r, nil
}

func (r *s3Reader) uint() (int, error) {
	if len(r.b) < 4 {
		return 0, errors.New("SphinxTrain file: truncated")
	}
	v := r.order.Uint32(r.b)
	r.b = r.b[4:]
	if v > 1<<28 {
		return 0, fmt.Errorf("SphinxTrain file: implausible count %d", v)
	}
	return int(v), nil
}

// uints reads one value into each of fields, in order.
func (r *s3Reader) uints(fields ...*int) error {
	for _, p := range fields {
		var err error
		if *p, err = r.uint(); err != nil {
			return err
		}
	}
	return nil
}

// lengths reads n stream lengths and returns them with their sum.
func (r *s3Reader) lengths(n int) ([]int, int, error) {
	out := make([]int, n)
	sum := 0
	for i := range out {
		v, err := r.uint()
		if err != nil {
			return nil, 0, err
		}
		out[i] = v
		sum += v
	}
	return out, sum, nil
}

// floats reads a count-prefixed array and checks the count.
func (r *s3Reader) floats(want int) ([]float32, error) {
	n, err := r.uint()
	if err != nil {
		return nil, err
	}
	if n != want || len(r.b) < 4*n {
		return nil, fmt.Errorf("SphinxTrain file: %d values where %d were expected", n, want)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(r.order.Uint32(r.b[4*i:]))
	}
	r.b = r.b[4*n:]
	return out, nil
}

// readS3 reads a SphinxTrain binary file and parses its body with parse;
// errors in the body name the file.
func readS3(path string, parse func(*s3Reader) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r, err := newS3Reader(b)
	if err == nil {
		err = parse(r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadGaussianParams reads a means or variances file: the codebook, stream
// and density counts, the stream lengths, then the vectors.
func ReadGaussianParams(path string) (*GaussianParams, error) {
	g := &GaussianParams{}
	err := readS3(path, func(r *s3Reader) error {
		var nStreams int
		if err := r.uints(&g.codebooks, &nStreams, &g.densities); err != nil {
			return err
		}
		streams, blk, err := r.lengths(nStreams)
		if err != nil {
			return err
		}
		g.streams = streams
		g.values, err = r.floats(g.codebooks * g.densities * blk)
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// gaussianCounts are bw's statistics per Gaussian (gauden_counts): the
// occupancy-weighted sums of the frames (mean) and of their squares (sq),
// and the occupancies themselves (occ, one per codebook, stream, density).
type gaussianCounts struct {
	mean, sq *GaussianParams
	occ      []float32
}

// readGaussianCounts reads bw's gauden_counts, written with means and
// variances re-estimated in one pass (bw's defaults: the squares are of the
// frames themselves, not of their distances to the old means).
func readGaussianCounts(path string) (*gaussianCounts, error) {
	c := &gaussianCounts{}
	err := readS3(path, func(r *s3Reader) error {
		var hasMeans, hasVars, twoPass, codebooks, densities, nStreams int
		if err := r.uints(&hasMeans, &hasVars, &twoPass, &codebooks, &densities, &nStreams); err != nil {
			return err
		}
		if hasMeans != 1 || hasVars != 1 || twoPass != 0 {
			return fmt.Errorf("want one-pass sums of frames and squares (means %d, variances %d, two-pass %d)", hasMeans, hasVars, twoPass)
		}
		streams, blk, err := r.lengths(nStreams)
		if err != nil {
			return err
		}
		c.mean = &GaussianParams{codebooks: codebooks, densities: densities, streams: streams}
		c.sq = &GaussianParams{codebooks: codebooks, densities: densities, streams: streams}
		if c.mean.values, err = r.floats(codebooks * densities * blk); err != nil {
			return err
		}
		if c.sq.values, err = r.floats(codebooks * densities * blk); err != nil {
			return err
		}
		for _, want := range []int{codebooks, nStreams, densities} {
			if n, err := r.uint(); err != nil || n != want {
				return errors.New("occupancy dimensions do not match the sums")
			}
		}
		c.occ, err = r.floats(codebooks * nStreams * densities)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Variance scales are kept within these bounds: a channel's statistics are
// a minute of speech, and a scale far from 1 means they are not to be trusted.
const (
	minVarianceScale = 0.25
	maxVarianceScale = 4.0
	// varianceFloor is PocketSphinx's default -varfloor, applied to the
	// model's variances as it loads them.
	varianceFloor = 1e-4
)

// varianceScale returns, per stream, the scale of each dimension's variances
// that makes the aligned frames likeliest around the means m moves the model's
// to: the mean, over every frame and Gaussian it was aligned to, of the
// squared distance to the moved mean in units of the Gaussian's variance,
// with priorFrames frames more at distance 1 (a prior that the scale is 1).
// frames is the statistics' occupancy (aligned frames).
func varianceScale(m *MLLR, means, vars *GaussianParams, c *gaussianCounts, priorFrames float64) (h [][]float64, frames float64, err error) {
	moved, err := transformedMeans(m, means)
	if err != nil {
		return nil, 0, fmt.Errorf("variance scale: %w", err)
	}
	return varianceScaleAround(moved, vars, c, priorFrames)
}

// varianceScaleAround is varianceScale around means already moved (by a
// transform per class of Gaussians, mllrclass.go).
func varianceScaleAround(moved, vars *GaussianParams, c *gaussianCounts, priorFrames float64) (h [][]float64, frames float64, err error) {
	for _, g := range []*GaussianParams{vars, c.mean, c.sq} {
		if !moved.SameShape(g) {
			return nil, 0, errors.New("variance scale: the statistics do not fit the model")
		}
	}
	h = make([][]float64, len(moved.streams))
	for s, n := range moved.streams {
		num := make([]float64, n)
		var den float64
		for cb := 0; cb < moved.codebooks; cb++ {
			for d := 0; d < moved.densities; d++ {
				occ := float64(c.occ[(cb*len(moved.streams)+s)*moved.densities+d])
				if occ <= 1e-6 {
					continue
				}
				mu, v := moved.At(cb, s, d), vars.At(cb, s, d)
				sum, sq := c.mean.At(cb, s, d), c.sq.At(cb, s, d)
				for l := 0; l < n; l++ {
					// Σγ(x-μ')² = Σγx² - 2μ'Σγx + μ'²Σγ
					m := float64(mu[l])
					dist := float64(sq[l]) - 2*m*float64(sum[l]) + m*m*occ
					num[l] += max(dist, 0) / max(float64(v[l]), varianceFloor)
				}
				den += occ
			}
		}
		if den <= 0 {
			return nil, 0, errors.New("variance scale: no frames were aligned")
		}
		h[s] = make([]float64, n)
		for l := range num {
			v := (num[l] + priorFrames) / (den + priorFrames)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				// min and max would pass a NaN on to every variance.
				return nil, 0, fmt.Errorf("variance scale: stream %d dimension %d is not a number", s, l)
			}
			h[s][l] = min(max(v, minVarianceScale), maxVarianceScale)
		}
		frames = den
	}
	return h, frames, nil
}

// setVarianceScale writes h into the transform's variance scales.
func (m *MLLR) setVarianceScale(h [][]float64) {
	at := 0
	for s, n := range m.Streams {
		copy(m.Values[at+n*n+n:at+n*n+2*n], h[s])
		at += n*n + 2*n
	}
}
