package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	gomp3 "github.com/hajimehoshi/go-mp3"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// DecodeMP3Go decodes Layer III at 16, 24, 32, 44.1 and 48 kHz in pure Go
// with github.com/hajimehoshi/go-mp3, for builds without cgo, where DecodeMP3
// reports MP3 as unsupported. It gives what DecodeMP3 gives for those files:
// the stream's channel count (go-mp3 always outputs stereo; a mono stream's
// copy is dropped), its rate, and times that line up with the original audio
// (the Xing/Info frame, which go-mp3 decodes as a frame of silence, and the
// codec delay are trimmed). Measured against libmpg123 on lame's output of
// speech, noise and tones at 16 to 128 kbit/s, its samples agree to about
// 71 dB, except at 22.05 kHz at 32 kbit/s and below, where go-mp3 returns
// noise without an error (as its issue 39 reports for low bit rates): 22.05
// kHz is refused, as is MPEG-2.5 (8, 11.025 and 12 kHz, the usual telephone
// MP3), which go-mp3 does not decode. Nothing here decides whether an upload
// is accepted; PII redaction of the Lambda builds uses it to tone an MP3
// (package pipeline).
func DecodeMP3Go(data []byte) (a *Audio, err error) {
	// go-mp3 indexes its tables with values read from the stream, unchecked:
	// a malformed frame panics (FuzzDecodeMP3Go finds one in seconds), and in
	// a worker that would crash the process on every retry of the job.
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, errorf("MP3 cannot be decoded: %v", p)
		}
	}()
	// The stream's shape, from the frame headers the upload check reads.
	info, err := probe.Probe(bytes.NewReader(data), int64(len(data)))
	if err != nil || info.Format != callscribe.FormatMP3 {
		return nil, errorf("MP3 contains no decodable audio frames")
	}
	switch {
	case info.SampleRate < 16000:
		return nil, errorf("MPEG-2.5 MP3 (8 to 12 kHz) cannot be decoded without cgo")
	case info.SampleRate == 22050:
		return nil, errorf("22.05 kHz MP3 cannot be decoded reliably without cgo")
	}
	d, err := gomp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, errorf("MP3 cannot be decoded: %v", err)
	}
	rate := d.SampleRate()
	if err := checkShape(rate, info.Channels); err != nil {
		return nil, err
	}
	skip := mp3Delay
	if info.InfoFrame {
		skip += 576 // samples a frame: MPEG-2 (16 to 24 kHz)
		if rate >= 32000 {
			skip += 576 // MPEG-1
		}
	}
	maxFrames := MaxSeconds * rate
	a = &Audio{SampleRate: rate, Channels: make([][]int16, info.Channels)}
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
