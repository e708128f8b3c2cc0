package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/stack/embedded"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// The tests run against the real service: the local stack (SQLite, disk
// audio, in-process workers, the real HTTP handlers) started in this process on
// a free port, with the deterministic test speech engine in place of
// PocketSphinx and the built-in summarizer and tagger.

// quotaMinutes is each account's monthly allowance on the test stacks.
const quotaMinutes = 5

const testPassword = "correct-horse-battery"

// baseURL is the stack TestMain started; exampleKey an API key of an account
// the examples use (also in CALLSCRIBE_BASE_URL and CALLSCRIBE_API_KEY).
var baseURL string

// pkgDir is the package's directory (TestMain changes the working directory).
var pkgDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "callscribe-client-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	addr, stop, err := startStack(filepath.Join(tmp, "data"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local stack:", err)
		return 1
	}
	defer stop()
	baseURL = "http://" + addr

	// The examples read the service and key from the environment, as a
	// program would, and transcribe call.wav from the working directory.
	ctx := context.Background()
	c, _ := client.New(baseURL)
	key, err := newAPIKey(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating the examples' account:", err)
		return 1
	}
	os.Setenv("CALLSCRIBE_BASE_URL", baseURL)
	os.Setenv("CALLSCRIBE_API_KEY", key)
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(work, "call.wav"), apitest.MakeWAV(4, 2, false), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if pkgDir, err = os.Getwd(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Chdir(work); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// startStack starts a local stack under dataDir; edit changes its config.
func startStack(dataDir string, edit func(*config.Config)) (addr string, stop func(), err error) {
	return startSlowStack(dataDir, edit, 0)
}

// startSlowStack is startStack with a speech engine that takes delay per job.
func startSlowStack(dataDir string, edit func(*config.Config), delay time.Duration) (addr string, stop func(), err error) {
	cfg := config.Config{
		ListenAddr:          "127.0.0.1:0",
		DataDir:             dataDir,
		Workers:             4,
		QuotaMinutes:        quotaMinutes,
		RetentionDays:       30,
		Transcriber:         "test",
		Summarizer:          "builtin",
		Tagger:              "builtin",
		CallbackAllowHosts:  []string{"127.0.0.1"},
		CallbackBackoffBase: 50 * time.Millisecond,
		CallbackTimeout:     5 * time.Second,
		LogLevel:            slog.LevelError,
	}
	if edit != nil {
		edit(&cfg)
	}
	table := embedded.EngineTable()
	table.Transcribers["test"] = func(cfg config.Config) (callscribe.Transcriber, func(), error) {
		return &testengine.Engine{AgentChannel: cfg.AgentChannel, Delay: delay}, nil, nil
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	local, err := embedded.Open(cfg, logger, table)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- local.Run(ctx, func(a string) { ready <- a }) }()
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		local.Close()
		return "", nil, err
	}
	return addr, func() {
		cancel()
		<-done
		local.Close()
	}, nil
}

// startTestStack starts a stack of its own for one test.
func startTestStack(t *testing.T, edit func(*config.Config)) string {
	t.Helper()
	addr, stop, err := startStack(filepath.Join(t.TempDir(), "data"), edit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return "http://" + addr
}

var accounts atomic.Int64

func newEmail() string {
	return fmt.Sprintf("client-%d-%d@example.com", time.Now().UnixNano(), accounts.Add(1))
}

// newAPIKey signs up a new account through the client and returns an API key of it.
func newAPIKey(ctx context.Context, c *client.Client) (string, error) {
	email := newEmail()
	if err := c.Signup(ctx, email, testPassword); err != nil {
		return "", err
	}
	s, err := c.Login(ctx, email, testPassword)
	if err != nil {
		return "", err
	}
	k, err := c.With(client.WithSessionToken(s.Token)).CreateAPIKey(ctx, "tests")
	if err != nil {
		return "", err
	}
	return k.Secret, nil
}

// account is a new account's API-key client on the shared stack.
func account(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	return accountAt(t, baseURL, opts...)
}

func accountAt(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	key, err := newAPIKey(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	return c.With(client.WithAPIKey(key))
}

// fast polls quickly: the test engine answers in milliseconds.
var fast = client.WaitOptions{Interval: 20 * time.Millisecond, MaxAttempts: 500}

// writeWAV writes a generated WAV into the test's temp dir.
func writeWAV(t *testing.T, name string, seconds float64, channels int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, apitest.MakeWAV(seconds, channels, false), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
