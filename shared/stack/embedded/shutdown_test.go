package embedded

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// engineTable offers only the pure-Go test engine, delayed by delay (it
// honours cancellation while it waits).
func engineTable(delay time.Duration) engines.Table[config.Config] {
	t := EngineTable()
	t.Transcribers = map[string]engines.Factory[config.Config, callscribe.Transcriber]{
		"test": func(config.Config) (callscribe.Transcriber, func(), error) {
			return &testengine.Engine{Delay: delay}, nil, nil
		},
	}
	return t
}

// SIGTERM (Run's context ending) with a job in flight that cannot finish
// within the grace: Run and Close return within the grace, the job is not failed, and
// the next start finishes it. Nothing is lost.
func TestShutdownHandsBackJobsInFlight(t *testing.T) {
	cfg := config.Config{
		ListenAddr: "127.0.0.1:0", DataDir: t.TempDir(), Workers: 1, QuotaMinutes: 100,
		SessionSecret: "shutdown-test-secret-0123456789abcdef", Transcriber: "test", Summarizer: "builtin", Tagger: "builtin",
		ShutdownGrace: 500 * time.Millisecond,
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	start := func(delay time.Duration) (*Local, context.CancelFunc, chan error) {
		l, err := Open(cfg, logger, engineTable(delay))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		ready := make(chan struct{})
		go func() { done <- l.Run(ctx, func(string) { close(ready) }) }()
		<-ready
		return l, cancel, done
	}
	waitStatus := func(l *Local, account, id string, want callscribe.JobStatus) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			job, err := l.Service.Get(context.Background(), account, id)
			if err != nil {
				t.Fatal(err)
			}
			if job.Status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s is %s, want %s", id, job.Status, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	l, stop, done := start(time.Hour)
	acct, err := l.Service.Signup(context.Background(), "ann@example.com", "long-enough-password")
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]int16, 8000*3)
	for i := range samples {
		samples[i] = int16((i % 40) * 300)
	}
	audio := decode.EncodeWAV(8000, samples)
	job, err := l.Service.SubmitTranscription(context.Background(), jobs.TranscriptionRequest{
		AccountID: acct.ID, Audio: bytes.NewReader(audio), AudioSize: int64(len(audio)), Filename: "call.wav",
	})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(l, acct.ID, job.ID, callscribe.StatusProcessing)

	stopped := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the shutdown grace")
	}
	if got, _ := l.Service.Get(context.Background(), acct.ID, job.ID); got.Status != callscribe.StatusProcessing {
		t.Fatalf("after shutdown the job is %s (error %+v), want still processing", got.Status, got.Error)
	}
	// The job had until the hand-back point to finish; Run and Close end
	// within the grace.
	l.Close()
	if waited, handBack := time.Since(stopped), newShutdownBudget(cfg.ShutdownGrace).handBack; waited < handBack || waited >= cfg.ShutdownGrace {
		t.Fatalf("Run and Close took %v, want between the hand-back at %v and the %v grace", waited, handBack, cfg.ShutdownGrace)
	}

	l, stop, done = start(0)
	defer func() { stop(); <-done; l.Close() }()
	waitStatus(l, acct.ID, job.ID, callscribe.StatusSucceeded)
}
