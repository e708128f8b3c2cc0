package sphinx

import (
	"math"
	"testing"
)

func sine(hz float64, rate, n int, amp float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(math.Round(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate))))
	}
	return out
}

// gainDB is the output's level against the input's, away from the ends.
func gainDB(in, out []int16) float64 {
	var a, b float64
	for i := len(in) / 4; i < 3*len(in)/4; i++ {
		a += float64(in[i]) * float64(in[i])
		b += float64(out[i]) * float64(out[i])
	}
	return 10 * math.Log10((b+1)/(a+1))
}

func TestVoiceBandPassesSpeechAndStopsTheRest(t *testing.T) {
	const rate = 8000
	for _, c := range []struct {
		hz       float64
		min, max float64 // dB
	}{
		{50, -200, -50},   // mains hum
		{120, -200, -40},  // below the band, where pink noise is strongest
		{500, -0.5, 0.5},  // first formant region
		{1000, -0.5, 0.5}, //
		{3000, -0.5, 0.5}, // upper formants
		{3800, -200, -40}, // above the band
	} {
		in := sine(c.hz, rate, rate, 10000)
		if g := gainDB(in, voiceBand(in, rate)); g < c.min || g > c.max {
			t.Errorf("%v Hz: gain %.1f dB, want %v to %v", c.hz, g, c.min, c.max)
		}
	}
}

func TestVoiceBandKeepsTiming(t *testing.T) {
	// Linear phase, delay removed: a 1 kHz tone comes out where it went in.
	in := sine(1000, 8000, 8000, 10000)
	out := voiceBand(in, 8000)
	if len(out) != len(in) {
		t.Fatalf("%d samples out of %d", len(out), len(in))
	}
	var diff, sum float64
	for i := 2000; i < 6000; i++ {
		d := float64(out[i]) - float64(in[i])
		diff += d * d
		sum += float64(in[i]) * float64(in[i])
	}
	if r := 10 * math.Log10(diff/sum); r > -30 {
		t.Errorf("output differs from input by %.1f dB: shifted or distorted", r)
	}
}

func TestVoiceBandEdgeCases(t *testing.T) {
	if got := voiceBand(nil, 8000); len(got) != 0 {
		t.Errorf("empty channel: %v", got)
	}
	// Full-scale input near the band's centre saturates instead of wrapping.
	in := sine(1000, 8000, 4000, 32767)
	for i, v := range voiceBand(in, 8000)[1000:3000] {
		if (in[1000+i] > 20000 && v < 0) || (in[1000+i] < -20000 && v > 0) {
			t.Fatalf("sample %d wrapped: %d for %d", 1000+i, v, in[1000+i])
		}
	}
	// A rate too low for the band is passed through.
	short := []int16{1, 2, 3}
	if got := voiceBand(short, 600); &got[0] != &short[0] {
		t.Error("600 Hz audio was filtered")
	}
	// 6 kHz audio keeps the band below its Nyquist.
	in = sine(1000, 6000, 6000, 10000)
	if g := gainDB(in, voiceBand(in, 6000)); math.Abs(g) > 0.5 {
		t.Errorf("6 kHz: 1 kHz gain %.1f dB", g)
	}
}
