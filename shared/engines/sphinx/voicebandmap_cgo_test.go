//go:build cgo

package sphinx

import (
	"strings"
	"testing"
)

// TestEachLegGoesThroughTheMapFittedForItsInput decodes a high voice twice in
// one call, full-band on one leg and through a line's voice band on the
// other. The full-band leg goes through the narrowband map and the
// band-limited one through the voice-band map: with either map replaced by
// one that outputs a constant frame, only the leg it serves loses its words.
func TestEachLegGoesThroughTheMapFittedForItsInput(t *testing.T) {
	needModel(t)
	t.Parallel()
	audio := fullAndBandLimitedLegs(t)

	lines, texts := transcribeLogged(t, Config{}, audio)
	if lines[0].FeatureMap != "narrowband" || lines[1].FeatureMap != "voice_band" {
		t.Fatalf("maps: full-band leg %q, band-limited leg %q; want narrowband and voice_band", lines[0].FeatureMap, lines[1].FeatureMap)
	}
	for ch, text := range texts {
		if w := wer(shortLine, text); w > 0.4 {
			t.Errorf("both maps built in, channel %d: %q (WER %.0f%%)", ch, text, 100*w)
		}
	}

	builtin, err := BuiltinNarrowbandMap()
	if err != nil {
		t.Fatal(err)
	}
	blind := constantMap(builtin)
	for _, c := range []struct {
		name          string
		cfg           Config
		blinded, kept int
	}{
		{"voice-band map blinded", Config{VoiceBandMap: blind}, 1, 0},
		{"narrowband map blinded", Config{NarrowbandMap: blind}, 0, 1},
	} {
		_, got := transcribeLogged(t, c.cfg, audio)
		if got[c.kept] != texts[c.kept] {
			t.Errorf("%s: channel %d read %q, want it untouched (%q)", c.name, c.kept, got[c.kept], texts[c.kept])
		}
		if w := wer(shortLine, got[c.blinded]); w < 0.7 {
			t.Errorf("%s: channel %d still read %q (WER %.0f%%)", c.name, c.blinded, got[c.blinded], 100*w)
		}
	}
}

// constantMap is a map of m's shape whose output is the same frame whatever
// its input: every weight zero but the bias.
func constantMap(m *FeatureMap) *FeatureMap {
	out := &FeatureMap{Context: m.Context, Dim: m.Dim, TrainedOn: "a test's constant map"}
	for range m.Dim {
		row := make([]float32, m.Inputs())
		row[len(row)-1] = 1
		out.Weights = append(out.Weights, row)
	}
	return out
}

// A configured map for cepstra of another length stops the transcriber at
// start-up, with an error naming the map.
func TestAMapForOtherCepstraIsRefused(t *testing.T) {
	needModel(t)
	t.Parallel()
	other := constantMap(&FeatureMap{Context: 4, Dim: 12})
	for _, c := range []struct {
		cfg  Config
		name string
	}{
		{Config{Decoders: 1, NarrowbandMap: other}, "the narrowband map"},
		{Config{Decoders: 1, VoiceBandMap: other}, "the voice-band map"},
	} {
		tr, err := NewTranscriber(c.cfg)
		if err == nil {
			tr.Close()
			t.Fatalf("%s for 12-long cepstra: no error", c.name)
		}
		if !strings.Contains(err.Error(), c.name+" is for 12-long cepstra") {
			t.Errorf("error %q does not name %s", err, c.name)
		}
	}
}
