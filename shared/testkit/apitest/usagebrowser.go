package apitest

import (
	"os"
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
// packages or Chromium are missing, and keeps its screenshots when it fails
// (runBrowserScript).
func RunUsageE2E(t *testing.T, target Target) {
	t.Helper()
	wav := filepath.Join(t.TempDir(), "call.wav")
	if err := os.WriteFile(wav, MakeWAV(6, 1, false), 0o644); err != nil {
		t.Fatal(err)
	}
	runBrowserScript(t, target, "usage.e2e.mjs", 3*time.Minute, "CALL_WAV="+wav)
}
