package sphinx

import (
	"math"
	"math/rand"
	"testing"
)

// voiced returns seconds of a harmonic signal at f0 (eight harmonics with
// falling amplitude, like a glottal source) at 16 kHz.
func voiced(f0, seconds float64) []int16 {
	out := make([]int16, int(seconds*targetRate))
	for i := range out {
		var v float64
		for h := 1; h <= 8; h++ {
			v += math.Sin(2*math.Pi*f0*float64(h)*float64(i)/targetRate) / float64(h)
		}
		out[i] = int16(4000 * v)
	}
	return out
}

func TestMedianPitch(t *testing.T) {
	for _, f0 := range []float64{95, 120, 180, 230, 310} {
		pcm := voiced(f0, 2)
		got := medianPitch(newResampler(pcm, targetRate), []region{{0, len(pcm)}})
		if math.Abs(got-f0)/f0 > 0.03 {
			t.Errorf("f0 %.0f Hz: estimated %.1f Hz", f0, got)
		}
	}
	// The same voice at 8 kHz (upsampled as the engine does) reads the same.
	pcm8 := make([]int16, 8000)
	for i := range pcm8 {
		pcm8[i] = int16(4000 * math.Sin(2*math.Pi*200*float64(i)/8000))
	}
	r := newResampler(pcm8, 8000)
	if got := medianPitch(r, []region{{0, r.Len()}}); math.Abs(got-200) > 6 {
		t.Errorf("200 Hz at 8 kHz: estimated %.1f Hz", got)
	}
}

func TestMedianPitchUnvoiced(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	noise := make([]int16, targetRate)
	for i := range noise {
		noise[i] = int16(rng.NormFloat64() * 3000)
	}
	if got := medianPitch(newResampler(noise, targetRate), []region{{0, len(noise)}}); got != 0 {
		t.Errorf("white noise: pitch %.1f Hz, want 0 (unvoiced)", got)
	}
	silence := make([]int16, targetRate)
	if got := medianPitch(newResampler(silence, targetRate), []region{{0, len(silence)}}); got != 0 {
		t.Errorf("silence: pitch %.1f Hz", got)
	}
	if got := medianPitch(newResampler(silence, targetRate), nil); got != 0 {
		t.Errorf("no regions: pitch %.1f Hz", got)
	}
}

func TestNarrowbandMapWeight(t *testing.T) {
	for _, c := range []struct{ hz, want float64 }{
		{0, 1}, {90, 0}, {155, 0}, {160, 0.5}, {165, 1}, {220, 1},
	} {
		if got := narrowbandMapWeight(c.hz); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("narrowbandMapWeight(%.0f) = %.2f, want %.2f", c.hz, got, c.want)
		}
	}
}
