// Package tone overwrites stretches of a WAV recording with a steady tone, in
// place: the file keeps its header, size, encoding and every sample outside
// the stretches, so a redacted recording plays like the original except where
// personal data was said. It is pure Go (no decoder or encoder library).
//
// Only WAV can be written: re-encoding MP3 needs an encoder these builds do
// not have, so the pipeline decodes a redacted MP3 and tones a WAV rendition
// of it instead (see package pipeline).
package tone

import (
	"encoding/binary"
	"errors"
	"math"
)

// Frequency and Amplitude are the tone's: 1 kHz at a quarter of full scale
// (-12 dBFS), clearly a bleep and well inside a telephone band.
const (
	Frequency = 1000.0
	Amplitude = 0.25
)

// Span is a stretch of the recording, in seconds from its start.
type Span struct {
	Start, End float64
}

// ErrNotWAV is returned for data that is not a RIFF/WAVE file with a PCM or
// float data chunk this package can write.
var ErrNotWAV = errors.New("tone: not a writable RIFF/WAVE file")

const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// ReplaceWAV writes the tone over spans of the WAV file in data, on every
// channel, and returns the seconds it overwrote. Spans outside the recording
// are clamped to it.
func ReplaceWAV(data []byte, spans []Span) (float64, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return 0, ErrNotWAV
	}
	var (
		haveFmt                bool
		format, channels, bits int
		rate, block            int
		pcm                    []byte
	)
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := off + 8
		end := body + size
		if end > len(data) || end < body {
			end = len(data)
		}
		chunk := data[body:end]
		switch id {
		case "fmt ":
			if len(chunk) < 16 {
				return 0, ErrNotWAV
			}
			format = int(binary.LittleEndian.Uint16(chunk[0:2]))
			channels = int(binary.LittleEndian.Uint16(chunk[2:4]))
			rate = int(binary.LittleEndian.Uint32(chunk[4:8]))
			block = int(binary.LittleEndian.Uint16(chunk[12:14]))
			bits = int(binary.LittleEndian.Uint16(chunk[14:16]))
			if format == waveExtensible && len(chunk) >= 26 {
				format = int(binary.LittleEndian.Uint16(chunk[24:26]))
			}
			haveFmt = true
		case "data":
			pcm = chunk
		}
		if pcm != nil {
			break
		}
		off = end + end%2 // chunks are word-aligned
	}
	bytesPerSample := bits / 8
	if !haveFmt || pcm == nil || channels < 1 || rate <= 0 || bits%8 != 0 || bytesPerSample < 1 ||
		block != channels*bytesPerSample || (format != wavePCM && format != waveFloat) ||
		(format == waveFloat && bits != 32 && bits != 64) || (format == wavePCM && bits > 32) {
		return 0, ErrNotWAV
	}
	frames := len(pcm) / block
	write := sampleWriter(format, bits)
	written := 0
	for _, s := range spans {
		first := int(math.Floor(s.Start * float64(rate)))
		last := int(math.Ceil(s.End * float64(rate)))
		first = max(first, 0)
		last = min(last, frames)
		for f := first; f < last; f++ {
			v := Amplitude * math.Sin(2*math.Pi*Frequency*float64(f)/float64(rate))
			for c := 0; c < channels; c++ {
				write(pcm[f*block+c*bytesPerSample:], v)
			}
		}
		if last > first {
			written += last - first
		}
	}
	return float64(written) / float64(rate), nil
}

// sampleWriter returns a function that stores v (in [-1, 1]) as one sample of
// the given encoding.
func sampleWriter(format, bits int) func(b []byte, v float64) {
	if format == waveFloat {
		if bits == 32 {
			return func(b []byte, v float64) { binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v))) }
		}
		return func(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) }
	}
	switch bits {
	case 8: // unsigned, centred on 128
		return func(b []byte, v float64) { b[0] = byte(128 + int(math.Round(v*127))) }
	case 16:
		return func(b []byte, v float64) {
			binary.LittleEndian.PutUint16(b, uint16(int16(math.Round(v*math.MaxInt16))))
		}
	case 24:
		return func(b []byte, v float64) {
			x := int32(math.Round(v * (1<<23 - 1)))
			b[0], b[1], b[2] = byte(x), byte(x>>8), byte(x>>16)
		}
	default: // 32
		return func(b []byte, v float64) {
			binary.LittleEndian.PutUint32(b, uint32(int32(math.Round(v*math.MaxInt32))))
		}
	}
}

// Share is the share of samples' energy at Frequency for audio at rate
// (Goertzel): about 1 where the tone was written, near 0 for speech or noise;
// 0 for no samples or silence. How a check tells a toned span from the rest.
func Share(samples []int16, rate int) float64 {
	k := 2 * math.Cos(2*math.Pi*Frequency/float64(rate))
	var s1, s2, total float64
	for _, x := range samples {
		v := float64(x) / math.MaxInt16
		s0 := v + k*s1 - s2
		s2, s1 = s1, s0
		total += v * v
	}
	if total == 0 {
		return 0
	}
	return 2 * (s1*s1 + s2*s2 - k*s1*s2) / (float64(len(samples)) * total)
}
