package train

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// Single-pass retraining gives the acoustic model Gaussians for features it
// was never trained on (here: telephone-band cepstra) from "stereo" speech,
// each frame seen both ways. The wideband frame says which of the model's
// Gaussians it belongs to, by the model's own posteriors; the telephone-band
// frame is then counted towards those Gaussians' new means and variances. No
// transcript is needed, and the mixture weights and every other part of the
// model keep their meaning, because the frames are assigned as the wideband
// model assigns them. The posteriors are taken over every Gaussian of a stream
// at once (each codebook equally likely a priori), not through a phone
// alignment: a frame counts towards the Gaussians its wideband features fit,
// whichever phone they model. That is the method's weak point: on the dev
// voices the result decodes worse than the stock model with the engine's
// MLLR transform, which was fitted on English speech aligned to its own
// words (infra/bench/README.md, "The stock model retrained for the band").

// DecoderFeatures returns one utterance's feature vectors as the decoder
// computes them from its cepstra (the model's 1s_c_d_dd with batch CMN): the
// cepstra less their mean, their deltas over ±2 frames and their second
// deltas, one row of 3*dim values per frame, the utterance's edge frames
// repeated beyond it.
func DecoderFeatures(cep []float32, dim int) []float32 {
	c := sphinx.MeanNormalised(cep, dim)
	n := len(c) / dim
	out := make([]float32, n*3*dim)
	at := func(t, i int) float32 { return c[min(max(t, 0), n-1)*dim+i] }
	for t := 0; t < n; t++ {
		row := out[t*3*dim : (t+1)*3*dim]
		for i := 0; i < dim; i++ {
			row[i] = c[t*dim+i]
			row[dim+i] = at(t+2, i) - at(t-2, i)
			row[2*dim+i] = (at(t+3, i) - at(t-1, i)) - (at(t+1, i) - at(t-3, i))
		}
	}
	return out
}

// posteriorFloor drops Gaussians whose log-likelihood lies this far under a
// frame's best: their share is under 1e-5.
const posteriorFloor = -11.5

// Retrainer accumulates telephone-band frames under the wideband model's
// posteriors.
type Retrainer struct {
	means, vars          *sphinx.GaussianParams
	codebooks, densities int
	streams              []int
	offsets              []int
	// Per stream, per Gaussian (codebook-major, then density): the means,
	// the inverse variances and the log normaliser, flattened for the
	// posterior loop.
	mu, ivar [][]float64
	lognorm  [][]float64

	lock    sync.Mutex
	occ     [][]float64 // per stream, per Gaussian
	sum, sq [][]float64 // per stream, per Gaussian times the stream's length
	// The same sums of the wideband frames that assigned them.
	sumWide, sqWide [][]float64
	frames          int
}

// NewRetrainer prepares to retrain a model with these means and variances.
func NewRetrainer(means, vars *sphinx.GaussianParams) (*Retrainer, error) {
	if !means.SameShape(vars) {
		return nil, fmt.Errorf("retrain: means and variances differ in shape")
	}
	cb, dens, streams := means.Shape()
	r := &Retrainer{means: means, vars: vars, codebooks: cb, densities: dens, streams: streams}
	off := 0
	for s, n := range streams {
		r.offsets = append(r.offsets, off)
		off += n
		g := cb * dens
		mu, iv, ln := make([]float64, g*n), make([]float64, g*n), make([]float64, g)
		for c := 0; c < cb; c++ {
			for d := 0; d < dens; d++ {
				k := c*dens + d
				m, v := means.At(c, s, d), vars.At(c, s, d)
				for i := 0; i < n; i++ {
					mu[k*n+i] = float64(m[i])
					iv[k*n+i] = 1 / math.Max(float64(v[i]), 1e-4)
					ln[k] -= 0.5 * math.Log(math.Max(float64(v[i]), 1e-4))
				}
			}
		}
		r.mu, r.ivar, r.lognorm = append(r.mu, mu), append(r.ivar, iv), append(r.lognorm, ln)
		r.occ = append(r.occ, make([]float64, g))
		r.sum = append(r.sum, make([]float64, g*n))
		r.sq = append(r.sq, make([]float64, g*n))
		r.sumWide = append(r.sumWide, make([]float64, g*n))
		r.sqWide = append(r.sqWide, make([]float64, g*n))
	}
	return r, nil
}

// Dim is the feature vector's length: the streams' lengths together.
func (r *Retrainer) Dim() int {
	n := 0
	for _, s := range r.streams {
		n += s
	}
	return n
}

// Frames is how many frame pairs have been added.
func (r *Retrainer) Frames() int { return r.frames }

// Add counts one utterance: its wideband feature vectors (which assign the
// frames) and its telephone-band ones (which are counted), both from
// DecoderFeatures; the shorter decides how many frames pair.
func (r *Retrainer) Add(wide, narrow []float32) {
	dim := r.Dim()
	n := min(len(wide), len(narrow)) / dim
	if n == 0 {
		return
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	type part struct{ occ, sum, sq, sumWide, sqWide [][]float64 }
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := part{}
			for s := range r.streams {
				p.occ = append(p.occ, make([]float64, len(r.occ[s])))
				p.sum = append(p.sum, make([]float64, len(r.sum[s])))
				p.sq = append(p.sq, make([]float64, len(r.sq[s])))
				p.sumWide = append(p.sumWide, make([]float64, len(r.sq[s])))
				p.sqWide = append(p.sqWide, make([]float64, len(r.sq[s])))
			}
			ll := make([]float64, r.codebooks*r.densities)
			for t := w; t < n; t += workers {
				for s, ns := range r.streams {
					y := wide[t*dim+r.offsets[s] : t*dim+r.offsets[s]+ns]
					x := narrow[t*dim+r.offsets[s] : t*dim+r.offsets[s]+ns]
					r.accumulate(s, y, x, ll, p.occ[s], p.sum[s], p.sq[s], p.sumWide[s], p.sqWide[s])
				}
			}
			parts[w] = p
		}(w)
	}
	wg.Wait()
	r.lock.Lock()
	defer r.lock.Unlock()
	for _, p := range parts {
		for s := range r.streams {
			addInto(r.occ[s], p.occ[s])
			addInto(r.sum[s], p.sum[s])
			addInto(r.sq[s], p.sq[s])
			addInto(r.sumWide[s], p.sumWide[s])
			addInto(r.sqWide[s], p.sqWide[s])
		}
	}
	r.frames += n
}

func addInto(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// accumulate adds one frame of one stream: y assigns it, x is counted.
func (r *Retrainer) accumulate(s int, y, x []float32, ll, occ, sum, sq, sumWide, sqWide []float64) {
	ns := len(y)
	mu, iv, ln := r.mu[s], r.ivar[s], r.lognorm[s]
	best := math.Inf(-1)
	for k := range ll {
		d := 0.0
		m, v := mu[k*ns:k*ns+ns], iv[k*ns:k*ns+ns]
		for i, yi := range y {
			e := float64(yi) - m[i]
			d += e * e * v[i]
		}
		ll[k] = ln[k] - 0.5*d
		if ll[k] > best {
			best = ll[k]
		}
	}
	total := 0.0
	for k, l := range ll {
		if l-best < posteriorFloor {
			ll[k] = 0
			continue
		}
		ll[k] = math.Exp(l - best)
		total += ll[k]
	}
	for k, p := range ll {
		if p == 0 {
			continue
		}
		p /= total
		occ[k] += p
		for i, xi := range x {
			v := float64(xi)
			sum[k*ns+i] += p * v
			sq[k*ns+i] += p * v * v
			w := float64(y[i])
			sumWide[k*ns+i] += p * w
			sqWide[k*ns+i] += p * w * w
		}
	}
}

// RetrainedModel is the result: new means and variances, and how many
// Gaussians had at least a frame's worth of occupancy.
type RetrainedModel struct {
	Means, Variances *sphinx.GaussianParams
	Seen, Gaussians  int
}

// gaussianStats is what was counted for one Gaussian of one stream: its
// place, its occupancy n and, per dimension, the sums of the telephone-band
// frames (sum, sq) and of the wideband ones (sumWide, sqWide).
type gaussianStats struct {
	stream, codebook, density int
	n                         float64
	sum, sq, sumWide, sqWide  []float64
}

// results returns an empty model of the retrained one's shape, after
// checking the priors have it, and calls each for every Gaussian with its
// counts and the vectors to fill.
func (r *Retrainer) results(priors []*sphinx.GaussianParams, each func(g gaussianStats, mean, variance []float32)) (*RetrainedModel, error) {
	for _, g := range priors {
		if !r.means.SameShape(g) {
			return nil, fmt.Errorf("retrain: the prior's shape differs from the model's")
		}
	}
	out := &RetrainedModel{
		Means:     sphinx.NewGaussianParams(r.codebooks, r.densities, r.streams),
		Variances: sphinx.NewGaussianParams(r.codebooks, r.densities, r.streams),
	}
	for s, ns := range r.streams {
		for c := 0; c < r.codebooks; c++ {
			for d := 0; d < r.densities; d++ {
				k := c*r.densities + d
				g := gaussianStats{stream: s, codebook: c, density: d, n: r.occ[s][k],
					sum: r.sum[s][k*ns : k*ns+ns], sq: r.sq[s][k*ns : k*ns+ns],
					sumWide: r.sumWide[s][k*ns : k*ns+ns], sqWide: r.sqWide[s][k*ns : k*ns+ns]}
				out.Gaussians++
				if g.n >= 1 {
					out.Seen++
				}
				each(g, out.Means.At(c, s, d), out.Variances.At(c, s, d))
			}
		}
	}
	return out, nil
}

// Result returns the retrained Gaussians, each pulled towards its prior
// mean and variance by prior frames (MAP), so a Gaussian the speech rarely
// reached keeps nearly its prior; a variance never falls under floor times
// its prior.
func (r *Retrainer) Result(priorMeans, priorVars *sphinx.GaussianParams, prior, floor float64) (*RetrainedModel, error) {
	return r.results([]*sphinx.GaussianParams{priorMeans, priorVars}, func(g gaussianStats, m, v []float32) {
		pm, pv := priorMeans.At(g.codebook, g.stream, g.density), priorVars.At(g.codebook, g.stream, g.density)
		for i := range m {
			mp, vp := float64(pm[i]), float64(pv[i])
			mean := (g.sum[i] + prior*mp) / (g.n + prior)
			second := (g.sq[i] + prior*(vp+mp*mp)) / (g.n + prior)
			m[i] = float32(mean)
			v[i] = float32(math.Max(second-mean*mean, floor*vp))
		}
	})
}

// ResultByDifference returns Gaussians moved from the stock model by what
// the telephone band does to the frames each one was assigned, measured on
// the same frames both ways, so the training voices' own traits cancel: each
// mean moves by the mean difference between the telephone-band and wideband
// frames, each variance is scaled by the ratio of their spreads. Both are
// pulled towards the prior's (its mean's offset from the stock one, and no
// scaling) by prior frames.
func (r *Retrainer) ResultByDifference(priorMeans *sphinx.GaussianParams, prior float64) (*RetrainedModel, error) {
	return r.results([]*sphinx.GaussianParams{priorMeans}, func(g gaussianStats, m, v []float32) {
		stockMean := r.means.At(g.codebook, g.stream, g.density)
		stockVar := r.vars.At(g.codebook, g.stream, g.density)
		pm := priorMeans.At(g.codebook, g.stream, g.density)
		n, share := g.n, g.n/(g.n+prior)
		for i := range m {
			shift := float64(pm[i] - stockMean[i])
			ratio := 1.0
			if n > 0 {
				sx, sy := g.sum[i], g.sumWide[i]
				shift = share*(sx-sy)/n + (1-share)*shift
				vx := g.sq[i]/n - (sx/n)*(sx/n)
				vy := g.sqWide[i]/n - (sy/n)*(sy/n)
				if vx > 0 && vy > 0 {
					ratio = math.Exp(share * math.Log(vx/vy))
				}
			}
			m[i] = float32(float64(stockMean[i]) + shift)
			v[i] = float32(float64(stockVar[i]) * min(max(ratio, 0.25), 4))
		}
	})
}
