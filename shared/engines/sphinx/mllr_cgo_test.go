//go:build cgo

package sphinx

import (
	"context"
	"fmt"
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
		"two classes": withClasses(identityMLLR(modelStreams), 2),
		"no values":   {Classes: 3, Streams: []int{13, 13, 13}},
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

// withClasses is a transform with n classes, each m's one.
func withClasses(m *MLLR, n int) *MLLR {
	out := &MLLR{Classes: n, Streams: m.Streams}
	at := 0
	for _, k := range m.Streams {
		block := m.Values[at : at+k*k+2*k]
		at += len(block)
		for c := 0; c < n; c++ {
			out.Values = append(out.Values, block...)
		}
	}
	return out
}

// A narrowband transform with classes is applied by moving the model's
// means, for the mapped channels only, and the decoder goes back to the
// model's own means for the next channel: with every class scrambling the
// model, 8 kHz slt is lost and 8 kHz rms and 16 kHz slt are not.
func TestNarrowbandClassesApplyToTheirChannelsOnly(t *testing.T) {
	needModel(t)
	t.Parallel()
	onlyHighTelephoneVoiceLost(t, Config{Decoders: 1, NarrowbandMLLR: withClasses(scrambling(), phoneClassCount)}, "scrambling broad classes")
}

// Classes that all hold one transform decode exactly as that transform
// applied by PocketSphinx: the broad classes for the mapped channel (slt),
// one a base phone for the unmapped one (rms), with speaker adaptation on, so
// the speaker's alignments and transforms start from the moved means as
// they start from the transformed ones.
func TestNarrowbandClassesDecodeAsTheirTransform(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel()
	agent := speak(t, "slt", agentLine, 8000)
	user := speak(t, "rms", userLine, 8000)
	secs := 2 + float64(len(agent)+len(user))/8000 + 2
	audio := wavOf(t, 8000, track(8000, secs, clip{1, agent}), track(8000, secs, clip{2 + float64(len(agent))/8000, user}))
	mapped, err := BuiltinNarrowbandMLLR()
	if err != nil {
		t.Fatal(err)
	}
	unmapped, err := BuiltinNarrowbandUnmappedMLLR()
	if err != nil {
		t.Fatal(err)
	}
	transcribe := func(cfg Config) string {
		t.Helper()
		cfg.Decoders, cfg.SpeakerAdaptation = 1, true
		tr, err := NewTranscriber(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range res.Transcript {
			for _, w := range s.Words {
				out = append(out, fmt.Sprintf("%d:%s@%.2f", s.SpeakerID, w.Text, w.Start))
			}
		}
		return strings.Join(out, " ")
	}
	want := transcribe(Config{})
	got := transcribe(Config{NarrowbandMLLR: withClasses(mapped, phoneClassCount), NarrowbandUnmappedMLLR: withClasses(unmapped, 42)})
	if got != want {
		t.Errorf("with classes:\n%s\nwith the one transform:\n%s", got, want)
	}
	if !strings.Contains(want, "0:") || !strings.Contains(want, "1:") {
		t.Fatalf("a speaker was not recognised at all (%s): this test would prove little", want)
	}
}
