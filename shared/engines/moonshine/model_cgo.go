//go:build cgo

package moonshine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// The decoder's shape (Moonshine tiny): layers, attention heads, head size.
const (
	decoderLayers = 6
	headCount     = 8
	headSize      = 36
)

// SampleRate is the rate the model's samples are at.
const SampleRate = 16000

// maxTokensPerSecond bounds a decode: Moonshine's authors stop at six tokens
// a second of audio, above any speech rate, so a decoder caught in a loop
// ends.
const maxTokensPerSecond = 6

// Files of a model directory (install-speech-models.sh lays them out).
const (
	encoderFile    = "encoder_model.onnx"
	decoderFile    = "decoder_model_merged.onnx"
	vocabularyFile = "tokens.txt"
	libraryFile    = "libonnxruntime.so.1"
)

// ONNX Runtime's environment is one per process, bound to one library.
var (
	runtimeOnce    sync.Once
	runtimeLibrary string
	runtimeErr     error
)

func initRuntime(library string) error {
	runtimeOnce.Do(func() {
		runtimeLibrary = library
		ort.SetSharedLibraryPath(library)
		runtimeErr = ort.InitializeEnvironment(ort.WithLogLevelError())
	})
	if runtimeErr != nil {
		return fmt.Errorf("moonshine: loading ONNX Runtime from %s: %w", runtimeLibrary, runtimeErr)
	}
	if library != runtimeLibrary {
		return fmt.Errorf("moonshine: ONNX Runtime is already loaded from %s, not %s", runtimeLibrary, library)
	}
	return nil
}

// Model is a loaded Moonshine model. Its methods may be called from many
// goroutines at once; each call runs on one thread.
type Model struct {
	encoder, decoder *ort.DynamicAdvancedSession
	vocabulary       *Vocabulary
	// pastNames are the decoder's cache inputs, in its input order after
	// input_ids and encoder_hidden_states; decoderSelf says which of them
	// (and of the present outputs, in the same order) are the decoder's own
	// attention, which grows each step, rather than the encoder's, computed
	// on the first.
	pastNames   []string
	decoderSelf []bool
}

// Load loads the model in dir (encoder_model.onnx, decoder_model_merged.onnx,
// tokens.txt and ONNX Runtime's libonnxruntime.so.1).
func Load(dir string) (*Model, error) {
	for _, f := range []string{encoderFile, decoderFile, vocabularyFile, libraryFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("moonshine: the model directory lacks %s (make deps-speech-models installs it): %w", f, err)
		}
	}
	if err := initRuntime(filepath.Join(dir, libraryFile)); err != nil {
		return nil, err
	}
	vocabulary, err := ReadVocabulary(filepath.Join(dir, vocabularyFile))
	if err != nil {
		return nil, err
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("moonshine: %w", err)
	}
	defer opts.Destroy()
	// One thread a call: the engine runs a channel per core.
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("moonshine: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("moonshine: %w", err)
	}
	m := &Model{vocabulary: vocabulary}
	m.encoder, err = ort.NewDynamicAdvancedSession(filepath.Join(dir, encoderFile), []string{"input_values"}, []string{"last_hidden_state"}, opts)
	if err != nil {
		return nil, fmt.Errorf("moonshine: loading the encoder: %w", err)
	}
	inputs := []string{"input_ids", "encoder_hidden_states"}
	outputs := []string{"logits"}
	for i := range decoderLayers {
		for _, part := range []string{"decoder", "encoder"} {
			for _, kv := range []string{"key", "value"} {
				m.pastNames = append(m.pastNames, fmt.Sprintf("past_key_values.%d.%s.%s", i, part, kv))
				m.decoderSelf = append(m.decoderSelf, part == "decoder")
				outputs = append(outputs, fmt.Sprintf("present.%d.%s.%s", i, part, kv))
			}
		}
	}
	inputs = append(append(inputs, m.pastNames...), "use_cache_branch")
	m.decoder, err = ort.NewDynamicAdvancedSession(filepath.Join(dir, decoderFile), inputs, outputs, opts)
	if err != nil {
		m.encoder.Destroy()
		return nil, fmt.Errorf("moonshine: loading the decoder: %w", err)
	}
	return m, nil
}

// Close releases the model's sessions.
func (m *Model) Close() {
	m.encoder.Destroy()
	m.decoder.Destroy()
}

// Recognize decodes one utterance of 16 kHz samples in [-1, 1] into words.
func (m *Model) Recognize(ctx context.Context, samples []float32) ([]Word, error) {
	tokens, err := m.decode(ctx, samples)
	if err != nil {
		return nil, err
	}
	return m.vocabulary.Words(tokens), nil
}

// destroyAll destroys every non-nil value.
func destroyAll(values []ort.Value) {
	for _, v := range values {
		if v != nil {
			v.Destroy()
		}
	}
}

// decode runs the encoder once and the decoder greedily, a token a step,
// until the end token or the length bound.
func (m *Model) decode(ctx context.Context, samples []float32) ([]Token, error) {
	if len(samples) < SampleRate/10 {
		// Under 0.1 s: the encoder's convolutions leave no frame.
		return nil, nil
	}
	input, err := ort.NewTensor(ort.NewShape(1, int64(len(samples))), samples)
	if err != nil {
		return nil, fmt.Errorf("moonshine: %w", err)
	}
	defer input.Destroy()
	encoded := []ort.Value{nil}
	if err := m.encoder.Run([]ort.Value{input}, encoded); err != nil {
		return nil, fmt.Errorf("moonshine: encoder: %w", err)
	}
	defer destroyAll(encoded)

	// The first step takes empty caches and computes them all.
	past := make([]ort.Value, len(m.pastNames))
	defer func() { destroyAll(past) }()
	for i := range past {
		empty, err := ort.NewTensor(ort.NewShape(0, headCount, 1, headSize), []float32{})
		if err != nil {
			return nil, fmt.Errorf("moonshine: %w", err)
		}
		past[i] = empty
	}
	limit := int(math.Ceil(float64(len(samples)) / SampleRate * maxTokensPerSecond))
	var tokens []Token
	next := int64(startToken)
	for step := 0; step < limit; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ids, err := ort.NewTensor(ort.NewShape(1, 1), []int64{next})
		if err != nil {
			return nil, fmt.Errorf("moonshine: %w", err)
		}
		cached, err := ort.NewTensor(ort.NewShape(1), []bool{step > 0})
		if err != nil {
			ids.Destroy()
			return nil, fmt.Errorf("moonshine: %w", err)
		}
		inputs := append(append([]ort.Value{ids, encoded[0]}, past...), cached)
		outputs := make([]ort.Value, 1+len(past))
		err = m.decoder.Run(inputs, outputs)
		ids.Destroy()
		cached.Destroy()
		if err != nil {
			destroyAll(outputs)
			return nil, fmt.Errorf("moonshine: decoder: %w", err)
		}
		logits, ok := outputs[0].(*ort.Tensor[float32])
		if !ok {
			destroyAll(outputs)
			return nil, errors.New("moonshine: the decoder's logits are not float32")
		}
		row := logits.GetData()
		vocab := int(logits.GetShape()[2])
		row = row[len(row)-vocab:]
		best := 0
		for j, l := range row {
			if l > row[best] {
				best = j
			}
		}
		prob := probOf(row, best)
		outputs[0].Destroy()
		// The decoder's own cache grows each step; the encoder's is the
		// first step's, and later steps' copies of it are dropped.
		for i, v := range outputs[1:] {
			if step == 0 || m.decoderSelf[i] {
				past[i].Destroy()
				past[i] = v
			} else {
				v.Destroy()
			}
		}
		if best == endToken {
			break
		}
		tokens = append(tokens, Token{ID: best, Prob: prob})
		next = int64(best)
	}
	return tokens, nil
}
