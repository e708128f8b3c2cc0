package apitest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RunDashboardE2E drives the web dashboard served by target in a real browser
// (Debian's Chromium through playwright-core; shared/transport/dashboard/web/e2e): sign
// up, API keys, upload, review, insights, downloads, usage, revoke, delete, an
// XSS case and an expired session. `make test` installs node, the npm packages
// and Chromium and builds the dashboard first; missing any of them fails the
// test with what to run, it never skips. Screenshots of every screen are kept
// in a directory named in the log when the test fails.
//
// identity is where the page must sign in: "local" (the service's own sign-in)
// or "cognito" (a user pool's API, the stand-in on the AWS-emulating stack).
//
// twoStep says the deployment's direct uploads stop below the large test
// file (4 MiB on AWS), so the page must take the two-step path for it.
func RunDashboardE2E(t *testing.T, target Target, identity string, twoStep bool) {
	t.Helper()
	dir := t.TempDir()
	wav, large := filepath.Join(dir, "call.wav"), filepath.Join(dir, "long-call.wav")
	if err := os.WriteFile(wav, MakeWAV(6, 2, false), 0o644); err != nil {
		t.Fatal(err)
	}
	// 140 s of 8 kHz stereo: 4.5 MB, over the 4 MiB a Lambda request takes.
	if err := os.WriteFile(large, MakeWAV(140, 2, false), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"CALL_WAV=" + wav, "EXPECT_IDENTITY=" + identity, "LARGE_WAV=" + large}
	if twoStep {
		env = append(env, "EXPECT_TWO_STEP=1")
	}
	runBrowserScript(t, target, "dashboard.e2e.mjs", 5*time.Minute, env...)
}

// runBrowserScript runs one of the dashboard's browser scripts
// (shared/transport/dashboard/web/e2e/<script>) with node against target,
// BASE_URL and OUT_DIR set besides env. node, the npm packages or Chromium
// missing fail the test with what to run; it never skips. The screenshots
// are kept, in a directory the failure names, when the script fails;
// CALLSCRIBE_E2E_SHOTS keeps them in that directory whatever the outcome.
func runBrowserScript(t *testing.T, target Target, script string, timeout time.Duration, env ...string) {
	t.Helper()
	web := filepath.Join(repoRoot(t), "shared", "transport", "dashboard", "web")
	if _, err := os.Stat(filepath.Join(web, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (or make deps web)", web)
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Debian's chromium is not installed: run `make test` (it installs it)")
	}
	shots, keep := os.Getenv("CALLSCRIBE_E2E_SHOTS"), true
	if shots == "" {
		var err error
		if shots, err = os.MkdirTemp("", strings.TrimSuffix(script, ".e2e.mjs")+"-e2e-"); err != nil {
			t.Fatal(err)
		}
		keep = false
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/"+script)
	cmd.Dir = web
	cmd.Env = append(append(os.Environ(), "BASE_URL="+target.BaseURL(), "OUT_DIR="+shots), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("running the browser test %s: %v", script, err)
		}
		t.Fatalf("the browser test %s failed; screenshots of each screen are in %s", script, shots)
	}
	if !keep {
		os.RemoveAll(shots)
	}
}

// repoRoot is the module root: the directory above the working directory that
// holds go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}
