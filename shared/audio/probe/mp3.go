package probe

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tcolgate/mp3"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// MP3 frame headers are decoded with github.com/tcolgate/mp3's FrameHeader, whose
// version/layer/bit-rate/sample-rate tables are right for MPEG-1, MPEG-2 and
// MPEG-2.5 (8/11.025/12 kHz) Layer III, including the 576-sample frames of the LSF
// versions (TestTcolgateMPEG25 checks it against the 8 kHz fixture). Its Decoder is
// not used for the scan: it takes Layer I/II frames for audio (and sizes Layer I
// frames wrongly), knows nothing of ID3 tags, so album art can yield false frames,
// and re-allocates its buffer every few bytes it skips while hunting for a sync
// word (measured: ~175,000 allocations for 1 MiB without one). The scan below is a bounded linear pass over a bufio.Reader instead,
// with frame size and sample count computed here for Layer III only.

const (
	// minRun is how many consecutive, consistent frames must link up (each header
	// exactly where the previous frame ends) before bytes are believed to be MP3:
	// a stray 0xFFE sync in random data passes one header check about once in
	// 20,000 positions, three linked ones practically never.
	minRun = 3

	// maxFrameSize is the largest Layer III frame: MPEG-1, 320 kbit/s, 32 kHz,
	// padded. syncWindow holds a full run of them with room to spare.
	maxFrameSize = 1441
	syncWindow   = 8192
	bufSize      = 64 << 10

	// maxID3Tags bounds the number of back-to-back ID3v2 tags skipped.
	maxID3Tags = 8
)

// frame is one decoded Layer III frame header.
type frame struct {
	version    mp3.FrameVersion
	sampleRate int
	size       int // bytes, header included
	samples    int // per channel: 1152 for MPEG-1, 576 for MPEG-2 and 2.5
	channels   int
	crc        bool
}

// parseHeader decodes b[0:4] as a Layer III frame header. Free-format (bit-rate
// index 0) frames are refused: their size cannot be known from the header.
func parseHeader(b []byte) (frame, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return frame{}, false
	}
	h := mp3.FrameHeader(b[:4])
	if h.Version() == mp3.MPEGReserved || h.Layer() != mp3.Layer3 || h.Emphasis() == mp3.EmphReserved {
		return frame{}, false
	}
	br, sr := int(h.BitRate()), int(h.SampleRate())
	if br <= 0 || sr <= 0 {
		return frame{}, false
	}
	f := frame{version: h.Version(), sampleRate: sr, samples: 576, channels: 2, crc: h.Protection()}
	// Slot size is one byte for Layer III: size = samples/8 * bitrate / rate.
	if f.version == mp3.MPEG1 {
		f.samples = 1152
	}
	f.size = f.samples / 8 * br / sr
	if h.Pad() {
		f.size++
	}
	if h.ChannelMode() == mp3.SingleChannel {
		f.channels = 1
	}
	return f, true
}

// consistent reports whether f can belong to the same stream as want. Bit rate
// (VBR) and stereo mode may change from frame to frame; version and rate do not.
func consistent(f, want frame) bool {
	return f.version == want.version && f.sampleRate == want.sampleRate
}

// frameRun counts linked, consistent frames starting at b[0], up to minRun. If
// want is set the first frame must also be consistent with it. short reports that
// the count stopped because b ended, not because a header was wrong.
func frameRun(b []byte, want *frame) (n int, short bool) {
	first, ok := parseHeader(b)
	if !ok || (want != nil && !consistent(first, *want)) {
		return 0, false
	}
	n, off := 1, first.size
	for n < minRun {
		if off+4 > len(b) {
			return n, true
		}
		f, ok := parseHeader(b[off:])
		if !ok || !consistent(f, first) {
			return n, false
		}
		n, off = n+1, off+f.size
	}
	return n, false
}

// skipID3v2 returns the offset just past the ID3v2 tag(s) at the start of head.
// The offset may lie beyond head (a large tag); the sizes are read, never trusted
// for allocation.
func skipID3v2(head []byte) (int64, bool) {
	var off int64
	found := false
	for range maxID3Tags {
		if off+10 > int64(len(head)) {
			break
		}
		b := head[off:]
		if string(b[0:3]) != "ID3" || b[3] < 2 || b[3] > 4 || b[4] == 0xFF ||
			b[6]|b[7]|b[8]|b[9] >= 0x80 { // the size is "syncsafe": 7 bits a byte
			break
		}
		size := int64(b[6])<<21 | int64(b[7])<<14 | int64(b[8])<<7 | int64(b[9])
		off += 10 + size
		if b[5]&0x10 != 0 { // ID3v2.4 footer
			off += 10
		}
		found = true
	}
	return off, found
}

// mp3Scanner walks frames through a buffered reader limited to the file.
type mp3Scanner struct {
	br *bufio.Reader
}

// sync advances to the next run of minRun linked frames (consistent with want if
// set) and returns its first frame without consuming it. ok is false when the
// file has none left.
func (s *mp3Scanner) sync(want *frame) (f frame, ok bool, err error) {
	for {
		win, err := s.br.Peek(syncWindow)
		if err != nil && !errors.Is(err, io.EOF) {
			return frame{}, false, fmt.Errorf("probe: read mp3: %w", err)
		}
		eof := len(win) < syncWindow
		p := 0
		for p+4 <= len(win) {
			i := bytes.IndexByte(win[p:], 0xFF)
			if i < 0 {
				p = len(win)
				break
			}
			if p += i; p+4 > len(win) {
				break
			}
			n, short := frameRun(win[p:], want)
			if n >= minRun {
				f, _ := parseHeader(win[p:])
				_, _ = s.br.Discard(p) // p bytes are buffered: cannot fail
				return f, true, nil
			}
			if short && !eof {
				break // look again from p once more bytes are buffered
			}
			p++
		}
		if eof {
			return frame{}, false, nil
		}
		// Keep the unexamined tail (at most a run's length, far below the
		// window, so p > 0 and the loop always advances).
		_, _ = s.br.Discard(max(p, 1))
	}
}

// probeMP3 measures the MP3 whose frames (or an ID3 tag's end) start at start.
func probeMP3(r io.ReadSeeker, end, start int64) (Info, error) {
	if start >= end {
		return Info{}, durationUnknown("The MP3 file has an ID3 tag but no audio frames.")
	}
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return Info{}, fmt.Errorf("probe: seek: %w", err)
	}
	s := &mp3Scanner{br: bufio.NewReaderSize(io.LimitReader(r, end-start), bufSize)}
	first, ok, err := s.sync(nil)
	if err != nil {
		return Info{}, err
	}
	if !ok {
		return Info{}, durationUnknown("The MP3 file contains no valid MPEG audio frames, so its duration cannot be determined.")
	}
	// The first frame may be a Xing/Info/VBRI frame: metadata, not audio.
	fb, _ := s.br.Peek(first.size)
	trim, isInfo := parseInfoFrame(fb, first)

	var samples int64
	skip := isInfo
	for {
		hb, err := s.br.Peek(4)
		if err != nil && !errors.Is(err, io.EOF) {
			return Info{}, fmt.Errorf("probe: read mp3: %w", err)
		}
		f, ok := parseHeader(hb)
		if !ok || !consistent(f, first) {
			// Junk between frames or at the end (ID3v1/APE tags): resynchronise
			// on the next run, or stop when there is none.
			if f, ok, err = s.sync(&first); err != nil {
				return Info{}, err
			} else if !ok {
				break
			}
		}
		n, err := s.br.Discard(f.size)
		if err != nil && !errors.Is(err, io.EOF) {
			return Info{}, fmt.Errorf("probe: read mp3: %w", err)
		}
		if n < f.size {
			break // a truncated last frame is not audio anyone can play
		}
		if skip {
			skip = false
			continue
		}
		samples += int64(f.samples)
	}
	// Encoder delay and padding recorded by LAME are silence the encoder added;
	// they are removed so the duration is the source's. They are 12-bit fields,
	// so a forged tag can shave at most 8190 samples, and never all of the audio.
	if trim < samples {
		samples -= trim
	}
	if samples == 0 {
		return Info{}, durationUnknown("The MP3 file contains no audio frames, so its duration cannot be determined.")
	}
	d := float64(samples) / float64(first.sampleRate)
	if !validDuration(d) {
		return Info{}, durationUnknown("The MP3 file's duration could not be determined.")
	}
	return Info{Format: callscribe.FormatMP3, DurationSeconds: d, Channels: first.channels, SampleRate: first.sampleRate, InfoFrame: isInfo}, nil
}

// parseInfoFrame recognises a Xing/Info (LAME, FFmpeg) or VBRI (Fraunhofer)
// header in the first frame b and returns the encoder delay + padding samples of a
// LAME tag. Its frame and byte counts are ignored: the frames are counted instead,
// so a tag cannot misstate the duration.
func parseInfoFrame(b []byte, f frame) (trim int64, isInfo bool) {
	off := 4
	if f.crc {
		off += 2
	}
	switch {
	case f.version == mp3.MPEG1 && f.channels == 1:
		off += 17
	case f.version == mp3.MPEG1:
		off += 32
	case f.channels == 1:
		off += 9
	default:
		off += 17
	}
	if len(b) >= off+8 && (string(b[off:off+4]) == "Xing" || string(b[off:off+4]) == "Info") {
		flags := binary.BigEndian.Uint32(b[off+4 : off+8])
		p := off + 8
		for _, field := range []struct {
			bit uint32
			len int
		}{{1, 4}, {2, 4}, {4, 100}, {8, 4}} { // frames, bytes, TOC, quality
			if flags&field.bit != 0 {
				p += field.len
			}
		}
		if len(b) >= p+24 {
			switch string(b[p : p+4]) {
			case "LAME", "Lavc", "Lavf":
				delay := int64(b[p+21])<<4 | int64(b[p+22])>>4
				padding := int64(b[p+22]&0x0F)<<8 | int64(b[p+23])
				trim = delay + padding
			}
		}
		return trim, true
	}
	if len(b) >= 40 && string(b[36:40]) == "VBRI" { // always 32 bytes after the header
		return 0, true
	}
	return 0, false
}
