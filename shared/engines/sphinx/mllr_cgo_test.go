//go:build cgo

package sphinx

import (
	"strings"
	"testing"
)

// scrambling is a transform that negates every mean but the energy terms
// (A = diag(1, -1, ..., -1)): each sound's model now describes the mirror
// image of its spectral shape, a model that recognises nothing.
func scrambling() *MLLR {
	m := identityMLLR([]int{13, 13, 13})
	at := 0
	for _, n := range m.Streams {
		for i := 1; i < n; i++ {
			m.Values[at+i*n+i] = -1
		}
		at += n*n + 2*n
	}
	return m
}

// The narrowband MLLR transform is applied to 8 kHz channels the narrowband
// map applies to and to nothing else, and one decoder switches between them:
// with a transform that scrambles the model, 8 kHz speech by flite's slt
// (about 170 Hz, mapped) is lost, while 8 kHz speech by rms (about 100 Hz,
// unmapped) and 16 kHz speech by slt, decoded next on the same decoder, are
// recognised as without the transform.
func TestNarrowbandMLLRAppliesToMappedTelephoneChannelsOnly(t *testing.T) {
	needModel(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	onlyHighTelephoneVoiceLost(t, Config{Decoders: 1, NarrowbandMLLR: scrambling()}, "a scrambling transform")
}

// A transform that does not fit the model, or one the decoder cannot apply,
// stops the engine at start-up with an error that says so.
func TestNarrowbandMLLRMustFitTheModel(t *testing.T) {
	needModel(t)
	for name, m := range map[string]*MLLR{
		"one stream":  identityMLLR([]int{13}),
		"wrong dim":   identityMLLR([]int{12, 12, 12}),
		"two classes": {Classes: 2, Streams: []int{13, 13, 13}},
	} {
		tr, err := NewTranscriber(Config{Decoders: 1, NarrowbandMLLR: m})
		if err == nil {
			tr.Close()
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), "MLLR") {
			t.Errorf("%s: error %q does not name the MLLR transform", name, err)
		}
	}
}
