package whisperstandin

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// WAVInfo is the format of a WAV the stand-in was sent.
type WAVInfo struct {
	Format        int // 1 = integer PCM
	Channels      int
	SampleRate    int
	BitsPerSample int
	Seconds       float64
}

// parseWAV reads a RIFF/WAVE file strictly: its format chunk, and its data
// chunk as 16-bit samples of the first channel when the file is 16-bit PCM.
// It is written apart from the service's decoder so that the stand-in does
// not accept what that decoder happens to accept.
func parseWAV(b []byte) (WAVInfo, []int16, error) {
	var info WAVInfo
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return info, nil, errors.New("not a RIFF/WAVE file")
	}
	var data []byte
	haveFmt := false
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		body := b[p+8 : min(p+8+size, len(b))]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return info, nil, errors.New("short fmt chunk")
			}
			info.Format = int(binary.LittleEndian.Uint16(body[0:2]))
			info.Channels = int(binary.LittleEndian.Uint16(body[2:4]))
			info.SampleRate = int(binary.LittleEndian.Uint32(body[4:8]))
			info.BitsPerSample = int(binary.LittleEndian.Uint16(body[14:16]))
			haveFmt = true
		case "data":
			data = body
		}
		p += 8 + size + size%2
	}
	if !haveFmt || data == nil {
		return info, nil, errors.New("no fmt or data chunk")
	}
	if info.Channels < 1 || info.SampleRate < 1 || info.BitsPerSample < 8 {
		return info, nil, fmt.Errorf("bad format %+v", info)
	}
	frame := info.Channels * info.BitsPerSample / 8
	info.Seconds = float64(len(data)/frame) / float64(info.SampleRate)
	if info.Format != 1 || info.BitsPerSample != 16 {
		return info, nil, nil
	}
	pcm := make([]int16, len(data)/frame)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(data[i*frame:]))
	}
	return info, pcm, nil
}
