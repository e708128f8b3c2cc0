package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	gomp3 "github.com/hajimehoshi/go-mp3"
)

// DecodeMP3Go decodes MPEG-1 and MPEG-2 Layer III (32, 44.1 and 48 kHz; 16,
// 22.05 and 24 kHz) in pure Go with github.com/hajimehoshi/go-mp3, for builds
// without cgo, where DecodeMP3 reports MP3 as unsupported. It gives what
// DecodeMP3 gives for those files: the stream's channel count (go-mp3 always
// outputs stereo; a mono stream's copy is dropped), its rate, and times that
// line up with the original audio (the Xing/Info frame, which go-mp3 decodes
// as a frame of silence, and the codec delay are trimmed). MPEG-2.5 (8,
// 11.025 and 12 kHz, the usual telephone MP3) is refused: go-mp3 does not
// decode it. Nothing here decides whether an upload is accepted; PII
// redaction of the Lambda builds uses it to tone an MP3 (package pipeline).
func DecodeMP3Go(data []byte) (*Audio, error) {
	first, ok := firstFrame(data)
	if !ok {
		return nil, errorf("MP3 contains no decodable audio frames")
	}
	if first.version == mpeg25 {
		return nil, errorf("MPEG-2.5 MP3 (8 to 12 kHz) cannot be decoded without cgo")
	}
	d, err := gomp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, errorf("MP3 cannot be decoded: %v", err)
	}
	rate := d.SampleRate()
	if err := checkShape(rate, first.channels); err != nil {
		return nil, err
	}
	skip := mp3Delay
	if first.info {
		skip += first.samples
	}
	maxFrames := MaxSeconds * rate
	a := &Audio{SampleRate: rate, Channels: make([][]int16, first.channels)}
	if n := d.Length() / 4; n > 0 { // 4 bytes a stereo frame
		for c := range a.Channels {
			a.Channels[c] = make([]int16, 0, min(int(n), maxFrames))
		}
	}
	buf := make([]byte, 32<<10)
	seen := 0 // frames decoded, trimmed ones included
	for {
		n, err := io.ReadFull(d, buf)
		frames := n / 4
		for i := 0; i < frames; i++ {
			if seen++; seen <= skip {
				continue
			}
			if len(a.Channels[0]) >= maxFrames {
				return nil, errorf("audio is longer than %d hours", MaxSeconds/3600)
			}
			for c := range a.Channels {
				a.Channels[c] = append(a.Channels[c], int16(binary.LittleEndian.Uint16(buf[i*4+c*2:])))
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, errorf("MP3 cannot be decoded: %v", err)
		}
	}
	if len(a.Channels[0]) == 0 {
		return nil, errorf("MP3 contains no decodable audio frames")
	}
	return a, nil
}

// MPEG audio versions, as coded in a frame header's bits 19-20.
const (
	mpeg25 = 0
	mpeg2  = 2
	mpeg1  = 3
)

// mp3Frame is what DecodeMP3Go needs of a stream's first frame.
type mp3Frame struct {
	version  int
	channels int
	samples  int  // per channel in a frame: 1152 (MPEG-1), 576 (MPEG-2 and 2.5)
	info     bool // a Xing/Info or VBRI frame: encoder data, no audio
}

// firstFrame finds the first Layer III frame after an ID3v2 tag.
func firstFrame(data []byte) (mp3Frame, bool) {
	off := 0
	if len(data) >= 10 && string(data[:3]) == "ID3" {
		// A syncsafe size: 7 bits a byte; a footer adds 10 bytes.
		size := int(data[6]&0x7F)<<21 | int(data[7]&0x7F)<<14 | int(data[8]&0x7F)<<7 | int(data[9]&0x7F)
		off = 10 + size
		if data[5]&0x10 != 0 {
			off += 10
		}
	}
	for ; off+4 <= len(data); off++ {
		h := binary.BigEndian.Uint32(data[off:])
		version, layer := int(h>>19&3), int(h>>17&3)
		if h&0xFFE00000 != 0xFFE00000 || version == 1 || layer != 1 || h>>12&0xF == 0xF || h>>10&3 == 3 {
			continue
		}
		f := mp3Frame{version: version, channels: 2, samples: 576}
		if h>>6&3 == 3 {
			f.channels = 1
		}
		if version == mpeg1 {
			f.samples = 1152
		}
		// The Xing/Info tag follows the side information, whose size
		// depends on the version and channels; a CRC adds 2 bytes.
		side := map[[2]bool]int{{true, true}: 17, {true, false}: 32, {false, true}: 9, {false, false}: 17}[[2]bool{version == mpeg1, f.channels == 1}]
		at := off + 4 + side
		if h>>16&1 == 0 {
			at += 2
		}
		if at+4 <= len(data) {
			tag := string(data[at : at+4])
			f.info = tag == "Xing" || tag == "Info"
		}
		if off+40 <= len(data) && string(data[off+36:off+40]) == "VBRI" {
			f.info = true
		}
		return f, true
	}
	return mp3Frame{}, false
}
