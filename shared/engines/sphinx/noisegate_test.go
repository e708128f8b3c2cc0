package sphinx

import (
	"math"
	"testing"
)

// The speech-over-floor figure reads a channel's noise as a line's SNR does,
// a few dB above it, and the gate puts noise removal only under the noisy ones.
func TestSpeechOverFloorTellsNoisyLinesFromCleanOnes(t *testing.T) {
	talk := [][2]float64{{1, 4}, {8, 12.5}, {20, 21}}
	whole := []region{{0, sec(25)}}
	below := noiseRemovalBelow(Config{})
	for _, c := range []struct {
		snr     float64 // dB, the speech's mean power over the noise's; 0: digital silence
		denoise bool
	}{{0, false}, {40, false}, {35, false}, {20, true}, {10, true}} {
		// channelBlocks' syllables swing up to 20 dB below speechRMS, which
		// puts their mean power (the active speech level a line's SNR is
		// taken against) 6.7 dB below it: E[10^(-2U)] for U uniform on [0, 1).
		const speechRMS = 3000.0
		activeRMS := speechRMS * math.Sqrt((1-math.Pow(10, -2))/(2*math.Ln10))
		floorRMS := 0.0
		if c.snr > 0 {
			floorRMS = activeRMS * math.Pow(10, -c.snr/20)
		}
		blocks := channelBlocks(25, floorRMS, speechRMS, talk)
		db := frameLevels(blocks)
		got := speechOverFloor(db, refineRegions(db, whole))
		switch {
		case c.snr == 0 && got < 60:
			t.Errorf("digital silence: %.1f dB over the floor, want 60 or more", got)
		case c.snr > 0 && (got < c.snr-3 || got > c.snr+6):
			t.Errorf("noise %.0f dB below: %.1f dB over the floor, want within -3..+6 dB of it", c.snr, got)
		}
		if d := denoises(got, below); d != c.denoise {
			t.Errorf("noise %.0f dB below (%.1f over the floor): noise removal %v, want %v", c.snr, got, d, c.denoise)
		}
	}
	if got := speechOverFloor(frameLevels(make([]float64, 500)), nil); got != 0 || denoises(got, below) != true {
		// A channel without speech decodes nothing, so what the gate says does not matter; the figure must not be NaN.
		t.Errorf("no speech: %v", got)
	}
}

func TestNoiseRemovalBelowFollowsTheConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want float64
	}{
		{Config{}, DefaultNoiseRemovalBelowDB},
		{Config{NoiseRemovalBelowDB: 25}, 25},
		{Config{NoiseRemovalBelowDB: -1}, 0},
		// Every channel removes noise already: nothing to gate.
		{Config{NoiseRemoval: true}, 0},
	} {
		if got := noiseRemovalBelow(c.cfg); got != c.want {
			t.Errorf("%+v: %v, want %v", c.cfg, got, c.want)
		}
	}
	if denoises(80, 0) || denoises(5, 0) {
		t.Error("a gate at 0 dB put noise removal under a channel")
	}
}
