package sentiment

import (
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestScoreSentences(t *testing.T) {
	s := NewScorer()
	cases := []struct {
		text  string
		label string
	}{
		{"Excellent, thank you for the quick help.", callscribe.SentimentPositive},
		{"Amazing, cheers, that's exactly what I needed.", callscribe.SentimentPositive},
		{"Thank you so much, that means a lot, you've been wonderful.", callscribe.SentimentPositive},
		{"Honestly this is ridiculous, I'm fed up with chasing you every week.", callscribe.SentimentNegative},
		{"That's unacceptable, you took my money and lost my order.", callscribe.SentimentNegative},
		{"I'm not happy at all with this.", callscribe.SentimentNegative},
		{"It is four five two eight nine one.", callscribe.SentimentNeutral},
		{"Can I have your account number please?", callscribe.SentimentNeutral},
	}
	for _, c := range cases {
		got := s.ScoreSentiment(c.text)
		if got == nil || got.Label != c.label || got.Score < -1 || got.Score > 1 {
			t.Errorf("%q: %+v, want %s", c.text, got, c.label)
		}
	}
	if s.ScoreSentiment("  ... ") != nil {
		t.Error("text without words has a sentiment")
	}
}

func TestLexiconNegationAndIntensity(t *testing.T) {
	happy, notHappy := Analyze("I am happy"), Analyze("I am not happy")
	if happy.Raw <= 0 || notHappy.Raw >= 0 {
		t.Fatalf("negation: happy %v, not happy %v", happy.Raw, notHappy.Raw)
	}
	if len(notHappy.Phrases) != 1 || notHappy.Phrases[0] != "not happy" {
		t.Fatalf("phrases %v", notHappy.Phrases)
	}
	// A comma ends the negator's scope: "No, that's great" is not negated.
	if a := Analyze("No, that's great"); a.Raw <= 0 {
		t.Fatalf("no, that's great: %v", a.Raw)
	}
	if a, b := Analyze("thanks"), Analyze("thanks so much"); b.Raw <= a.Raw {
		t.Fatalf("thanks %v, thanks so much %v", a.Raw, b.Raw)
	}
	if a, b := Analyze("that is annoying"), Analyze("that is really annoying"); b.Raw >= a.Raw {
		t.Fatalf("annoying %v, really annoying %v", a.Raw, b.Raw)
	}
	// Speech engines write contractions without apostrophes.
	if a := Analyze("i dont think thats good enough its not acceptable"); a.Raw >= 0 {
		t.Fatalf("asr negation: %v %v", a.Raw, a.Phrases)
	}
	// Courtesy alone stays weak: a routine "thanks" is below a strong turn.
	if a := Analyze("Okay, thanks."); LexiconScore(a) >= 0.5 {
		t.Fatalf("plain thanks scores %v", LexiconScore(a))
	}
}
