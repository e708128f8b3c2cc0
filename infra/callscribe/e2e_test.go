package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/client"
)

// errorLine is the one line an API error prints on stderr.
var errorLine = regexp.MustCompile(`^callscribe: [A-Z_0-9]+: [^\n]+ \(requestId [^)\s]+\)\n$`)

// TestEndToEnd drives the real command paths against a running local stack:
// sign-up (through the library), login, keys, transcribe --wait of two files,
// jobs list/get/delete, summarize, tag, taxonomy, usage, and the error paths.
func TestEndToEnd(t *testing.T) {
	base := startStack(t, 0)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "conf", "config.json")
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envConfig: cfgPath}}

	email, password := "cli-"+uuid.NewString()[:8]+"@example.com", "a-long-password-123"
	anon, err := client.New(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := anon.Signup(context.Background(), email, password); err != nil {
		t.Fatalf("signup: %v", err)
	}

	// Before login: keys needs a session (usage error, exit 2).
	if r := cli.run("", "keys", "list"); r.code != exitAuth || !strings.Contains(r.stderr, "login") {
		t.Errorf("keys list before login: exit %d, stderr %q; want 3 and a hint to log in", r.code, r.stderr)
	}

	// login: the email by flag, the password on stdin (not a terminal).
	r := cli.ok(password+"\n", "login", "--email", email)
	if !strings.Contains(r.stdout, "Signed in to "+base) {
		t.Errorf("login output: %q", r.stdout)
	}
	fi, err := os.Stat(cfgPath)
	if err != nil {
		t.Fatalf("login wrote no config file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(cfgPath)); di.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode %v, want 0700", di.Mode().Perm())
	}
	saved, _ := loadConfig(cfgPath)
	if saved.BaseURL != base || saved.SessionToken == "" || saved.Email != email {
		t.Errorf("saved config %+v", saved)
	}

	// A wrong password: the service's 401, one line, exit 3.
	if r := cli.with(envConfig, filepath.Join(dir, "other.json")).run("wrong-password\n", "login", "--email", email); r.code != exitAuth || !errorLine.MatchString(r.stderr) {
		t.Errorf("login with a wrong password: exit %d, stderr %q", r.code, r.stderr)
	}

	// keys create --save prints the secret alone on stdout and saves it.
	r = cli.ok("", "keys", "create", "--name", "e2e", "--save")
	secret := strings.TrimSpace(r.stdout)
	if secret == "" || strings.Contains(secret, "\n") {
		t.Fatalf("keys create stdout %q: want the secret alone", r.stdout)
	}
	if saved, _ := loadConfig(cfgPath); saved.APIKey != secret || saved.SessionToken == "" {
		t.Errorf("keys create --save: config %+v", saved)
	}
	r = cli.ok("", "keys", "list")
	if !strings.HasPrefix(r.stdout, "KEY ID") || len(strings.Split(strings.TrimSpace(r.stdout), "\n")) != 2 {
		t.Errorf("keys list:\n%s", r.stdout)
	}
	r = cli.ok("", "keys", "list", "--json")
	var listed client.APIKey
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &listed); err != nil || listed.ID == "" {
		t.Errorf("keys list --json %q: %v", r.stdout, err)
	}

	// usage needs the session, not the key.
	r = cli.ok("", "usage")
	if !strings.Contains(r.stdout, "Limit:") || !strings.Contains(r.stdout, "1000.00 min") {
		t.Errorf("usage:\n%s", r.stdout)
	}

	// transcribe --wait of two files at once: on stderr one line per file
	// when created, one when finished (plain output: not a terminal); on
	// stdout each transcript after a line naming its file.
	wav := repoFile(t, "testdata/audio/tone-16k-stereo-s24-0.25s.wav")
	mp3 := repoFile(t, "testdata/audio/tone-44k1-stereo-mpeg1-128k-1.0s.mp3")
	r = cli.ok("", "transcribe", "--wait", "--poll-interval", "50ms", "--language", "en", "--metadata", `{"ticket":"T-1"}`, wav, mp3)
	if want := regexp.MustCompile(`^==> \S+tone-16k\S+ <==\n(\[00:0\d\.\d\] (Agent|User): .+\n)+\n==> \S+tone-44k1\S+ <==\n(\[00:0\d\.\d\] (Agent|User): .+\n)+$`); !want.MatchString(r.stdout) {
		t.Errorf("transcribe --wait of two files: stdout is not two transcripts in the files' order:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 4 {
		t.Fatalf("transcribe --wait printed %d status lines, want 4:\n%s", len(lines), r.stderr)
	}
	ids := map[string]string{} // file -> job id
	final := map[string]string{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			t.Fatalf("transcribe line %q: want file, job id, status", l)
		}
		if _, err := uuid.Parse(f[1]); err != nil {
			t.Errorf("transcribe line %q: job id %v", l, err)
		}
		if prev, ok := ids[f[0]]; ok && prev != f[1] {
			t.Errorf("file %s got two job ids", f[0])
		}
		ids[f[0]] = f[1]
		final[f[0]] = f[2]
	}
	if len(ids) != 2 || final[wav] != "succeeded" || final[mp3] != "succeeded" {
		t.Fatalf("transcribe: ids %v, final statuses %v", ids, final)
	}
	wavJob, mp3Job := ids[wav], ids[mp3]

	// usage --daily: both files on today's UTC date, under their upload language.
	r = cli.ok("", "usage", "--daily")
	today := time.Now().UTC().Format("2006-01-02")
	if !regexp.MustCompile(`(?m)^`+today+`\s+0\.02 min\s+2$`).MatchString(r.stdout) || !regexp.MustCompile(`(?m)^  en\s+0\.02 min$`).MatchString(r.stdout) {
		t.Errorf("usage --daily: want today %s with 0.02 min in 2 calls and en with 0.02 min:\n%s", today, r.stdout)
	}
	r = cli.ok("", "usage", "--daily", "--month", "2025-03", "--json")
	var daily client.DailyUsage
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &daily); err != nil || len(daily.Months) != 2 || daily.Months[0].Month != "2025-02" || len(daily.Months[0].Days) != 28 {
		t.Errorf("usage --daily --month 2025-03 --json %q: %v", r.stdout, err)
	}
	if r := cli.run("", "usage", "--month", "2025-03"); r.code != exitUsage {
		t.Errorf("usage --month without --daily: exit %d, want %d", r.code, exitUsage)
	}

	// transcribe without --wait: one line, status queued or processing.
	r = cli.ok("", "transcribe", wav)
	if f := strings.Split(strings.TrimSpace(r.stdout), "\t"); len(f) != 3 || (f[2] != "queued" && f[2] != "processing" && f[2] != "succeeded") {
		t.Errorf("transcribe without --wait: %q", r.stdout)
	}
	thirdJob := strings.Split(strings.TrimSpace(r.stdout), "\t")[1]
	cli.ok("", "wait", thirdJob, "--poll-interval", "50ms")

	// jobs list: a table with every job; --json one object per line.
	r = cli.ok("", "jobs", "list")
	if !strings.HasPrefix(r.stdout, "JOB ID") {
		t.Errorf("jobs list has no header:\n%s", r.stdout)
	}
	for _, id := range []string{wavJob, mp3Job, thirdJob} {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("jobs list lacks %s:\n%s", id, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, filepath.Base(mp3)) {
		t.Errorf("jobs list lacks the file name:\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "list", "--all", "--limit", "1", "--json", "--type", "transcription")
	var seen []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var j client.JobSummary
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("jobs list --json line %q: %v", l, err)
		}
		seen = append(seen, j.ID)
	}
	if len(seen) != 3 {
		t.Errorf("jobs list --all --limit 1 --json: %d jobs, want 3 (every page)", len(seen))
	}
	r = cli.ok("", "jobs", "list", "--limit", "1")
	if !strings.Contains(r.stderr, "--cursor") {
		t.Errorf("jobs list --limit 1 says nothing of the next page: %q", r.stderr)
	}
	// --q: the calls whose transcript says it (the test engine's Agent line),
	// each with its matching line; --speaker narrows to one side.
	r = cli.ok("", "jobs", "list", "--q", `"thank you" calling`, "--type", "transcription")
	for _, id := range []string{wavJob, mp3Job, thirdJob} {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("jobs list --q lacks %s:\n%s", id, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "    at 0.0s Agent: thank you for calling") {
		t.Errorf("jobs list --q shows no matching line:\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "list", "--q", "calling", "--speaker", "user")
	if strings.TrimSpace(r.stdout) != "No jobs." {
		t.Errorf("jobs list --q calling --speaker user (the Agent says it):\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "list", "--job-id", mp3Job, "--status", "succeeded")
	if n := len(strings.Split(strings.TrimSpace(r.stdout), "\n")); n != 2 || !strings.Contains(r.stdout, mp3Job) {
		t.Errorf("jobs list --job-id:\n%s", r.stdout)
	}

	// --keyterm, repeated: each flag is one term (commas stay in it); the job
	// stores them and its result reports them (the test engine's report).
	r = cli.ok("", "transcribe", "--wait", "--poll-interval", "50ms", "--keyterm", "refund", "--keyterm", "Northwind Energy, Inc", wav)
	ktJob := strings.Split(strings.Split(strings.TrimSpace(r.stderr), "\n")[0], "\t")[1]
	r = cli.ok("", "jobs", "get", ktJob, "--format", "json")
	var kt client.Job
	if err := json.Unmarshal([]byte(r.stdout), &kt); err != nil {
		t.Fatalf("jobs get --format json: %v\n%s", err, r.stdout)
	}
	if want := []string{"refund", "Northwind Energy, Inc"}; !slices.Equal(kt.Keyterms, want) {
		t.Errorf("--keyterm: job keyterms %q, want %q", kt.Keyterms, want)
	}
	if res, err := kt.Transcription(); err != nil || res.MetaData == nil || res.MetaData.Keyterms == nil || !slices.Equal(res.MetaData.Keyterms.Applied, []string{"refund"}) {
		t.Errorf("--keyterm: result %+v, %v", res, err)
	}
	// --redact-pii asks for redaction: the result carries its counts (the
	// test engine's lines hold nothing to redact).
	r = cli.ok("", "transcribe", "--wait", "--poll-interval", "50ms", "--redact-pii", wav)
	redactJob := strings.Split(strings.Split(strings.TrimSpace(r.stderr), "\n")[0], "\t")[1]
	r = cli.ok("", "jobs", "get", redactJob, "--format", "json")
	var redacted client.Job
	if err := json.Unmarshal([]byte(r.stdout), &redacted); err != nil {
		t.Fatalf("jobs get --format json: %v\n%s", err, r.stdout)
	}
	if res, err := redacted.Transcription(); err != nil || res.Redaction == nil || len(res.Redaction.Categories) != 4 {
		t.Errorf("--redact-pii: result %+v, %v", res, err)
	}
	// The service's rules decide (an empty term): its 400, one line, exit 1.
	if r := cli.run("", "transcribe", "--keyterm", " ", wav); r.code != exitError || !strings.Contains(r.stderr, "INVALID_KEYTERMS") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("transcribe --keyterm ' ': exit %d, stderr %q", r.code, r.stderr)
	}

	// jobs get: the transcript one line per turn.
	r = cli.ok("", "jobs", "get", mp3Job)
	turn := regexp.MustCompile(`(?m)^\[00:0\d\.\d\] (Agent|User): \S.*$`)
	if got := turn.FindAllString(r.stdout, -1); len(got) != 2 || !strings.Contains(r.stdout, "] Agent: ") {
		t.Errorf("jobs get text: want two turn lines with an Agent line:\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "get", mp3Job, "--format", "json")
	var job client.Job
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil || job.ID != mp3Job || job.Status != "succeeded" {
		t.Errorf("jobs get --format json: %v\n%s", err, r.stdout)
	}
	r = cli.ok("", "jobs", "get", mp3Job, "--format", "srt")
	if !strings.Contains(r.stdout, "-->") {
		t.Errorf("jobs get --format srt:\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "get", mp3Job, "--format", "vtt")
	if !strings.HasPrefix(r.stdout, "WEBVTT") {
		t.Errorf("jobs get --format vtt:\n%s", r.stdout)
	}

	// summarize --text - (stdin) --wait prints the summary.
	dialogue, err := os.ReadFile(repoFile(t, "testdata/dialogues/01-billing-double-charge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r = cli.ok(string(dialogue), "summarize", "--text", "-", "--wait", "--poll-interval", "50ms")
	if len(strings.TrimSpace(r.stdout)) < 10 {
		t.Errorf("summarize --wait printed no summary: %q", r.stdout)
	}
	// summarize --job without --wait: the new job's id and status.
	r = cli.ok("", "summarize", "--job", wavJob)
	f := strings.Split(strings.TrimSpace(r.stdout), "\t")
	if len(f) != 2 {
		t.Fatalf("summarize without --wait: %q", r.stdout)
	}
	r = cli.ok("", "wait", f[0], "--poll-interval", "50ms")
	if strings.TrimSpace(r.stdout) == "" {
		t.Errorf("wait on a summary printed nothing")
	}

	// tag --job --wait prints one line per category.
	r = cli.ok("", "tag", "--job", mp3Job, "--wait", "--poll-interval", "50ms")
	if !regexp.MustCompile(`(?m)^call_reason:\s+\S`).MatchString(r.stdout) {
		t.Errorf("tag --wait:\n%s", r.stdout)
	}
	// jobs list --source: the derived jobs of one transcription, with the
	// other filters.
	r = cli.ok("", "jobs", "list", "--source", wavJob)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.Contains(lines[1], f[0]) || !strings.Contains(lines[1], "summary") {
		t.Errorf("jobs list --source %s: want a header and the summary %s:\n%s", wavJob, f[0], r.stdout)
	}
	r = cli.ok("", "jobs", "list", "--source", mp3Job, "--type", "tags", "--json")
	var tagged client.JobSummary
	if err := json.Unmarshal([]byte(r.stdout), &tagged); err != nil || tagged.Type != client.TypeTags || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("jobs list --source %s --type tags --json: want the one tags job: %v\n%s", mp3Job, err, r.stdout)
	}
	if r := cli.run("", "jobs", "list", "--source", "call-1"); r.code != exitError || !strings.Contains(r.stderr, "INVALID_FILTER") {
		t.Errorf("jobs list --source call-1: exit %d, stderr %q; want 1 and INVALID_FILTER", r.code, r.stderr)
	}
	if r := cli.run("", "jobs", "list", "--q", `"unclosed`); r.code != exitError || !strings.Contains(r.stderr, "INVALID_FILTER") {
		t.Errorf("jobs list --q with an unclosed quote: exit %d, stderr %q; want 1 and INVALID_FILTER", r.code, r.stderr)
	}
	if r := cli.run("", "jobs", "list", "--speaker", "Agent"); r.code != exitUsage {
		t.Errorf("jobs list --speaker without --q: exit %d; want %d", r.code, exitUsage)
	}
	r = cli.ok("", "taxonomy")
	if !strings.Contains(r.stdout, "call_reason") {
		t.Errorf("taxonomy:\n%s", r.stdout)
	}

	// A job that fails (this engine transcribes English only): --wait prints
	// its status lines and then one error line on stderr, no transcript,
	// exit 1; jobs get shows the error.
	r = cli.run("", "transcribe", "--wait", "--poll-interval", "50ms", "--language", "fr", wav)
	errLines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != exitError || r.stdout != "" || len(errLines) != 3 || !strings.Contains(errLines[1], "\tfailed: ") || !strings.HasPrefix(errLines[2], "callscribe: "+wav+": job ") {
		t.Errorf("transcribe --wait of a failing job: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	failedJob := strings.Split(errLines[0], "\t")[1]
	r = cli.run("", "wait", failedJob)
	if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "callscribe: job "+failedJob+" failed: ") {
		t.Errorf("wait on a failed job: exit %d, stderr %q", r.code, r.stderr)
	}
	r = cli.ok("", "jobs", "get", failedJob)
	if !strings.Contains(r.stdout, "failed: ") {
		t.Errorf("jobs get of a failed job: %q", r.stdout)
	}

	// jobs delete, then the job is gone: exit 1, one line with the code and requestId.
	r = cli.ok("", "jobs", "delete", thirdJob)
	if !strings.Contains(r.stdout, thirdJob) {
		t.Errorf("jobs delete: %q", r.stdout)
	}
	r = cli.run("", "jobs", "get", uuid.NewString())
	if r.code != exitError || !errorLine.MatchString(r.stderr) || !strings.HasPrefix(r.stderr, "callscribe: JOB_NOT_FOUND: ") || r.stdout != "" {
		t.Errorf("jobs get of no job: exit %d, stderr %q, stdout %q; want 1 and one JOB_NOT_FOUND line", r.code, r.stderr, r.stdout)
	}
	// An API error of the service (400) is exit 1 too.
	r = cli.run("", "summarize", "--job", uuid.NewString())
	if r.code != exitError || !errorLine.MatchString(r.stderr) {
		t.Errorf("summarize of no job: exit %d, stderr %q", r.code, r.stderr)
	}
	// A file the service refuses: one line naming the file, exit 1.
	r = cli.run("", "transcribe", repoFile(t, "testdata/audio/tone-8k-mono-0.5s.flac"))
	if r.code != exitError || !strings.Contains(r.stderr, "UNSUPPORTED_AUDIO_FORMAT") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("transcribe of a FLAC file: exit %d, stderr %q", r.code, r.stderr)
	}

	// Usage errors: exit 2, one line on stderr.
	noKey := cli.with(envConfig, filepath.Join(dir, "empty.json"))
	for _, args := range [][]string{
		{"jobs", "get"},                            // missing argument
		{"jobs", "list", "--status", "bogus"},      // not one of the enum
		{"frobnicate"},                             // no such command
		{"summarize"},                              // no source
		{"summarize", "--job", "x", "--text", "-"}, // two sources
		{"transcribe", "--metadata", "[1]", wav},   // metadata not an object
		{"transcribe", filepath.Join(dir, "missing.wav")},
	} {
		r := cli.run("", args...)
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "callscribe: ") {
			t.Errorf("callscribe %s: exit %d, stderr %q; want 2 and one line", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := noKey.run("", "jobs", "list"); r.code != exitAuth || !strings.Contains(r.stderr, "no API key") {
		t.Errorf("jobs list without an API key: exit %d, stderr %q", r.code, r.stderr)
	}
	// An expired saved session is a usage error too, before any request.
	expired := filepath.Join(dir, "expired.json")
	if err := saveConfig(expired, fileConfig{BaseURL: base, SessionToken: "x", SessionExpiresAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if r := cli.with(envConfig, expired).run("", "usage"); r.code != exitAuth || !strings.Contains(r.stderr, "expired") {
		t.Errorf("usage with an expired session: exit %d, stderr %q", r.code, r.stderr)
	}

	// --help on a command: exit 0, with examples.
	r = cli.ok("", "transcribe", "--help")
	if !strings.Contains(r.stdout, "Examples:") {
		t.Errorf("transcribe --help has no examples:\n%s", r.stdout)
	}

	// keys revoke: the key stops working (401: exit 3, one line).
	r = cli.ok("", "keys", "list", "--json")
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &listed); err != nil {
		t.Fatal(err)
	}
	cli.ok("", "keys", "revoke", listed.ID)
	r = cli.run("", "jobs", "list")
	if r.code != exitAuth || !errorLine.MatchString(r.stderr) {
		t.Errorf("jobs list with a revoked key: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestGatewayKey: behind a gateway that wants the apikey header, the key comes
// from CALLSCRIBE_GATEWAY_KEY or --gateway-key; without it the gateway's 401
// is one line and exit 3.
func TestGatewayKey(t *testing.T) {
	base := startStack(t, 0, "gw-secret")
	key := newAPIKey(t, base, client.WithGatewayKey("gw-secret"))
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envAPIKey: key, envConfig: filepath.Join(t.TempDir(), "c.json")}}
	r := cli.run("", "jobs", "list")
	if r.code != exitAuth || !errorLine.MatchString(r.stderr) {
		t.Errorf("without the gateway key: exit %d, stderr %q", r.code, r.stderr)
	}
	cli.with(envGatewayKey, "gw-secret").ok("", "jobs", "list")
	cli.ok("", "--gateway-key", "gw-secret", "taxonomy")
}

// signup creates the account and signs in like login: the session is saved.
func TestSignupSignsIn(t *testing.T) {
	base := startStack(t, 0)
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envConfig: cfgPath}}
	email := "signup-" + uuid.NewString()[:8] + "@example.com"
	r := cli.ok("a-long-password-123\n", "signup", "--email", email)
	if !strings.Contains(r.stdout, "Signed in to "+base) || !strings.Contains(r.stderr, "Created the account "+email) {
		t.Fatalf("signup: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if saved, _ := loadConfig(cfgPath); saved.SessionToken == "" || saved.Email != email {
		t.Fatalf("signup saved %+v", saved)
	}
	if r := cli.ok("", "keys", "create", "--save"); strings.TrimSpace(r.stdout) == "" {
		t.Fatal("no key after signup")
	}
	// The same email again: the service's EMAIL_TAKEN, one line suggesting
	// login, exit 1.
	if r := cli.run("a-long-password-123\n", "signup", "--email", email); r.code != exitError || !strings.Contains(r.stderr, "EMAIL_TAKEN") || !errorLine.MatchString(r.stderr) || !strings.Contains(r.stderr, "callscribe login --email "+email) {
		t.Fatalf("second signup: exit %d stderr %q", r.code, r.stderr)
	}
}
