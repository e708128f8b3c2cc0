package apitest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RunWebhooksE2E runs the dashboard's webhook screens in a real browser
// (e2e/webhooks.e2e.mjs): the signing secret on the keys page verifies the
// deliveries a local receiver got (checked in JavaScript), rotation says how
// long the previous secret lasts, and a tags job's page lists its attempts.
// The target must allow callbacks to 127.0.0.1 and retry within a second,
// and sign in with the local identity. CALLSCRIBE_E2E_SHOTS keeps the
// screenshots in that directory.
func RunWebhooksE2E(t *testing.T, target Target) {
	t.Helper()
	web := filepath.Join(repoRoot(t), "shared", "transport", "dashboard", "web")
	if _, err := os.Stat(filepath.Join(web, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (or make deps web)", web)
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Debian's chromium is not installed: run `make test` (it installs it)")
	}
	shots := os.Getenv("CALLSCRIBE_E2E_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/webhooks.e2e.mjs")
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "BASE_URL="+target.BaseURL(), "OUT_DIR="+shots)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
	if err != nil {
		t.Fatalf("the webhooks browser test failed (%v); set CALLSCRIBE_E2E_SHOTS to keep its screenshots", err)
	}
}
