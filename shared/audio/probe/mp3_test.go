package probe

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tcolgate/mp3"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// mp3Fixture: lengths are the source audio's. Files with a LAME Info frame record
// encoder delay and padding, so the probe recovers the source length (allowed off
// by one frame). Without it the decoded stream is longer than the source by
// lame's delay + padding (1280 samples here), which no header records: the probe
// must be >= the source and within three frames of it.
var mp3Fixtures = []struct {
	name     string
	seconds  float64
	rate     int
	channels int
	spf      int // samples per frame
	hasInfo  bool
}{
	{"tone-8k-mono-mpeg25-24k-2.0s.mp3", 2.0, 8000, 1, 576, true},
	{"tone-16k-mono-mpeg2-48k-1.5s.mp3", 1.5, 16000, 1, 576, true},
	{"tone-44k1-stereo-mpeg1-128k-1.0s.mp3", 1.0, 44100, 2, 1152, true},
	{"id3v2-noise-8k-mono-mpeg25-24k-3.0s.mp3", 3.0, 8000, 1, 576, true},
	{"noinfo-8k-mono-mpeg25-16k-2.0s.mp3", 2.0, 8000, 1, 576, false},
	{"vbr-noinfo-16k-mono-mpeg2-1.0s.mp3", 1.0, 16000, 1, 576, false},
	{"mp3-content-named.wav", 2.0, 8000, 1, 576, false},
}

func TestProbeMP3Fixtures(t *testing.T) {
	for _, tc := range mp3Fixtures {
		t.Run(tc.name, func(t *testing.T) {
			info, err := probeBytes(readFixture(t, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			if info.Format != callscribe.FormatMP3 || info.SampleRate != tc.rate || info.Channels != tc.channels || info.InfoFrame != tc.hasInfo {
				t.Errorf("info = %+v", info)
			}
			frame := float64(tc.spf) / float64(tc.rate)
			d := info.DurationSeconds
			if tc.hasInfo && math.Abs(d-tc.seconds) > frame {
				t.Errorf("duration = %v, want %v ± %v", d, tc.seconds, frame)
			}
			if !tc.hasInfo && (d < tc.seconds || d > tc.seconds+3*frame) {
				t.Errorf("duration = %v, want in [%v, %v]", d, tc.seconds, tc.seconds+3*frame)
			}
		})
	}
}

// TestTcolgateMPEG25 checks the claim in mp3.go: tcolgate/mp3 decodes MPEG-2.5
// headers right (8 kHz, 576 samples), and its frame sizes agree with ours.
func TestTcolgateMPEG25(t *testing.T) {
	b := readFixture(t, "tone-8k-mono-mpeg25-24k-2.0s.mp3")
	dec := mp3.NewDecoder(bytes.NewReader(b))
	var f mp3.Frame
	var skipped, n int
	for {
		err := dec.Decode(&f, &skipped)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h := f.Header()
		if h.Version() != mp3.MPEG25 || h.SampleRate() != 8000 || f.Samples() != 576 || skipped != 0 {
			t.Fatalf("frame %d: version %v rate %v samples %d skipped %d", n, h.Version(), h.SampleRate(), f.Samples(), skipped)
		}
		ours, ok := parseHeader(h)
		if !ok || ours.size != f.Size() || ours.samples != f.Samples() {
			t.Fatalf("frame %d: ours %+v, tcolgate size %d", n, ours, f.Size())
		}
		n++
	}
	// 2 s = 16000 samples + 1280 of delay/padding = 30 frames, plus the Info frame.
	if n != 31 {
		t.Errorf("tcolgate decoded %d frames, want 31", n)
	}
}

func TestProbeMP3Framing(t *testing.T) {
	base := readFixture(t, "noinfo-8k-mono-mpeg25-16k-2.0s.mp3")
	want, err := probeBytes(base)
	if err != nil {
		t.Fatal(err)
	}
	fr := frames(t, base)
	frameSec := 576.0 / 8000
	id3 := func(size int) []byte {
		h := []byte{'I', 'D', '3', 3, 0, 0, byte(size >> 21 & 0x7F), byte(size >> 14 & 0x7F), byte(size >> 7 & 0x7F), byte(size & 0x7F)}
		return append(h, make([]byte, size)...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 3000)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name   string
		file   []byte
		frames float64 // expected change in frames vs base
	}{
		{"ID3v1 tag at the end", cat(base, []byte("TAG"), make([]byte, 125)), 0},
		{"ID3v2 tag larger than HeadSize", cat(id3(20000), base), 0},
		{"two ID3v2 tags", cat(id3(100), id3(50), base), 0},
		{"zero padding after the tag", cat(id3(100), make([]byte, 700), base), 0},
		{"junk between frames", cat(bytes.Join(fr[:10], nil), junk, bytes.Join(fr[10:], nil)), 0},
		{"truncated last frame", base[:len(base)-10], -1},
		{"leading junk", cat(make([]byte, 500), base), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := probeBytes(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			wantD := want.DurationSeconds + tc.frames*frameSec
			if math.Abs(info.DurationSeconds-wantD) > 1e-9 {
				t.Errorf("duration = %v, want %v", info.DurationSeconds, wantD)
			}
		})
	}
}

func TestProbeMP3Rejects(t *testing.T) {
	base := readFixture(t, "noinfo-8k-mono-mpeg25-16k-2.0s.mp3")
	fr := frames(t, base)
	tag := []byte("ID3\x03\x00\x00\x00\x00\x00\x20")
	tag = append(tag, make([]byte, 32)...)
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Random bytes behind one valid header: a stray sync word is not MP3.
	stray := append(bytes.Clone(fr[0][:4]), random...)
	for _, tc := range []struct {
		name string
		file []byte
		code string
	}{
		{"ID3 tag only", tag, callscribe.CodeAudioDurationUnknown},
		{"ID3 tag and zeros", append(bytes.Clone(tag), make([]byte, 5000)...), callscribe.CodeAudioDurationUnknown},
		{"ID3 tag and random bytes", append(bytes.Clone(tag), random...), callscribe.CodeAudioDurationUnknown},
		{"ID3 size beyond the file", []byte("ID3\x03\x00\x00\x7f\x7f\x7f\x7f"), callscribe.CodeAudioDurationUnknown},
		{"ID3 tag then FLAC", append(bytes.Clone(tag), readFixture(t, "tone-8k-mono-0.5s.flac")...), callscribe.CodeUnsupportedAudioFormat},
		{"ID3 tag then ADTS AAC", append(bytes.Clone(tag), 0xFF, 0xF1, 0x50, 0x80, 0, 0x1F, 0xFC), callscribe.CodeUnsupportedAudioFormat},
		{"two frames only", bytes.Join(fr[:2], nil), callscribe.CodeUnsupportedAudioFormat},
		{"random bytes", random, callscribe.CodeUnsupportedAudioFormat},
		{"stray sync word", stray, callscribe.CodeUnsupportedAudioFormat},
		{"FLAC", readFixture(t, "tone-8k-mono-0.5s.flac"), callscribe.CodeUnsupportedAudioFormat},
		{"OGG", readFixture(t, "tone-8k-mono-0.5s.ogg"), callscribe.CodeUnsupportedAudioFormat},
		{"empty", nil, callscribe.CodeUnsupportedAudioFormat},
		{"text", []byte("hello, this is not audio"), callscribe.CodeUnsupportedAudioFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := probeBytes(tc.file)
			wantCode(t, err, tc.code)
		})
	}
}

// TestProbeMP3Layers: MPEG Layer I/II frames are not MP3.
func TestProbeMP3Layers(t *testing.T) {
	fr := frames(t, readFixture(t, "noinfo-8k-mono-mpeg25-16k-2.0s.mp3"))
	var b []byte
	for _, f := range fr {
		f = bytes.Clone(f)
		f[1] = f[1]&^0x06 | 0x04 // layer bits 10 = Layer II
		b = append(b, f...)
	}
	_, err := probeBytes(b)
	wantCode(t, err, callscribe.CodeUnsupportedAudioFormat)
}
