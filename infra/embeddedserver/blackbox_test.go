package main

// Black-box tests of the local binary: it is built once with the testengine tag,
// started as a child process on a free port with a temporary DATA_DIR and
// TRANSCRIBER=test, and driven over HTTP by shared/testkit/apitest.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

const quotaMinutes = 5

// binaries are the service built once per set of build tags for the tests,
// which run in parallel ("" for the binary `make run` runs).
var binaries = apitest.Binaries{Name: "callscribe-local"}

// TestMain removes the binaries built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	binaries.Remove()
	os.Exit(code)
}

// binary is the service built with the testengine tag (TRANSCRIBER=test),
// once per run. CALLSCRIBE_BLACKBOX_BIN names a prebuilt one to use instead.
func binary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CALLSCRIBE_BLACKBOX_BIN"); p != "" {
		return p
	}
	return binaries.Build(t, "testengine")
}

// service is one child process of the binary; it implements apitest.Target
// and apitest.Restarter.
type service struct {
	t       *testing.T
	bin     string
	addr    string
	dataDir string
	env     []string
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	logs *os.File
}

// startService starts the testengine binary with the given extra environment;
// the process is killed when the test ends, pass or fail.
func startService(t *testing.T, extraEnv ...string) *service {
	t.Helper()
	return startBinary(t, binary(t), extraEnv...)
}

// startBinary starts bin on a free port and a fresh DATA_DIR. The base
// environment selects TRANSCRIBER=test; extraEnv entries come later and win.
func startBinary(t *testing.T, bin string, extraEnv ...string) *service {
	t.Helper()
	dir := t.TempDir()
	s := &service{
		t: t, bin: bin, addr: apitest.FreeAddr(t),
		dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "service.log"),
	}
	s.env = append(os.Environ(),
		"LISTEN_ADDR="+s.addr,
		"DATA_DIR="+s.dataDir,
		"TRANSCRIBER=test",
		fmt.Sprintf("QUOTA_MINUTES=%d", quotaMinutes),
		"LOG_LEVEL=warn",
		"SESSION_SECRET=",
		"GATEWAY_KEY=",
		"TEST_ENGINE_DELAY=",
	)
	s.env = append(s.env, extraEnv...)
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			if b, err := os.ReadFile(s.logPath); err == nil {
				t.Logf("service log (%s), last 4 KiB:\n%s", s.logPath, tail(b, 4<<10))
			}
		}
	})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func (s *service) BaseURL() string { return "http://" + s.addr }

// Start runs the binary and waits until /healthz answers 200.
func (s *service) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("service already running")
	}
	logs, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		logs.Close()
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done, s.logs = cmd, done, logs

	deadline := time.Now().Add(20 * time.Second)
	hc := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-done:
			b, _ := os.ReadFile(s.logPath)
			s.cmd = nil
			return fmt.Errorf("service exited during start-up: %v\n%s", cmd.ProcessState, tail(b, 4<<10))
		default:
		}
		resp, err := hc.Get(s.BaseURL() + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("service at %s not healthy after 20s (last error %v)", s.addr, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Kill9 kills the process with SIGKILL (no graceful shutdown) and waits for it.
func (s *service) Kill9() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("service not running")
	}
	if err := s.cmd.Process.Kill(); err != nil {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		return errors.New("process did not exit after SIGKILL")
	}
	if st := s.cmd.ProcessState; st == nil || st.Success() {
		return fmt.Errorf("process state after SIGKILL: %v", st)
	}
	s.cmd = nil
	s.logs.Close()
	return nil
}

// stop kills the process if it still runs.
func (s *service) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
	}
	s.cmd = nil
	s.logs.Close()
}

func TestBlackBox(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	svc := startService(t)
	apitest.Run(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, RateLimitBurst: config.DefaultRateLimitBurst})
	t.Run("Probe", func(t *testing.T) {
		apitest.RunProbe(t, svc, apitest.ProbeOptions{Options: apitest.Options{QuotaMinutes: quotaMinutes}})
	})
	t.Run("DashboardInABrowser", func(t *testing.T) { apitest.RunDashboardE2E(t, svc, "local", false) })
	t.Run("UsageInABrowser", func(t *testing.T) { apitest.RunUsageE2E(t, svc) })
	// Words, sentiment and metrics on a call with known overlap and gaps.
	// The test engine times a segment to each burst of sound, so the figures
	// are exact. The embedded speech engine passes the same checks within
	// apitest.RealEngineTolerances (its overtalk comes out 0.16 s short, the
	// User's talk 0.18 s), but its job over this 12 s call takes 10 to 30 s
	// of a busy 2-core machine (WORKERS=1, speaker adaptation on), against
	// about a second here.
	t.Run("TimedCall", func(t *testing.T) {
		apitest.RunTimedCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes}, apitest.SynthesizeTimedCall(t).WithSentiment(), apitest.TestEngineTolerances)
	})
}

func TestBlackBoxGatewayKey(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	const key = "gw-test-key-0123456789"
	svc := startService(t, "GATEWAY_KEY="+key)
	apitest.RunGateway(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, GatewayKey: key})
}

func TestBlackBoxCallbacks(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	svc := startService(t, "CALLBACK_ALLOW_HOSTS=127.0.0.1", "CALLBACK_BACKOFF_BASE=50ms")
	apitest.RunCallbacks(t, svc, apitest.Options{QuotaMinutes: quotaMinutes})
}

func TestBlackBoxKill9Recovery(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	svc := startService(t, "WORKERS=1", "TEST_ENGINE_DELAY=1s")
	apitest.RunCrashRecovery(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 45 * time.Second})
}

// TestBlackBoxStartupConfig: a malformed setting stops the binary at start-up
// with a message naming the variable, instead of running with a default.
func TestBlackBoxStartupConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	// The binary first: building it (or waiting for another test's build)
	// must not use up the time the start-up itself is given.
	bin := binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+apitest.FreeAddr(t), "DATA_DIR="+t.TempDir(), "TRANSCRIBER=test", "WORKERS=zero")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("binary started with WORKERS=zero:\n%s", out)
	}
	if !strings.Contains(string(out), "WORKERS") {
		t.Errorf("start-up error does not name WORKERS:\n%s", out)
	}
}

// A tagDelivered retry queued before a kill -9 is delivered after the restart.
func TestBlackBoxCallbackRetrySurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	svc := startService(t, "CALLBACK_ALLOW_HOSTS=127.0.0.1", "CALLBACK_BACKOFF_BASE=4s")
	apitest.RunCallbackRestart(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 30 * time.Second})
}

// The keys page's signing secret and a tags job's deliveries, in a browser.
func TestBlackBoxWebhooksInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	svc := startService(t, "CALLBACK_ALLOW_HOSTS=127.0.0.1", "CALLBACK_BACKOFF_BASE=300ms")
	apitest.RunWebhooksE2E(t, svc)
}
