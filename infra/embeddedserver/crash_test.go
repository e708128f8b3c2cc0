package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

// Terminate sends SIGTERM and waits for the process to exit (at most 30 s).
func (s *service) Terminate() (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0, errors.New("service not running")
	}
	sent := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		return time.Since(sent), errors.New("process did not exit 30s after SIGTERM")
	}
	took := time.Since(sent)
	st := s.cmd.ProcessState
	s.cmd = nil
	s.logs.Close()
	if st == nil || !st.Success() {
		return took, fmt.Errorf("exit status after SIGTERM: %v", st)
	}
	return took, nil
}

// SIGTERM with a job in flight that the (slowed) engine cannot finish within
// SHUTDOWN_GRACE: the process is gone before the grace, and the job finishes
// after the restart.
func TestBlackBoxShutdownWithinGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	const grace = 2 * time.Second
	svc := startService(t, "WORKERS=1", "TEST_ENGINE_DELAY=3s", "SHUTDOWN_GRACE="+grace.String())
	apitest.RunGracefulShutdown(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 30 * time.Second}, grace)
}

// kill -9 at random points of a mixed workload, again and again, on one
// DATA_DIR: nothing answered 202 is lost and minutes are counted once.
// CALLSCRIBE_CRASH_SEED replays a run; CALLSCRIBE_SOAK_KILLS (make soak)
// turns it into a longer soak with more kills and clients.
func TestBlackBoxCrashLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	loop := apitest.CrashLoop{Kills: 5, Clients: 3, MaxRound: 1500 * time.Millisecond}
	if n, err := strconv.Atoi(os.Getenv("CALLSCRIBE_SOAK_KILLS")); err == nil && n > 0 {
		loop = apitest.CrashLoop{Kills: n, Clients: 6, MaxRound: 4 * time.Second}
	}
	svc := startService(t, "WORKERS=2", "TEST_ENGINE_DELAY=150ms", "QUOTA_MINUTES=100000", "RATE_LIMIT_RPS=0")
	apitest.RunCrashLoop(t, svc, apitest.Options{QuotaMinutes: 100000, JobTimeout: 60 * time.Second}, loop)
}
