package apitest

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/testkit/whisperstandin"
)

// WhisperServer is how a target was started for RunWhisperServer: with
// TRANSCRIBER=openai, OPENAI_BASE_URL at StandIn.URL, OPENAI_API_KEY=APIKey,
// OPENAI_TRANSCRIBE_MODEL=Model and AGENT_CHANNEL=0.
type WhisperServer struct {
	StandIn *whisperstandin.Server
	APIKey  string
	Model   string
}

// whisperCall is the stereo call of RunWhisperServer: the Agent on the left,
// the User on the right, two segments each, interleaved in time.
var whisperCall = []whisperstandin.Line{
	{Channel: 0, Start: 0.2, Words: []string{"thanks", "for", "calling"}},
	{Channel: 1, Start: 1.6, Words: []string{"my", "bill", "was", "charged", "twice"}},
	{Channel: 0, Start: 3.8, Words: []string{"sorry", "refund", "issued", "today"}},
	{Channel: 1, Start: 5.6, Words: []string{"great", "goodbye"}},
}

const whisperCallSeconds = 6.6

// RunWhisperServer drives the TRANSCRIBER=openai path end to end against a
// Whisper-compatible stand-in (package whisperstandin), which hears what the
// service sends it, so the transcript checked here is the recording's:
//   - a stereo WAV, answered in turn as OpenAI, speaches and whisper.cpp do:
//     one request per channel, each a 16-bit mono WAV at the call's rate,
//     with the model, verbose_json, both timestamp granularities, the
//     language and the keyterms' prompt, and the key as a bearer token; the
//     transcript has the channels as speakers 0/1 (Agent/User) and the
//     stand-in's segment and word times;
//   - the same call as a stereo MP3 (when lame is installed and this build
//     decodes MP3);
//   - a server that ignores timestamp_granularities: segments without words;
//   - a wrong key: the server's 401 (OpenAI) or 403 (speaches) fails the
//     job at once (no retry) with provider_error carrying the server's code
//     or status and its message, and reading the job stays a 200;
//   - the server down: the job fails at once with provider_unreachable.
//
// The last step closes the stand-in.
func RunWhisperServer(t *testing.T, target Target, opts Options, w WhisperServer) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	wav := whisperstandin.ToneCall(8000, 2, whisperCallSeconds, whisperCall)
	terms := `["refund", "Acme Energy"]`
	const prompt = "Terms: refund, Acme Energy."

	for _, d := range []whisperstandin.Dialect{whisperstandin.OpenAI, whisperstandin.Speaches, whisperstandin.WhisperCpp} {
		t.Run("StereoWAV/"+d.String(), func(t *testing.T) {
			w.StandIn.SetDialect(d)
			w.StandIn.Reset()
			id := a.MustUpload(t, Upload{Filename: "call.wav", Data: wav, Language: "en-US", Keyterms: &terms})
			if id == "" {
				t.FailNow()
			}
			res := s.mustSucceed(t, a, id).Body["result"].(map[string]any)
			checkWhisperTranscript(t, res, 0, true)
			checkWhisperRequests(t, w, "en", prompt)
			if lang, _ := res["language"].(string); lang != "en" {
				t.Errorf("language %v, want en (the server's %q as a code)", res["language"], w.StandIn.Requests()[0].Answer.Language)
			}
			md, _ := res["meta_data"].(map[string]any)
			kt, _ := md["keyterms"].(map[string]any)
			if applied, _ := kt["applied"].([]any); kt["method"] != "prompt" || len(applied) != 2 {
				t.Errorf("meta_data.keyterms %v, want method prompt with both terms applied", md["keyterms"])
			}
		})
	}
	w.StandIn.SetDialect(whisperstandin.OpenAI)

	t.Run("StereoMP3", func(t *testing.T) {
		if !decode.MP3Supported() {
			t.Skip("this build does not decode MP3 (no cgo)")
		}
		lame, err := exec.LookPath("lame")
		if err != nil {
			t.Skip("lame is not installed")
		}
		dir := t.TempDir()
		in, out := filepath.Join(dir, "call.wav"), filepath.Join(dir, "call.mp3")
		if err := os.WriteFile(in, wav, 0o600); err != nil {
			t.Fatal(err)
		}
		// True stereo (no joint coding), so neither channel leaks into the other.
		if b, err := exec.Command(lame, "--quiet", "-m", "s", "-b", "32", in, out).CombinedOutput(); err != nil {
			t.Fatalf("lame: %v\n%s", err, b)
		}
		mp3, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		w.StandIn.Reset()
		id := a.MustUpload(t, Upload{Filename: "call.mp3", ContentType: "audio/mpeg", Data: mp3})
		if id == "" {
			t.FailNow()
		}
		res := s.mustSucceed(t, a, id).Body["result"].(map[string]any)
		// Lossy coding moves a tone's edges by up to a 20 ms frame or two.
		checkWhisperTranscript(t, res, 0.05, true)
		checkWhisperRequests(t, w, "", "")
	})

	t.Run("NoWordTimings", func(t *testing.T) {
		w.StandIn.IgnoreGranularities(true)
		defer w.StandIn.IgnoreGranularities(false)
		w.StandIn.Reset()
		id := a.MustUpload(t, Upload{Filename: "call.wav", Data: wav})
		if id == "" {
			t.FailNow()
		}
		res := s.mustSucceed(t, a, id).Body["result"].(map[string]any)
		checkWhisperTranscript(t, res, 0, false)
		checkWhisperRequests(t, w, "", "")
	})

	// OpenAI answers a wrong key 401 with its error body; speaches 403
	// with FastAPI's {"detail"}, which has no code of its own.
	for _, wrong := range []struct {
		dialect      whisperstandin.Dialect
		status       int
		code, phrase string
	}{
		{whisperstandin.OpenAI, 401, "invalid_api_key", "Incorrect API key"},
		{whisperstandin.Speaches, 403, "http_403", "Invalid API key"},
	} {
		t.Run("WrongKey/"+wrong.dialect.String(), func(t *testing.T) {
			w.StandIn.SetDialect(wrong.dialect)
			w.StandIn.SetAPIKey(w.APIKey + "-rotated")
			defer w.StandIn.SetAPIKey(w.APIKey)
			w.StandIn.Reset()
			id := a.MustUpload(t, Upload{Filename: "call.wav", Data: wav})
			if id == "" {
				t.FailNow()
			}
			pe := mustFailWithProvider(t, s, a, id, wrong.code)
			if msg, _ := pe["message"].(string); !strings.Contains(msg, itoa(wrong.status)) || !strings.Contains(msg, wrong.phrase) || strings.Contains(msg, "{") {
				t.Errorf("provider_error.message %q: want the server's status (%d) and its message, not its JSON", msg, wrong.status)
			}
			// Failed at once: the one attempt's request per channel, no retry.
			reqs := w.StandIn.Requests()
			if len(reqs) != 2 || reqs[0].Status != wrong.status || reqs[1].Status != wrong.status {
				t.Errorf("stand-in received %d requests, want the 2 of one attempt, both answered %d", len(reqs), wrong.status)
			}
		})
	}
	w.StandIn.SetDialect(whisperstandin.OpenAI)

	t.Run("ServerDown", func(t *testing.T) {
		w.StandIn.Close()
		id := a.MustUpload(t, Upload{Filename: "call.wav", Data: wav})
		if id == "" {
			t.FailNow()
		}
		pe := mustFailWithProvider(t, s, a, id, "provider_unreachable")
		if msg, _ := pe["message"].(string); !strings.Contains(msg, "refused") {
			t.Errorf("provider_error.message %q: want the connection refusal", msg)
		}
	})
}

// RunWhisperTimeout checks a target started as for RunWhisperServer but with
// a short OPENAI_TIMEOUT: a server that takes longer than that fails the job
// at once with provider_timeout. It leaves the stand-in slowed down by delay.
func RunWhisperTimeout(t *testing.T, target Target, opts Options, w WhisperServer, delay time.Duration) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	w.StandIn.SetDelay(delay)
	w.StandIn.Reset()
	id := a.MustUpload(t, Upload{Filename: "call.wav", Data: whisperstandin.ToneCall(8000, 2, whisperCallSeconds, whisperCall)})
	if id == "" {
		t.FailNow()
	}
	started := time.Now()
	mustFailWithProvider(t, s, a, id, "provider_timeout")
	if took := time.Since(started); took > delay {
		t.Errorf("the job failed after %s, not at its first timeout (the stand-in answers after %s)", took, delay)
	}
	if reqs := w.StandIn.Requests(); len(reqs) != 2 {
		t.Errorf("stand-in received %d requests, want the 2 of one attempt", len(reqs))
	}
}

// mustFailWithProvider waits for a job that must fail with provider_error
// and the provider's code, and returns its provider_error block.
func mustFailWithProvider(t *testing.T, s *suite, a *Account, id, code string) map[string]any {
	t.Helper()
	r := s.WaitJob(t, a, id)
	if r == nil {
		t.FailNow()
	}
	e, _ := r.Body["error"].(map[string]any)
	pe, _ := e["provider_error"].(map[string]any)
	if r.Str("status") != "failed" || e["code"] != "provider_error" || pe["code"] != code {
		t.Fatalf("job %s: want failed with provider_error {code %s}, got %s", id, code, r)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("job %s: error.message is empty", id)
	}
	return pe
}

// checkWhisperTranscript checks the result against whisperCall: one segment
// per line, in time order, speaker = channel with AGENT_CHANNEL=0's aliases,
// the line's words, and its times (within tol) as the stand-in heard and
// answered them; with words, each word's text and times too, and without,
// none.
func checkWhisperTranscript(t *testing.T, res map[string]any, tol float64, words bool) {
	t.Helper()
	segs, _ := res["transcript"].([]any)
	if len(segs) != len(whisperCall) {
		t.Fatalf("transcript has %d segments, want %d: %v", len(segs), len(whisperCall), res["transcript"])
	}
	near := func(a any, b float64) bool { f, ok := num(a); return ok && math.Abs(f-b) <= tol+1e-9 }
	total := 0
	for i, l := range whisperCall {
		seg := segs[i].(map[string]any)
		text, _ := seg["text"].(string)
		var got []string
		for _, f := range strings.Fields(text) {
			got = append(got, strings.ToLower(trimPunct(f)))
		}
		total += len(got)
		alias := map[int]string{0: "Agent", 1: "User"}[l.Channel]
		if id, _ := num(seg["speaker_id"]); int(id) != l.Channel || seg["speaker_alias"] != alias || !slices.Equal(got, l.Words) {
			t.Errorf("segment %d: speaker %v (%v) %q, want %d (%s) %q", i, seg["speaker_id"], seg["speaker_alias"], text, l.Channel, alias, strings.Join(l.Words, " "))
		}
		if !near(seg["time_start"], l.Start) || !near(seg["time_end"], l.End()) {
			t.Errorf("segment %d: %v..%v, want %.2f..%.2f", i, seg["time_start"], seg["time_end"], l.Start, l.End())
		}
		ws, hasWords := seg["words"].([]any)
		if !words {
			if hasWords && len(ws) > 0 {
				t.Errorf("segment %d has words %v from a server that gave none", i, ws)
			}
			continue
		}
		if len(ws) != len(l.Words) {
			t.Errorf("segment %d: %d words, want %d: %v", i, len(ws), len(l.Words), seg["words"])
			continue
		}
		for j, wv := range ws {
			wd := wv.(map[string]any)
			wt := l.WordTimes()[j]
			wtext, _ := wd["text"].(string)
			if !strings.EqualFold(trimPunct(wtext), l.Words[j]) || !near(wd["start"], wt[0]) || !near(wd["end"], wt[1]) {
				t.Errorf("segment %d word %d: %v, want %s at %.2f..%.2f", i, j, wd, l.Words[j], wt[0], wt[1])
			}
		}
	}
	if n, _ := num(res["words_count"]); int(n) != total {
		t.Errorf("words_count %v, want %d", res["words_count"], total)
	}
	// An MP3 is whole frames long: up to a frame (72 ms at 8 kHz) more.
	durTol := 1e-6
	if tol > 0 {
		durTol = 0.1
	}
	if d, _ := num(res["duration_seconds"]); math.Abs(d-whisperCallSeconds) > durTol {
		t.Errorf("duration_seconds %v, want %.2f", res["duration_seconds"], whisperCallSeconds)
	}
}

// checkWhisperRequests checks what the service sent for whisperCall: one
// request per channel, each with the service's settings and a 16-bit mono
// WAV at 8 kHz, and that the stand-in heard each channel's own lines (so
// the channels were split, not mixed).
func checkWhisperRequests(t *testing.T, w WhisperServer, language, prompt string) {
	t.Helper()
	reqs := w.StandIn.Requests()
	if len(reqs) != 2 {
		t.Fatalf("stand-in received %d requests, want one per channel (2)", len(reqs))
	}
	heard := map[int]bool{}
	for _, r := range reqs {
		if r.Authorization != "Bearer "+w.APIKey || r.Model != w.Model || r.ResponseFormat != "verbose_json" ||
			!slices.Equal(r.Granularities, []string{"segment", "word"}) || r.Language != language || r.Prompt != prompt {
			t.Errorf("request settings: Authorization %q, model %q, response_format %q, timestamp_granularities[] %q, language %q, prompt %q; want Bearer %s, %s, verbose_json, [segment word], %q, %q",
				r.Authorization, r.Model, r.ResponseFormat, r.Granularities, r.Language, r.Prompt, w.APIKey, w.Model, language, prompt)
		}
		if r.WAV.Format != 1 || r.WAV.Channels != 1 || r.WAV.BitsPerSample != 16 || r.WAV.SampleRate != 8000 || math.Abs(r.WAV.Seconds-whisperCallSeconds) > 0.2 {
			t.Errorf("request audio %+v, want a 16-bit PCM mono WAV at 8000 Hz of %.1f s", r.WAV, whisperCallSeconds)
		}
		if r.Status != 200 || r.Answer == nil {
			t.Errorf("stand-in answered %d", r.Status)
			continue
		}
		for ch := range 2 {
			if sameSegments(r.Answer.Segments, ch) {
				heard[ch] = true
			}
		}
	}
	if !heard[0] || !heard[1] {
		t.Errorf("the requests did not carry one channel each (heard channel 0: %v, channel 1: %v)", heard[0], heard[1])
	}
}

// sameSegments reports whether segs are the lines of channel ch.
func sameSegments(segs []whisperstandin.Segment, ch int) bool {
	var lines []whisperstandin.Line
	for _, l := range whisperCall {
		if l.Channel == ch {
			lines = append(lines, l)
		}
	}
	if len(segs) != len(lines) {
		return false
	}
	for i, l := range lines {
		text := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(segs[i].Text), "."))
		if text != strings.Join(l.Words, " ") {
			return false
		}
	}
	return true
}
