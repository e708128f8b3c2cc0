package apitest

import (
	"encoding/binary"
	"math"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// WAVSampleRate is the rate of every generated WAV: the spec's recommended 8 kHz.
const WAVSampleRate = 8000

// MakeWAV returns a canonical 44-byte-header, 16-bit PCM, 8 kHz WAV of exactly
// round(seconds*8000) frames. A tone has a different pitch per channel; silent
// audio is all zero samples.
func MakeWAV(seconds float64, channels int, silent bool) []byte {
	frames := int(math.Round(seconds * WAVSampleRate))
	samples := make([][]int16, channels)
	freqs := []float64{400, 1000}
	for ch := range samples {
		samples[ch] = make([]int16, frames)
		if silent {
			continue
		}
		// One period table per channel keeps large files cheap to build.
		period := int(WAVSampleRate / freqs[ch%2])
		table := make([]int16, period)
		for i := range table {
			table[i] = int16(8000 * math.Sin(2*math.Pi*float64(i)/float64(period)))
		}
		for f := range samples[ch] {
			samples[ch][f] = table[f%period]
		}
	}
	return decode.EncodeWAV(WAVSampleRate, samples...)
}

// WAVHeaderOnly is a well-formed WAV header whose data chunk is empty: its
// duration cannot be determined.
func WAVHeaderOnly() []byte {
	return decode.WAVHeader(WAVSampleRate, 1, 0)
}

// WAVNoDataChunk is a RIFF/WAVE file with a format chunk and no data chunk.
func WAVNoDataChunk() []byte {
	b := decode.WAVHeader(WAVSampleRate, 1, 0)[:36]
	binary.LittleEndian.PutUint32(b[4:], 28) // the RIFF size without the data chunk
	return b
}

// SizedWAV is a silent mono WAV of exactly size bytes (size >= 44).
func SizedWAV(size int, channels int) []byte {
	b := make([]byte, size)
	copy(b, decode.WAVHeader(WAVSampleRate, channels, size-44))
	return b
}

// WAVSeconds is the duration of a WAV built by MakeWAV.
func WAVSeconds(seconds float64) float64 {
	return math.Round(seconds*WAVSampleRate) / WAVSampleRate
}
