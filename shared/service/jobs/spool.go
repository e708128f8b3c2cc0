package jobs

import (
	"fmt"
	"io"
	"os"
)

// An upload is held in a temporary file, never in memory: sixteen 10 MiB
// uploads at once must not cost 160 MiB of heap (and the copies a byte slice
// invites). The file part of a direct upload and a staged two-step upload are
// both spooled here, probed and stored from the file, and the file is removed
// when the request ends. (On Lambda the event already holds the body; the
// spool keeps the handler's own footprint to a copy buffer there too.)

// SpoolPattern names spool files in the OS temporary directory, so a process
// can sweep the ones a killed predecessor left (os.CreateTemp's pattern).
const SpoolPattern = "callscribe-upload-*"

// SpooledAudio is an upload in a temporary file.
type SpooledAudio struct {
	file *os.File
	Size int64
}

// SpoolAudio copies r into a temporary file, reading at most MaxAudioBytes+1
// bytes: a longer stream is FILE_TOO_LARGE (and nothing of it is kept). A read
// error is returned as is, for the caller to describe.
func SpoolAudio(r io.Reader) (*SpooledAudio, error) {
	f, err := os.CreateTemp("", SpoolPattern)
	if err != nil {
		return nil, fmt.Errorf("spooling upload: %w", err)
	}
	s := &SpooledAudio{file: f}
	s.Size, err = io.Copy(f, io.LimitReader(r, MaxAudioBytes+1))
	if err == nil && s.Size > MaxAudioBytes {
		err = FileTooLarge()
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Reader is the spooled bytes, positioned at the start.
func (s *SpooledAudio) Reader() io.ReadSeeker { return s.file }

// Close removes the temporary file.
func (s *SpooledAudio) Close() error {
	s.file.Close()
	return os.Remove(s.file.Name())
}
