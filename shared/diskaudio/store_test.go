package diskaudio

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestPutOpenDelete(t *testing.T) {
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("RIFF....WAVEdata")
	if err := s.PutAudio(ctx, "audio/acct/job.wav", bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	rc, err := s.OpenAudio(ctx, "audio/acct/job.wav")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("read %q, want %q", got, data)
	}
	if err := s.DeleteAudio(ctx, "audio/acct/job.wav"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenAudio(ctx, "audio/acct/job.wav"); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("open after delete: %v, want NOT_FOUND", err)
	}
	if err := s.DeleteAudio(ctx, "audio/acct/job.wav"); err != nil {
		t.Fatalf("deleting an absent key: %v", err)
	}
}

func TestShortBodyLeavesNothing(t *testing.T) {
	root := t.TempDir()
	s, _ := New(root)
	err := s.PutAudio(context.Background(), "a/b.wav", bytes.NewReader([]byte("abc")), 10)
	if err == nil {
		t.Fatal("short body accepted")
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b.wav")); !os.IsNotExist(err) {
		t.Fatalf("partial file left behind: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "a"))
	if len(entries) != 0 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestKeysCannotEscapeRoot(t *testing.T) {
	s, _ := New(t.TempDir())
	for _, key := range []string{"../x", "/etc/passwd", "a/../../x", ""} {
		if err := s.PutAudio(context.Background(), key, bytes.NewReader(nil), 0); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
}
