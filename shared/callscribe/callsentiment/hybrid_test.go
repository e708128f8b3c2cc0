package callsentiment

import (
	"slices"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestHybridDecide(t *testing.T) {
	h := Hybrid{Rule: rule, Strong: 0.6}
	cases := []struct {
		name    string
		model   string
		turns   []Turn
		label   string
		byTurns bool
		strong  []int
	}{
		{"neutral model, a strong thank-you at the end: the turns", callscribe.SentimentNeutral,
			[]Turn{{0, 2, 0}, {8, 10, 0.9}}, callscribe.SentimentPositive, true, []int{1}},
		{"neutral model, a strong complaint: the turns", callscribe.SentimentNeutral,
			[]Turn{{0, 2, -0.7}, {8, 10, 0.1}}, callscribe.SentimentNegative, true, []int{0}},
		{"neutral model, strong turns of both signs: mixed", callscribe.SentimentNeutral,
			[]Turn{{0, 2, -0.8}, {8, 10, 0.8}}, callscribe.SentimentMixed, true, []int{0, 1}},
		// 0.55 is strong for the rule (0.5) but not for the hybrid (0.6).
		{"neutral model, turns short of the hybrid's bar: the model", callscribe.SentimentNeutral,
			[]Turn{{0, 2, 0.2}, {8, 10, 0.55}}, callscribe.SentimentNeutral, false, nil},
		{"a positive model is kept against a strong negative turn", callscribe.SentimentPositive,
			[]Turn{{0, 2, -0.9}, {8, 10, 0.1}}, callscribe.SentimentPositive, false, []int{0}},
		{"a negative model is kept against a strong positive turn", callscribe.SentimentNegative,
			[]Turn{{0, 2, 0.1}, {8, 10, 0.9}}, callscribe.SentimentNegative, false, []int{1}},
		{"a mixed model is kept", callscribe.SentimentMixed, []Turn{{8, 10, 0.9}}, callscribe.SentimentMixed, false, []int{0}},
		{"no model: the turns", "", []Turn{{0, 2, 0.3}, {8, 10, 0.4}}, callscribe.SentimentPositive, true, nil},
		{"no turns: the model", callscribe.SentimentNeutral, nil, callscribe.SentimentNeutral, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := h.Decide(c.model, c.turns, 10)
			if d.Label != c.label || d.ByTurns != c.byTurns || !slices.Equal(d.Strong, c.strong) {
				t.Fatalf("got %s by turns %v strong %v, want %s %v %v", d.Label, d.ByTurns, d.Strong, c.label, c.byTurns, c.strong)
			}
		})
	}
}
