package apitest

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// The wire shape of a transcription result's metrics, as the document gives
// it (decoded here rather than from the public client's types: the client's
// own tests import this package).
type wireMetrics struct {
	Speakers []struct {
		SpeakerID               int     `json:"speaker_id"`
		SpeakerAlias            string  `json:"speaker_alias"`
		TalkSeconds             float64 `json:"talk_seconds"`
		TalkShare               float64 `json:"talk_share"`
		WordsPerMinute          float64 `json:"words_per_minute"`
		Turns                   int     `json:"turns"`
		LongestMonologueSeconds float64 `json:"longest_monologue_seconds"`
		Interruptions           int     `json:"interruptions"`
	} `json:"speakers"`
	NonTalkSeconds             float64  `json:"non_talk_seconds"`
	LongestSilenceSeconds      float64  `json:"longest_silence_seconds"`
	OvertalkSeconds            float64  `json:"overtalk_seconds"`
	OvertalkCount              int      `json:"overtalk_count"`
	AgentMedianResponseSeconds *float64 `json:"agent_median_response_seconds"`
}

type wireResult struct {
	DurationSeconds float64 `json:"duration_seconds"`
	Transcript      []struct {
		Text      string `json:"text"`
		SpeakerID int    `json:"speaker_id"`
	} `json:"transcript"`
	Metrics *wireMetrics `json:"metrics"`
}

// Tolerances of the metrics checks: the figures are rounded to the
// millisecond (shares to 1e-4, speeds to 0.1), and a WAV's duration is exact.
const (
	metricsSecondsTolerance = 0.01
	metricsShareTolerance   = 0.001
	metricsWPMTolerance     = 0.5
)

// testMetrics checks a succeeded transcription's metrics on the test engine's
// transcripts, whose layout is known: a stereo call is the Agent's line over
// the first half and the User's over the second (no overlap, no gap, and no
// User turn the Agent answers); a mono call is one Agent line over the whole
// audio; silent audio has no segment. Words per minute is checked against
// the words of the returned transcript.
func (s *suite) testMetrics(t *testing.T) {
	a := s.newAccount(t)
	type speaker struct {
		id    int
		alias string
		talk  float64 // also the longest monologue: one turn each
	}
	cases := []struct {
		name     string
		seconds  float64
		channels int
		silent   bool
		speakers []speaker
	}{
		{"stereo", 4, 2, false, []speaker{{0, "Agent", 2}, {1, "User", 2}}},
		{"mono", 3, 1, false, []speaker{{0, "Agent", 3}}},
		{"silent", 2, 2, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			id := a.MustUpload(t, Upload{Filename: "metrics-" + c.name + ".wav", Data: MakeWAV(c.seconds, c.channels, c.silent)})
			if id == "" {
				t.FailNow()
			}
			r := s.mustSucceed(t, a, id)
			var body struct {
				Result wireResult `json:"result"`
			}
			if err := json.Unmarshal(r.Raw, &body); err != nil {
				t.Fatalf("%s: %v", r, err)
			}
			m := body.Result.Metrics
			if m == nil {
				t.Fatalf("%s: result has no metrics", r)
			}
			words := map[int]int{}
			for _, seg := range body.Result.Transcript {
				words[seg.SpeakerID] += len(strings.Fields(seg.Text))
			}
			total := 0.0
			for _, sp := range c.speakers {
				total += sp.talk
			}
			near := func(what string, got, want, tol float64) {
				if math.Abs(got-want) > tol {
					t.Errorf("%s: metrics %s = %v, want %v ± %v", r, what, got, want, tol)
				}
			}
			if len(m.Speakers) != len(c.speakers) {
				t.Fatalf("%s: %d speakers in metrics, want %d", r, len(m.Speakers), len(c.speakers))
			}
			for i, want := range c.speakers {
				got := m.Speakers[i]
				who := fmt.Sprintf("speakers[%d]", i)
				if got.SpeakerID != want.id || got.SpeakerAlias != want.alias {
					t.Errorf("%s: %s is %d/%s, want %d/%s", r, who, got.SpeakerID, got.SpeakerAlias, want.id, want.alias)
				}
				near(who+".talk_seconds", got.TalkSeconds, want.talk, metricsSecondsTolerance)
				near(who+".talk_share", got.TalkShare, want.talk/total, metricsShareTolerance)
				near(who+".words_per_minute", got.WordsPerMinute, float64(words[want.id])/(want.talk/60), metricsWPMTolerance)
				near(who+".longest_monologue_seconds", got.LongestMonologueSeconds, want.talk, metricsSecondsTolerance)
				if got.Turns != 1 || got.Interruptions != 0 {
					t.Errorf("%s: %s has %d turns and %d interruptions, want 1 and 0", r, who, got.Turns, got.Interruptions)
				}
			}
			near("non_talk_seconds", m.NonTalkSeconds, c.seconds-total, metricsSecondsTolerance)
			near("longest_silence_seconds", m.LongestSilenceSeconds, c.seconds-total, metricsSecondsTolerance)
			near("overtalk_seconds", m.OvertalkSeconds, 0, metricsSecondsTolerance)
			if m.OvertalkCount != 0 || m.AgentMedianResponseSeconds != nil {
				t.Errorf("%s: overtalk_count %d, agent_median_response_seconds %v; want 0 and null", r, m.OvertalkCount, m.AgentMedianResponseSeconds)
			}
		})
	}
}
