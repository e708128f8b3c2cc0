//go:build cgo

package sphinx

import (
	"math"
	"slices"
	"testing"
)

// The cepstra a gated channel is decoded from are the narrowband map's
// output with c0, and only c0, stretched towards real speech's spread when
// it is narrower (a talker under a line's noise); clean synthesis, whose c0
// spreads wider, and an ungated channel keep the map's output as it is.
func TestDecodedFeaturesSpreadTheMappedEnergy(t *testing.T) {
	needModel(t)
	tr, err := NewTranscriber(Config{Decoders: 1, DomainLMWeight: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	d := <-tr.pool
	defer func() { tr.pool <- d }()
	dim := d.cepDim()
	speech := speak(t, "rms", shortLine, NarrowbandRate)
	line := withNoise(speech, noiseRMSBelow(speech, 30), 0)
	for name, audio := range map[string][]int16{"clean": speech, "line": line} {
		cep, err := d.cepstra(audio)
		if err != nil {
			t.Fatal(err)
		}
		for _, weight := range []float64{0, 0.5, 1} {
			mapped := tr.mapFeatures(slices.Clone(cep), tr.narrow, weight)
			plain := tr.decodedFeatures(slices.Clone(cep), tr.narrow, weight, false, dim)
			if !slices.Equal(plain, mapped) {
				t.Errorf("%s, map weight %v, no spread: the decoded features are not the map's", name, weight)
			}
			spread := tr.decodedFeatures(slices.Clone(cep), tr.narrow, weight, true, dim)
			wantMean, mappedSD := c0Stats(mapped, dim)
			if (name == "line") != (mappedSD < energySpread) {
				t.Fatalf("%s, map weight %v: c0 spread %.2f, the wrong side of %v for this test", name, weight, mappedSD, float64(energySpread))
			}
			wantSD := max(mappedSD, math.Sqrt(mappedSD*energySpread))
			mean, sd := c0Stats(spread, dim)
			if math.Abs(sd-wantSD) > 1e-3 || math.Abs(mean-wantMean) > 1e-3 {
				t.Errorf("%s, map weight %v, spread: c0 mean %.3f sd %.3f, want mean %.3f sd %.3f (the map's %.3f)", name, weight, mean, sd, wantMean, wantSD, mappedSD)
			}
			for i := range spread {
				if i%dim != 0 && spread[i] != mapped[i] {
					t.Fatalf("%s, map weight %v, spread: coefficient %d of frame %d is not the map's", name, weight, i%dim, i/dim)
				}
			}
		}
	}
}

// A call whose one channel is clean and whose other carries the same talker
// under white noise 35 dB below, as on a telephone line: only the line's
// channel has its energy spread, with noise removal off, and turning the
// gate off (a negative EnergySpreadBelowDB) leaves every channel as it was.
func TestLineChannelsHaveTheirEnergySpread(t *testing.T) {
	needModel(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	const rate = 8000
	clean, line := cleanAndNoisyTrack(t, rate, 35, 11)
	audio := wavOf(t, rate, clean, line)

	lines, text := transcribeLogged(t, Config{}, audio)
	if c := lines[0]; c.EnergySpread || c.NoiseRemoval {
		t.Errorf("clean channel: %+v, want neither energy spread nor noise removal", c)
	}
	if c := lines[1]; !c.EnergySpread || c.NoiseRemoval || c.SpeechOverFloor < DefaultNoiseRemovalBelowDB || c.SpeechOverFloor >= DefaultEnergySpreadBelowDB {
		t.Errorf("line channel: %+v, want %v-%v dB over its floor, energy spread and no noise removal", c, DefaultNoiseRemovalBelowDB, DefaultEnergySpreadBelowDB)
	}
	if w := wer(shortLine, text[1]); w > 0.3 {
		t.Errorf("line channel: %q (WER %.0f%%)", text[1], 100*w)
	}
	off, _ := transcribeLogged(t, Config{EnergySpreadBelowDB: -1}, audio)
	for ch, c := range off {
		if c.EnergySpread {
			t.Errorf("gate off, channel %d: %+v, want no energy spread", ch, c)
		}
	}
	if len(off) != 2 {
		t.Errorf("gate off: %d channel lines, want 2", len(off))
	}
}
