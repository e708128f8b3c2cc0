// Package callsentiment derives a speaker's sentiment over a call from the
// sentiments of their turns: the call-level label, a score, the four quarters
// and the trend. It is pure (no engine, no I/O). The rule (Rule.Speaker) is
// a transcription result's `sentiment`; the built-in tagger's
// customer_sentiment is Hybrid (hybrid.go): the call-level model's label
// unless that is neutral and a customer turn scores |0.9| or more, then this
// rule's label. The transcription worker does not link the model, so a
// result's User label is the rule's alone and can differ from the tag where
// the model decided; the tagger's meta_data.customer_turns shows both.
//
// A turn has a time span and a signed score in [-1, 1] (the scorer's; see
// shared/engines/insights/sentiment). Every weight below is the turn's place
// in the call: pos(t) = 1 + EndWeight × m/D, m the turn's midpoint and D the
// call's duration, so the last turn weighs up to 1 + EndWeight times the
// first (the ending is what a customer leaves with).
//
// The speaker's label:
//
//   - A turn is strong when |score| >= Strong. P is the largest pos(t)×score
//     over the strong positive turns, N the largest pos(t)×|score| over the
//     strong negative ones (0 when there are none).
//   - mixed: both P and N are above 0 and min(P, N) >= MixedRatio × max(P, N):
//     strong turns of both signs, neither far outweighed once the ending is
//     weighted.
//   - otherwise positive when P > N, negative when N > P;
//   - without strong turns, the call score S (below): positive when
//     S >= Positive, negative when S <= -Negative, neutral otherwise.
//
// The score S is the mean of the speaker's turn scores weighted by pos(t)
// (not by duration: a long account of the facts is not more of the
// customer's mood than a short "thank you so much"). A quarter's score is the mean of the turn scores
// weighted by how long each turn overlaps the quarter (nil when the speaker
// said nothing in it), labelled like a turn (Label). The trend compares the
// duration-weighted mean of the turns whose midpoint is in the second half
// with that of the first half: improving when it is at least TrendDelta
// higher, worsening when at least TrendDelta lower, steady otherwise and when
// either half has no turns.
//
// The maximum, not a sum, decides the label so that how an engine cuts a turn
// into segments does not change it. Text without times (the tagger's
// text-only input) gives each turn its word count as duration.
package callsentiment

import (
	"cmp"
	"math"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Turn is one scored turn of a speaker.
type Turn struct {
	Start, End float64
	// Score is the turn's polarity in [-1, 1].
	Score float64
}

// Rule holds the thresholds of the derivation (the package doc).
type Rule struct {
	// Label: a turn or quarter is positive at Score >= Label, negative at
	// Score <= -Label.
	Label float64
	// Strong: |Score| at which a turn counts for the call's label.
	Strong float64
	// MixedRatio: the weaker side's share of the stronger one that makes a
	// call mixed.
	MixedRatio float64
	// EndWeight: the last turn weighs 1 + EndWeight times the first.
	EndWeight float64
	// Positive and Negative: the call score's bars when no turn is strong.
	Positive, Negative float64
	// TrendDelta: the change between the halves that is a trend.
	TrendDelta float64
}

// Default is the rule the service applies; Strong, MixedRatio, Positive and
// Negative were chosen on the tagger's train split with the shipped turn
// scorer (shared/engines/insights/README.md, "Sentiment per turn").
var Default = Rule{Label: 0.25, Strong: 0.6, MixedRatio: 0.5, EndWeight: 2, Positive: 0.3, Negative: 0.3, TrendDelta: 0.25}

// TurnLabel is a turn's label by the rule's Label threshold.
func (r Rule) TurnLabel(score float64) string {
	switch {
	case score >= r.Label:
		return callscribe.SentimentPositive
	case score <= -r.Label:
		return callscribe.SentimentNegative
	}
	return callscribe.SentimentNeutral
}

// Result is one speaker's sentiment over the call.
type Result struct {
	Label string
	Score float64
	// Quarters are the four quarters' scores (nil: no turn in it).
	Quarters [4]*float64
	Trend    string
	// Decisive are the indexes (into the turns given) of the strongest
	// positive and negative turns, -1 when there is none: the evidence for
	// the label.
	StrongestPositive, StrongestNegative int
}

// position is pos(t) of a turn in a call of duration d.
func (r Rule) position(t Turn, d float64) float64 {
	if d <= 0 {
		return 1
	}
	return 1 + r.EndWeight*math.Min(1, math.Max(0, (t.Start+t.End)/2/d))
}

func span(t Turn) float64 { return math.Max(t.End-t.Start, 1e-3) }

// Speaker derives one speaker's sentiment from their turns in a call of the
// given duration (the call's, not the speaker's: quarters and positions are
// the call's). Without turns it is neutral and steady with empty quarters.
func (r Rule) Speaker(turns []Turn, duration float64) Result {
	res := Result{Label: callscribe.SentimentNeutral, Trend: callscribe.TrendSteady, StrongestPositive: -1, StrongestNegative: -1}
	if len(turns) == 0 {
		return res
	}
	if duration <= 0 {
		for _, t := range turns {
			duration = math.Max(duration, t.End)
		}
	}
	var p, n, sw, sws float64
	for i, t := range turns {
		pos := r.position(t, duration)
		sw += pos
		sws += pos * t.Score
		switch {
		case t.Score >= r.Strong && pos*t.Score > p:
			p, res.StrongestPositive = pos*t.Score, i
		case t.Score <= -r.Strong && -pos*t.Score > n:
			n, res.StrongestNegative = -pos*t.Score, i
		}
	}
	res.Score = clamp(sws / sw)
	switch {
	case p > 0 && n > 0 && math.Min(p, n) >= r.MixedRatio*math.Max(p, n):
		res.Label = callscribe.SentimentMixed
	case p > n:
		res.Label = callscribe.SentimentPositive
	case n > p:
		res.Label = callscribe.SentimentNegative
	case res.Score >= r.Positive:
		res.Label = callscribe.SentimentPositive
	case res.Score <= -r.Negative:
		res.Label = callscribe.SentimentNegative
	}
	for q := range 4 {
		lo, hi := duration*float64(q)/4, duration*float64(q+1)/4
		var w, ws float64
		for _, t := range turns {
			o := math.Min(t.End, hi) - math.Max(t.Start, lo)
			if t.End == t.Start && t.Start >= lo && (t.Start < hi || q == 3 && t.Start <= hi) {
				o = 1e-3 // an instant turn counts where it falls
			}
			if o > 0 {
				w += o
				ws += o * t.Score
			}
		}
		if w > 0 {
			s := clamp(ws / w)
			res.Quarters[q] = &s
		}
	}
	var ew, ews, lw, lws float64
	for _, t := range turns {
		if (t.Start+t.End)/2 < duration/2 {
			ew += span(t)
			ews += span(t) * t.Score
		} else {
			lw += span(t)
			lws += span(t) * t.Score
		}
	}
	if ew > 0 && lw > 0 {
		switch d := lws/lw - ews/ew; {
		case d >= r.TrendDelta:
			res.Trend = callscribe.TrendImproving
		case d <= -r.TrendDelta:
			res.Trend = callscribe.TrendWorsening
		}
	}
	return res
}

func clamp(s float64) float64 { return math.Round(math.Max(-1, math.Min(1, s))*1000) / 1000 }

// Compute is a transcription's sentiment: per speaker who has scored
// segments (Segment.Sentiment set), by speaker_id, the Default rule over
// those segments in a call of the given duration (the last segment's end
// when 0). Nil when no segment is scored.
func Compute(segs []callscribe.Segment, duration float64) *callscribe.CallSentiment {
	type speaker struct {
		id    int
		alias string
		turns []Turn
	}
	var speakers []*speaker
	for _, s := range segs {
		duration = math.Max(duration, s.TimeEnd)
	}
	for _, s := range segs {
		if s.Sentiment == nil {
			continue
		}
		i := slices.IndexFunc(speakers, func(sp *speaker) bool { return sp.id == s.SpeakerID })
		if i < 0 {
			speakers = append(speakers, &speaker{id: s.SpeakerID, alias: s.SpeakerAlias})
			i = len(speakers) - 1
		}
		speakers[i].turns = append(speakers[i].turns, Turn{Start: s.TimeStart, End: s.TimeEnd, Score: s.Sentiment.Score})
	}
	if len(speakers) == 0 {
		return nil
	}
	slices.SortFunc(speakers, func(a, b *speaker) int { return cmp.Compare(a.id, b.id) })
	out := &callscribe.CallSentiment{Speakers: make([]callscribe.SpeakerSentiment, 0, len(speakers))}
	for _, sp := range speakers {
		slices.SortStableFunc(sp.turns, func(a, b Turn) int { return cmp.Compare(a.Start, b.Start) })
		r := Default.Speaker(sp.turns, duration)
		ss := callscribe.SpeakerSentiment{SpeakerID: sp.id, SpeakerAlias: sp.alias, Label: r.Label, Score: r.Score, Trend: r.Trend,
			Quarters: make([]callscribe.QuarterSentiment, 4)}
		for q := range 4 {
			qs := callscribe.QuarterSentiment{Quarter: q + 1, TimeStart: round3(duration * float64(q) / 4), TimeEnd: round3(duration * float64(q+1) / 4)}
			if s := r.Quarters[q]; s != nil {
				l := Default.TurnLabel(*s)
				qs.Score, qs.Label = s, &l
			}
			ss.Quarters[q] = qs
		}
		out.Speakers = append(out.Speakers, ss)
	}
	return out
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
