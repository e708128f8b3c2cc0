package decode

import (
	"bytes"
	"encoding/binary"
	"io"
)

// WAVHeader returns the canonical 44-byte header of a 16-bit PCM WAV whose
// data chunk holds dataBytes bytes. WriteWAV writes it; tests that need a file
// of an exact size, or one with a header and no samples, use it alone.
func WAVHeader(rate, channels, dataBytes int) []byte {
	hdr := make([]byte, 44)
	copy(hdr[0:], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:], uint32(36+dataBytes))
	copy(hdr[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(hdr[16:], 16)
	binary.LittleEndian.PutUint16(hdr[20:], wavePCM)
	binary.LittleEndian.PutUint16(hdr[22:], uint16(channels))
	binary.LittleEndian.PutUint32(hdr[24:], uint32(rate))
	binary.LittleEndian.PutUint32(hdr[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(hdr[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(hdr[34:], 16)
	copy(hdr[36:], "data")
	binary.LittleEndian.PutUint32(hdr[40:], uint32(dataBytes))
	return hdr
}

// EncodeWAV is WriteWAV into memory: the one way tests and tools build a WAV.
func EncodeWAV(rate int, channels ...[]int16) []byte {
	var b bytes.Buffer
	_ = WriteWAV(&b, rate, channels...) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteWAV writes 16-bit PCM WAV; with several channels their samples are
// interleaved (all channels must have the same length). It is what the OpenAI
// provider uploads per channel and what the bench's call synthesiser writes.
func WriteWAV(w io.Writer, rate int, channels ...[]int16) error {
	n := 0
	if len(channels) > 0 {
		n = len(channels[0])
	}
	nc := len(channels)
	hdr := WAVHeader(rate, nc, n*nc*2)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	// Write in blocks so a long channel is not copied whole.
	buf := make([]byte, 0, 8192)
	for i := 0; i < n; i++ {
		for _, ch := range channels {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(ch[i]))
		}
		if len(buf) >= 8000 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
