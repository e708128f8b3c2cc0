package probe

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestDetectFormat(t *testing.T) {
	head := func(b []byte) []byte { return b[:min(len(b), HeadSize)] }
	for _, tc := range []struct {
		file string
		want callscribe.AudioFormat
	}{
		{"tone-8k-mono-s16-0.5s.wav", callscribe.FormatWAV},
		{"tone-16k-stereo-s24-0.25s.wav", callscribe.FormatWAV},
		{"tone-8k-mono-mpeg25-24k-2.0s.mp3", callscribe.FormatMP3},
		{"tone-16k-mono-mpeg2-48k-1.5s.mp3", callscribe.FormatMP3},
		{"tone-44k1-stereo-mpeg1-128k-1.0s.mp3", callscribe.FormatMP3},
		{"id3v2-noise-8k-mono-mpeg25-24k-3.0s.mp3", callscribe.FormatMP3},
		{"vbr-noinfo-16k-mono-mpeg2-1.0s.mp3", callscribe.FormatMP3},
		{"mp3-content-named.wav", callscribe.FormatMP3}, // content wins over the name
		{"tone-8k-mono-0.5s.flac", ""},
		{"tone-8k-mono-0.5s.ogg", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, ok := DetectFormat(head(readFixture(t, tc.file)))
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("DetectFormat = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	// An ID3v2 tag bigger than the head: MP3 on the tag alone, Probe checks frames.
	big := append([]byte("ID3\x04\x00\x00\x00\x01\x00\x00"), make([]byte, HeadSize)...)
	if got, ok := DetectFormat(big[:HeadSize]); !ok || got != callscribe.FormatMP3 {
		t.Errorf("large ID3 tag: DetectFormat = %q, %v", got, ok)
	}
	for name, b := range map[string][]byte{
		"empty": nil, "short": []byte("RIF"), "RIFF not WAVE": []byte("RIFF\x00\x00\x00\x00AVI "),
		"MP4": []byte("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00"), "AIFF": []byte("FORM\x00\x00\x00\x00AIFF"),
		"bad ID3 version": []byte("ID3\x09\x00\x00\x00\x00\x00\x10"),
	} {
		if got, ok := DetectFormat(b); ok {
			t.Errorf("%s: DetectFormat = %q", name, got)
		}
	}
}

// TestProbeReader: size bounds what is read, and reader failures are internal
// errors, not the caller's format problem.
func TestProbeReader(t *testing.T) {
	b := readFixture(t, "tone-8k-mono-s16-0.5s.wav")
	info, err := Probe(bytes.NewReader(b), int64(len(b)-4000))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(info.DurationSeconds-0.25) > 1e-9 {
		t.Errorf("duration with a smaller size = %v, want 0.25", info.DurationSeconds)
	}
	// A size larger than the reader must not lengthen the duration.
	if info, err = Probe(bytes.NewReader(b), int64(len(b))*100); err != nil || info.DurationSeconds != 0.5 {
		t.Errorf("size > reader: %+v, %v", info, err)
	}

	f, err := os.Open(filepath.Join(fixtureDir, "tone-44k1-stereo-mpeg1-128k-1.0s.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if info, err = Probe(f, st.Size()); err != nil || info.Format != callscribe.FormatMP3 {
		t.Errorf("from *os.File: %+v, %v", info, err)
	}

	boom := errors.New("disk on fire")
	_, err = Probe(failingReader{bytes.NewReader(b), boom}, int64(len(b)))
	if !errors.Is(err, boom) || callscribe.ErrorCode(err) != callscribe.CodeInternal {
		t.Errorf("reader failure: err = %v, want internal wrapping %v", err, boom)
	}
}

type failingReader struct {
	*bytes.Reader
	err error
}

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

var _ io.ReadSeeker = failingReader{}
