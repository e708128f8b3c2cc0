package apitest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// TimedCall is a synthesised stereo call whose utterances sit at chosen times
// on each channel, so its overlap and gaps are known, with the metrics that
// placement gives.
type TimedCall struct {
	Audio   []byte
	Seconds float64
	// Utterances are where the speech is: each one's first and last audible
	// sample.
	Utterances []PlacedUtterance
	Want       TimedCallFigures
	// RequireSentiment makes every segment with words carry a sentiment;
	// without it a sentiment is checked only where present.
	RequireSentiment bool
}

// PlacedUtterance is one utterance of a TimedCall.
type PlacedUtterance struct {
	Speaker    int // 0 Agent (left channel), 1 User (right)
	Text       string
	Start, End float64
}

// TimedCallFigures are the metrics a TimedCall is built to have.
type TimedCallFigures struct {
	AgentTalk, UserTalk                   float64
	AgentTurns, UserTurns                 int
	AgentInterruptions, UserInterruptions int
	NonTalk, LongestSilence               float64
	Overtalk                              float64
	OvertalkCount                         int
	AgentMedianResponse                   float64
}

// The timeline of SynthesizeTimedCall, in seconds between audible speech.
const (
	timedLead = 0.3 // silence before the first word
	// timedCutIn is how long before the User's first line ends the Agent
	// starts its second: an interruption by the Agent (over 0.5 s of overlap)
	// and the call's one stretch of overtalk.
	timedCutIn = 1.0
	// timedHold is the silence after the Agent's second line: the longest.
	timedHold = 1.5
	// timedAnswer is the Agent's answer to the User's last line: the one gap
	// of a User turn followed by an Agent turn, so the median response.
	timedAnswer = 0.6
	timedGap    = 0.8 // the User's answer to the Agent's greeting
	timedTail   = 0.5 // silence after the last word
)

// TimedCallTolerances are how far RunTimedCall lets the metrics stray from
// the figures a TimedCall was built with; counts (turns, interruptions,
// overtalk stretches) must be exact.
type TimedCallTolerances struct {
	// Talk bounds a speaker's talk_seconds (non_talk_seconds: twice it).
	Talk float64
	// Gap bounds the figures of one gap or overlap: longest silence,
	// overtalk, the Agent's response.
	Gap float64
}

var (
	// RealEngineTolerances: a real engine's word boundaries at the edges of
	// an utterance are off by up to about 0.15 s (a final consonant's
	// release, a breath taken as speech), and a speaker's talk adds one such
	// error per utterance edge.
	RealEngineTolerances = TimedCallTolerances{Talk: 0.4, Gap: 0.25}
	// TestEngineTolerances: the test engine times its segments to the
	// bursts of sound, to the sample, and the metrics are rounded to the
	// millisecond.
	TestEngineTolerances = TimedCallTolerances{Talk: 0.002, Gap: 0.002}
)

// SynthesizeTimedCall speaks five lines with flite (the Agent with voice slt on
// the left channel, the User with rms on the right) and places them, trimmed
// to their audible samples, on an 8 kHz stereo timeline: Agent greeting; after
// timedGap the User's complaint; timedCutIn before it ends the Agent cuts in;
// after timedHold the User thanks; after timedAnswer the Agent's last words.
// It skips the test where flite or sox is missing (make deps-speech).
func SynthesizeTimedCall(t *testing.T) TimedCall {
	t.Helper()
	for _, tool := range []string{"flite", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; run make deps-speech", tool)
		}
	}
	lines := []struct {
		speaker int
		text    string
	}{
		{0, "thank you for calling how can I help you today"},
		{1, "I was charged twice on my bill this month"},
		{0, "I am sorry about that let me check"},
		{1, "thank you very much"},
		{0, "you are welcome"},
	}
	dir := t.TempDir()
	pcm := make([][]int16, len(lines))
	for i, l := range lines {
		pcm[i] = fliteSpeech(t, dir, i, []string{"slt", "rms"}[l.speaker], l.text)
	}
	seconds := func(samples int) float64 { return float64(samples) / WAVSampleRate }
	d := func(i int) float64 { return seconds(len(pcm[i])) }
	// Starts in samples, each from the previous line's end.
	at := make([]int, len(lines))
	at[0] = int(timedLead * WAVSampleRate)
	at[1] = at[0] + len(pcm[0]) + int(timedGap*WAVSampleRate)
	at[2] = at[1] + len(pcm[1]) - int(timedCutIn*WAVSampleRate)
	at[3] = at[2] + len(pcm[2]) + int(timedHold*WAVSampleRate)
	at[4] = at[3] + len(pcm[3]) + int(timedAnswer*WAVSampleRate)
	total := at[4] + len(pcm[4]) + int(timedTail*WAVSampleRate)
	if at[2] <= at[1] {
		t.Fatalf("the User's first line (%.2f s) is shorter than the cut-in", d(1))
	}
	ch := [2][]int16{make([]int16, total), make([]int16, total)}
	call := TimedCall{Seconds: seconds(total)}
	for i, l := range lines {
		copy(ch[l.speaker][at[i]:], pcm[i])
		call.Utterances = append(call.Utterances, PlacedUtterance{Speaker: l.speaker, Text: l.text, Start: seconds(at[i]), End: seconds(at[i] + len(pcm[i]))})
	}
	call.Audio = decode.EncodeWAV(WAVSampleRate, ch[0], ch[1])
	agentTalk, userTalk := d(0)+d(2)+d(4), d(1)+d(3)
	call.Want = TimedCallFigures{
		AgentTalk: agentTalk, UserTalk: userTalk,
		AgentTurns: 3, UserTurns: 2,
		AgentInterruptions: 1,
		NonTalk:            call.Seconds - (agentTalk + userTalk - timedCutIn),
		LongestSilence:     timedHold,
		Overtalk:           timedCutIn, OvertalkCount: 1,
		AgentMedianResponse: timedAnswer,
	}
	return call
}

// fliteSpeech speaks text with a flite voice at WAVSampleRate, mono, trimmed
// to its audible samples (louder than -40 dBFS), so a placement is where the
// speech starts. sox converts without dither (-D): its dither is random, so
// the same line would be different audio on every run, and a real engine's
// test would hear it differently now and then.
func fliteSpeech(t *testing.T, dir string, i int, voice, text string) []int16 {
	t.Helper()
	wav, raw := filepath.Join(dir, fmt.Sprintf("line%d.wav", i)), filepath.Join(dir, fmt.Sprintf("line%d.raw", i))
	if out, err := exec.Command("flite", "-voice", voice, "-t", text, "-o", wav).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v\n%s", err, out)
	}
	if out, err := exec.Command("sox", "-D", wav, "-r", fmt.Sprint(WAVSampleRate), "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", raw).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v\n%s", err, out)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, len(b)/2)
	for k := range pcm {
		pcm[k] = int16(binary.LittleEndian.Uint16(b[2*k:]))
	}
	const threshold = 328 // 32768 * 10^(-40/20)
	loud := func(v int16) bool { return v >= threshold || v <= -threshold }
	first, last := 0, len(pcm)-1
	for first < len(pcm) && !loud(pcm[first]) {
		first++
	}
	for last > first && !loud(pcm[last]) {
		last--
	}
	if first >= last {
		t.Fatalf("flite said nothing audible for %q", text)
	}
	return pcm[first : last+1]
}

// RunTimedCall uploads a TimedCall to a target running a real speech engine
// and checks the transcript's words (present on every segment, in order and
// inside their segment, confidences in [0, 1] or null: checkSegmentWords),
// the segments' sentiment (checkSegmentSentiment), and the metrics against
// the figures the call was built with, within tol; counts (turns,
// interruptions, overtalk stretches) exactly.
func RunTimedCall(t *testing.T, target Target, opts Options, call TimedCall, tol TimedCallTolerances) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	id := a.MustUpload(t, Upload{Filename: "timed-call.wav", Data: call.Audio, Language: "en"})
	if id == "" {
		t.FailNow()
	}
	r := s.mustSucceed(t, a, id) // its words are checked on every poll (checkJob)
	res := r.Body["result"].(map[string]any)
	segs, _ := res["transcript"].([]any)
	if len(segs) == 0 {
		t.Fatalf("%s: no segments", r)
	}
	for i, sv := range segs {
		seg := sv.(map[string]any)
		text, _ := seg["text"].(string)
		words, _ := seg["words"].([]any)
		if strings.TrimSpace(text) != "" && len(words) == 0 {
			t.Errorf("%s: segment %d %q has no words", r, i, text)
		}
		if _, ok := seg["sentiment"]; call.RequireSentiment && len(words) > 0 && !ok {
			t.Errorf("%s: segment %d %q has no sentiment", r, i, text)
		}
	}
	if call.RequireSentiment {
		checkCallSentiment(t, r)
	}

	var body struct {
		Result wireResult `json:"result"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	m := body.Result.Metrics
	if m == nil || len(m.Speakers) != 2 {
		t.Fatalf("%s: want metrics of two speakers", r)
	}
	want := call.Want
	report := func(format string, args ...any) {
		t.Helper()
		t.Errorf("timed call (utterances %+v): "+format, append([]any{call.Utterances}, args...)...)
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			report("metrics %s = %.3f, want %.3f ± %v", what, got, want, tol)
		}
	}
	agent, user := m.Speakers[0], m.Speakers[1]
	near("Agent talk_seconds", agent.TalkSeconds, want.AgentTalk, tol.Talk)
	near("User talk_seconds", user.TalkSeconds, want.UserTalk, tol.Talk)
	near("non_talk_seconds", m.NonTalkSeconds, want.NonTalk, 2*tol.Talk)
	near("longest_silence_seconds", m.LongestSilenceSeconds, want.LongestSilence, tol.Gap)
	near("overtalk_seconds", m.OvertalkSeconds, want.Overtalk, tol.Gap)
	if m.AgentMedianResponseSeconds == nil {
		report("agent_median_response_seconds is null, want %.3f", want.AgentMedianResponse)
	} else {
		near("agent_median_response_seconds", *m.AgentMedianResponseSeconds, want.AgentMedianResponse, tol.Gap)
	}
	if m.OvertalkCount != want.OvertalkCount || agent.Interruptions != want.AgentInterruptions || user.Interruptions != want.UserInterruptions {
		report("overtalk_count %d, interruptions Agent %d User %d; want %d, %d, %d",
			m.OvertalkCount, agent.Interruptions, user.Interruptions, want.OvertalkCount, want.AgentInterruptions, want.UserInterruptions)
	}
	if agent.Turns != want.AgentTurns || user.Turns != want.UserTurns {
		report("turns Agent %d User %d, want %d and %d", agent.Turns, user.Turns, want.AgentTurns, want.UserTurns)
	}
	if t.Failed() {
		t.Logf("transcript: %s", r.Raw)
	}
}

// Sentiment labels of a segment.
var segmentSentimentLabels = map[string]bool{"positive": true, "neutral": true, "negative": true}

// checkSegmentSentiment checks a segment's optional sentiment: an object with
// a label positive, neutral or negative and a score in [-1, 1] whose sign
// does not contradict the label (positive >= 0, negative <= 0).
func checkSegmentSentiment(t testing.TB, r *Response, i int, seg map[string]any) {
	t.Helper()
	v, ok := seg["sentiment"]
	if !ok {
		return
	}
	s, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: segment %d sentiment %v is not an object", r, i, v)
		return
	}
	label, _ := s["label"].(string)
	score, ok := num(s["score"])
	switch {
	case !segmentSentimentLabels[label]:
		t.Errorf("%s: segment %d sentiment label %v is not positive, neutral or negative", r, i, s["label"])
	case !ok || score < -1 || score > 1:
		t.Errorf("%s: segment %d sentiment score %v is not in [-1, 1]", r, i, s["score"])
	case label == "positive" && score < 0, label == "negative" && score > 0:
		t.Errorf("%s: segment %d sentiment %s with score %v", r, i, label, score)
	}
}

// checkCallSentiment checks a result's sentiment: one entry per speaker who
// talked, each with a call label, a score in [-1, 1], a trend, and four
// quarters that tile the call's duration in order.
func checkCallSentiment(t *testing.T, r *Response) {
	t.Helper()
	var body struct {
		Result struct {
			Duration  float64 `json:"duration_seconds"`
			Sentiment *struct {
				Speakers []struct {
					Label    string  `json:"label"`
					Score    float64 `json:"score"`
					Trend    string  `json:"trend"`
					Quarters []struct {
						Quarter   int     `json:"quarter"`
						TimeStart float64 `json:"time_start"`
						TimeEnd   float64 `json:"time_end"`
					} `json:"quarters"`
				} `json:"speakers"`
			} `json:"sentiment"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	cs := body.Result.Sentiment
	if cs == nil || len(cs.Speakers) != 2 {
		t.Errorf("%s: want the sentiment of two speakers", r)
		return
	}
	for _, sp := range cs.Speakers {
		if !slices.Contains([]string{"positive", "neutral", "negative", "mixed"}, sp.Label) || sp.Score < -1 || sp.Score > 1 || !slices.Contains([]string{"improving", "steady", "worsening"}, sp.Trend) {
			t.Errorf("%s: speaker sentiment %+v", r, sp)
		}
		if len(sp.Quarters) != 4 {
			t.Errorf("%s: want four quarters, got %+v", r, sp.Quarters)
			continue
		}
		prevEnd := 0.0
		for i, q := range sp.Quarters {
			if q.Quarter != i+1 || math.Abs(q.TimeStart-prevEnd) > 0.002 || q.TimeEnd <= q.TimeStart {
				t.Errorf("%s: quarter %d %+v does not follow %.3f", r, i+1, q, prevEnd)
			}
			prevEnd = q.TimeEnd
		}
		if math.Abs(prevEnd-body.Result.Duration) > 0.002 {
			t.Errorf("%s: the quarters end at %.3f, the call at %.3f", r, prevEnd, body.Result.Duration)
		}
	}
}

// WithSentiment returns the call with RequireSentiment set: every segment
// with words and the result must carry sentiment.
func (c TimedCall) WithSentiment() TimedCall {
	c.RequireSentiment = true
	return c
}
