package sphinx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// FeatureMap maps the cepstra of band-limited speech towards the cepstra the
// wideband acoustic model expects of the same speech.
//
// Why: pocketsphinx-en-us is a 16 kHz model whose filter bank reaches 6.8 kHz.
// Telephone audio (8 kHz) upsampled to 16 kHz leaves the top filters empty, and
// the cepstra move away from anything the model was trained on; on the ASR
// bench band-limiting alone tripled the error rate on a female voice. No
// narrowband English model ships in any registry here, so instead of a new model
// the features are moved back. Each output frame is computed from the
// narrowband frames around it (the context carries how the low band is moving,
// which predicts much of what the high band did): an affine map, plus an
// optional hidden layer of rectified units that adds what a linear map cannot
// (the missing band depends on which sound is being made). The weights are
// fitted on "stereo" data, the same speech seen wide and band-limited
// (infra/bench/cmd/narrowbandmap), so no transcripts are needed.
//
// Inputs are mean-normalised over the utterance before stacking, as the
// decoder's batch CMN will normalise the outputs: the map then sees the same
// numbers whatever the recording level or line.
type FeatureMap struct {
	// Context is the number of frames on each side of the output frame.
	Context int `json:"context"`
	// Dim is the cepstrum length (13 for the en-us model).
	Dim int `json:"dim"`
	// Weights has Dim rows of Inputs() values: the input frames from
	// t-Context to t+Context, then the bias.
	Weights [][]float32 `json:"weights"`
	// Hidden, when present, has one row of Inputs() values per hidden unit;
	// Out has Dim rows of len(Hidden) values. Output += Out * relu(Hidden * x).
	Hidden [][]float32 `json:"hidden,omitempty"`
	Out    [][]float32 `json:"out,omitempty"`
	// TrainedOn records what the map was fitted on (voices, text, frames).
	TrainedOn string `json:"trained_on"`
}

// Inputs is the length of a stacked input vector, bias included.
func (m *FeatureMap) Inputs() int { return m.Dim*(2*m.Context+1) + 1 }

// validate checks that the weights have the declared shape and are finite, so
// a damaged map file fails at start-up rather than producing garbage features.
// Validate checks that every matrix has the shape Dim and Context call for.
func (m *FeatureMap) Validate() error {
	if m.Dim <= 0 || m.Context < 0 || m.Context > 10 {
		return fmt.Errorf("feature map: bad shape dim=%d context=%d", m.Dim, m.Context)
	}
	if err := checkMatrix("weights", m.Weights, m.Dim, m.Inputs()); err != nil {
		return err
	}
	if len(m.Hidden) == 0 && len(m.Out) == 0 {
		return nil
	}
	if err := checkMatrix("hidden", m.Hidden, len(m.Hidden), m.Inputs()); err != nil {
		return err
	}
	return checkMatrix("out", m.Out, m.Dim, len(m.Hidden))
}

func checkMatrix(name string, w [][]float32, rows, cols int) error {
	if len(w) != rows || rows == 0 {
		return fmt.Errorf("feature map: %s has %d rows, want %d", name, len(w), rows)
	}
	for i, row := range w {
		if len(row) != cols {
			return fmt.Errorf("feature map: %s row %d has %d values, want %d", name, i, len(row), cols)
		}
		for _, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("feature map: %s row %d has a non-finite value", name, i)
			}
		}
	}
	return nil
}

// ParseFeatureMap reads a map written as JSON by the trainer. Unknown fields
// are an error: a map with parts this code does not know would otherwise be
// applied in part, silently.
func ParseFeatureMap(b []byte) (*FeatureMap, error) {
	var m FeatureMap
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("feature map: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// stack writes the input vector of frame t into x (Inputs() long): the
// frames t-Context..t+Context of frames (n frames of dim values), repeating the
// first or last frame beyond either end, then the bias 1.
func stack(x, frames []float32, t, n, dim, context int) {
	k := 0
	for c := -context; c <= context; c++ {
		src := min(max(t+c, 0), n-1)
		k += copy(x[k:], frames[src*dim:(src+1)*dim])
	}
	x[k] = 1
}

// InputAt writes the input vector of frame t of frames into x (Inputs()
// long), as Apply builds it: the frames t-Context..t+Context, repeating the
// first or last frame beyond either end, then the bias 1. Training code outside
// the engine (infra/bench/cmd/narrowbandmap) builds its inputs with it.
func (m *FeatureMap) InputAt(x, frames []float32, t int) {
	stack(x, frames, t, len(frames)/m.Dim, m.Dim, m.Context)
}

func dot(a, b []float32) float32 {
	var acc float32
	for i, v := range a {
		acc += v * b[i]
	}
	return acc
}

// Apply maps frames (len(in)/Dim frames of Dim values, frame after frame) and
// returns the mapped frames in a new slice of the same length.
func (m *FeatureMap) Apply(in []float32) []float32 {
	d := m.Dim
	n := len(in) / d
	norm := MeanNormalised(in[:n*d], d)
	out := make([]float32, n*d)
	x := make([]float32, m.Inputs())
	h := make([]float32, len(m.Hidden))
	for t := 0; t < n; t++ {
		stack(x, norm, t, n, d, m.Context)
		o := out[t*d : (t+1)*d]
		for i, row := range m.Weights {
			o[i] = dot(row, x)
		}
		if len(m.Hidden) == 0 {
			continue
		}
		for j, row := range m.Hidden {
			h[j] = max(dot(row, x), 0)
		}
		for i, row := range m.Out {
			o[i] += dot(row, h)
		}
	}
	return out
}

// FeatureMapFitter accumulates pairs of utterances (band-limited cepstra and
// wideband cepstra of the same audio, frame-aligned) and fits a FeatureMap by
// ridge-regularised least squares. Only the normal equations are kept, so
// memory does not grow with the amount of training speech.
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
	narrow = MeanNormalised(narrow[:n*d], d)
	wide = MeanNormalised(wide[:n*d], d)
	p := len(f.x)
	x := make([]float32, p)
	for t := 0; t < n; t++ {
		stack(x, narrow, t, n, d, f.context)
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
func (f *FeatureMapFitter) Fit(ridge float64, matchVariance bool, trainedOn string) (*FeatureMap, error) {
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
	m := &FeatureMap{Context: f.context, Dim: f.dim, Weights: make([][]float32, f.dim), TrainedOn: trainedOn}
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

// MeanNormalised returns frames (of dim values) minus their mean: cepstral
// mean normalisation over one utterance, as the decoder's batch CMN does.
func MeanNormalised(frames []float32, dim int) []float32 {
	n := len(frames) / dim
	out := make([]float32, n*dim)
	if n == 0 {
		return out
	}
	mean := make([]float64, dim)
	for t := 0; t < n; t++ {
		for i, v := range frames[t*dim : (t+1)*dim] {
			mean[i] += float64(v)
		}
	}
	for t := 0; t < n; t++ {
		for i, v := range frames[t*dim : (t+1)*dim] {
			out[t*dim+i] = v - float32(mean[i]/float64(n))
		}
	}
	return out
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
