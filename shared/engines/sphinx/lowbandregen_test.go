package sphinx

import (
	"math"
	"testing"
)

// powerAtHz is the power of x at one frequency (a Goertzel filter over all
// of it), per sample.
func powerAtHz(x []int16, rate int, hz float64) float64 {
	w := 2 * math.Pi * hz / float64(rate)
	coeff := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s0 := float64(v) + coeff*s1 - s2
		s2, s1 = s1, s0
	}
	return (s1*s1 + s2*s2 - coeff*s1*s2) / float64(len(x)) / float64(len(x))
}

// harmonicsFrom is a voice-like tone at rate: harmonics of f0 from the first
// at or above lowest up to 3400 Hz, as a line's band leaves a voice.
func harmonicsFrom(rate int, f0, lowest float64, seconds float64) []int16 {
	n := int(seconds * float64(rate))
	out := make([]int16, n)
	for i := range out {
		var v float64
		for h := math.Ceil(lowest / f0); h*f0 <= 3400; h++ {
			v += math.Sin(2 * math.Pi * h * f0 * float64(i) / float64(rate))
		}
		out[i] = int16(1500 * v)
	}
	return out
}

func powerOf(x []int16) float64 {
	var p float64
	for _, v := range x {
		p += float64(v) * float64(v)
	}
	return p / float64(len(x))
}

// A voice whose harmonics start at 400 Hz (a 200 Hz voice through a line's
// band) gets its fundamental back, at about lowBandRegenDB under the band's
// level, and keeps what it had: the band is added to, not replaced.
func TestLowBandRegeneratesTheMissingFundamental(t *testing.T) {
	const rate = 8000
	band := harmonicsFrom(rate, 200, 300, 2)
	out := withLowBand(band, rate)
	if len(out) != len(band) {
		t.Fatalf("%d samples out, %d in", len(out), len(band))
	}
	before, after := powerAtHz(band, rate, 200), powerAtHz(out, rate, 200)
	if after < 1000*before {
		t.Errorf("power at 200 Hz: %.3g before, %.3g after; want the fundamental regenerated", before, after)
	}
	var added []int16
	for i := range out {
		added = append(added, out[i]-band[i])
	}
	rel := 10 * math.Log10(powerOf(added)/powerOf(band))
	if math.Abs(rel-lowBandRegenDB) > 1 {
		t.Errorf("regenerated band %.1f dB against the voice band, want %d", rel, lowBandRegenDB)
	}
	// What was added lies below the voice band: none of it at the harmonics
	// the band already had.
	if p := powerAtHz(added, rate, 1000); p > 1e-3*powerAtHz(band, rate, 1000) {
		t.Errorf("added %.3g at 1 kHz against the band's %.3g", p, powerAtHz(band, rate, 1000))
	}
}

// Silence stays silent, and a channel at a rate without the band comes back
// as it was.
func TestLowBandLeavesSilenceAndOddInputs(t *testing.T) {
	silence := make([]int16, 8000)
	for i, v := range withLowBand(silence, 8000) {
		if v != 0 {
			t.Fatalf("sample %d of silence is %d", i, v)
		}
	}
	x := harmonicsFrom(8000, 200, 300, 0.1)
	if got := withLowBand(x, 500); &got[0] != &x[0] {
		t.Error("a rate below the band: want the samples back as they were")
	}
}
