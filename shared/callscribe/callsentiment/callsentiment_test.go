package callsentiment

import (
	"math"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// rule is a fixed rule for the table, so tuning Default does not move it.
var rule = Rule{Label: 0.25, Strong: 0.5, MixedRatio: 0.5, EndWeight: 1, Positive: 0.3, Negative: 0.3, TrendDelta: 0.25}

func TestSpeakerLabel(t *testing.T) {
	cases := []struct {
		name  string
		turns []Turn
		d     float64
		label string
		trend string
	}{
		{"no turns", nil, 10, callscribe.SentimentNeutral, callscribe.TrendSteady},
		{"only weak courtesy", []Turn{{0, 2, 0}, {8, 10, 0.2}}, 10, callscribe.SentimentNeutral, callscribe.TrendSteady},
		{"a strong thank-you at the end", []Turn{{0, 2, 0}, {8, 10, 0.8}}, 10, callscribe.SentimentPositive, callscribe.TrendImproving},
		{"a strong complaint at the end", []Turn{{0, 2, 0.1}, {8, 10, -0.7}}, 10, callscribe.SentimentNegative, callscribe.TrendWorsening},
		// P = (1+0.9)·0.8 = 1.52, N = (1+0.1)·0.8 = 0.88: 0.88 >= 0.5·1.52.
		{"angry start, warm end: mixed", []Turn{{0, 2, -0.8}, {8, 10, 0.8}}, 10, callscribe.SentimentMixed, callscribe.TrendImproving},
		// P = 1.9·0.9 = 1.71, N = 1.1·0.5 = 0.55 < 0.855: the warm end outweighs.
		{"a mild complaint early, a warm end: positive", []Turn{{0, 2, -0.5}, {8, 10, 0.9}}, 10, callscribe.SentimentPositive, callscribe.TrendImproving},
		// N = 1.9·0.9 = 1.71, P = 1.1·0.55 = 0.605 < 0.855.
		{"polite start, an angry end: negative", []Turn{{0, 2, 0.55}, {8, 10, -0.9}}, 10, callscribe.SentimentNegative, callscribe.TrendWorsening},
		{"no strong turn, the mean decides", []Turn{{0, 2, 0.4}, {4, 6, 0.4}, {8, 10, 0.3}}, 10, callscribe.SentimentPositive, callscribe.TrendSteady},
		{"no strong turn, mildly negative", []Turn{{0, 2, -0.4}, {8, 10, -0.45}}, 10, callscribe.SentimentNegative, callscribe.TrendSteady},
		{"one half only: steady", []Turn{{0, 2, -0.9}, {2, 4, 0.9}}, 10, callscribe.SentimentMixed, callscribe.TrendSteady},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rule.Speaker(c.turns, c.d)
			if r.Label != c.label || r.Trend != c.trend {
				t.Fatalf("label %s trend %s, want %s %s (%+v)", r.Label, r.Trend, c.label, c.trend, r)
			}
		})
	}
}

func TestSpeakerEvidenceAndScore(t *testing.T) {
	r := rule.Speaker([]Turn{{0, 2, -0.8}, {2, 4, 0}, {8, 10, 0.8}}, 10)
	if r.StrongestNegative != 0 || r.StrongestPositive != 2 {
		t.Fatalf("decisive turns %d %d", r.StrongestNegative, r.StrongestPositive)
	}
	// S = Σ pos·s / Σ pos = (1.1·-0.8 + 1.3·0 + 1.9·0.8) / 4.3
	if want := (1.1*-0.8 + 1.9*0.8) / 4.3; math.Abs(r.Score-want) > 1e-3 {
		t.Fatalf("score %v, want %v", r.Score, want)
	}
}

func TestQuarters(t *testing.T) {
	// A 20 s call: quarters of 5 s. Turn A 0–6 (0.6) spans Q1 and 1 s of Q2,
	// turn B 6–8 (-0.6) is in Q2, nothing in Q3, turn C 15–20 (0.2) is Q4.
	r := rule.Speaker([]Turn{{0, 6, 0.6}, {6, 8, -0.6}, {15, 20, 0.2}}, 20)
	want := []*float64{ptr(0.6), ptr((1*0.6 + 2*-0.6) / 3), nil, ptr(0.2)}
	for q := range 4 {
		got := r.Quarters[q]
		if (got == nil) != (want[q] == nil) || got != nil && math.Abs(*got-*want[q]) > 1e-3 {
			t.Errorf("quarter %d = %v, want %v", q+1, deref(got), deref(want[q]))
		}
	}
}

func ptr(f float64) *float64 { return &f }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestComputeBySpeaker(t *testing.T) {
	s := func(score float64) *callscribe.SegmentSentiment {
		return &callscribe.SegmentSentiment{Label: Default.TurnLabel(score), Score: score}
	}
	segs := []callscribe.Segment{
		{Text: "hello", TimeStart: 0, TimeEnd: 2, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent, Sentiment: s(0)},
		{Text: "it is broken again", TimeStart: 2, TimeEnd: 5, SpeakerID: 1, SpeakerAlias: callscribe.AliasUser, Sentiment: s(-0.95)},
		{Text: "", TimeStart: 5, TimeEnd: 6, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent},
		{Text: "it is fixed", TimeStart: 6, TimeEnd: 8, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent, Sentiment: s(0.1)},
	}
	cs := Compute(segs, 8)
	if cs == nil || len(cs.Speakers) != 2 {
		t.Fatalf("%+v", cs)
	}
	a, u := cs.Speakers[0], cs.Speakers[1]
	if a.SpeakerID != 0 || u.SpeakerID != 1 || u.SpeakerAlias != callscribe.AliasUser || u.Label != callscribe.SentimentNegative || a.Label != callscribe.SentimentNeutral {
		t.Fatalf("speakers %+v", cs.Speakers)
	}
	// The User's one turn, 2–5 s, is in the second quarter (2–4) and the
	// third (4–6); the first and the last have nothing of theirs.
	if len(u.Quarters) != 4 || u.Quarters[0].Quarter != 1 || u.Quarters[3].TimeEnd != 8 || u.Quarters[0].Score != nil || u.Quarters[3].Label != nil ||
		u.Quarters[1].Label == nil || *u.Quarters[1].Label != callscribe.SentimentNegative || u.Quarters[2].Label == nil || *u.Quarters[2].Score != -0.95 {
		t.Fatalf("user quarters %+v", u.Quarters)
	}
	if Compute([]callscribe.Segment{{Text: "", TimeEnd: 1}}, 1) != nil {
		t.Fatal("a transcript without scored segments has a sentiment")
	}
}
