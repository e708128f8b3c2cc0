//go:build !cgo

package moonshine

import (
	"context"
	"errors"
)

// SampleRate is the rate the model's samples are at.
const SampleRate = 16000

// Model is a loaded Moonshine model; without cgo there is none, since ONNX
// Runtime is a C library.
type Model struct{}

var errNoCgo = errors.New("moonshine: this build has no cgo, and ONNX Runtime is a C library")

// Load fails without cgo.
func Load(dir string) (*Model, error) { return nil, errNoCgo }

// Close does nothing.
func (m *Model) Close() {}

// Recognize fails without cgo.
func (m *Model) Recognize(ctx context.Context, samples []float32) ([]Word, error) {
	return nil, errNoCgo
}
