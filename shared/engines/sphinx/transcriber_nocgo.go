//go:build !cgo

package sphinx

import (
	"context"
	"errors"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Transcriber is unavailable without cgo; see NewTranscriber.
type Transcriber struct{}

var _ callscribe.Transcriber = (*Transcriber)(nil)

// ErrNoCgo is returned by NewTranscriber in builds without cgo.
var ErrNoCgo = errors.New("sphinx: the embedded speech engine needs a cgo build with libpocketsphinx (CGO_ENABLED=1); use TRANSCRIBER=openai in this build")

// NewTranscriber reports that the embedded engine is not compiled in.
func NewTranscriber(Config) (*Transcriber, error) { return nil, ErrNoCgo }

// Transcribe always fails; a Transcriber cannot be constructed without cgo.
func (*Transcriber) Transcribe(context.Context, callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	return nil, ErrNoCgo
}

// Cepstra always fails; a Transcriber cannot be constructed without cgo.
func (*Transcriber) Cepstra(context.Context, []int16, int) ([]float32, int, error) {
	return nil, 0, ErrNoCgo
}

// Close does nothing.
func (*Transcriber) Close() {}

// DecodedCepstra always fails; a Transcriber cannot be constructed without cgo.
func (*Transcriber) DecodedCepstra(context.Context, []int16, int) ([]float32, int, float64, error) {
	return nil, 0, 0, ErrNoCgo
}

// EchoReport is what the cgo engine reports of a leg's echo; see its build.
type EchoReport struct {
	Channel, OfChannel       int
	DelayMS                  int
	LossDB, SpreadShare      float64
	EchoFrames, RegionFrames int
}

// Echoes always fails; a Transcriber cannot be constructed without cgo.
func (*Transcriber) Echoes([][]int16, int) ([]EchoReport, error) { return nil, ErrNoCgo }
