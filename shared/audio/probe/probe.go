// Package probe decides at upload time whether a file is WAV or MP3 audio and
// how long it is, from the content alone (never the file name or Content-Type).
// The duration is what the monthly quota is charged against, so the probe must not
// be fooled by a header that lies about sizes, and it must stay cheap and bounded
// on hostile input: it never allocates in proportion to a size a file claims, and
// its work is linear in the bytes actually present. Pure Go, no cgo: it runs in
// CGO_ENABLED=0 Lambda builds.
package probe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// HeadSize is how many leading bytes of a file DetectFormat looks at. Callers pass
// the first HeadSize bytes, or the whole file when it is shorter. 4 KiB holds a WAV
// header and at least two maximum-size MP3 frames.
const HeadSize = 4096

// Info is what the probe learned about an accepted file.
type Info struct {
	Format          callscribe.AudioFormat
	DurationSeconds float64
	// Channels is reported as found; files with more than two channels are still
	// accepted here and left to the engine to refuse.
	Channels   int
	SampleRate int
	// InfoFrame reports that an MP3's first frame is a Xing/Info/VBRI frame:
	// encoder data, which some decoders output as a frame of silence.
	InfoFrame bool
}

// DetectFormat reports the container of a file from its first bytes (see HeadSize):
// a RIFF/WAVE header is WAV; an ID3v2 tag, or a run of consistent MPEG Layer III
// frame headers, is MP3. A file that starts with an ID3v2 tag is reported as MP3 even
// when its frames lie beyond head; Probe then checks they exist.
func DetectFormat(head []byte) (callscribe.AudioFormat, bool) {
	f, _ := detect(head)
	return f, f != ""
}

// Probe identifies the audio in r (size bytes long) and measures its duration.
// Errors are *callscribe.Error with code UNSUPPORTED_AUDIO_FORMAT (not WAV or MP3 by
// content) or AUDIO_DURATION_UNKNOWN (a WAV or MP3 whose duration cannot be
// determined: no audio data, a corrupt header, no valid frames). Read errors from r
// are returned as they are (they are internal, not the caller's fault).
//
// size is the upload's length; if r turns out to be shorter, its real length is
// used, so a wrong size can never lengthen the reported duration.
func Probe(r io.ReadSeeker, size int64) (Info, error) {
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return Info{}, fmt.Errorf("probe: seek to end: %w", err)
	}
	if size >= 0 && size < end {
		end = size
	}
	var headBuf [HeadSize]byte
	head := headBuf[:min(int64(HeadSize), end)]
	if err := readAt(r, 0, head); err != nil {
		return Info{}, err
	}
	format, audioStart := detect(head)
	switch format {
	case callscribe.FormatWAV:
		return probeWAV(r, end, head)
	case callscribe.FormatMP3:
		return probeMP3(r, end, audioStart)
	}
	return Info{}, unsupported()
}

// detect is DetectFormat that also returns, for MP3, where the frames (or the
// search for them) start: after any ID3v2 tags, or at the first frame found in head.
func detect(head []byte) (callscribe.AudioFormat, int64) {
	if len(head) >= 12 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WAVE" {
		return callscribe.FormatWAV, 0
	}
	if otherContainer(head) {
		return "", 0
	}
	if start, ok := skipID3v2(head); ok {
		// The first bytes after the tag are visible: a different codec with an
		// ID3 prefix (FLAC and ADTS AAC files carry them too) is not MP3.
		if start < int64(len(head)) && otherContainer(head[start:]) {
			return "", 0
		}
		return callscribe.FormatMP3, start
	}
	// No tag: demand a run of frames so that random bytes with a stray sync word,
	// or another format's data, are not taken for MP3. When head is the whole
	// file the run must be complete; when the file goes on, two linked headers
	// within head are enough (a third may not fit in 4 KiB) and Probe insists on
	// the full run.
	eof := len(head) < HeadSize
	for p := 0; p+4 <= len(head); p++ {
		if head[p] != 0xFF {
			if i := bytes.IndexByte(head[p:], 0xFF); i < 0 {
				break
			} else {
				p += i
			}
		}
		n, short := frameRun(head[p:], nil)
		if n >= minRun || (short && !eof && n >= 2) {
			return callscribe.FormatMP3, int64(p)
		}
	}
	return "", 0
}

// otherContainer recognises the signatures of formats that must never be sniffed
// as MP3 even if their payload happens to contain frame-sync-like bytes.
func otherContainer(b []byte) bool {
	if len(b) >= 4 {
		switch string(b[0:4]) {
		case "fLaC", "OggS", "RIFF", "FORM", "caff", "#!AM", "MThd", "\x1a\x45\xdf\xa3":
			return true
		}
	}
	if len(b) >= 8 && string(b[4:8]) == "ftyp" { // MP4/M4A/3GP
		return true
	}
	// ADTS AAC: a 12-bit sync whose layer bits are 00, which MPEG audio reserves.
	if len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0 {
		return true
	}
	return false
}

func unsupported() *callscribe.Error {
	return callscribe.Errorf(callscribe.CodeUnsupportedAudioFormat,
		"The file is not MP3 or WAV audio. The format is recognised from the file's content, not its name or Content-Type.")
}

func durationUnknown(format string, args ...any) *callscribe.Error {
	return callscribe.Errorf(callscribe.CodeAudioDurationUnknown, format, args...)
}

// readAt reads exactly len(buf) bytes at off. A short file is reported as
// io.ErrUnexpectedEOF so callers can tell "not there" from a failing reader.
func readAt(r io.ReadSeeker, off int64, buf []byte) error {
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("probe: seek: %w", err)
	}
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return io.ErrUnexpectedEOF
		}
		return fmt.Errorf("probe: read: %w", err)
	}
	return nil
}

// validDuration is the last line of defence for the quota: whatever the parsing,
// never report a duration that is not a positive finite number.
func validDuration(d float64) bool { return d > 0 && !math.IsInf(d, 0) && !math.IsNaN(d) }
