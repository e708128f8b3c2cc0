package probe

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// seedCorpus adds every committed fixture (cut to 8 KiB: the fuzzer's minimiser is
// quadratic in input length, and the headers and first frames are what matter)
// plus hand-built WAV shapes.
func seedCorpus(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures in %s: %v", fixtureDir, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 8<<10)])
	}
	for _, s := range []wavSpec{
		{tag: 1, channels: 1, rate: 8000, bits: 16, data: make([]byte, 64)},
		{tag: 3, extensible: true, channels: 2, rate: 16000, bits: 32, data: make([]byte, 64)},
		{tag: 1, channels: 1, rate: 8000, bits: 16, dataClaim: 0xFFFFFFFF, data: make([]byte, 64)},
		{tag: 1, channels: 1, rate: 8000, bits: 16, before: [][]byte{chunk("LIST", []byte("INFOx"))}, data: make([]byte, 64)},
	} {
		f.Add(buildWAV(s))
	}
	f.Add([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"))
}

// maxSecondsPerByte bounds how much audio a byte can hold: WAV needs a whole
// block (>= 1 byte) per sample at >= 1 kHz; the densest MP3 frame is MPEG-2.5 at
// 8 kbit/s and 11.025 kHz, 52 bytes for 576 samples. A duration above this bound
// would mean some claimed size was believed.
const maxSecondsPerByte = 576.0 / 11025 / 52

// FuzzProbe: any input gives either an accepted Info with a positive finite
// duration the bytes can actually hold, or one of the two spec errors; never a
// panic, never another error (a bytes.Reader cannot fail).
func FuzzProbe(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := probeBytes(b)
		if err != nil {
			var e *callscribe.Error
			if !errors.As(err, &e) || (e.Code != callscribe.CodeUnsupportedAudioFormat && e.Code != callscribe.CodeAudioDurationUnknown) || e.Message == "" {
				t.Fatalf("unexpected error %v (%T)", err, err)
			}
			return
		}
		d := info.DurationSeconds
		if math.IsNaN(d) || math.IsInf(d, 0) || d <= 0 {
			t.Fatalf("accepted with duration %v", d)
		}
		if d > float64(len(b))*maxSecondsPerByte {
			t.Fatalf("duration %v s from %d bytes", d, len(b))
		}
		if info.Channels < 1 || info.SampleRate <= 0 {
			t.Fatalf("accepted with %+v", info)
		}
		// Probe and DetectFormat agree on what they accept.
		if got, ok := DetectFormat(b[:min(len(b), HeadSize)]); !ok || got != info.Format {
			t.Fatalf("Probe says %s, DetectFormat says %q", info.Format, got)
		}
	})
}

// FuzzDetectFormat: never panics, answers only wav/mp3/none, and depends on
// nothing but the bytes (calling twice, or on a copy, gives the same answer).
func FuzzDetectFormat(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		head := b[:min(len(b), HeadSize)]
		got, ok := DetectFormat(head)
		if ok != (got == callscribe.FormatWAV || got == callscribe.FormatMP3) || (!ok && got != "") {
			t.Fatalf("DetectFormat = %q, %v", got, ok)
		}
		if again, _ := DetectFormat(bytes.Clone(head)); again != got {
			t.Fatalf("DetectFormat not deterministic: %q then %q", got, again)
		}
	})
}
