package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/stack/embedded"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// startStack runs the whole local stack in this process: SQLite and audio in a
// temporary directory, the deterministic test speech engine (no cgo needed),
// the built-in summarizer and tagger, on a free loopback port. It stops when
// the test ends. delay slows the speech engine down (status lines to watch);
// gatewayKey, when set, is required in the apikey header of every request.
func startStack(t *testing.T, delay time.Duration, gatewayKey ...string) string {
	t.Helper()
	return startStackWith(t, delay, func(cfg *config.Config) {
		if len(gatewayKey) > 0 {
			cfg.GatewayKey = gatewayKey[0]
		}
	})
}

// startStackWith is startStack with edit applied to the configuration.
func startStackWith(t *testing.T, delay time.Duration, edit func(*config.Config)) string {
	t.Helper()
	cfg := config.Config{
		ListenAddr:          "127.0.0.1:0",
		DataDir:             t.TempDir(),
		Workers:             2,
		QuotaMinutes:        1000,
		RetentionDays:       30,
		Transcriber:         "test",
		Summarizer:          "builtin",
		Tagger:              "builtin",
		CallbackBackoffBase: 10 * time.Millisecond,
		CallbackTimeout:     5 * time.Second,
		LogLevel:            slog.LevelError,
	}
	edit(&cfg)
	table := embedded.EngineTable()
	table.Transcribers["test"] = func(cfg config.Config) (callscribe.Transcriber, func(), error) {
		return &testengine.Engine{AgentChannel: cfg.AgentChannel, Delay: delay}, nil, nil
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	local, err := embedded.Open(cfg, logger, table)
	if err != nil {
		t.Fatalf("opening the local stack: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- local.Run(ctx, func(addr string) { ready <- addr }) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		local.Close()
		cancel()
		t.Fatalf("the local stack stopped: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the local stack did not start in 30 s")
	}
	t.Cleanup(func() {
		cancel()
		<-done
		local.Close()
	})
	return "http://" + addr
}

// repoFile is a path under the repository root.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", filepath.FromSlash(rel))
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the CLI in-process with the given environment and stdin.
type cliRunner struct {
	t   *testing.T
	env map[string]string
}

func (c *cliRunner) run(stdin string, args ...string) result {
	c.t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, args, strings.NewReader(stdin), &out, &errb, func(k string) string { return c.env[k] })
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// ok runs the CLI and fails the test unless it exits 0.
func (c *cliRunner) ok(stdin string, args ...string) result {
	c.t.Helper()
	r := c.run(stdin, args...)
	if r.code != 0 {
		c.t.Fatalf("callscribe %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func (c *cliRunner) with(kv ...string) *cliRunner {
	env := map[string]string{}
	for k, v := range c.env {
		env[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return &cliRunner{t: c.t, env: env}
}
