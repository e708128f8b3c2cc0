// Package diskaudio keeps uploaded audio as files under a directory: the local
// stack's AudioStore.
package diskaudio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The store's temporary files: an object being written (beside its key) and a
// presigned upload being received (at the root). The process removes them
// itself unless it is killed; RemoveStaleTemps sweeps what a crash left.
const (
	writingPattern  = ".upload-*"
	incomingPattern = ".incoming-*"
)

// Store implements callscribe.AudioStore on a directory.
type Store struct{ root string }

// New creates the directory if needed.
func New(root string) (*Store, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("creating audio directory: %w", err)
	}
	return &Store{root: root}, nil
}

// path maps a key to a file below root, refusing keys that could escape it.
func (s *Store) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.HasPrefix(key, "/") || strings.ContainsRune(key, 0) {
		return "", fmt.Errorf("invalid audio key %q", key)
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// PutAudio writes to a temporary file and renames it into place, so a crash
// never leaves a half-written object under the key.
func (s *Store) PutAudio(ctx context.Context, key string, r io.ReadSeeker, size int64) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("creating audio directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), writingPattern)
	if err != nil {
		return fmt.Errorf("creating audio file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	n, err := io.Copy(tmp, io.LimitReader(r, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("audio body has %d bytes, want %d", n, size)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing audio: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("storing audio: %w", err)
	}
	return nil
}

// OpenAudio opens the stored file; NOT_FOUND when absent.
func (s *Store) OpenAudio(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "no audio stored under %s", key)
	}
	if err != nil {
		return nil, fmt.Errorf("opening audio: %w", err)
	}
	return f, nil
}

// DeleteAudio removes the file; an absent file is not an error.
func (s *Store) DeleteAudio(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deleting audio: %w", err)
	}
	return nil
}

// PutMarker creates an empty file under key with O_EXCL, so of concurrent
// callers exactly one succeeds, and syncs it and its directory before
// returning, so the marker survives a crash that follows.
func (s *Store) PutMarker(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating marker directory: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return callscribe.Errorf(callscribe.CodeConflict, "a marker exists under %s", key)
	}
	if err != nil {
		return fmt.Errorf("creating marker: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("storing marker: %w", err)
	}
	return nil
}

// exists reports whether an object is stored under key.
func (s *Store) exists(key string) bool {
	p, err := s.path(key)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// RemoveStaleTemps deletes the store's own temporary files (writingPattern,
// incomingPattern) anywhere under the root last written before cutoff: the
// leftovers of a process killed while writing. Stored objects, whatever
// their age, are never touched.
func (s *Store) RemoveStaleTemps(cutoff time.Time) (int, error) {
	return removeOlder(s.root, cutoff, isTemp)
}

// removeOlder deletes the files under dir whose names match and that were
// last written before cutoff; a missing dir, or a file removed meanwhile, is
// no error.
func removeOlder(dir string, cutoff time.Time, match func(name string) bool) (int, error) {
	removed := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		if !match(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if info.ModTime().Before(cutoff) {
			if err := os.Remove(p); err == nil {
				removed++
			}
		}
		return nil
	})
	return removed, err
}

func isTemp(name string) bool {
	for _, pattern := range []string{writingPattern, incomingPattern} {
		if ok, _ := filepath.Match(pattern, name); ok {
			return true
		}
	}
	return false
}
