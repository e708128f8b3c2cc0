package probe

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-audio/audio"
	"github.com/go-audio/wav"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// encodeWAV writes seconds of a 440 Hz tone with go-audio/wav's encoder: an
// independent writer, so the parser is not only checked against its own builder.
func encodeWAV(t *testing.T, rate, bits, channels, format int, seconds float64) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.wav")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := wav.NewEncoder(f, rate, bits, channels, format)
	n := int(seconds * float64(rate))
	buf := &audio.IntBuffer{Format: &audio.Format{NumChannels: channels, SampleRate: rate}, SourceBitDepth: bits, Data: make([]int, n*channels)}
	amp := float64(int(1)<<(bits-2)) - 1
	for i := range n {
		for c := range channels {
			buf.Data[i*channels+c] = int(amp * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		}
	}
	if err := enc.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProbeWAVEncoded(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		rate, bits, ch, fmtID int
		seconds               float64
	}{
		{"8kHz mono 16-bit", 8000, 16, 1, 1, 1.0},
		{"16kHz stereo 16-bit", 16000, 16, 2, 1, 1.5},
		{"8kHz mono 8-bit", 8000, 8, 1, 1, 0.75},
		{"44.1kHz mono 24-bit", 44100, 24, 1, 1, 0.5},
		{"48kHz stereo 32-bit", 48000, 32, 2, 1, 0.25},
		{"16kHz mono float32 header", 16000, 32, 1, 3, 2.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := encodeWAV(t, tc.rate, tc.bits, tc.ch, tc.fmtID, tc.seconds)
			info, err := probeBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			want := Info{Format: callscribe.FormatWAV, DurationSeconds: tc.seconds, Channels: tc.ch, SampleRate: tc.rate}
			if math.Abs(info.DurationSeconds-want.DurationSeconds) > 1.0/float64(tc.rate) {
				t.Errorf("duration = %v, want %v", info.DurationSeconds, want.DurationSeconds)
			}
			info.DurationSeconds = want.DurationSeconds
			if info != want {
				t.Errorf("info = %+v, want %+v", info, want)
			}
		})
	}
}

func TestProbeWAVHandBuilt(t *testing.T) {
	pcm := func(n int) []byte { return bytes.Repeat([]byte{1, 2}, n/2) }
	for _, tc := range []struct {
		name     string
		spec     wavSpec
		seconds  float64
		channels int
	}{
		{"float32 mono", wavSpec{tag: 3, channels: 1, rate: 16000, bits: 32, data: pcm(16000 * 4)}, 1, 1},
		{"float64 stereo", wavSpec{tag: 3, channels: 2, rate: 8000, bits: 64, data: pcm(8000 * 16 / 2)}, 0.5, 2},
		{"extensible PCM 24-bit stereo", wavSpec{tag: 1, extensible: true, channels: 2, rate: 48000, bits: 24, data: pcm(48000 * 6)}, 1, 2},
		{"extensible float32", wavSpec{tag: 3, extensible: true, channels: 1, rate: 8000, bits: 32, data: pcm(8000 * 4 * 2)}, 2, 1},
		{"6 channels is still probed", wavSpec{tag: 1, channels: 6, rate: 8000, bits: 16, data: pcm(8000 * 12)}, 1, 6},
		// A LIST chunk with an odd size before 'fmt ': the pad byte must be skipped.
		{"odd chunk before fmt", wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, before: [][]byte{chunk("LIST", []byte("INFOabc"))}, data: pcm(16000)}, 1, 1},
		// Header claims more than is present: measured by the bytes present.
		{"truncated data", wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, dataClaim: 16000 * 4, data: pcm(16000)}, 1, 1},
		{"claims 4 GiB of data", wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, dataClaim: 0xFFFFFFFF, data: pcm(8000)}, 0.5, 1},
		// A trailing odd byte is not a whole sample frame.
		{"partial last block", wavSpec{tag: 1, channels: 2, rate: 8000, bits: 16, data: pcm(32000 + 2)}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := probeBytes(buildWAV(tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			if info.Format != callscribe.FormatWAV || info.Channels != tc.channels || info.SampleRate != int(tc.spec.rate) {
				t.Errorf("info = %+v", info)
			}
			if math.Abs(info.DurationSeconds-tc.seconds) > 1e-9 {
				t.Errorf("duration = %v, want %v", info.DurationSeconds, tc.seconds)
			}
		})
	}
}

func TestProbeWAVRejects(t *testing.T) {
	ok := wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, data: make([]byte, 1600)}
	with := func(f func(*wavSpec)) []byte { s := ok; f(&s); return buildWAV(s) }
	// patch overwrites bytes at off (32 is the block align of a leading 'fmt ').
	patch := func(b []byte, off int, v ...byte) []byte { copy(b[off:], v); return b }
	for _, tc := range []struct {
		name string
		file []byte
		code string
	}{
		{"zero-length data", with(func(s *wavSpec) { s.data = []byte{}; s.zeroClaim = true }), callscribe.CodeAudioDurationUnknown},
		{"data claims 0 but has bytes", with(func(s *wavSpec) { s.zeroClaim = true }), callscribe.CodeAudioDurationUnknown},
		{"data shorter than one block", with(func(s *wavSpec) { s.channels = 2; s.data = []byte{1, 2} }), callscribe.CodeAudioDurationUnknown},
		{"data claimed but file ends", append(with(func(s *wavSpec) { s.data = nil }), "data\x40\x1f\x00\x00"...), callscribe.CodeAudioDurationUnknown},
		{"no data chunk", with(func(s *wavSpec) { s.data = nil }), callscribe.CodeAudioDurationUnknown},
		{"no fmt chunk", with(func(s *wavSpec) { s.noFmt = true }), callscribe.CodeAudioDurationUnknown},
		{"data before fmt", with(func(s *wavSpec) { s.dataFirst = true }), callscribe.CodeAudioDurationUnknown},
		{"zero sample rate", with(func(s *wavSpec) { s.rate = 0 }), callscribe.CodeAudioDurationUnknown},
		{"absurd sample rate", with(func(s *wavSpec) { s.rate = 4_000_000_000 }), callscribe.CodeAudioDurationUnknown},
		{"zero channels", with(func(s *wavSpec) { s.channels = 0; s.blockAlign = 2 }), callscribe.CodeAudioDurationUnknown},
		{"zero block align", patch(buildWAV(ok), 32, 0, 0), callscribe.CodeAudioDurationUnknown},
		// A large block align would shrink the charged duration.
		{"block align lies", with(func(s *wavSpec) { s.blockAlign = 4000 }), callscribe.CodeAudioDurationUnknown},
		{"12-bit PCM", with(func(s *wavSpec) { s.bits = 12; s.blockAlign = 2 }), callscribe.CodeAudioDurationUnknown},
		{"fmt chunk too short", with(func(s *wavSpec) { s.fmtSize = 14 }), callscribe.CodeAudioDurationUnknown},
		{"extensible truncated", with(func(s *wavSpec) { s.extensible = true; s.fmtSize = 18 }), callscribe.CodeAudioDurationUnknown},
		{"header only", []byte("RIFF\x04\x00\x00\x00WAVE"), callscribe.CodeAudioDurationUnknown},
		{"ends inside chunk header", []byte("RIFF\x04\x00\x00\x00WAVEfmt \x10"), callscribe.CodeAudioDurationUnknown},
		{"IMA ADPCM", with(func(s *wavSpec) { s.tag = 0x11; s.bits = 4; s.blockAlign = 256 }), callscribe.CodeUnsupportedAudioFormat},
		{"mu-law", with(func(s *wavSpec) { s.tag = 7; s.bits = 8 }), callscribe.CodeUnsupportedAudioFormat},
		{"extensible unknown GUID", with(func(s *wavSpec) { s.extensible = true; s.guidTail = bytes.Repeat([]byte{7}, 14) }), callscribe.CodeUnsupportedAudioFormat},
		{"RIFF but AVI", []byte("RIFF\x04\x00\x00\x00AVI LIST\x00\x00\x00\x00"), callscribe.CodeUnsupportedAudioFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := probeBytes(tc.file)
			wantCode(t, err, tc.code)
		})
	}
}

// TestProbeWAVHostileSizes: chunk sizes up to 4 GiB must cost neither memory nor
// time (go-audio/wav would allocate the claimed size for 'fmt ' and 'LIST').
func TestProbeWAVHostileSizes(t *testing.T) {
	huge := func(id string) []byte { return []byte(id + "\xff\xff\xff\xff") }
	cases := map[string][]byte{
		"fmt claims 4 GiB":  buildWAV(wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, fmtSize: 0xFFFFFFFF, data: make([]byte, 100)}),
		"LIST claims 4 GiB": append([]byte("RIFF\xff\xff\xff\xffWAVE"), huge("LIST")...),
		"data claims 4 GiB": buildWAV(wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, dataClaim: 0xFFFFFFFF, data: make([]byte, 2)}),
	}
	// Thousands of empty chunks: the walk gives up after maxChunks.
	many := []byte("RIFF\xff\xff\xff\xffWAVE")
	for range 5000 {
		many = append(many, "junk\x00\x00\x00\x00"...)
	}
	cases["5000 empty chunks"] = many
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			n := allocBytes(func() { _, err = probeBytes(b) })
			if n > 64<<10 {
				t.Errorf("allocated %d bytes", n)
			}
			if name == "data claims 4 GiB" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, callscribe.CodeAudioDurationUnknown)
		})
	}
}

func TestProbeWAVFixtures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		seconds  float64
		channels int
		rate     int
	}{
		{"tone-8k-mono-s16-0.5s.wav", 0.5, 1, 8000},
		{"tone-16k-stereo-s24-0.25s.wav", 0.25, 2, 16000}, // sox writes WAVE_FORMAT_EXTENSIBLE
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := probeBytes(readFixture(t, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			want := Info{Format: callscribe.FormatWAV, DurationSeconds: tc.seconds, Channels: tc.channels, SampleRate: tc.rate}
			if info != want {
				t.Errorf("info = %+v, want %+v", info, want)
			}
		})
	}
}
