package tone

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// noise is a channel of speech-like random samples.
func noise(n int, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, 1))
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(r.IntN(20000) - 10000)
	}
	return s
}

func TestReplaceWAV16BitStereo(t *testing.T) {
	const rate = 8000
	agent, user := noise(3*rate, 1), noise(3*rate, 2)
	data := decode.EncodeWAV(rate, agent, user)
	before := bytes.Clone(data)
	secs, err := ReplaceWAV(data, []Span{{1, 1.5}, {2.75, 9}})
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.75; math.Abs(secs-want) > 1e-9 {
		t.Errorf("overwrote %v s, want %v (the second span clamped to the end)", secs, want)
	}
	if len(data) != len(before) || !bytes.Equal(data[:44], before[:44]) {
		t.Fatal("the header or size changed")
	}
	got, err := decode.DecodeWAV(data)
	if err != nil {
		t.Fatal(err)
	}
	for c, orig := range [][]int16{agent, user} {
		ch := got.Channels[c]
		for _, in := range [][2]int{{rate, rate * 3 / 2}, {rate * 11 / 4, 3 * rate}} {
			if share := Share(ch[in[0]:in[1]], rate); share < 0.99 {
				t.Errorf("channel %d samples %v: tone share %.3f, want a tone", c, in, share)
			}
			peak := 0
			for _, v := range ch[in[0]:in[1]] {
				peak = max(peak, int(math.Abs(float64(v))))
			}
			if want := int(math.Round(Amplitude * math.MaxInt16)); peak < want-2 || peak > want+2 {
				t.Errorf("channel %d peak %d, want about %d", c, peak, want)
			}
		}
		for _, out := range [][2]int{{0, rate}, {rate * 3 / 2, rate * 11 / 4}} {
			if !slices.Equal(ch[out[0]:out[1]], orig[out[0]:out[1]]) {
				t.Errorf("channel %d samples %v changed outside the spans", c, out)
			}
		}
		if share := Share(orig[:rate], rate); share > 0.05 {
			t.Fatalf("the noise itself scores %.3f as a tone; the check proves nothing", share)
		}
	}
}

// float32WAV builds a mono IEEE-float WAV of samples.
func float32WAV(rate int, samples []float32) []byte {
	hdr := decode.WAVHeader(rate, 1, len(samples)*4)
	binary.LittleEndian.PutUint16(hdr[20:], waveFloat)
	binary.LittleEndian.PutUint32(hdr[28:], uint32(rate*4))
	binary.LittleEndian.PutUint16(hdr[32:], 4)
	binary.LittleEndian.PutUint16(hdr[34:], 32)
	b := bytes.NewBuffer(hdr)
	_ = binary.Write(b, binary.LittleEndian, samples)
	return b.Bytes()
}

func TestReplaceWAVFloat(t *testing.T) {
	const rate = 16000
	samples := make([]float32, rate)
	for i := range samples {
		samples[i] = 0.5
	}
	data := float32WAV(rate, samples)
	if _, err := ReplaceWAV(data, []Span{{0.25, 0.5}}); err != nil {
		t.Fatal(err)
	}
	got, err := decode.DecodeWAV(data)
	if err != nil {
		t.Fatal(err)
	}
	ch := got.Channels[0]
	if share := Share(ch[rate/4:rate/2], rate); share < 0.99 {
		t.Errorf("tone share %.3f in the span", share)
	}
	if ch[rate/4-1] != ch[0] || ch[rate/2] != ch[0] {
		t.Error("samples next to the span changed")
	}
}

func TestReplaceWAVRefusesOthers(t *testing.T) {
	for name, data := range map[string][]byte{
		"mp3":           append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), make([]byte, 100)...),
		"empty":         nil,
		"no data chunk": decode.WAVHeader(8000, 1, 0)[:36],
	} {
		if _, err := ReplaceWAV(data, []Span{{0, 1}}); err != ErrNotWAV {
			t.Errorf("%s: err = %v, want ErrNotWAV", name, err)
		}
	}
}

// BenchmarkReplaceWAVMinute is the audio side of redaction's cost per minute
// of audio: a minute of 8 kHz stereo with ten seconds of it toned (a card,
// a phone number and an e-mail address read out).
func BenchmarkReplaceWAVMinute(b *testing.B) {
	const rate = 8000
	data := decode.EncodeWAV(rate, noise(60*rate, 1), noise(60*rate, 2))
	spans := []Span{{10, 16}, {30, 32.5}, {50, 51.5}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReplaceWAV(data, spans); err != nil {
			b.Fatal(err)
		}
	}
}
