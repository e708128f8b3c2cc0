package insights

import (
	"cmp"
	"slices"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
)

// The customer's label by callsentiment's rule over their turns scored by
// package sentiment: the derivation a transcription result's `sentiment`
// gets. The tagger reports it in meta_data.customer_turns and decides
// customer_sentiment by callsentiment.DefaultHybrid: the trained model's
// label unless it is neutral and a customer turn is strong, then the turns'
// (shared/engines/insights/README.md, "Sentiment per turn").

// ScoredTurn is one of the customer's turns with its time span (seconds for
// segments; for text, the word count before it and after it) and its score.
type ScoredTurn struct {
	Text       string
	Start, End float64
	sentiment.Analysis
}

// CustomerTurns are the turns customer_sentiment reads: the User's when the
// transcript names both sides, every turn otherwise; a transcript's segments
// with their times, else the lines of its text (Agent:/User: prefixes) timed
// by their words. duration is the call's (the last segment's end, or all
// the words).
func CustomerTurns(t callscribe.Transcript) (turns []ScoredTurn, duration float64) {
	all, _ := turnsOf(t)
	known := speakersKnown(all)
	if len(t.Segments) > 0 {
		segs := slices.Clone(t.Segments)
		slices.SortStableFunc(segs, func(a, b callscribe.Segment) int { return cmp.Compare(a.TimeStart, b.TimeStart) })
		for _, s := range segs {
			duration = max(duration, s.TimeEnd)
			if strings.TrimSpace(s.Text) == "" || known && s.SpeakerAlias != callscribe.AliasUser {
				continue
			}
			turns = append(turns, ScoredTurn{Text: s.Text, Start: s.TimeStart, End: s.TimeEnd, Analysis: sentiment.Analyze(s.Text)})
		}
		return turns, duration
	}
	for _, tu := range all {
		n := float64(len(strings.Fields(tu.text)))
		start := duration
		duration += n
		if known && tu.speaker != speakerUser {
			continue
		}
		turns = append(turns, ScoredTurn{Text: tu.text, Start: start, End: duration, Analysis: sentiment.Analyze(tu.text)})
	}
	return turns, duration
}

// RuleTurns are the turns as the rule reads them.
func RuleTurns(turns []ScoredTurn) []callsentiment.Turn {
	out := make([]callsentiment.Turn, len(turns))
	for i, t := range turns {
		out[i] = callsentiment.Turn{Start: t.Start, End: t.End, Score: t.Score}
	}
	return out
}

// customerSentiment decides the category by callsentiment.DefaultHybrid
// from the decision so far (the model's, or the lexicon's where the model
// does not run) and the customer's turns, and gives the evidence for
// meta_data: who decided, the turns' label, call score and trend, the
// decisive turns and the strong ones. ok is false without customer turns (the
// decision so far stands).
func customerSentiment(t callscribe.Transcript, model string) (label string, byTurns bool, evidence map[string]any, ok bool) {
	turns, duration := CustomerTurns(t)
	if len(turns) == 0 {
		return model, false, nil, false
	}
	h := callsentiment.DefaultHybrid
	d := h.Decide(model, RuleTurns(turns), duration)
	turn := func(i int) map[string]any {
		tu := turns[i]
		return map[string]any{
			"turn": i + 1, "score": tu.Score, "label": h.Rule.TurnLabel(tu.Score),
			"text": excerpt(tu.Text, 120), "phrases": tu.Phrases,
		}
	}
	var decisive, strong []any
	for _, i := range []int{d.Turns.StrongestPositive, d.Turns.StrongestNegative} {
		if i >= 0 {
			decisive = append(decisive, turn(i))
		}
	}
	for _, i := range d.Strong {
		strong = append(strong, turn(i))
	}
	scored := 0
	for _, tu := range turns {
		if h.Rule.TurnLabel(tu.Score) != callscribe.SentimentNeutral {
			scored++
		}
	}
	decidedBy := "model" // the caller says "lexicon" where the lexicon decided
	if d.ByTurns {
		decidedBy = "turns"
	}
	evidence = map[string]any{
		"rule":           "callsentiment",
		"label":          d.Turns.Label,
		"score":          d.Turns.Score,
		"trend":          d.Turns.Trend,
		"customer_turns": len(turns),
		"polar_turns":    scored,
		"decisive_turns": decisive,
		"strong_turns":   strong,
		"model_label":    model,
		"decided_by":     decidedBy,
	}
	return d.Label, d.ByTurns, evidence, true
}

// excerpt is the first n runes of s, cut at a word.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
