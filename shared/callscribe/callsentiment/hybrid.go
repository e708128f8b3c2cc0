package callsentiment

import (
	"math"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Hybrid is how the built-in tagger's customer_sentiment combines a
// call-level model's decision with the customer's turns: the model's label,
// unless it is neutral and the customer said at least one strong turn
// (|score| >= Strong); then the label of the turns by the Rule (positive,
// negative or mixed: with a strong turn it is never neutral). A call-level
// model trained on whole calls reads a short call's one clear sentence, such
// as "Excellent, thank you for the quick help" closing a sale, as too little
// evidence and says neutral; the turn that says it is strong on its own. A
// model's non-neutral label is kept: the model, read over the whole call, was
// the more accurate of the two where both have a view
// (shared/engines/insights/README.md, "Sentiment per turn").
type Hybrid struct {
	Rule Rule
	// Strong is the |score| a turn needs to overrule a neutral model.
	Strong float64
}

// DefaultHybrid is the tag's rule. Strong 0.9 (above the Rule's 0.6: only a
// clear turn overrules the model) was chosen by cross-validation with whole
// writers held out, against v10 alone, the turns alone, a strong turn in the
// last third only and a gate on the model's probability
// (shared/engines/insights/README.md, "customer_sentiment: the model, unless a turn is strong").
var DefaultHybrid = Hybrid{Rule: Default, Strong: 0.9}

// HybridDecision is a hybrid's label and why.
type HybridDecision struct {
	Label string
	// ByTurns: the turns decided (the model said neutral and a turn is
	// strong); otherwise the model did.
	ByTurns bool
	// Strong are the indexes of the turns with |score| >= Strong.
	Strong []int
	// Turns is the turns' result by the Rule.
	Turns Result
}

// Decide combines the model's label with the speaker's turns in a call of the
// given duration. An empty model label (no model) leaves the turns to decide.
func (h Hybrid) Decide(model string, turns []Turn, duration float64) HybridDecision {
	d := HybridDecision{Label: model, Turns: h.Rule.Speaker(turns, duration)}
	for i, t := range turns {
		if math.Abs(t.Score) >= h.Strong {
			d.Strong = append(d.Strong, i)
		}
	}
	if model == "" || model == callscribe.SentimentNeutral && len(d.Strong) > 0 {
		d.Label, d.ByTurns = d.Turns.Label, true
	}
	return d
}
