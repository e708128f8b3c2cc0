package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

// turnLines matches a transcript in the text format, and nothing else.
var turnLines = regexp.MustCompile(`^(\[\d\d:\d\d\.\d\] (Agent|User): .+\n)+$`)

// TestTranscribeWaitsPastSixtyPolls: a job that takes longer than the client
// library's default 60 polls (here 60 polls 10 ms apart, about 0.6 s, against
// a 2 s engine) still ends with its transcript on stdout, with the time so far
// and the estimate on stderr meanwhile; --max-attempts and --timeout end the
// wait first with exit 4.
func TestTranscribeWaitsPastSixtyPolls(t *testing.T) {
	base := startStack(t, 2*time.Second)
	key := newAPIKey(t, base)
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envAPIKey: key, envConfig: filepath.Join(t.TempDir(), "c.json")}}
	wav := repoFile(t, "testdata/audio/tone-16k-stereo-s24-0.25s.wav")

	start := time.Now()
	r := cli.ok("", "transcribe", "--wait", "--poll-interval", "10ms", "--progress-every", "300ms", wav)
	if time.Since(start) < 2*time.Second {
		t.Errorf("done in %s, before the engine's 2 s", time.Since(start))
	}
	if !turnLines.MatchString(r.stdout) {
		t.Errorf("stdout: want the transcript, got %q", r.stdout)
	}
	progress := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(wav) + `\t[0-9a-f-]{36}\t(queued|processing)\t\d+\.\ds elapsed, estimate 0\.1s for 0\.2s of audio$`)
	if !progress.MatchString(r.stderr) {
		t.Errorf("stderr has no progress line with the time so far and the estimate:\n%s", r.stderr)
	}

	r = cli.run("", "transcribe", "--wait", "--poll-interval", "10ms", "--max-attempts", "60", wav)
	if r.code != exitStillRunning || r.stdout != "" || !strings.Contains(r.stderr, "after 60 polls (--max-attempts)") {
		t.Errorf("--max-attempts 60: exit %d, stdout %q, stderr %q; want 4", r.code, r.stdout, r.stderr)
	}

	r = cli.run("", "--json", "wait", "--timeout", "200ms", "--poll-interval", "10ms", createJob(t, cli, wav))
	var body struct {
		Error struct{ Code string } `json:"error"`
		JobID string                `json:"job_id"`
	}
	if r.code != exitStillRunning || json.Unmarshal([]byte(r.stderr), &body) != nil || body.Error.Code != codeStillRunning || body.JobID == "" {
		t.Errorf("--json wait --timeout: exit %d, stderr %q; want 4 and the error JSON", r.code, r.stderr)
	}
}

// createJob uploads file without waiting and returns its job id.
func createJob(t *testing.T, cli *cliRunner, file string) string {
	t.Helper()
	r := cli.ok("", "transcribe", file)
	return strings.Split(strings.TrimSpace(r.stdout), "\t")[1]
}

// TestTranscribeOutput: --format (any case, txt for text), --output to a file
// or, with several inputs, into a directory, --json, --quiet.
func TestTranscribeOutput(t *testing.T) {
	base := startStack(t, 0)
	key := newAPIKey(t, base)
	dir := t.TempDir()
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envAPIKey: key, envConfig: filepath.Join(dir, "c.json")}}
	wav := repoFile(t, "testdata/audio/tone-16k-stereo-s24-0.25s.wav")
	mp3 := repoFile(t, "testdata/audio/tone-44k1-stereo-mpeg1-128k-1.0s.mp3")
	fast := []string{"transcribe", "--wait", "--poll-interval", "20ms"}

	r := cli.ok("", append(fast, "--quiet", "--format", "TXT", wav)...)
	if !turnLines.MatchString(r.stdout) || r.stderr != "" {
		t.Errorf("--quiet --format TXT: stdout %q, stderr %q; want the transcript and nothing on stderr", r.stdout, r.stderr)
	}
	text := r.stdout

	srt := filepath.Join(dir, "call.srt")
	r = cli.ok("", append(fast, "-f", "srt", "-o", srt, wav)...)
	if b, err := os.ReadFile(srt); err != nil || !regexp.MustCompile(`^1\n\d\d:\d\d:\d\d,\d{3} --> `).Match(b) || r.stdout != "" {
		t.Errorf("--format srt --output: file %q (%v), stdout %q", b, err, r.stdout)
	}
	r = cli.ok("", append(fast, "--format", "Vtt", wav)...)
	if !strings.HasPrefix(r.stdout, "WEBVTT") {
		t.Errorf("--format Vtt: %q", r.stdout)
	}
	r = cli.ok("", append(fast, "--format", "json", wav)...)
	var export client.TranscriptionResult
	if err := json.Unmarshal([]byte(r.stdout), &export); err != nil || len(export.Transcript) == 0 {
		t.Errorf("--format json: %v\n%s", err, r.stdout)
	}

	out := filepath.Join(dir, "transcripts")
	cli.ok("", append(fast, "--output", out, wav, mp3)...)
	for _, name := range []string{"tone-16k-stereo-s24-0.25s.txt", "tone-44k1-stereo-mpeg1-128k-1.0s.txt"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || !turnLines.Match(b) {
			t.Errorf("--output DIR: %s: %q, %v", name, b, err)
		} else if name[5] == '6' && string(b) != text {
			t.Errorf("--output DIR: %s is %q, stdout was %q", name, b, text)
		}
	}

	r = cli.ok("", append(fast, "--json", wav, mp3)...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for _, l := range lines {
		var job client.Job
		if err := json.Unmarshal([]byte(l), &job); err != nil || job.Status != client.StatusSucceeded || len(job.Result) == 0 {
			t.Errorf("--json line %q: %v", l, err)
		}
	}
	if len(lines) != 2 {
		t.Errorf("--json: %d lines, want one job per file", len(lines))
	}

	for _, args := range [][]string{
		{"transcribe", "--format", "docx", wav},              // no such format
		{"transcribe", "--format", "srt", wav},               // needs --wait
		{"transcribe", "--wait", "--json", "-f", "srt", wav}, // two outputs
		{"transcribe", "--wait", "-o", out, wav, filepath.Join(filepath.Dir(wav), "..", "audio", filepath.Base(wav))}, // same name twice
	} {
		if r := cli.run("", args...); r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("callscribe %s: exit %d, stderr %q; want 2", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	// A usage error under --json is the error JSON too.
	r = cli.run("", "--json", "transcribe", "--format", "docx", wav)
	if !strings.HasPrefix(r.stderr, `{"error":{"code":"USAGE","message":`) || r.code != exitUsage {
		t.Errorf("--json usage error: exit %d, %q", r.code, r.stderr)
	}
}

// TestCompletionBash loads the bash script into bash and completes a few
// command lines with it.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	cli := &cliRunner{t: t, env: map[string]string{envConfig: filepath.Join(t.TempDir(), "c.json")}}
	script := filepath.Join(t.TempDir(), "callscribe.bash")
	if err := os.WriteFile(script, []byte(cli.ok("", "completion", "bash").stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"callscribe jobs l":                  "list",
		"callscribe jobs m":                  "metrics",
		"callscribe jobs metrics --format j": "json",
		"callscribe jobs get --mark":         "--mark-low-confidence",
		"callscribe keys ":                   "create list revoke signing-secret --help -h --base-url --api-key --gateway-key --config --json --quiet -q --version",
		"callscribe transcribe --format s":   "srt",
		"callscribe jobs list --status s":    "succeeded",
		"callscribe --json jobs get --f":     "--format",
		"callscribe completion ":             "bash zsh fish --help -h --base-url --api-key --gateway-key --config --json --quiet -q --version",
		"callscribe transcribe --wait --tim": "--timeout",
	} {
		cmd := exec.Command(bash, "--norc", "-c", `source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _callscribe; echo "${COMPREPLY[*]}"`, "bash", script, line)
		got, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(got)) != want {
			t.Errorf("%q completes to %q (%v), want %q", line, got, err, want)
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		r := cli.ok("", "completion", shell)
		if !strings.Contains(r.stdout, "transcribe") || !strings.Contains(r.stdout, "srt") {
			t.Errorf("completion %s:\n%s", shell, r.stdout)
		}
		if path, err := exec.LookPath(shell); err == nil {
			f := filepath.Join(t.TempDir(), "c."+shell)
			os.WriteFile(f, []byte(r.stdout), 0o600)
			if out, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		}
	}
}
