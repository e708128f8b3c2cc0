package main

// The hidden-layer trainer is the command's alone: the shipped map is linear
// (a hidden layer halved the feature error but did not lower WER; see the
// README), so the engine carries only what applies a map.

import (
	"errors"
	"math"
	"math/rand"
	"runtime"
	"sync"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// FramePair is one utterance seen band-limited and wideband: frames of Dim
// values, frame-aligned (the longer one is cut to the shorter).
type FramePair struct{ Narrow, Wide []float32 }

// HiddenTraining configures TrainHidden.
type HiddenTraining struct {
	Units  int     // hidden units
	Epochs int     // passes over the frames
	Batch  int     // frames per Adam step
	Rate   float64 // Adam step size at the start; it decays linearly to a tenth
	Seed   int64
	// Progress, when set, is called after each epoch with the mean squared
	// error of the whole map on the training frames during that epoch.
	Progress func(epoch int, mse float64)
}

// TrainHidden returns a copy of the linear map m with a hidden layer fitted
// by minibatch Adam to what the linear map leaves unexplained. The linear
// weights stay the least-squares solution, so the map starts from it and the
// hidden layer only adds to it.
func TrainHidden(m *sphinx.FeatureMap, pairs []FramePair, cfg HiddenTraining) (*sphinx.FeatureMap, error) {
	if cfg.Units <= 0 || cfg.Epochs <= 0 || cfg.Batch <= 0 || cfg.Rate <= 0 {
		return nil, errors.New("feature map: hidden training needs units, epochs, batch and rate")
	}
	d, p, hu := m.Dim, m.Inputs(), cfg.Units
	linear := &sphinx.FeatureMap{Context: m.Context, Dim: d, Weights: m.Weights}

	// The utterances, mean-normalised as Apply normalises them, and the
	// residual targets (wideband minus the linear map's output).
	type utt struct{ in, target []float32 }
	var (
		utts []utt
		refs [][2]int32 // (utterance, frame)
	)
	for _, pr := range pairs {
		n := min(len(pr.Narrow), len(pr.Wide)) / d
		if n == 0 {
			continue
		}
		in := sphinx.MeanNormalised(pr.Narrow[:n*d], d)
		target := sphinx.MeanNormalised(pr.Wide[:n*d], d)
		lin := linear.Apply(pr.Narrow[:n*d])
		for i := range target {
			target[i] -= lin[i]
		}
		for t := 0; t < n; t++ {
			refs = append(refs, [2]int32{int32(len(utts)), int32(t)})
		}
		utts = append(utts, utt{in, target})
	}
	if len(refs) < 10*p {
		return nil, errors.New("feature map: too few frames to train a hidden layer")
	}

	// Standardise inputs (per cepstral coefficient) and targets for training;
	// the scales are folded back into the weights at the end.
	inScale := make([]float64, d)
	outScale := make([]float64, d)
	for _, u := range utts {
		for i, v := range u.in {
			inScale[i%d] += float64(v) * float64(v)
		}
		for i, v := range u.target {
			outScale[i%d] += float64(v) * float64(v)
		}
	}
	for i := range inScale {
		inScale[i] = math.Sqrt(inScale[i]/float64(len(refs))) + 1e-6
		outScale[i] = math.Sqrt(outScale[i]/float64(len(refs))) + 1e-6
	}
	xScale := make([]float32, p) // input k is divided by xScale[k]
	for k := 0; k < p-1; k++ {
		xScale[k] = float32(inScale[k%d])
	}
	xScale[p-1] = 1

	rng := rand.New(rand.NewSource(cfg.Seed))
	// Parameters, flat: U (hu x p), V (d x hu).
	params := make([]float64, hu*p+d*hu)
	u, v := params[:hu*p], params[hu*p:]
	for i := range u {
		u[i] = rng.NormFloat64() * math.Sqrt(2/float64(p))
	}
	for i := range v {
		v[i] = rng.NormFloat64() * 1e-3
	}
	adamM := make([]float64, len(params))
	adamV := make([]float64, len(params))

	workers := runtime.GOMAXPROCS(0)
	grads := make([][]float64, workers)
	losses := make([]float64, workers)
	for w := range grads {
		grads[w] = make([]float64, len(params))
	}
	step := 0
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
		rate := cfg.Rate * (1 - 0.9*float64(epoch-1)/float64(max(cfg.Epochs-1, 1)))
		var sse float64
		for from := 0; from < len(refs); from += cfg.Batch {
			batch := refs[from:min(from+cfg.Batch, len(refs))]
			var wg sync.WaitGroup
			per := (len(batch) + workers - 1) / workers
			for w := 0; w < workers; w++ {
				part := batch[min(w*per, len(batch)):min((w+1)*per, len(batch))]
				wg.Add(1)
				go func(w int, part [][2]int32) {
					defer wg.Done()
					g := grads[w]
					clear(g)
					gu, gv := g[:hu*p], g[hu*p:]
					x := make([]float32, p)
					xs := make([]float64, p)
					h := make([]float64, hu)
					dh := make([]float64, hu)
					e := make([]float64, d)
					var loss float64
					for _, r := range part {
						ut := utts[r[0]]
						n := len(ut.in) / d
						m.InputAt(x, ut.in[:n*d], int(r[1]))
						for k := range x {
							xs[k] = float64(x[k] / xScale[k])
						}
						for j := 0; j < hu; j++ {
							row := u[j*p : (j+1)*p]
							var z float64
							for k, xv := range xs {
								z += row[k] * xv
							}
							h[j] = max(z, 0)
						}
						tgt := ut.target[int(r[1])*d : (int(r[1])+1)*d]
						for i := 0; i < d; i++ {
							row := v[i*hu : (i+1)*hu]
							var y float64
							for j, hv := range h {
								y += row[j] * hv
							}
							e[i] = y - float64(tgt[i])/outScale[i]
							loss += e[i] * e[i] * outScale[i] * outScale[i]
						}
						clear(dh)
						for i := 0; i < d; i++ {
							row := v[i*hu : (i+1)*hu]
							grow := gv[i*hu : (i+1)*hu]
							for j, hv := range h {
								grow[j] += e[i] * hv
								dh[j] += e[i] * row[j]
							}
						}
						for j := 0; j < hu; j++ {
							if h[j] <= 0 {
								continue
							}
							grow := gu[j*p : (j+1)*p]
							for k, xv := range xs {
								grow[k] += dh[j] * xv
							}
						}
					}
					losses[w] = loss
				}(w, part)
			}
			wg.Wait()
			for w := 1; w < workers; w++ {
				for i, gval := range grads[w] {
					grads[0][i] += gval
				}
				losses[0] += losses[w]
			}
			sse += losses[0]
			step++
			adam(params, grads[0], adamM, adamV, rate, step, len(batch))
		}
		if cfg.Progress != nil {
			// The error of the whole map: the linear part's residual is the target.
			cfg.Progress(epoch, sse/float64(len(refs)))
		}
	}

	out := &sphinx.FeatureMap{Context: m.Context, Dim: d, Weights: m.Weights, TrainedOn: m.TrainedOn}
	out.Hidden = make([][]float32, hu)
	for j := range out.Hidden {
		out.Hidden[j] = make([]float32, p)
		for k := range out.Hidden[j] {
			out.Hidden[j][k] = float32(u[j*p+k]) / xScale[k]
		}
	}
	out.Out = make([][]float32, d)
	for i := range out.Out {
		out.Out[i] = make([]float32, hu)
		for j := range out.Out[i] {
			out.Out[i][j] = float32(v[i*hu+j] * outScale[i])
		}
	}
	return out, out.Validate()
}

// adam applies one Adam step (Kingma & Ba) with the gradient summed over n
// frames.
func adam(params, grad, m, v []float64, rate float64, step, n int) {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(step))
	c2 := 1 - math.Pow(b2, float64(step))
	for i, g := range grad {
		g /= float64(n)
		m[i] = b1*m[i] + (1-b1)*g
		v[i] = b2*v[i] + (1-b2)*g*g
		params[i] -= rate * (m[i] / c1) / (math.Sqrt(v[i]/c2) + eps)
	}
}
