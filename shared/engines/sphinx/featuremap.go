package sphinx

import (
	"bytes"
	"encoding/json"
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
//
// Two maps, each fitted on the input it meets. What a voice's narrowband
// cepstra say about its upper band is a property of how the voice was made,
// and synthesisers make their upper band their own way: a map fitted on them
// learns it, and a real voice does not have it. The narrowband map
// (narrowband_map.json) is therefore fitted on recorded speech, the Asterisk
// PBX's prompts in French, Italian and Russian (three professional voices
// the ASR bench never reads, packaged at 16 kHz; a map needs no transcripts,
// so the language does not matter). Against the map fitted on synthesised
// voices it read the bench's real English voice a point better on a clean
// line (28.8% -> 27.8%), and the synthetic voices within the noise either way
// (infra/bench/README.md, "Maps fitted on recorded speech"). Channels decoded
// from a line's voice band (lowband.go) keep the map fitted on synthesised
// voices (voiceband_map.json): through the band it read the real voice better
// than the recordings' map, and better than a map fitted on the recordings
// through the band itself. Why the synthetic fit wins there is not pinned
// down; the channel-type MLLR transforms (mllr.go) were fitted on its output,
// and the band leaves the map less to predict and more to undo.
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

// Validate checks that every matrix has the shape Dim and Context call for
// and holds finite values, so a damaged map file fails at start-up rather
// than producing garbage features.
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
// first or last frame beyond either end, then the bias 1. The map's trainers
// (package train's FeatureMapFitter, infra/bench/cmd/narrowbandmap) build
// their inputs with it, so they fit what Apply computes.
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
