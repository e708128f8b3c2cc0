package sphinx

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PocketSphinx applies only the first class of an MLLR transform, so a
// speaker transform with more than one regression class cannot reach the
// decoder as a transform. The engine therefore applies the classes itself:
// it estimates one transform per class of Gaussians from bw's statistics,
// moves every Gaussian's mean with its class's transform, and has the
// decoder load those means in place of the model's (decoder.setModel).
//
// Why classes: one transform moves every Gaussian alike, but a speaker and a
// line do not change every sound alike. The classes are the broad phonetic
// ones MLLR regression classes have classically been built on: silence and
// the model's noise fillers, the sonorants (vowels, glides, liquids,
// nasals), and the obstruents (stops, fricatives, affricates). A line acts
// on them differently: its noise fills the floor between words, and the
// obstruents' energy is weak and high, where the band ends and the noise
// covers most, while the sonorants' strong low formants carry through. Each
// class's transform is estimated by maximum likelihood from the frames
// aligned to it and pulled towards the one-class transform by a prior worth
// a number of frames, so a class that saw little speech stays close to it.
// Splitting by loudness instead (each Gaussian's c0 mean, two or three
// classes) was measured too and moved nothing (infra/bench/README.md).

// Broad phonetic classes of the CMU phone set pocketsphinx-en-us uses.
const (
	silenceClass = iota
	sonorantClass
	obstruentClass
	phoneClassCount
)

// obstruents are the CMU phone set's stops, fricatives and affricates.
var obstruents = map[string]bool{
	"B": true, "CH": true, "D": true, "DH": true, "F": true, "G": true, "HH": true, "JH": true, "K": true,
	"P": true, "S": true, "SH": true, "T": true, "TH": true, "V": true, "Z": true, "ZH": true,
}

// phoneClasses returns, for each codebook and density of means, its broad
// phonetic class. It needs a phonetically tied model (pocketsphinx-en-us),
// whose codebooks are its base phones in the model definition's order;
// bases names them, and filler marks the model's noise phones. A base phone
// the CMU set does not have as an obstruent counts as a sonorant.
func phoneClasses(means *GaussianParams, bases []string, filler []bool) ([]int, error) {
	if len(bases) != means.codebooks || len(filler) != len(bases) {
		return nil, fmt.Errorf("phone classes: the model has %d codebooks and %d base phones; want one codebook a phone (a phonetically tied model)", means.codebooks, len(bases))
	}
	out := make([]int, means.codebooks*means.densities)
	for cb, phone := range bases {
		k := sonorantClass
		switch {
		case filler[cb] || phone == "SIL":
			k = silenceClass
		case obstruents[phone]:
			k = obstruentClass
		}
		for d := 0; d < means.densities; d++ {
			out[cb*means.densities+d] = k
		}
	}
	return out, nil
}

// readBasePhones reads a text model definition's base phones, in order, and
// which of them are fillers.
func readBasePhones(mdef []byte) (bases []string, filler []bool, err error) {
	n := -1
	for _, l := range strings.Split(string(mdef), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[1] == "n_base" {
			if n, err = strconv.Atoi(f[0]); err != nil || n <= 0 {
				return nil, nil, fmt.Errorf("model definition: bad n_base %q", f[0])
			}
			continue
		}
		if n < 0 || len(f) < 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		// A base phone's row: its name, "-" for both contexts and the
		// position, then its attribute; the triphones' rows follow.
		if f[1] != "-" || f[2] != "-" || f[3] != "-" {
			break
		}
		bases = append(bases, f[0])
		filler = append(filler, f[4] == "filler")
		if len(bases) == n {
			return bases, filler, nil
		}
	}
	if n < 0 {
		return nil, nil, errors.New("model definition: no n_base")
	}
	return nil, nil, fmt.Errorf("model definition: %d base phones listed, n_base says %d", len(bases), n)
}

// mllrStats are one class's normal equations for one stream: per output
// dimension l, G[l] (n+1 by n+1) and k[l] (n+1), where the extended mean is
// (μ, 1) and the row of the transform solves G[l]·w = k[l].
type mllrStats struct {
	n   int
	G   [][]float64
	k   [][]float64
	occ float64
	xi  []float64 // scratch: the extended mean being added
}

func newMLLRStats(n int) *mllrStats {
	s := &mllrStats{n: n, G: make([][]float64, n), k: make([][]float64, n), xi: make([]float64, n+1)}
	for l := 0; l < n; l++ {
		s.G[l] = make([]float64, (n+1)*(n+1))
		s.k[l] = make([]float64, n+1)
	}
	return s
}

// add accumulates one Gaussian: its mean mu, variance v, occupancy occ and
// the occupancy-weighted sum of its frames sum.
func (s *mllrStats) add(mu, v, sum []float32, occ float64) {
	n, xi := s.n, s.xi
	for k := 0; k < n; k++ {
		xi[k] = float64(mu[k])
	}
	xi[n] = 1
	for l := 0; l < n; l++ {
		iv := 1 / max(float64(v[l]), varianceFloor)
		g, kk := s.G[l], s.k[l]
		for a := 0; a <= n; a++ {
			kk[a] += float64(sum[l]) * iv * xi[a]
			w := occ * iv * xi[a]
			for b := 0; b <= n; b++ {
				g[a*(n+1)+b] += w * xi[b]
			}
		}
	}
	s.occ += occ
}

// solve returns the transform's rows, each (A[l][0..n-1], b[l]), or an error
// when the equations are singular (too little speech in the class).
func (s *mllrStats) solve() ([][]float64, error) {
	rows := make([][]float64, s.n)
	for l := 0; l < s.n; l++ {
		w, err := solveLinear(s.G[l], s.k[l], s.n+1)
		if err != nil {
			return nil, err
		}
		rows[l] = w
	}
	return rows, nil
}

// solveLinear solves the n by n system G·x = k (G row-major) by Gaussian
// elimination with partial pivoting.
func solveLinear(G, k []float64, n int) ([]float64, error) {
	a := append([]float64(nil), G...)
	x := append([]float64(nil), k...)
	scale := 0.0
	for i := 0; i < n; i++ {
		scale = max(scale, math.Abs(a[i*n+i]))
	}
	if scale == 0 {
		return nil, errors.New("mllr: no statistics")
	}
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r*n+col]) > math.Abs(a[p*n+col]) {
				p = r
			}
		}
		if math.Abs(a[p*n+col]) < 1e-12*scale {
			return nil, errors.New("mllr: singular statistics")
		}
		if p != col {
			for c := 0; c < n; c++ {
				a[p*n+c], a[col*n+c] = a[col*n+c], a[p*n+c]
			}
			x[p], x[col] = x[col], x[p]
		}
		for r := col + 1; r < n; r++ {
			f := a[r*n+col] / a[col*n+col]
			if f == 0 {
				continue
			}
			for c := col; c < n; c++ {
				a[r*n+c] -= f * a[col*n+c]
			}
			x[r] -= f * x[col]
		}
	}
	for r := n - 1; r >= 0; r-- {
		v := x[r]
		for c := r + 1; c < n; c++ {
			v -= a[r*n+c] * x[c]
		}
		x[r] = v / a[r*n+r]
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("mllr: the solution is not a number")
		}
	}
	return x, nil
}

// classMeans estimates a transform per class of Gaussians (class gives each
// codebook·densities+density its class out of nClasses) from bw's statistics
// and returns the means each Gaussian moves to. Each class's maximum
// likelihood transform W is pulled towards global, the one-class transform,
// by priorFrames: (occ·W + prior·global)/(occ + prior); a class whose
// equations are singular takes global as it is. It also returns each
// class's aligned frames.
func classMeans(means, vars *GaussianParams, c *gaussianCounts, class []int, nClasses int, global *MLLR, priorFrames float64) (*GaussianParams, []float64, error) {
	if global.Classes != 1 {
		return nil, nil, fmt.Errorf("class transforms: the global transform has %d classes, want 1", global.Classes)
	}
	for _, g := range []*GaussianParams{vars, c.mean} {
		if !means.SameShape(g) {
			return nil, nil, errors.New("class transforms: the statistics do not fit the model")
		}
	}
	if err := global.checkStreams(means.streams); err != nil {
		return nil, nil, err
	}
	if len(class) != means.codebooks*means.densities {
		return nil, nil, errors.New("class transforms: the classes do not fit the model")
	}
	global1 := streamRows(global)
	frames := make([]float64, nClasses)
	// rows[s][k] is class k's rows in stream s.
	rows := make([][][][]float64, len(means.streams))
	for s, n := range means.streams {
		stats := make([]*mllrStats, nClasses)
		for k := range stats {
			stats[k] = newMLLRStats(n)
		}
		for cb := 0; cb < means.codebooks; cb++ {
			for d := 0; d < means.densities; d++ {
				occ := float64(c.occ[(cb*len(means.streams)+s)*means.densities+d])
				if occ <= 1e-6 {
					continue
				}
				stats[class[cb*means.densities+d]].add(means.At(cb, s, d), vars.At(cb, s, d), c.mean.At(cb, s, d), occ)
			}
		}
		glob := global1[s]
		rows[s] = make([][][]float64, nClasses)
		for k, st := range stats {
			if s == 0 {
				frames[k] = st.occ
			}
			ml, err := st.solve()
			if err != nil {
				rows[s][k] = glob
				continue
			}
			w := st.occ / (st.occ + priorFrames)
			for l := range ml {
				for j := range ml[l] {
					ml[l][j] = w*ml[l][j] + (1-w)*glob[l][j]
				}
			}
			rows[s][k] = ml
		}
	}
	moved := moveMeans(means, func(s, cb, d int) [][]float64 { return rows[s][class[cb*means.densities+d]] })
	return moved, frames, nil
}

// transformedMeans returns the means a one-class transform moves the model's
// to.
func transformedMeans(m *MLLR, means *GaussianParams) (*GaussianParams, error) {
	if m.Classes != 1 {
		return nil, fmt.Errorf("mllr: %d classes, want 1", m.Classes)
	}
	if err := m.checkStreams(means.streams); err != nil {
		return nil, err
	}
	rows := streamRows(m)
	return moveMeans(means, func(s, _, _ int) [][]float64 { return rows[s] }), nil
}

// streamRows returns a one-class transform (already checked to fit) as rows
// per stream: row l of stream s is A[l] followed by b[l].
func streamRows(m *MLLR) [][][]float64 {
	out := make([][][]float64, len(m.Streams))
	at := 0
	for s, n := range m.Streams {
		A, b := m.Values[at:at+n*n], m.Values[at+n*n:at+n*n+n]
		at += n*n + 2*n
		out[s] = make([][]float64, n)
		for l := 0; l < n; l++ {
			out[s][l] = append(append([]float64(nil), A[l*n:l*n+n]...), b[l])
		}
	}
	return out
}

// moveMeans returns the means with each Gaussian's moved by the rows rowsOf
// gives for its stream, codebook and density: mean'[l] = row[l]·(mean, 1).
func moveMeans(means *GaussianParams, rowsOf func(s, cb, d int) [][]float64) *GaussianParams {
	moved := NewGaussianParams(means.codebooks, means.densities, means.streams)
	for s, n := range means.streams {
		for cb := 0; cb < means.codebooks; cb++ {
			for d := 0; d < means.densities; d++ {
				r := rowsOf(s, cb, d)
				mu, out := means.At(cb, s, d), moved.At(cb, s, d)
				for l := 0; l < n; l++ {
					v := r[l][n]
					for j := 0; j < n; j++ {
						v += r[l][j] * float64(mu[j])
					}
					out[l] = float32(v)
				}
			}
		}
	}
	return moved
}

// WriteGaussianParams writes means or variances in SphinxTrain's binary
// form, which PocketSphinx's -mean reads.
func WriteGaussianParams(path string, g *GaussianParams) error {
	dims := []uint32{uint32(g.codebooks), uint32(len(g.streams)), uint32(g.densities)}
	for _, n := range g.streams {
		dims = append(dims, uint32(n))
	}
	return writeS3(path, dims, g.values)
}
