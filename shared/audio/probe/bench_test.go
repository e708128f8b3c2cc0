package probe

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

const tenMiB = 10 << 20

// BenchmarkProbe measures the upload-time cost at the 10 MiB upload limit. The
// MP3 is the committed 44.1 kHz fixture's audio frames repeated; "id3-then-junk"
// is the worst case: an ID3 tag followed by 10 MiB without a frame, all scanned.
func BenchmarkProbe(b *testing.B) {
	wav := buildWAV(wavSpec{tag: 1, channels: 1, rate: 8000, bits: 16, data: make([]byte, tenMiB-44)})

	fr := frames(b, readFixture(b, "tone-44k1-stereo-mpeg1-128k-1.0s.mp3"))[1:] // drop the Info frame
	var mp3 []byte
	for len(mp3) < tenMiB-2000 {
		mp3 = append(mp3, fr[len(mp3)%len(fr)]...)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	junk := make([]byte, tenMiB)
	for i := 0; i+8 <= len(junk); i += 8 {
		binary.LittleEndian.PutUint64(junk[i:], rng.Uint64())
	}
	id3Junk := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), junk[10:]...)

	for _, bc := range []struct {
		name string
		file []byte
		ok   bool
	}{
		{"wav-10MiB", wav, true},
		{"mp3-10MiB", mp3, true},
		{"random-10MiB", junk, false},
		{"id3-then-junk-10MiB", id3Junk, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.file)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := Probe(bytes.NewReader(bc.file), int64(len(bc.file)))
				if (err == nil) != bc.ok {
					b.Fatalf("err = %v", err)
				}
			}
		})
	}
}
