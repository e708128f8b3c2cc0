package apitest

import (
	"encoding/binary"
	"math"
)

// WAVSampleRate is the rate of every generated WAV: the spec's recommended 8 kHz.
const WAVSampleRate = 8000

// MakeWAV returns a canonical 44-byte-header, 16-bit PCM, 8 kHz WAV of exactly
// round(seconds*8000) frames. A tone has a different pitch per channel; silent
// audio is all zero samples.
func MakeWAV(seconds float64, channels int, silent bool) []byte {
	frames := int(math.Round(seconds * WAVSampleRate))
	dataLen := frames * channels * 2
	b := make([]byte, 44+dataLen)
	putWAVHeader(b, channels, dataLen)
	if silent {
		return b
	}
	// One period table per channel keeps large files cheap to build.
	freqs := []float64{400, 1000}
	for ch := 0; ch < channels; ch++ {
		period := int(WAVSampleRate / freqs[ch%2])
		table := make([]int16, period)
		for i := range table {
			table[i] = int16(8000 * math.Sin(2*math.Pi*float64(i)/float64(period)))
		}
		for f := 0; f < frames; f++ {
			off := 44 + (f*channels+ch)*2
			binary.LittleEndian.PutUint16(b[off:], uint16(table[f%period]))
		}
	}
	return b
}

// WAVHeaderOnly is a well-formed WAV header whose data chunk is empty: its
// duration cannot be determined.
func WAVHeaderOnly() []byte {
	b := make([]byte, 44)
	putWAVHeader(b, 1, 0)
	return b
}

// WAVNoDataChunk is a RIFF/WAVE file with a format chunk and no data chunk.
func WAVNoDataChunk() []byte {
	b := make([]byte, 44)
	putWAVHeader(b, 1, 0)
	b = b[:36]
	binary.LittleEndian.PutUint32(b[4:], 28)
	return b
}

// SizedWAV is a silent mono WAV of exactly size bytes (size >= 44).
func SizedWAV(size int, channels int) []byte {
	b := make([]byte, size)
	putWAVHeader(b, channels, size-44)
	return b
}

// WAVSeconds is the duration of a WAV built by MakeWAV.
func WAVSeconds(seconds float64) float64 {
	return math.Round(seconds*WAVSampleRate) / WAVSampleRate
}

func putWAVHeader(b []byte, channels, dataLen int) {
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], uint32(36+dataLen))
	copy(b[8:], "WAVE")
	copy(b[12:], "fmt ")
	le.PutUint32(b[16:], 16)
	le.PutUint16(b[20:], 1) // PCM
	le.PutUint16(b[22:], uint16(channels))
	le.PutUint32(b[24:], WAVSampleRate)
	le.PutUint32(b[28:], uint32(WAVSampleRate*channels*2))
	le.PutUint16(b[32:], uint16(channels*2))
	le.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(dataLen))
}
