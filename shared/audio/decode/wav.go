package decode

import (
	"encoding/binary"
	"math"
)

const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// DecodeWAV parses a RIFF/WAVE file: PCM 8/16/24/32-bit or IEEE float 32/64-bit,
// plain or WAVE_FORMAT_EXTENSIBLE. Chunk sizes are never trusted: a data chunk
// claiming more bytes than the file holds is read to the end of the file (many
// recorders write a placeholder size when streaming), so allocation is bounded by
// len(data).
func DecodeWAV(data []byte) (*Audio, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		if len(data) >= 4 && string(data[:4]) == "RIFX" {
			return nil, errorf("big-endian WAV (RIFX) is not supported")
		}
		return nil, errorf("not a RIFF/WAVE file")
	}
	var (
		haveFmt                     bool
		format, channels, bits, blk int
		rate                        int
		pcm                         []byte
	)
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int64(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := off + 8
		end := int64(body) + size
		if end > int64(len(data)) {
			end = int64(len(data))
		}
		chunk := data[body:end]
		switch id {
		case "fmt ":
			if len(chunk) < 16 {
				return nil, errorf("WAV fmt chunk is truncated")
			}
			format = int(binary.LittleEndian.Uint16(chunk[0:2]))
			channels = int(binary.LittleEndian.Uint16(chunk[2:4]))
			rate = int(binary.LittleEndian.Uint32(chunk[4:8]))
			blk = int(binary.LittleEndian.Uint16(chunk[12:14]))
			bits = int(binary.LittleEndian.Uint16(chunk[14:16]))
			if format == waveExtensible {
				if len(chunk) < 26 {
					return nil, errorf("WAV extensible fmt chunk is truncated")
				}
				// The sub-format GUID starts with the plain format code.
				format = int(binary.LittleEndian.Uint16(chunk[24:26]))
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, errorf("WAV data chunk comes before its fmt chunk")
			}
			pcm = chunk
		}
		if pcm != nil {
			break
		}
		// Chunks are padded to an even size.
		next := int64(body) + size + size&1
		if next > int64(len(data)) {
			break
		}
		off = int(next)
	}
	if !haveFmt {
		return nil, errorf("WAV has no fmt chunk")
	}
	if pcm == nil {
		return nil, errorf("WAV has no data chunk")
	}
	if err := checkShape(rate, channels); err != nil {
		return nil, err
	}
	var sample func([]byte) int16
	switch {
	case format == wavePCM && bits == 8:
		sample = func(b []byte) int16 { return (int16(b[0]) - 128) << 8 }
	case format == wavePCM && bits == 16:
		sample = func(b []byte) int16 { return int16(binary.LittleEndian.Uint16(b)) }
	case format == wavePCM && bits == 24:
		sample = func(b []byte) int16 { return int16(uint16(b[1]) | uint16(b[2])<<8) }
	case format == wavePCM && bits == 32:
		sample = func(b []byte) int16 { return int16(binary.LittleEndian.Uint32(b) >> 16) }
	case format == waveFloat && bits == 32:
		sample = func(b []byte) int16 { return floatTo16(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))) }
	case format == waveFloat && bits == 64:
		sample = func(b []byte) int16 { return floatTo16(math.Float64frombits(binary.LittleEndian.Uint64(b))) }
	default:
		return nil, errorf("WAV encoding (format %#x, %d bits) is not supported; use PCM 8/16/24/32-bit or IEEE float", format, bits)
	}
	width := bits / 8
	// Trust the block alignment only when it is consistent with the sample width.
	if blk != width*channels {
		blk = width * channels
	}
	frames := len(pcm) / blk
	if frames > MaxSeconds*rate {
		return nil, errorf("audio is longer than %d hours", MaxSeconds/3600)
	}
	if frames == 0 {
		return nil, errorf("WAV contains no audio samples")
	}
	a := &Audio{SampleRate: rate, Channels: make([][]int16, channels)}
	for c := range a.Channels {
		a.Channels[c] = make([]int16, frames)
	}
	for i := 0; i < frames; i++ {
		f := pcm[i*blk:]
		for c := 0; c < channels; c++ {
			a.Channels[c][i] = sample(f[c*width:])
		}
	}
	return a, nil
}

func floatTo16(v float64) int16 {
	if v != v { // NaN
		return 0
	}
	v *= 32768
	if v > 32767 {
		return 32767
	}
	if v < -32768 {
		return -32768
	}
	return int16(math.Round(v))
}
