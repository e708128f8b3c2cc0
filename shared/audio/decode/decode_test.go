package decode

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// wavBytes builds a WAV with the given format code, bit depth and interleaved
// sample values in [-1, 1].
func wavBytes(format, bits, rate, channels int, frames [][]float64) []byte {
	var data bytes.Buffer
	for _, f := range frames {
		for _, v := range f {
			switch {
			case format == waveFloat && bits == 32:
				binary.Write(&data, binary.LittleEndian, math.Float32bits(float32(v)))
			case format == waveFloat && bits == 64:
				binary.Write(&data, binary.LittleEndian, math.Float64bits(v))
			case bits == 8:
				data.WriteByte(byte(int(math.Round(v*127)) + 128))
			case bits == 16:
				binary.Write(&data, binary.LittleEndian, int16(math.Round(v*32767)))
			case bits == 24:
				x := int32(math.Round(v * 8388607))
				data.Write([]byte{byte(x), byte(x >> 8), byte(x >> 16)})
			case bits == 32:
				binary.Write(&data, binary.LittleEndian, int32(math.Round(v*2147483647)))
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+data.Len()))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, uint32(16))
	binary.Write(&b, binary.LittleEndian, uint16(format))
	binary.Write(&b, binary.LittleEndian, uint16(channels))
	binary.Write(&b, binary.LittleEndian, uint32(rate))
	binary.Write(&b, binary.LittleEndian, uint32(rate*channels*bits/8))
	binary.Write(&b, binary.LittleEndian, uint16(channels*bits/8))
	binary.Write(&b, binary.LittleEndian, uint16(bits))
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}

func TestDecodeWAVEncodings(t *testing.T) {
	frames := [][]float64{{0, 0.5}, {0.25, -0.5}, {-1, 0.999}}
	for _, tc := range []struct{ format, bits int }{
		{wavePCM, 8}, {wavePCM, 16}, {wavePCM, 24}, {wavePCM, 32}, {waveFloat, 32}, {waveFloat, 64},
	} {
		a, err := Decode(wavBytes(tc.format, tc.bits, 8000, 2, frames), "")
		if err != nil {
			t.Fatalf("format %d/%d bits: %v", tc.format, tc.bits, err)
		}
		if a.SampleRate != 8000 || len(a.Channels) != 2 || len(a.Channels[0]) != 3 {
			t.Fatalf("format %d/%d bits: got rate %d, %d channels", tc.format, tc.bits, a.SampleRate, len(a.Channels))
		}
		// 8-bit keeps only 1/128 precision; the others are within one 16-bit step.
		tol := 2.0
		if tc.bits == 8 {
			tol = 300
		}
		for i, f := range frames {
			for c, v := range f {
				want := v * 32767
				if got := float64(a.Channels[c][i]); math.Abs(got-want) > tol {
					t.Errorf("format %d/%d bits: frame %d ch %d = %v, want %v", tc.format, tc.bits, i, c, got, want)
				}
			}
		}
		if d := a.Duration(); math.Abs(d-3.0/8000) > 1e-9 {
			t.Errorf("duration %v", d)
		}
	}
}

func TestDecodeWAVRejects(t *testing.T) {
	mono := [][]float64{{0.1}, {0.2}}
	three := [][]float64{{0.1, 0.2, 0.3}}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"three channels": {wavBytes(wavePCM, 16, 8000, 3, three), "3 channels"},
		"rate too low":   {wavBytes(wavePCM, 16, 4000, 1, mono), "sample rate 4000"},
		"rate too high":  {wavBytes(wavePCM, 16, 96000, 1, mono), "sample rate 96000"},
		"alaw":           {wavBytes(6, 16, 8000, 1, mono), "not supported"},
		"garbage":        {[]byte("this is not audio at all"), "neither WAV nor MP3"},
		"header only":    {wavBytes(wavePCM, 16, 8000, 1, nil), "no audio samples"},
		"no fmt":         {append([]byte("RIFF\x10\x00\x00\x00WAVEdata\x04\x00\x00\x00"), 1, 2, 3, 4), "before its fmt"},
	} {
		_, err := Decode(tc.data, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
		if _, ok := err.(*Error); !ok {
			t.Errorf("%s: err is %T, want *Error", name, err)
		}
	}
}

// A header claiming 4 GiB of data must decode what is there, not allocate 4 GiB.
func TestDecodeWAVHugeClaim(t *testing.T) {
	b := wavBytes(wavePCM, 16, 8000, 1, [][]float64{{0.5}, {0.5}, {0.5}, {0.5}})
	binary.LittleEndian.PutUint32(b[40:], 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(b[4:], 0xFFFFFFFF)
	allocs := testing.AllocsPerRun(1, func() {
		a, err := DecodeWAV(b)
		if err != nil || len(a.Channels[0]) != 4 {
			t.Fatalf("got %v, %v", a, err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations", allocs)
	}
}

func TestWriteWAVRoundTrip(t *testing.T) {
	l := []int16{1, -2, 3000, -32768}
	r := []int16{32767, 0, -5, 7}
	var b bytes.Buffer
	if err := WriteWAV(&b, 16000, l, r); err != nil {
		t.Fatal(err)
	}
	a, err := Decode(b.Bytes(), WAV)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != 16000 || !equal(a.Channels[0], l) || !equal(a.Channels[1], r) {
		t.Fatalf("round trip: %+v", a)
	}
}

func equal(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Format{"RIFF\x00\x00\x00\x00WAVE": WAV, "ID3\x04": MP3, "\xff\xfb\x90": MP3, "OggS": ""} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeMP3(t *testing.T) {
	for _, tc := range []struct {
		file           string
		rate, channels int
	}{{"testdata/tone8k.mp3", 8000, 1}, {"testdata/tone16k-stereo.mp3", 16000, 2}} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Decode(b, "")
		if !cgoEnabled {
			if err == nil {
				t.Fatal("MP3 decoded without cgo")
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if a.SampleRate != tc.rate || len(a.Channels) != tc.channels {
			t.Fatalf("%s: rate %d channels %d", tc.file, a.SampleRate, len(a.Channels))
		}
		// The source is 0.3 s of a 440 Hz sine starting at 0: with the codec delay
		// trimmed, sound starts within a few ms and lasts at least the 0.3 s.
		if d := a.Duration(); d < 0.3 || d > 0.45 {
			t.Errorf("%s: duration %.3f s", tc.file, d)
		}
		onset := -1
		for i, v := range a.Channels[0] {
			if v > 2000 || v < -2000 {
				onset = i
				break
			}
		}
		if onset < 0 || float64(onset)/float64(a.SampleRate) > 0.01 {
			t.Errorf("%s: onset at sample %d", tc.file, onset)
		}
	}
}

func TestDecodeMP3Garbage(t *testing.T) {
	garbage := append([]byte{0xFF, 0xFB}, bytes.Repeat([]byte{0x13, 0x37}, 500)...)
	if _, err := Decode(garbage, MP3); err == nil {
		t.Fatal("garbage decoded as MP3")
	}
}

// DecodeMP3Go gives what DecodeMP3 gives for the MPEG-1 and MPEG-2 files it
// reads (rate, channels, length, onset; samples within a few steps), in every
// build, and refuses MPEG-2.5 and 22.05 kHz (which go-mp3 turns to noise at
// low bit rates: this fixture, 32 kbit/s mono, decodes to noise).
func TestDecodeMP3Go(t *testing.T) {
	for _, tc := range []struct {
		file           string
		rate, channels int
	}{
		{"testdata/tone16k-stereo.mp3", 16000, 2},
		// MPEG-1 mono with LAME's Info frame, which go-mp3 decodes as silence.
		{"testdata/tone44k-mono-info.mp3", 44100, 1},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := DecodeMP3Go(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if a.SampleRate != tc.rate || len(a.Channels) != tc.channels {
			t.Fatalf("%s: rate %d channels %d", tc.file, a.SampleRate, len(a.Channels))
		}
		if d := a.Duration(); d < 0.3 || d > 0.45 {
			t.Errorf("%s: duration %.3f s", tc.file, d)
		}
		onset := slices.IndexFunc(a.Channels[0], func(v int16) bool { return v > 2000 || v < -2000 })
		if onset < 0 || float64(onset)/float64(a.SampleRate) > 0.01 {
			t.Errorf("%s: onset at sample %d", tc.file, onset)
		}
		if !cgoEnabled {
			continue
		}
		want, err := DecodeMP3(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Channels[0]) != len(a.Channels[0]) {
			t.Fatalf("%s: %d samples, libmpg123 %d", tc.file, len(a.Channels[0]), len(want.Channels[0]))
		}
		for c := range want.Channels {
			for i, v := range want.Channels[c] {
				if d := int(v) - int(a.Channels[c][i]); d > 64 || d < -64 {
					t.Fatalf("%s: channel %d sample %d is %d, libmpg123 %d", tc.file, c, i, a.Channels[c][i], v)
				}
			}
		}
	}
	for file, why := range map[string]string{"testdata/tone8k.mp3": "MPEG-2.5", "testdata/tone22k-mono-32k.mp3": "22.05 kHz"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeMP3Go(b); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err %v, want it refused (%s)", file, err, why)
		}
	}
}
