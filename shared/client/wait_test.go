package client_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

// A job that outlasts the spec's 60 polls: the default wait gives up with
// ErrWaitExhausted, NoAttemptLimit waits until the transcript is there, and a
// context deadline still bounds it.
func TestWaitWithoutAttemptLimit(t *testing.T) {
	const delay = 2 * time.Second
	const interval = 10 * time.Millisecond // 60 polls last about 0.6 s, well under delay
	addr, stop, err := startSlowStack(filepath.Join(t.TempDir(), "data"), nil, delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	c := accountAt(t, "http://"+addr)
	path := writeWAV(t, "long.wav", 3, 2)

	created, err := c.CreateTranscriptionFromFile(t.Context(), path, client.TranscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = c.WaitForJob(t.Context(), created.ID, client.WaitOptions{Interval: interval}); !errors.Is(err, client.ErrWaitExhausted) {
		t.Fatalf("WaitForJob's default 60 polls: %v, want ErrWaitExhausted", err)
	}
	_, err = c.Transcribe(t.Context(), path, client.TranscribeOptions{WaitOptions: client.WaitOptions{Interval: interval, MaxAttempts: client.DefaultPollMaxAttempts}})
	if !errors.Is(err, client.ErrWaitExhausted) {
		t.Fatalf("Transcribe with 60 polls asked for: %v, want ErrWaitExhausted", err)
	}

	// Transcribe's default: until the job ends.
	polls := 0
	start := time.Now()
	job, err := c.Transcribe(t.Context(), path, client.TranscribeOptions{WaitOptions: client.WaitOptions{
		Interval: interval, OnPoll: func(*client.Job) { polls++ },
	}})
	if err != nil {
		t.Fatalf("NoAttemptLimit: %v after %d polls", err, polls)
	}
	if polls <= client.DefaultPollMaxAttempts || time.Since(start) < delay {
		t.Errorf("NoAttemptLimit: done after %d polls in %s; want more than %d polls, at least %s", polls, time.Since(start), client.DefaultPollMaxAttempts, delay)
	}
	if tr, err := job.Transcription(); err != nil || len(tr.Transcript) == 0 {
		t.Errorf("NoAttemptLimit: transcript %+v, %v", tr, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	job, err = c.Transcribe(ctx, path, client.TranscribeOptions{WaitOptions: client.WaitOptions{Interval: interval, MaxAttempts: client.NoAttemptLimit}})
	if !errors.Is(err, context.DeadlineExceeded) || job == nil || job.Done() {
		t.Errorf("NoAttemptLimit with a deadline: %+v, %v; want the job in progress and DeadlineExceeded", job, err)
	}
}

// NewFromEnv reads the variables the CLI reads (TestMain set the base URL and
// a key); an explicit option wins over them; a bad URL is refused.
func TestNewFromEnv(t *testing.T) {
	c, err := client.NewFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != baseURL {
		t.Errorf("base URL %q, want %q", c.BaseURL(), baseURL)
	}
	if _, err := c.ListJobs(t.Context(), client.ListOptions{Limit: 1}); err != nil {
		t.Errorf("with the key of CALLSCRIBE_API_KEY: %v", err)
	}
	c, err = client.NewFromEnv(client.WithAPIKey("cs_not_a_key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListJobs(t.Context(), client.ListOptions{Limit: 1}); !client.IsUnauthorized(err) {
		t.Errorf("an explicit WithAPIKey should replace the environment's key: %v", err)
	}

	t.Setenv(client.EnvBaseURL, "  "+baseURL+"/  ")
	t.Setenv(client.EnvAPIKey, "")
	c, err = client.NewFromEnv()
	if err != nil || c.BaseURL() != baseURL {
		t.Fatalf("a padded URL: %v, %v", c, err)
	}
	if _, err := c.ListJobs(t.Context(), client.ListOptions{}); !client.IsUnauthorized(err) {
		t.Errorf("without CALLSCRIBE_API_KEY: %v, want 401", err)
	}

	t.Setenv(client.EnvBaseURL, "")
	if c, err := client.NewFromEnv(); err != nil || c.BaseURL() != client.DefaultBaseURL {
		t.Errorf("unset: %v, %v; want %s", c, err, client.DefaultBaseURL)
	}
	t.Setenv(client.EnvBaseURL, "ftp://example.com")
	if _, err := client.NewFromEnv(); err == nil {
		t.Error("an ftp URL was accepted")
	}
}
