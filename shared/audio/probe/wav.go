package probe

import (
	"encoding/binary"
	"io"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The RIFF chunks are walked here rather than with github.com/go-audio/wav: its
// header reader allocates make([]byte, size) for the size an 'fmt ' or 'LIST'
// chunk claims (up to 4 GiB from a 50-byte file) and ignores read errors on chunk
// sizes. This walk reads only chunk headers and at most 40 bytes of 'fmt ', seeks
// over everything else, and never trusts a size beyond the bytes present.

const (
	wavFormatPCM        = 0x0001
	wavFormatIEEEFloat  = 0x0003
	wavFormatExtensible = 0xFFFE

	// maxChunks bounds the walk: real files have a handful of chunks before
	// 'data', while a crafted one could hold a million empty chunks.
	maxChunks = 1024

	// Sample rates outside this range are treated as a corrupt header: the
	// duration is data/(rate*blockAlign), so an absurd rate would make the
	// charged duration absurd too.
	minSampleRate = 1000
	maxSampleRate = 768000
)

// ksSubtypeTail is the part of the KSDATAFORMAT_SUBTYPE_* GUIDs after their first
// two bytes, which hold the plain format tag (1 = PCM, 3 = IEEE float).
var ksSubtypeTail = [14]byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

type wavFormat struct {
	tag        uint16 // effective format tag (the extensible sub-format resolved)
	channels   int
	sampleRate int
	blockAlign int
	bits       int
}

func probeWAV(r io.ReadSeeker, end int64, head []byte) (Info, error) {
	var (
		wf     wavFormat
		hasFmt bool
		off    = int64(12) // after "RIFF" size "WAVE"; the RIFF size is ignored, many writers get it wrong
	)
	for i := 0; ; i++ {
		if i == maxChunks {
			return Info{}, durationUnknown("The WAV file has more than %d chunks before its audio data; it looks corrupt.", maxChunks)
		}
		if off+8 > end {
			if !hasFmt {
				return Info{}, durationUnknown("The WAV file has no format ('fmt ') chunk.")
			}
			return Info{}, durationUnknown("The WAV file contains no audio ('data') chunk.")
		}
		var hdr [8]byte
		if err := readHeadOr(r, head, off, hdr[:]); err != nil {
			return Info{}, err
		}
		size := int64(binary.LittleEndian.Uint32(hdr[4:8]))
		body := off + 8
		switch string(hdr[0:4]) {
		case "fmt ":
			f, err := readWAVFormat(r, head, body, size, end)
			if err != nil {
				return Info{}, err
			}
			wf, hasFmt = f, true
		case "data":
			if !hasFmt {
				return Info{}, durationUnknown("The WAV file's audio data comes before its format chunk, so its duration cannot be determined.")
			}
			if size == 0 {
				return Info{}, durationUnknown("The WAV file contains no audio data.")
			}
			// Clamp to what is present: a truncated upload, or a header claiming
			// 4 GiB, is measured by its real bytes.
			data := min(size, end-body)
			frames := data / int64(wf.blockAlign)
			if frames == 0 {
				return Info{}, durationUnknown("The WAV file's audio data is empty or truncated.")
			}
			d := float64(frames) / float64(wf.sampleRate)
			if !validDuration(d) {
				return Info{}, durationUnknown("The WAV file's duration could not be determined.")
			}
			return Info{Format: callscribe.FormatWAV, DurationSeconds: d, Channels: wf.channels, SampleRate: wf.sampleRate}, nil
		}
		// Chunks are word aligned: an odd size is followed by a pad byte.
		off = body + size + size&1
	}
}

// readWAVFormat parses an 'fmt ' chunk body of the given declared size at off.
func readWAVFormat(r io.ReadSeeker, head []byte, off, size, end int64) (wavFormat, error) {
	if size < 16 {
		return wavFormat{}, durationUnknown("The WAV file's format chunk is too short (%d bytes); the header is corrupt.", size)
	}
	var b [40]byte // WAVEFORMATEXTENSIBLE is 40 bytes; anything after it is not needed
	n := min(size, int64(len(b)), end-off)
	if n < 16 {
		return wavFormat{}, durationUnknown("The WAV file ends inside its format chunk.")
	}
	if err := readHeadOr(r, head, off, b[:n]); err != nil {
		return wavFormat{}, err
	}
	le := binary.LittleEndian
	f := wavFormat{
		tag:        le.Uint16(b[0:2]),
		channels:   int(le.Uint16(b[2:4])),
		sampleRate: int(le.Uint32(b[4:8])),
		blockAlign: int(le.Uint16(b[12:14])),
		bits:       int(le.Uint16(b[14:16])),
	}
	if f.tag == wavFormatExtensible {
		// cbSize >= 22, then valid bits, channel mask and the sub-format GUID.
		if n < 40 || le.Uint16(b[16:18]) < 22 {
			return wavFormat{}, durationUnknown("The WAV file's extensible format chunk is truncated; the header is corrupt.")
		}
		if [14]byte(b[26:40]) != ksSubtypeTail {
			return wavFormat{}, unsupportedWAVCodec(f.tag)
		}
		f.tag = le.Uint16(b[24:26])
	}
	switch f.tag {
	case wavFormatPCM:
		if f.bits != 8 && f.bits != 16 && f.bits != 24 && f.bits != 32 {
			return wavFormat{}, durationUnknown("The WAV file declares %d-bit PCM samples; only 8, 16, 24 and 32 bits are valid.", f.bits)
		}
	case wavFormatIEEEFloat:
		if f.bits != 32 && f.bits != 64 {
			return wavFormat{}, durationUnknown("The WAV file declares %d-bit float samples; only 32 and 64 bits are valid.", f.bits)
		}
	default:
		return wavFormat{}, unsupportedWAVCodec(f.tag)
	}
	switch {
	case f.channels == 0:
		return wavFormat{}, durationUnknown("The WAV file's header declares zero channels.")
	case f.sampleRate == 0:
		return wavFormat{}, durationUnknown("The WAV file's header declares a sample rate of zero.")
	case f.sampleRate < minSampleRate || f.sampleRate > maxSampleRate:
		return wavFormat{}, durationUnknown("The WAV file's header declares an implausible sample rate of %d Hz.", f.sampleRate)
	case f.blockAlign == 0:
		return wavFormat{}, durationUnknown("The WAV file's header declares a block align of zero.")
	case f.blockAlign != f.channels*f.bits/8:
		// The duration divides by blockAlign, so a header whose block align
		// disagrees with its own channel count and sample width is not trusted.
		return wavFormat{}, durationUnknown("The WAV file's header is inconsistent: block align %d does not match %d channel(s) of %d-bit samples.", f.blockAlign, f.channels, f.bits)
	}
	return f, nil
}

func unsupportedWAVCodec(tag uint16) error {
	return callscribe.Errorf(callscribe.CodeUnsupportedAudioFormat,
		"The WAV file uses an unsupported audio encoding (format tag 0x%04X); only PCM and IEEE float WAV are accepted.", tag)
}

// readHeadOr fills buf from the already-read head when it covers [off, off+len),
// and from r otherwise, so small files cost no further reads.
func readHeadOr(r io.ReadSeeker, head []byte, off int64, buf []byte) error {
	if off+int64(len(buf)) <= int64(len(head)) {
		copy(buf, head[off:])
		return nil
	}
	err := readAt(r, off, buf)
	if err == io.ErrUnexpectedEOF {
		return durationUnknown("The WAV file is truncated inside its header.")
	}
	return err
}
