package diskaudio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

func TestAudioStoreContract(t *testing.T) {
	storetest.RunAudioStoreTests(t, func(t *testing.T) callscribe.AudioStore {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The disk store's own promise beyond the contract: a short body leaves not
// even a temporary file behind.
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
