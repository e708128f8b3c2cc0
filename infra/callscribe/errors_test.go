package main

import (
	"bytes"
	"context"
	"encoding/json"
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
		{"already reported", &reportedError{n: 2}, exitError, ""},
		{"already reported, auth", &reportedError{n: 1, code: exitAuth}, exitAuth, ""},
		{"401", &client.Error{Status: 401, Code: "UNAUTHORIZED", Message: "Bad key.", RequestID: "r-2"}, exitAuth,
			"callscribe: UNAUTHORIZED: Bad key. (requestId r-2)\n"},
		{"no key", authf("no API key"), exitAuth, "callscribe: no API key\n"},
		{"still running", &stillRunningError{id: "j-2", status: "processing", why: "after 1m0s (--timeout)"}, exitStillRunning,
			"callscribe: job j-2 is still processing after 1m0s (--timeout); it keeps running: 'callscribe wait j-2' picks it up\n"},
		{"hint", &hintError{&client.Error{Status: 409, Code: "EMAIL_TAKEN", Message: "Taken.", RequestID: "r-3"}, "Sign in."}, exitError,
			"callscribe: EMAIL_TAKEN: Taken. Sign in. (requestId r-3)\n"},
	} {
		var buf bytes.Buffer
		if got := report(&buf, c.err, false); got != c.code || buf.String() != c.want {
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
	out.Reset()
	if code := run(context.Background(), []string{"--version"}, nil, &out, &errb, env); code != 0 || out.String() != versionText()+"\n" {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
	for _, cmd := range [][]string{{"completion"}, {"login"}, {"keys", "create"}, {"keys", "list"}, {"keys", "revoke"}, {"usage"}, {"transcribe"}, {"jobs", "list"}, {"jobs", "get"}, {"jobs", "metrics"}, {"jobs", "delete"}, {"summarize"}, {"tag"}, {"taxonomy"}, {"wait"}, {"version"}} {
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

// Under --json every error is one line of the API's error shape on stderr,
// with the exit status of the same error without --json.
func TestReportJSON(t *testing.T) {
	for _, c := range []struct {
		name      string
		err       error
		code      int
		wantCode  string
		wantReqID string
		wantJob   string
	}{
		{"api error", &client.Error{Status: 404, Code: "JOB_NOT_FOUND", Message: "No job.", RequestID: "r-1"}, exitError, "JOB_NOT_FOUND", "r-1", ""},
		{"401", &client.Error{Status: 401, Code: "UNAUTHORIZED", Message: "Bad key."}, exitAuth, "UNAUTHORIZED", "", ""},
		{"failed job", &client.JobFailedError{Job: &client.Job{ID: "j-1"}, Err: &client.Error{Code: "bad_audio", Message: "Undecodable.", RequestID: "r-4"}}, exitError, "bad_audio", "r-4", "j-1"},
		{"usage", usagef("bad flag"), exitUsage, codeUsage, "", ""},
		{"no key", authf("no API key"), exitAuth, codeAuth, "", ""},
		{"still running", &stillRunningError{id: "j-2", status: "queued", why: "after 1s (--timeout)"}, exitStillRunning, codeStillRunning, "", "j-2"},
		{"other", errors.New("dial tcp: refused"), exitError, codeCLI, "", ""},
	} {
		var buf bytes.Buffer
		code := report(&buf, c.err, true)
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			RequestID *string `json:"requestId"`
			JobID     string  `json:"job_id"`
		}
		if err := json.Unmarshal(buf.Bytes(), &body); err != nil || strings.Count(buf.String(), "\n") != 1 {
			t.Errorf("%s: %q is not one JSON line: %v", c.name, buf.String(), err)
			continue
		}
		if code != c.code || body.Error.Code != c.wantCode || body.Error.Message == "" || body.RequestID == nil || *body.RequestID != c.wantReqID || body.JobID != c.wantJob {
			t.Errorf("%s: exit %d, %s; want %d, code %s, requestId %q, job %q", c.name, code, buf.String(), c.code, c.wantCode, c.wantReqID, c.wantJob)
		}
	}
}
