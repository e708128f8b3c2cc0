//go:build cgo

package sphinx

import (
	"context"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
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
	transcriber(t) // skips when the model is missing
	tr, err := NewTranscriber(Config{Decoders: 1, NarrowbandMLLR: scrambling()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i, c := range []struct {
		voice, line string
		rate        int
		adapted     bool
	}{
		{"slt", agentLine, 8000, true},
		{"rms", userLine, 8000, false},
		{"slt", agentLine, 16000, false},
	} {
		speech := speak(t, c.voice, c.line, c.rate)
		pcm := track(c.rate, 1+float64(len(speech))/float64(c.rate)+1, clip{1, speech})
		res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: wavOf(t, c.rate, pcm)})
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, s := range res.Transcript {
			text = append(text, s.Text)
		}
		w := wer(c.line, strings.Join(text, " "))
		switch {
		case c.adapted && w < 0.8:
			t.Errorf("step %d, %s at %d Hz through a scrambling transform: WER %.0f%% (%q); the transform was not applied", i, c.voice, c.rate, 100*w, text)
		case !c.adapted && w > 0.3:
			t.Errorf("step %d, %s at %d Hz: WER %.0f%% (%q); the transform must not touch it", i, c.voice, c.rate, 100*w, text)
		}
	}
}

// A transform that does not fit the model, or one the decoder cannot apply,
// stops the engine at start-up with an error that says so.
func TestNarrowbandMLLRMustFitTheModel(t *testing.T) {
	transcriber(t)
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
