package decode

import (
	"encoding/binary"
	"os"
	"testing"
)

// checkDecoded asserts the invariants every successful decode must hold.
func checkDecoded(t *testing.T, in []byte, a *Audio, err error) {
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
		return
	}
	if len(a.Channels) < 1 || len(a.Channels) > MaxChannels {
		t.Fatalf("%d channels", len(a.Channels))
	}
	if a.SampleRate < MinSampleRate || a.SampleRate > MaxSampleRate {
		t.Fatalf("rate %d", a.SampleRate)
	}
	for _, c := range a.Channels {
		if len(c) != len(a.Channels[0]) {
			t.Fatal("channels of different lengths")
		}
	}
}

func FuzzDecodeWAV(f *testing.F) {
	f.Add(wavBytes(wavePCM, 16, 8000, 2, [][]float64{{0.1, 0.2}, {0.3, 0.4}}))
	f.Add(wavBytes(wavePCM, 24, 16000, 1, [][]float64{{0.1}, {-0.3}}))
	f.Add(wavBytes(waveFloat, 32, 48000, 1, [][]float64{{0.1}, {-0.3}}))
	huge := wavBytes(wavePCM, 8, 8000, 1, [][]float64{{0.1}})
	binary.LittleEndian.PutUint32(huge[40:], 0xFFFFFFFF)
	f.Add(huge)
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := DecodeWAV(in)
		checkDecoded(t, in, a, err)
		if err == nil {
			// PCM can never hold more frames than the input has bytes.
			if len(a.Channels[0]) > len(in) {
				t.Fatalf("%d frames from %d bytes", len(a.Channels[0]), len(in))
			}
		}
	})
}

func FuzzDecodeMP3(f *testing.F) {
	for _, name := range []string{"testdata/tone8k.mp3", "testdata/tone16k-stereo.mp3"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb"))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := DecodeMP3(in)
		checkDecoded(t, in, a, err)
	})
}

func FuzzDecodeMP3Go(f *testing.F) {
	for _, name := range []string{"testdata/tone16k-stereo.mp3", "testdata/tone44k-mono-info.mp3"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := DecodeMP3Go(in)
		checkDecoded(t, in, a, err)
	})
}
