package main

// Black-box test of the AWS emulation: the binary is built once with the
// testengine tag, started as a child process (it starts and stops its own local
// AWS servers), and driven over HTTP by the same suite as the local binary
// (shared/testkit/apitest). Every request therefore goes HTTP -> API Gateway v2 event ->
// the route's Lambda handler -> DynamoDB Local / gofakes3 / local-aws-sqs, and
// every job through the SQS-triggered worker handlers.

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

const quotaMinutes = 5

type service struct{ addr string }

func (s *service) BaseURL() string { return "http://" + s.addr }

// startService builds and starts the binary; it is stopped with SIGTERM (so it
// stops the local AWS servers it started) when the test ends.
func startService(t *testing.T, extraEnv ...string) *service {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "callscribe-awsemulator")
	build := exec.Command(apitest.GoTool(), "build", "-tags", "testengine", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags testengine ./infra/awsemulator: %v\n%s", err, out)
	}
	s := &service{addr: apitest.FreeAddr(t)}
	logPath := filepath.Join(dir, "service.log")
	logs, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"LISTEN_ADDR="+s.addr,
		"TRANSCRIBER=test",
		fmt.Sprintf("QUOTA_MINUTES=%d", quotaMinutes),
		"LOG_LEVEL=warn",
		"SESSION_SECRET=",
		"GATEWAY_KEY=",
		"WORKERS=4",
		"CALLBACK_BACKOFF_BASE=50ms",
		"CALLBACK_ALLOW_HOSTS=127.0.0.1",
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logs.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				if len(b) > 8<<10 {
					b = b[len(b)-8<<10:]
				}
				t.Logf("service log, last 8 KiB:\n%s", b)
			}
		}
	})
	// Start-up includes DynamoDB Local's JVM.
	deadline := time.Now().Add(90 * time.Second)
	hc := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("service exited during start-up:\n%s", b)
		default:
		}
		if resp, err := hc.Get(s.BaseURL() + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("service not healthy after 90s:\n%s", bytes.TrimSpace(b))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBlackBoxAWSLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers")
	}
	svc := startService(t)
	opts := apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 90 * time.Second, RateLimitBurst: config.DefaultRateLimitBurst}
	apitest.Run(t, svc, opts)
	apitest.RunCallbacks(t, svc, opts)
	t.Run("DashboardInABrowser", func(t *testing.T) { apitest.RunDashboardE2E(t, svc, "cognito", true) })
}
