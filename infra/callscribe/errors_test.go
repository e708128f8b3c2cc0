package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/client"
)

func TestReport(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"api error", &client.Error{Status: 404, Code: "JOB_NOT_FOUND", Message: "No job\nwith that id.", RequestID: "r-1"}, exitError,
			"callscribe: JOB_NOT_FOUND: No job with that id. (requestId r-1)\n"},
		{"wrapped api error without a code", fmt.Errorf("x: %w", &client.Error{Status: 502, Message: "Bad gateway"}), exitError,
			"callscribe: HTTP_502: Bad gateway\n"},
		{"failed job", &client.JobFailedError{Job: &client.Job{ID: "j-1", Type: "transcription", Error: &client.JobError{Code: "bad_audio", Message: "Undecodable."}}, Err: &client.Error{Code: "bad_audio"}}, exitError,
			"callscribe: job j-1 failed: bad_audio: Undecodable.\n"},
		{"usage", usagef("no API key"), exitUsage, "callscribe: no API key\n"},
		{"interrupted", fmt.Errorf("wait: %w", context.Canceled), exitError, "callscribe: interrupted\n"},
		{"other", errors.New("callscribe: dial tcp: refused\nmore"), exitError, "callscribe: dial tcp: refused more\n"},
		{"already reported", &reportedError{2}, exitError, ""},
	} {
		var buf bytes.Buffer
		if got := report(&buf, c.err); got != c.code || buf.String() != c.want {
			t.Errorf("%s: exit %d, %q; want %d, %q", c.name, got, buf.String(), c.code, c.want)
		}
	}
}

func TestRunWithoutService(t *testing.T) {
	var out, errb bytes.Buffer
	env := func(k string) string {
		return map[string]string{envConfig: t.TempDir() + "/c.json"}[k]
	}
	if code := run(context.Background(), []string{"version"}, nil, &out, &errb, env); code != 0 || !bytes.Contains(out.Bytes(), []byte(client.Version)) {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"--help"}, nil, &out, &errb, env); code != 0 || !bytes.Contains(out.Bytes(), []byte("Quick start")) {
		t.Errorf("--help: exit %d, %q", code, out.String())
	}
	for _, cmd := range [][]string{{"login"}, {"keys", "create"}, {"keys", "list"}, {"keys", "revoke"}, {"usage"}, {"transcribe"}, {"jobs", "list"}, {"jobs", "get"}, {"jobs", "delete"}, {"summarize"}, {"tag"}, {"taxonomy"}, {"wait"}, {"version"}} {
		out.Reset()
		if code := run(context.Background(), append(cmd, "--help"), nil, &out, &errb, env); code != 0 || !bytes.Contains(out.Bytes(), []byte("Example")) {
			t.Errorf("%v --help: exit %d, no examples:\n%s", cmd, code, out.String())
		}
	}
}

// An interrupted command (Ctrl-C cancels run's context) exits 130, with one
// plain line and no error report.
func TestInterruptedExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	env := map[string]string{envBaseURL: "http://127.0.0.1:1", envAPIKey: "cs_test", envConfig: t.TempDir() + "/c.json"}
	code := run(ctx, []string{"taxonomy"}, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	if code != exitInterrupted || errb.String() != "callscribe: interrupted\n" {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
