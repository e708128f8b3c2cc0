package sphinx

import (
	"math"
	"math/rand/v2"
	"testing"
)

// talker returns seconds of an 8 kHz voice at f0 Hz: harmonics up to 3.6 kHz
// with falling amplitude, the level swinging by syllable as speech does.
func talker(f0, seconds float64) []int16 {
	const rate = 8000
	out := make([]int16, int(seconds*rate))
	for i := range out {
		tm := float64(i) / rate
		syllable := 0.55 + 0.45*math.Sin(2*math.Pi*4*tm)
		var v float64
		for h := 1; float64(h)*f0 < 3600; h++ {
			v += math.Sin(2*math.Pi*f0*float64(h)*tm) / float64(h)
		}
		out[i] = int16(3000 * syllable * v)
	}
	return out
}

// withNoise adds noise at rms to a copy of s: white, or, with lowShare > 0,
// that share of its power brown (integrated) and so concentrated at the
// bottom of the band, as pink noise and hum are.
func withNoise(s []int16, rms, lowShare float64) []int16 {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]int16, len(s))
	var brown float64
	for i, x := range s {
		brown = 0.995*brown + rng.NormFloat64()*0.1
		n := rms * (math.Sqrt(1-lowShare)*rng.NormFloat64() + math.Sqrt(lowShare)*brown)
		out[i] = clamp16(float32(float64(x) + n))
	}
	return out
}

func whole(s []int16, rate int) []region {
	return []region{{0, len(s) * targetRate / rate}}
}

func TestVoiceBandOnlyTellsALineFromFullBandSpeech(t *testing.T) {
	const rate = 8000
	for _, c := range []struct {
		name  string
		audio []int16
		want  bool
	}{
		// A high voice has only its fundamental below the band, a low one
		// two or three harmonics: either way, well within 30 dB of the whole.
		{"high voice, clean", talker(220, 3), false},
		{"low voice, clean", talker(110, 3), false},
		{"low voice, recorded with room noise", withNoise(talker(110, 3), 30, 0.5), false},
		// Through a line: nothing of the talker below 300 Hz, whatever the
		// line adds there.
		{"high voice, voice band", voiceBand(talker(220, 3), rate), true},
		{"low voice, voice band", voiceBand(talker(110, 3), rate), true},
		{"high voice, voice band, noise 35 dB down", withNoise(voiceBand(talker(220, 3), rate), 30, 0.5), true},
	} {
		drop, ok := lowBandDrop(c.audio, rate, whole(c.audio, rate))
		if !ok {
			t.Errorf("%s: no measure", c.name)
			continue
		}
		if got := voiceBandOnly(c.audio, rate, whole(c.audio, rate)); got != c.want {
			t.Errorf("%s: voice band only = %v (low band %.1f dB under the whole), want %v", c.name, got, drop, c.want)
		}
	}
}

func TestLowBandDropReadsSpeechOnly(t *testing.T) {
	// Loud low noise outside the speech regions does not count: the measure
	// is taken on the regions' frames.
	const rate = 8000
	speech := voiceBand(talker(220, 2), rate)
	hum := make([]int16, 2*rate)
	for i := range hum {
		hum[i] = int16(8000 * math.Sin(2*math.Pi*100*float64(i)/rate))
	}
	audio := append(append([]int16{}, hum...), speech...)
	regions := []region{{len(hum) * targetRate / rate, len(audio) * targetRate / rate}}
	if !voiceBandOnly(audio, rate, regions) {
		drop, _ := lowBandDrop(audio, rate, regions)
		t.Errorf("hum before the speech made it full band (drop %.1f dB)", drop)
	}
}

func TestLowBandDropEdgeCases(t *testing.T) {
	s := talker(200, 1)
	if _, ok := lowBandDrop(s, 8000, nil); ok {
		t.Error("no regions gave a measure")
	}
	if _, ok := lowBandDrop(nil, 8000, []region{{0, 16000}}); ok {
		t.Error("no samples gave a measure")
	}
	if _, ok := lowBandDrop(s, 8000, []region{{0, 100}}); ok {
		t.Error("a region shorter than a frame gave a measure")
	}
	if _, ok := lowBandDrop(s[:40], 400, whole(s[:40], 400)); ok {
		t.Error("a rate below the band gave a measure")
	}
	// Regions running past the channel's end are clamped, not a panic.
	if _, ok := lowBandDrop(s, 8000, []region{{8000, 10 * targetRate}}); !ok {
		t.Error("a region past the end gave no measure")
	}
	// Digital silence inside the regions: both levels are 0 dB.
	if voiceBandOnly(make([]int16, 8000), 8000, whole(make([]int16, 8000), 8000)) {
		t.Error("digital silence taken for a line")
	}
}
