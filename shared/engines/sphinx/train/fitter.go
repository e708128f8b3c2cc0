package train

import (
	"errors"
	"fmt"
	"math"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// FeatureMapFitter accumulates pairs of utterances (band-limited cepstra and
// wideband cepstra of the same audio, frame-aligned) and fits a
// sphinx.FeatureMap by ridge-regularised least squares. Only the normal
// equations are kept, so memory does not grow with the amount of training
// speech.
type FeatureMapFitter struct {
	dim, context int
	xtx          [][]float64 // P x P
	xty          [][]float64 // P x Dim
	yy           []float64   // sum of squared (mean-normalised) targets per output
	frames       int
	x            []float64 // scratch stacked input
}

// NewFeatureMapFitter prepares a fitter for dim-long cepstra with context
// frames on each side.
func NewFeatureMapFitter(dim, context int) *FeatureMapFitter {
	p := dim*(2*context+1) + 1
	f := &FeatureMapFitter{dim: dim, context: context, x: make([]float64, p), yy: make([]float64, dim)}
	f.xtx = make([][]float64, p)
	f.xty = make([][]float64, p)
	for i := range f.xtx {
		f.xtx[i] = make([]float64, p)
		f.xty[i] = make([]float64, dim)
	}
	return f
}

// Frames is the number of frames added so far.
func (f *FeatureMapFitter) Frames() int { return f.frames }

// Add adds one utterance: narrow and wide hold frames of dim values. Only the
// frames both have are used (the two front-end passes can differ by a frame at
// the end).
//
// Both sides are fitted after subtracting their utterance mean, because that is
// what the decoder sees: the model's front end applies batch cepstral mean
// normalisation to each utterance after the map, which cancels the map's bias
// and any constant offset, so only the mean-free error matters.
func (f *FeatureMapFitter) Add(narrow, wide []float32) {
	d := f.dim
	n := min(len(narrow), len(wide)) / d
	narrow = sphinx.MeanNormalised(narrow[:n*d], d)
	wide = sphinx.MeanNormalised(wide[:n*d], d)
	p := len(f.x)
	x := make([]float32, p)
	// The inputs are stacked as the engine's FeatureMap.Apply stacks them.
	shape := sphinx.FeatureMap{Dim: d, Context: f.context}
	for t := 0; t < n; t++ {
		shape.InputAt(x, narrow, t)
		for i, v := range x {
			f.x[i] = float64(v)
		}
		y := wide[t*d : (t+1)*d]
		for j, v := range y {
			f.yy[j] += float64(v) * float64(v)
		}
		for i := 0; i < p; i++ {
			xi := f.x[i]
			row := f.xtx[i]
			for j := i; j < p; j++ { // upper triangle; mirrored in Fit
				row[j] += xi * f.x[j]
			}
			yr := f.xty[i]
			for j, v := range y {
				yr[j] += xi * float64(v)
			}
		}
		f.frames++
	}
}

// Fit solves the normal equations. ridge is added to the diagonal relative to
// its mean (1e-4 is a good start); it keeps the solve stable when some inputs
// are nearly collinear, as neighbouring cepstral frames are.
//
// With matchVariance, each output is then scaled so that its variance over the
// training frames equals the wideband target's: least-squares predictions
// regress towards the mean, and features flatter than real speech fit the
// acoustic model's Gaussians in a way real speech never does.
func (f *FeatureMapFitter) Fit(ridge float64, matchVariance bool, trainedOn string) (*sphinx.FeatureMap, error) {
	p := len(f.x)
	if f.frames < 10*p {
		return nil, fmt.Errorf("feature map: %d frames is too little to fit %d inputs", f.frames, p)
	}
	a := make([][]float64, p)
	var trace float64
	for i := range a {
		a[i] = make([]float64, p)
		for j := range a[i] {
			if j >= i {
				a[i][j] = f.xtx[i][j]
			} else {
				a[i][j] = f.xtx[j][i]
			}
		}
		trace += a[i][i]
	}
	lambda := ridge * trace / float64(p)
	for i := 0; i < p-1; i++ { // the bias is not shrunk
		a[i][i] += lambda
	}
	l, err := cholesky(a)
	if err != nil {
		return nil, err
	}
	m := &sphinx.FeatureMap{Context: f.context, Dim: f.dim, Weights: make([][]float32, f.dim), TrainedOn: trainedOn}
	col := make([]float64, p)
	for out := 0; out < f.dim; out++ {
		for i := range col {
			col[i] = f.xty[i][out]
		}
		w := choleskySolve(l, col)
		scale := 1.0
		if matchVariance {
			// The predictions' sum of squares is w' (X'X) w; a is X'X plus
			// the ridge on every diagonal entry but the bias's.
			var pred float64
			for i := range w {
				for j := range w {
					pred += w[i] * a[i][j] * w[j]
				}
				if i < p-1 {
					pred -= lambda * w[i] * w[i]
				}
			}
			if pred > 0 {
				scale = math.Sqrt(f.yy[out] / pred)
			}
		}
		m.Weights[out] = make([]float32, p)
		for i, v := range w {
			m.Weights[out][i] = float32(v * scale)
		}
	}
	return m, m.Validate()
}

// cholesky factors a symmetric positive-definite matrix as L L^T.
func cholesky(a [][]float64) ([][]float64, error) {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return nil, errors.New("feature map: normal equations are not positive definite (too little or degenerate training data)")
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l, nil
}

// choleskySolve solves L L^T x = b.
func choleskySolve(l [][]float64, b []float64) []float64 {
	n := len(b)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k][i] * x[k]
		}
		x[i] = s / l[i][i]
	}
	return x
}
