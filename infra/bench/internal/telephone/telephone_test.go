package telephone

import (
	"math"
	"os/exec"
	"slices"
	"testing"
)

func sine(freq, amp float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = amp * math.Sin(2*math.Pi*freq*float64(i)/Rate)
	}
	return x
}

// steady is the RMS of the middle of x, away from the filter's edges.
func steady(x []float64) float64 { return rms(x[len(x)/4 : 3*len(x)/4]) }

func TestBandPassKeepsTheVoiceBandOnly(t *testing.T) {
	for _, tc := range []struct {
		freq      float64
		minDB     float64
		maxDB     float64
		whereWhat string
	}{
		{1000, -0.5, 0.5, "mid band"},
		{400, -1, 0.5, "low edge of the band"},
		{3000, -1, 0.5, "high edge of the band"},
		{100, -200, -40, "mains hum below the band"},
		{3900, -200, -40, "above the band"},
	} {
		in := sine(tc.freq, 10000, Rate)
		gain := 20 * math.Log10(steady(BandPass(in))/steady(in))
		if gain < tc.minDB || gain > tc.maxDB {
			t.Errorf("%v Hz (%s): gain %.1f dB, want %v..%v", tc.freq, tc.whereWhat, gain, tc.minDB, tc.maxDB)
		}
	}
}

func TestMuLawRoundTrip(t *testing.T) {
	if got := MuLawEncode(0); got != 0xff {
		t.Errorf("mu-law of 0 = %#x, want 0xff (G.711)", got)
	}
	if hi, lo := MuLawEncode(math.MaxInt16), MuLawEncode(math.MinInt16); hi != 0x80 || lo != 0x00 {
		t.Errorf("mu-law of full scale = %#x and %#x, want 0x80 and 0x00 (G.711)", hi, lo)
	}
	checkCompanding(t, "mu-law", func(v int16) int16 { return MuLawDecode(MuLawEncode(v)) })
}

func TestALawRoundTrip(t *testing.T) {
	if got := ALawEncode(0); got != 0xd5 {
		t.Errorf("A-law of 0 = %#x, want 0xd5 (G.711)", got)
	}
	checkCompanding(t, "A-law", func(v int16) int16 { return ALawDecode(ALawEncode(v)) })
}

// checkCompanding: a logarithmic codec keeps each sample's sign, is monotonic,
// and its error grows with the sample: at most about 1/16 of it above the
// linear segment, a few steps below.
func checkCompanding(t *testing.T, name string, roundTrip func(int16) int16) {
	t.Helper()
	prev := roundTrip(math.MinInt16)
	for v := math.MinInt16 + 1; v <= math.MaxInt16; v++ {
		got := roundTrip(int16(v))
		if got < prev {
			t.Fatalf("%s: not monotonic at %d: %d after %d", name, v, got, prev)
		}
		prev = got
		err := math.Abs(float64(got) - float64(v))
		limit := math.Max(32, math.Abs(float64(v))/16)
		if math.Abs(float64(v)) > 32124 { // mu-law clips at 32635 less its bias
			limit = 700
		}
		if err > limit {
			t.Fatalf("%s: %d comes back as %d (error %.0f > %.0f)", name, v, got, err, limit)
		}
		if v > 64 && got <= 0 || v < -64 && got >= 0 {
			t.Fatalf("%s: %d changed sign (%d)", name, v, got)
		}
	}
}

func TestPinkNoiseIsRepeatableAndFallsThreeDBAnOctave(t *testing.T) {
	a, b := PinkNoise(Rate*4, 7), PinkNoise(Rate*4, 7)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different noise")
	}
	if slices.Equal(a, PinkNoise(Rate*4, 8)) {
		t.Fatal("different seeds gave the same noise")
	}
	// Pink noise has equal power in every octave: compare 250-500 Hz with
	// 1-2 kHz through a crude DFT of both bands.
	octave := func(lo float64) float64 {
		var p float64
		n := len(a)
		for f := lo; f < 2*lo; f += 2 {
			var re, im float64
			for i, v := range a {
				ph := 2 * math.Pi * f * float64(i) / Rate
				re += v * math.Cos(ph)
				im -= v * math.Sin(ph)
			}
			p += (re*re + im*im) / float64(n)
		}
		return p / (lo / 2) * lo // power density times the octave's width
	}
	diff := 10 * math.Log10(octave(250)/octave(1000))
	if math.Abs(diff) > 2 {
		t.Errorf("octave powers differ by %.1f dB; pink noise has about equal power per octave", diff)
	}
}

func TestConditionAddsNoiseAtTheRequestedSNR(t *testing.T) {
	// Speech-like input: a tone in bursts with silence between them, so the
	// active level must ignore the silence.
	in := make([]int16, Rate*6)
	for i := range in {
		if (i/Rate)%2 == 0 {
			in[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/Rate))
		}
	}
	for _, snr := range []float64{10, 20, 30} {
		out, err := Condition{SNRDB: snr}.Apply(in, 1)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, len(in))
		noise := make([]float64, len(in))
		for i := range in {
			x[i] = float64(in[i])
			noise[i] = float64(out[i]) - float64(in[i])
		}
		got := 10 * math.Log10(ActiveLevel(x)/math.Pow(rms(noise), 2))
		if math.Abs(got-snr) > 0.3 {
			t.Errorf("SNR %v dB asked, %.2f dB measured", snr, got)
		}
	}
}

func TestConditionsRun(t *testing.T) {
	in := make([]int16, Rate)
	for i := range in {
		in[i] = int16(5000 * math.Sin(2*math.Pi*700*float64(i)/Rate))
	}
	for _, c := range Conditions {
		if c.Codec == "gsm" {
			if _, err := exec.LookPath("sox"); err != nil {
				t.Logf("%s: sox missing, skipped", c.Name)
				continue
			}
		}
		out, err := c.Apply(in, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if len(out) != len(in) {
			t.Fatalf("%s: %d samples out for %d in", c.Name, len(out), len(in))
		}
		// Every condition keeps a 700 Hz tone recognisable: the output still
		// correlates with the input (gain aside).
		var xy, xx, yy float64
		for i := Rate / 4; i < 3*Rate/4; i++ {
			x, y := float64(in[i]), float64(out[i])
			xy += x * y
			xx += x * x
			yy += y * y
		}
		if corr := xy / math.Sqrt(xx*yy); corr < 0.7 {
			t.Errorf("%s: output correlates %.2f with the input", c.Name, corr)
		}
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("Lookup of an unknown condition succeeded")
	}
}

func TestEchoCarriesTheOtherLegLateAndFaint(t *testing.T) {
	// Agent talks in the first second, User in the second: each leg's echo
	// is the other's tone, 20 dB down and 40 ms late.
	agent := make([]int16, 2*Rate)
	user := make([]int16, 2*Rate)
	for i := 0; i < Rate; i++ {
		agent[i] = int16(8000 * math.Sin(2*math.Pi*500*float64(i)/Rate))
		user[Rate+i] = int16(8000 * math.Sin(2*math.Pi*900*float64(i)/Rate))
	}
	c := Condition{EchoLossDB: 20, EchoDelayMS: 40}
	out, err := c.ApplyCall([][]int16{agent, user}, 1)
	if err != nil {
		t.Fatal(err)
	}
	delay := 40 * Rate / 1000
	level := func(x []int16) float64 {
		f := make([]float64, len(x))
		for i, v := range x {
			f[i] = float64(v)
		}
		return 10 * math.Log10(math.Pow(rms(f), 2))
	}
	// User's leg, while only the Agent talks: the Agent's tone 20 dB down.
	if got := level(agent[Rate/2:Rate-delay]) - level(out[1][Rate/2+delay:Rate]); math.Abs(got-20) > 0.3 {
		t.Errorf("the echo in User's leg lies %.2f dB below the Agent, want 20", got)
	}
	if out[1][delay-1] != 0 || out[1][delay+Rate/400] == 0 {
		t.Errorf("the echo does not start %d samples late", delay)
	}
	// The Agent's own leg carries User's echo after the first second.
	if got := level(user[Rate+Rate/2:]) - level(out[0][Rate+Rate/2+delay:]); math.Abs(got-20) > 0.3 {
		t.Errorf("the echo in the Agent's leg lies %.2f dB below User, want 20", got)
	}
	// A mono recording has no other leg: the condition leaves it alone.
	mono, err := c.ApplyCall([][]int16{agent}, 1)
	if err != nil || len(mono) != 1 || mono[0][Rate+delay+10] != 0 {
		t.Errorf("mono recording: %v, %d channels", err, len(mono))
	}
}
