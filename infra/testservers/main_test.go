package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

// These tests start no JVM of their own: `make test` itself runs every
// package under testservers, and the DynamoDB packages fail without the
// server it starts. They cover what a run without that would not show.

func TestTheCommandsStatusIsPassedOnWithTheEndpointSet(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{
		{`case "$` + awstest.SharedDynamoDBEnv + `" in http://127.0.0.1:[0-9]*) exit 0;; *) exit 9;; esac`, 0},
		{"exit 3", 3},
		{"kill -TERM $$", 1},
	} {
		if got := run([]string{"--", "sh", "-c", tc.script}, awstest.Options{}); got != tc.want {
			t.Errorf("sh -c %q: exit %d, want %d", tc.script, got, tc.want)
		}
	}
}

func TestAServerThatCannotStartStopsTheCommand(t *testing.T) {
	// A checkout without the start script: DynamoDB Local exits at once.
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if got := run([]string{"sleep", "60"}, awstest.Options{RepoRoot: root}); got != 1 {
		t.Errorf("exit %d, want 1", got)
	}
	if waited := time.Since(began); waited > 30*time.Second {
		t.Errorf("run returned after %s; the command should have been stopped when the server failed", waited)
	}
}

func TestNoCommandIsAUsageError(t *testing.T) {
	if got := run([]string{"--"}, awstest.Options{}); got != 2 {
		t.Errorf("exit %d, want 2", got)
	}
}
