// Package decode turns uploaded call audio (WAV or MP3) into 16-bit PCM,
// one slice per channel, at the file's own sample rate. WAV is parsed in pure Go;
// MP3 is decoded by Debian's libmpg123 through cgo (mp3_cgo.go) because the pure-Go
// decoders reject MPEG 2.5 (8 kHz telephone MP3) and turn mono into stereo. A
// build without cgo still compiles and reports MP3 as unsupported; only PII
// redaction uses DecodeMP3Go (go-mp3; 16, 24, 32, 44.1 and 48 kHz) there.
//
// Every error returned by Decode means the input cannot be decoded; callers turn
// it into the job error bad_audio. Decoding never allocates more than the input can
// fill: sizes claimed by headers are clamped to the bytes actually present.
package decode

import (
	"bytes"
	"fmt"
)

// Audio is decoded PCM. Channels are kept apart (planar) because every consumer
// works per channel, and int16 halves the memory of float32 for a 10 MiB upload.
type Audio struct {
	SampleRate int
	Channels   [][]int16
}

// Duration returns the decoded duration in seconds.
func (a *Audio) Duration() float64 {
	if a == nil || a.SampleRate == 0 || len(a.Channels) == 0 {
		return 0
	}
	return float64(len(a.Channels[0])) / float64(a.SampleRate)
}

// Format is the container, sniffed from content.
type Format string

const (
	WAV Format = "wav"
	MP3 Format = "mp3"
)

// Limits of what the service accepts; anything outside fails as bad audio.
const (
	MinSampleRate = 8000
	MaxSampleRate = 48000
	MaxChannels   = 2
	// MaxSeconds bounds decoded audio so a tiny, highly compressed file cannot
	// expand into gigabytes of PCM (10 MiB of 8 kbit/s MP3 is about 3 hours).
	MaxSeconds = 4 * 3600
)

// mp3Delay is LAME's encoder delay (576) plus the decoder delay of the
// polyphase filter bank (529), in samples at the stream's rate. libmpg123's
// gapless mode removes it only when the LAME tag is readable, which it is not in
// the MPEG-2/2.5 files that sox and lame write for 8 and 16 kHz (measured: onset
// 1105 samples late at 8, 16 and 44.1 kHz without a tag). So gapless is off and
// the delay is always trimmed, giving the same result for every encoder that
// follows LAME's convention.
const mp3Delay = 1105

// Error is a decoding failure with a message fit for the job's error block.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func tooManyChannels(n int) error {
	return errorf("audio has %d channels; at most %d (one per speaker) are supported", n, MaxChannels)
}

// Sniff tells the container from the first bytes; "" when neither.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 12 && (bytes.Equal(data[:4], []byte("RIFF")) || bytes.Equal(data[:4], []byte("RIFX"))) && bytes.Equal(data[8:12], []byte("WAVE")):
		return WAV
	case len(data) >= 3 && bytes.Equal(data[:3], []byte("ID3")):
		return MP3
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0:
		return MP3
	}
	return ""
}

// Decode decodes data as the given format; with format "" it sniffs the content.
func Decode(data []byte, format Format) (*Audio, error) {
	if format == "" {
		format = Sniff(data)
	}
	var (
		a   *Audio
		err error
	)
	switch format {
	case WAV:
		a, err = DecodeWAV(data)
	case MP3:
		a, err = DecodeMP3(data)
	default:
		return nil, errorf("audio is neither WAV nor MP3")
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

func checkShape(rate, channels int) error {
	if channels > MaxChannels {
		return tooManyChannels(channels)
	}
	if channels < 1 {
		return errorf("audio declares no channels")
	}
	if rate < MinSampleRate || rate > MaxSampleRate {
		return errorf("sample rate %d Hz is outside the supported %d-%d Hz", rate, MinSampleRate, MaxSampleRate)
	}
	return nil
}
