package speechdata

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// TestNarrowbandKeepsTheVoiceBandAndHalvesTheRate makes the 8 kHz side of a
// 16 kHz recording holding a 1 kHz tone (in the telephone band) and a 6 kHz
// one (above it): the side has half the samples, keeps the 1 kHz tone's level
// and drops the 6 kHz one; a second call reads it from the cache.
func TestNarrowbandKeepsTheVoiceBandAndHalvesTheRate(t *testing.T) {
	wide := make([]int16, 16000)
	for i := range wide {
		x := float64(i) / 16000
		wide[i] = int16(8000*math.Sin(2*math.Pi*1000*x) + 8000*math.Sin(2*math.Pi*6000*x))
	}
	cache := t.TempDir()
	narrow, err := Narrowband(cache, "/a/recording.wav", wide)
	if err != nil {
		t.Fatal(err)
	}
	if d := len(narrow) - len(wide)/2; d < -8 || d > 8 {
		t.Fatalf("%d samples at 8 kHz from %d at 16 kHz", len(narrow), len(wide))
	}
	mid := narrow[1000:7000]
	if got := toneLevel(mid, 8000, 1000); got < 0.9*8000 || got > 1.1*8000 {
		t.Errorf("1 kHz tone at amplitude %.0f, want about 8000", got)
	}
	if rms := rmsOf(mid); rms > 1.05*8000/math.Sqrt2 {
		t.Errorf("RMS %.0f: more than the 1 kHz tone alone, so the 6 kHz one was folded in", rms)
	}
	if again, err := Narrowband(cache, "/a/recording.wav", nil); err != nil || len(again) != len(narrow) {
		t.Errorf("second read: %d samples, %v; want the cached %d", len(again), err, len(narrow))
	}
}

func TestReadWidebandWantsSixteenKilohertz(t *testing.T) {
	dir := t.TempDir()
	for _, rate := range []int{8000, 16000} {
		data := decode.EncodeWAV(rate, make([]int16, rate))
		path := filepath.Join(dir, "r.wav")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pcm, err := ReadWideband(path)
		if rate == 16000 && (err != nil || len(pcm) != 16000) {
			t.Errorf("16 kHz WAV: %d samples, %v", len(pcm), err)
		}
		if rate == 8000 && err == nil {
			t.Errorf("8 kHz WAV read as a 16 kHz recording")
		}
	}
}

// toneLevel is the amplitude of the tone at hz in pcm (one DFT bin).
func toneLevel(pcm []int16, rate int, hz float64) float64 {
	var re, im float64
	for i, v := range pcm {
		ph := 2 * math.Pi * hz * float64(i) / float64(rate)
		re += float64(v) * math.Cos(ph)
		im += float64(v) * math.Sin(ph)
	}
	return 2 * math.Hypot(re, im) / float64(len(pcm))
}

func rmsOf(pcm []int16) float64 {
	var s float64
	for _, v := range pcm {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(pcm)))
}
