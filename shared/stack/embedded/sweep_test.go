package embedded

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/stack/config"
)

// A process killed while writing leaves temporary files in the audio tree
// (objects being written, presigned uploads being received) and spools in the
// OS temporary directory. Starting the stack removes those older than
// StaleTempAge and keeps younger ones (another process's, still in use),
// stored objects of any age, and anything not named by the service.
func TestStartSweepsStaleTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	data := t.TempDir()
	stale := time.Now().Add(-StaleTempAge - time.Minute)
	write := func(path string, mtime time.Time) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return path
	}
	audio := filepath.Join(data, "audio")
	gone := []string{
		write(filepath.Join(audio, "audio", "acct", ".upload-111"), stale),
		write(filepath.Join(audio, "uploads", "acct", ".upload-222"), stale),
		write(filepath.Join(audio, ".incoming-333"), stale),
		write(filepath.Join(tmp, "callscribe-upload-444"), stale),
		write(filepath.Join(tmp, "callscribe-keyterms-555.arpa"), stale),
	}
	fresh := time.Now().Add(-StaleTempAge + 10*time.Minute)
	kept := []string{
		write(filepath.Join(audio, "audio", "acct", ".upload-666"), fresh),
		write(filepath.Join(audio, ".incoming-777"), fresh),
		write(filepath.Join(tmp, "callscribe-upload-888"), fresh),
		// Stored objects and files the service does not name, however old.
		write(filepath.Join(audio, "audio", "acct", "job.wav"), stale),
		write(filepath.Join(tmp, "someone-elses-file"), stale),
	}

	cfg := config.Config{
		ListenAddr: "127.0.0.1:0", DataDir: data, Workers: 1, QuotaMinutes: 100, RetentionDays: 30,
		SessionSecret: "sweep-test-secret-0123456789abcdef01", Transcriber: "test", Summarizer: "builtin", Tagger: "builtin",
		ShutdownGrace: time.Second,
	}
	l, err := Open(cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), engineTable(0))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() { done <- l.Run(ctx, func(string) { close(ready) }) }()
	<-ready
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale temporary file %s survived the start (%v)", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
