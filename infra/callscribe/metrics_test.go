package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

func conf(f float64) *float64 { return &f }

func TestMarkedText(t *testing.T) {
	seg := client.Segment{Text: "my bill was wrong", Words: []client.Word{
		{Text: "my", Confidence: conf(0.9)},
		{Text: "bill", Confidence: conf(0.49)},
		{Text: "was", Confidence: nil},
		{Text: "wrong", Confidence: conf(0.5)},
	}}
	for _, c := range []struct {
		threshold float64
		want      string
	}{
		{0, "my bill was wrong"},      // off
		{0.5, "my [bill?] was wrong"}, // below, not at, the threshold; no confidence: unmarked
		{0.95, "[my?] [bill?] was [wrong?]"},
	} {
		if got := markedText(seg, c.threshold); got != c.want {
			t.Errorf("markedText(%v) = %q, want %q", c.threshold, got, c.want)
		}
	}
	// Without word timings the text stays as it is.
	if got := markedText(client.Segment{Text: "no words here"}, 0.5); got != "no words here" {
		t.Errorf("markedText of a segment without words = %q", got)
	}
}

func TestWriteMetricsTable(t *testing.T) {
	response := 1.25
	m := &client.CallMetrics{
		Speakers: []client.SpeakerMetrics{
			{SpeakerID: 0, SpeakerAlias: "Agent", TalkSeconds: 9.5, TalkShare: 0.5429, WordsPerMinute: 120, Turns: 3, LongestMonologueSeconds: 5},
			{SpeakerID: 1, SpeakerAlias: "User", TalkSeconds: 8, TalkShare: 0.4571, WordsPerMinute: 120, Turns: 2, LongestMonologueSeconds: 4, Interruptions: 2},
		},
		NonTalkSeconds: 4.5, LongestSilenceSeconds: 2, OvertalkSeconds: 2, OvertalkCount: 2,
		AgentMedianResponseSeconds: &response,
	}
	var b strings.Builder
	if err := writeMetricsTable(&b, m); err != nil {
		t.Fatal(err)
	}
	want := `SPEAKER  TALK   SHARE  WORDS/MIN  TURNS  LONGEST MONOLOGUE  INTERRUPTIONS
Agent    9.50s  54.3%  120.0      3      5.00s              0
User     8.00s  45.7%  120.0      2      4.00s              2

Non-talk time:          4.50s
Longest silence:        2.00s
Overtalk:               2.00s in 2 stretches
Agent median response:  1.25s
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	writeMetricsTable(&b, &client.CallMetrics{Speakers: []client.SpeakerMetrics{}, NonTalkSeconds: 3, LongestSilenceSeconds: 3, OvertalkCount: 1})
	for _, s := range []string{"(no speech)", "in 1 stretch\n", "Agent median response:  - (no User turn the Agent answered)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table of a call without speech lacks %q:\n%s", s, b.String())
		}
	}
}

// A result stored before metrics existed has none: an error, not an empty table.
func TestJobMetricsOfAnOldResult(t *testing.T) {
	job := &client.Job{ID: "j-1", Type: client.TypeTranscription, Status: client.StatusSucceeded,
		Result: json.RawMessage(`{"language":"en","duration_seconds":1,"words_count":0,"transcript":[]}`)}
	if m, err := jobMetrics(job); err == nil || !strings.Contains(err.Error(), "before the service computed them") {
		t.Errorf("jobMetrics of a result without metrics: %+v, %v", m, err)
	}
}

// TestJobsMetricsEndToEnd runs jobs metrics and jobs get's word marks
// against a running local stack (the test engine: a stereo call is the
// Agent's line over the first half, the User's over the second, every word at
// confidence 0.9), and the errors of jobs that have no metrics.
func TestJobsMetricsEndToEnd(t *testing.T) {
	base := startStack(t, 200*time.Millisecond)
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envAPIKey: newAPIKey(t, base), envConfig: filepath.Join(t.TempDir(), "c.json")}}
	wav := repoFile(t, "testdata/audio/tone-16k-stereo-s24-0.25s.wav")

	// Still running: exit 4, as a wait that gave up, naming the wait to run.
	r := cli.ok("", "transcribe", wav)
	id := strings.Split(strings.TrimSpace(r.stdout), "\t")[1]
	if r := cli.run("", "jobs", "metrics", id); r.code != exitStillRunning || !strings.Contains(r.stderr, "no metrics yet") || !strings.Contains(r.stderr, "callscribe wait "+id) {
		t.Errorf("jobs metrics of a running job: exit %d, stderr %q; want 4 and a hint to wait", r.code, r.stderr)
	}
	cli.ok("", "wait", id, "--poll-interval", "50ms")

	// The table: a header, the Agent's and the User's rows (0.125 s each,
	// which %.2f prints as 0.12; half the talk; one turn), then the call's
	// figures.
	r = cli.ok("", "jobs", "metrics", id)
	for _, re := range []string{
		`(?m)^SPEAKER +TALK +SHARE +WORDS/MIN +TURNS +LONGEST MONOLOGUE +INTERRUPTIONS$`,
		`(?m)^Agent +0\.12s +50\.0% +\d+\.\d +1 +0\.12s +0$`,
		`(?m)^User +0\.12s +50\.0% +\d+\.\d +1 +0\.12s +0$`,
		`(?m)^Non-talk time: +0\.00s$`,
		`(?m)^Overtalk: +0\.00s in 0 stretches$`,
		`(?m)^Agent median response: +- `,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("jobs metrics: no line matching %s:\n%s", re, r.stdout)
		}
	}
	// --format json is the result's metrics object, the same as jobs get's.
	r = cli.ok("", "jobs", "metrics", id, "--format", "json")
	var m client.CallMetrics
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || len(m.Speakers) != 2 {
		t.Fatalf("jobs metrics --format json: %v\n%s", err, r.stdout)
	}
	r = cli.ok("", "jobs", "get", id, "--format", "json")
	var job client.Job
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil {
		t.Fatal(err)
	}
	res, err := job.Transcription()
	if err != nil || res.Metrics == nil {
		t.Fatalf("jobs get --format json: no metrics (%v):\n%s", err, r.stdout)
	}
	if a, b := mustJSON(t, m), mustJSON(t, *res.Metrics); a != b {
		t.Errorf("jobs metrics --format json %s differs from the job's metrics %s", a, b)
	}
	// jobs get --format json carries every segment's words and confidence.
	for i, s := range res.Transcript {
		if len(s.Words) != len(strings.Fields(s.Text)) || s.Confidence == nil {
			t.Errorf("jobs get --format json: segment %d has %d words for %q, confidence %v", i, len(s.Words), s.Text, s.Confidence)
		}
		for _, w := range s.Words {
			if w.Confidence == nil || w.End < w.Start {
				t.Errorf("jobs get --format json: segment %d word %+v", i, w)
			}
		}
	}

	// --mark-low-confidence: bare (0.5) marks none of the 0.9 words, 0.95 all.
	plain := cli.ok("", "jobs", "get", id).stdout
	if r := cli.ok("", "jobs", "get", "--mark-low-confidence", id); r.stdout != plain || strings.Contains(r.stdout, "?]") {
		t.Errorf("jobs get --mark-low-confidence (0.5) changed words at 0.9:\n%s", r.stdout)
	}
	r = cli.ok("", "jobs", "get", id, "--mark-low-confidence=0.95")
	if want := regexp.MustCompile(`(?m)^\[00:00\.0\] Agent: (\[\w+\?\] ?)+$`); !want.MatchString(r.stdout) || strings.Count(r.stdout, "?]") != len(strings.Fields(plain))-4 {
		t.Errorf("jobs get --mark-low-confidence=0.95: want every word marked:\n%s\nfrom:\n%s", r.stdout, plain)
	}
	for _, args := range [][]string{
		{"jobs", "get", id, "--mark-low-confidence=1.5"},
		{"jobs", "get", id, "--mark-low-confidence=x"},
		{"jobs", "get", id, "--mark-low-confidence", "--format", "json"},
		{"jobs", "metrics", id, "--format", "csv"},
	} {
		if r := cli.run("", args...); r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("callscribe %s: exit %d, stderr %q; want 2 and one line", strings.Join(args, " "), r.code, r.stderr)
		}
	}

	// A summary has no metrics: exit 1, naming its transcription.
	cli.ok("", "summarize", "--job", id, "--wait", "--poll-interval", "50ms")
	r = cli.ok("", "jobs", "list", "--source", id, "--json")
	var sum client.JobSummary
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &sum); err != nil {
		t.Fatal(err)
	}
	r = cli.run("", "jobs", "metrics", sum.ID)
	if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "is a summary job") || !strings.Contains(r.stderr, "callscribe jobs metrics "+id) {
		t.Errorf("jobs metrics of a summary: exit %d, stderr %q", r.code, r.stderr)
	}
	// A failed job: its error, exit 1; under --json the job's error code.
	r = cli.run("", "transcribe", "--wait", "--poll-interval", "50ms", "--language", "fr", wav)
	failed := strings.Split(strings.Split(strings.TrimSpace(r.stderr), "\n")[0], "\t")[1]
	r = cli.run("", "jobs", "metrics", failed)
	if r.code != exitError || !strings.HasPrefix(r.stderr, "callscribe: job "+failed+" failed: ") {
		t.Errorf("jobs metrics of a failed job: exit %d, stderr %q", r.code, r.stderr)
	}
	r = cli.run("", "--json", "jobs", "metrics", failed)
	var body errorBody
	if err := json.Unmarshal([]byte(r.stderr), &body); err != nil || body.JobID != failed || body.Error.Code == "" || body.Error.Code == codeCLI {
		t.Errorf("--json jobs metrics of a failed job: %v, %q", err, r.stderr)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
