package apitest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RunUsageE2E drives the dashboard's usage page served by target in a real
// browser (Debian's Chromium through playwright-core;
// shared/transport/dashboard/web/e2e/usage.e2e.mjs): after a 6 s upload the
// daily chart's bar for today says 0.10 minutes to a screen reader, is
// reachable by keyboard, the table and the top languages agree, and the page
// fits a phone. Like RunDashboardE2E it fails, never skips, when node, the npm
// packages or Chromium are missing, and keeps its screenshots when it fails.
func RunUsageE2E(t *testing.T, target Target) {
	t.Helper()
	web := filepath.Join(repoRoot(t), "shared", "transport", "dashboard", "web")
	if _, err := os.Stat(filepath.Join(web, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (or make deps web)", web)
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Debian's chromium is not installed: run `make test` (it installs it)")
	}
	wav := filepath.Join(t.TempDir(), "call.wav")
	if err := os.WriteFile(wav, MakeWAV(6, 1, false), 0o644); err != nil {
		t.Fatal(err)
	}
	shots, err := os.MkdirTemp("", "usage-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/usage.e2e.mjs")
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "BASE_URL="+target.BaseURL(), "CALL_WAV="+wav, "OUT_DIR="+shots)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("running the browser test: %v", err)
		}
		t.Fatalf("the usage browser test failed; screenshots are in %s", shots)
	}
	os.RemoveAll(shots)
}
