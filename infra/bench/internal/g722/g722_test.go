package g722

import (
	"math"
	"os"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// prompts holds one recording twice: G.722 at 16 kHz
// (asterisk-core-sounds-en-g722) and 16-bit PCM at 8 kHz
// (asterisk-core-sounds-en-wav), both made from the same master.
const prompts = "/usr/share/asterisk/sounds/en_US_f_Allison/"

// TestDecodeMatchesTheSameRecordingAt8kHz decodes a prompt and checks it
// against the package's own 8 kHz copy: the same length in time, and the
// same loudness contour (20 ms frame levels), which a decoder that got the
// bit layout, the band split or the step sizes wrong does not give.
func TestDecodeMatchesTheSameRecordingAt8kHz(t *testing.T) {
	for _, name := range []string{"agent-alreadyon", "vm-goodbye"} {
		data, err := os.ReadFile(prompts + name + ".g722")
		if err != nil {
			t.Fatal(err)
		}
		wide, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(wide) != 2*len(data) {
			t.Fatalf("%s: %d samples from %d bytes, want two a byte", name, len(wide), len(data))
		}
		raw, err := os.ReadFile(prompts + name + ".wav")
		if err != nil {
			t.Fatal(err)
		}
		a, err := decode.DecodeWAV(raw)
		if err != nil {
			t.Fatal(err)
		}
		narrow := a.Channels[0]
		if a.SampleRate != 8000 {
			t.Fatalf("%s.wav: %d Hz", name, a.SampleRate)
		}
		wideSeconds, narrowSeconds := float64(len(wide))/Rate, float64(len(narrow))/8000
		if math.Abs(wideSeconds-narrowSeconds) > 0.02*narrowSeconds {
			t.Fatalf("%s: decoded %.2f s, the 8 kHz copy is %.2f s", name, wideSeconds, narrowSeconds)
		}
		r := correlation(frameLevels(wide, Rate/50), frameLevels(narrow, 8000/50))
		if r < 0.9 {
			t.Errorf("%s: frame levels correlate %.3f with the 8 kHz copy's, want >= 0.9", name, r)
		}
	}
}

func TestDecodeNothing(t *testing.T) {
	pcm, err := Decode(nil)
	if err != nil || len(pcm) != 0 {
		t.Fatalf("Decode(nil) = %d samples, %v", len(pcm), err)
	}
}

// frameLevels are the log energies (dB) of consecutive frames of n samples.
func frameLevels(pcm []int16, n int) []float64 {
	var out []float64
	for i := 0; i+n <= len(pcm); i += n {
		var e float64
		for _, v := range pcm[i : i+n] {
			e += float64(v) * float64(v)
		}
		out = append(out, 10*math.Log10(e/float64(n)+1))
	}
	return out
}

// correlation is Pearson's r over the frames both series have.
func correlation(a, b []float64) float64 {
	n := min(len(a), len(b))
	var ma, mb float64
	for i := 0; i < n; i++ {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(n)
	mb /= float64(n)
	var sab, saa, sbb float64
	for i := 0; i < n; i++ {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}
