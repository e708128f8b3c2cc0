package apitest

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// RealCall is a recorded (or synthesised) two-channel call with what a real
// speech engine must find in it.
type RealCall struct {
	Filename string
	Audio    []byte
	// Seconds is the audio's duration; the transcription and the quota must
	// agree with it to 0.1 s.
	Seconds float64
	// AgentWords and UserWords are words that must be recognised on the Agent
	// (speaker 0) and User (speaker 1) channels; a few distinctive words of
	// each side, not every word (the engine is allowed a word error rate).
	AgentWords, UserWords []string
}

// RunRealCall drives the whole product path with the target's real engines:
// upload a call, poll it to succeeded, check the transcript is speaker-
// attributed by channel, in time order, within the audio, with the expected
// words on each side, then derive a summary and tags from it and check the
// tags against the published taxonomy, and the usage against the duration.
// It is for targets running their default (production) engines, so it asks
// for nothing a test engine would fake.
func RunRealCall(t *testing.T, target Target, opts Options, call RealCall) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	id := a.MustUpload(t, Upload{Filename: call.Filename, Data: call.Audio, Language: "en"})
	if id == "" {
		t.FailNow()
	}
	r := s.mustSucceed(t, a, id)
	res := r.Body["result"].(map[string]any)
	// The hint was "en"; an engine may report the locale it ran (Amazon
	// Transcribe: en-US), which is still the language asked for.
	if lang, _ := res["language"].(string); lang != "en" && !strings.HasPrefix(lang, "en-") {
		t.Errorf("language %v, want en or an English locale", res["language"])
	}
	if d, _ := num(res["duration_seconds"]); math.Abs(d-call.Seconds) > 0.1 {
		t.Errorf("duration_seconds %v, want %.2f", res["duration_seconds"], call.Seconds)
	}
	segs, _ := res["transcript"].([]any)
	words := map[int][]string{}
	wordsCount, prevStart := 0, -1.0
	for i, sv := range segs {
		seg := sv.(map[string]any)
		text, _ := seg["text"].(string)
		speaker, _ := num(seg["speaker_id"])
		alias, _ := seg["speaker_alias"].(string)
		start, _ := num(seg["time_start"])
		end, _ := num(seg["time_end"])
		if want := map[float64]string{0: "Agent", 1: "User"}[speaker]; alias != want {
			t.Errorf("segment %d: speaker %v has alias %q, want %q (AGENT_CHANNEL=0)", i, speaker, alias, want)
		}
		if start < prevStart {
			t.Errorf("segment %d starts at %v, before the previous one (%v): not in time order", i, start, prevStart)
		}
		if end > call.Seconds+0.1 {
			t.Errorf("segment %d ends at %v, after the audio (%.2f s)", i, end, call.Seconds)
		}
		prevStart = start
		fields := strings.Fields(strings.ToLower(text))
		words[int(speaker)] = append(words[int(speaker)], fields...)
		wordsCount += len(fields)
	}
	if n, _ := num(res["words_count"]); int(n) != wordsCount {
		t.Errorf("words_count %v, but the segments hold %d words", res["words_count"], wordsCount)
	}
	for speaker, want := range map[int][]string{0: call.AgentWords, 1: call.UserWords} {
		for _, w := range want {
			if !slices.Contains(words[speaker], w) {
				t.Errorf("speaker %d: %q not recognised; heard %q", speaker, w, strings.Join(words[speaker], " "))
			}
		}
	}

	if u := a.Usage(t); math.Abs(u.Used-round2(call.Seconds)) > 0.011 {
		t.Errorf("usage used_minutes %v, want %.2f for a %.2f s call", u.Used, round2(call.Seconds), call.Seconds)
	}

	summaryID := a.MustDerive(t, "summary", map[string]string{"transcription_job_id": id})
	tagsID := a.MustDerive(t, "tags", map[string]string{"transcription_job_id": id})
	if summaryID == "" || tagsID == "" {
		t.FailNow()
	}
	summary := s.mustSucceed(t, a, summaryID).Body["result"].(map[string]any)
	if topic, _ := summary["topic"].(string); strings.TrimSpace(topic) == "" {
		t.Errorf("summary topic %v: empty", summary["topic"])
	}
	if text, _ := summary["summary"].(string); len(strings.Fields(text)) < 8 {
		t.Errorf("summary %q: not a readable summary", text)
	}

	taxonomy := a.c.do(t, http.MethodGet, "/v1/tags/taxonomy", nil, withBearer(a.APIKey))
	if taxonomy.Status != http.StatusOK {
		t.Fatalf("taxonomy: %s", taxonomy)
	}
	allowed := taxonomyValues(t, taxonomy)
	tags := s.mustSucceed(t, a, tagsID).Body["result"].(map[string]any)["tags"].(map[string]any)
	for cat, vals := range tags {
		arr, _ := vals.([]any)
		if len(arr) == 0 {
			t.Errorf("tags.%s is empty", cat)
		}
		for _, v := range arr {
			if s, _ := v.(string); !allowed[cat][s] {
				t.Errorf("tags.%s holds %v, which the taxonomy does not publish", cat, v)
			}
		}
	}
}

// taxonomyValues reads GET /v1/tags/taxonomy into category -> allowed values.
// The body is {"categories":[{"name","values":[{"value",...}]}]}.
func taxonomyValues(t testing.TB, r *Response) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	cats, _ := r.Body["categories"].([]any)
	for _, cv := range cats {
		c, _ := cv.(map[string]any)
		name, _ := c["name"].(string)
		out[name] = map[string]bool{}
		vals, _ := c["values"].([]any)
		for _, vv := range vals {
			v, _ := vv.(map[string]any)
			if s, _ := v["value"].(string); s != "" {
				out[name][s] = true
			}
		}
	}
	if len(out) != 4 {
		t.Fatalf("taxonomy has %d categories, want 4: %s", len(out), r)
	}
	return out
}

// RealCallTimeout bounds the wait for a real engine's transcript of
// BillingCall: about 15 s of CPU with speaker adaptation, which a 2-core
// machine running the rest of the suite in parallel can stretch several
// times; a bound on waiting, not a speed target (make bench-asr measures speed).
const RealCallTimeout = 3 * time.Minute

// BillingCall is a short billing call; SynthesizeCall speaks the Agent on the
// left channel and the User on the right with different flite voices.
const BillingCall = `Agent: Thank you for calling, my name is Sarah. How can I help you today?
User: Hello, I was charged twice for my bill this month.
Agent: I am sorry about that. I can see the second payment, I will refund it now.
User: Thank you, that is great.
`

// SynthesizeCall speaks dialogue ("Agent: ..." / "User: ..." lines) into an 8
// kHz stereo WAV with infra/bench/cmd/synthcall and returns it as a RealCall
// with the words each side must be heard saying. It skips the test where
// flite or sox is missing (make deps-speech installs them).
func SynthesizeCall(t *testing.T, dialogue string, agentWords, userWords []string) RealCall {
	t.Helper()
	for _, tool := range []string{"flite", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; run make deps-speech", tool)
		}
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "call.txt")
	if err := os.WriteFile(text, []byte(dialogue), 0o600); err != nil {
		t.Fatal(err)
	}
	wav, ref := filepath.Join(dir, "call.wav"), filepath.Join(dir, "call.json")
	synth := exec.Command(GoTool(), "run", "./infra/bench/cmd/synthcall", "-in", text, "-out", wav, "-rate", "8000", "-ref", ref)
	synth.Dir = repoRoot(t)
	if out, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("synthcall: %v\n%s", err, out)
	}
	audio, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	var reference struct {
		Duration float64 `json:"duration"`
	}
	if b, err := os.ReadFile(ref); err != nil || json.Unmarshal(b, &reference) != nil {
		t.Fatalf("reading the reference %s: %v", ref, err)
	}
	return RealCall{Filename: "billing-call.wav", Audio: audio, Seconds: reference.Duration, AgentWords: agentWords, UserWords: userWords}
}
