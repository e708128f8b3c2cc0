package train

import (
	"math"
	"slices"
	"sort"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
)

// SentimentCall is one labelled call as the turn model trains on it: the
// customer's turns' features and spans, and the call's label.
type SentimentCall struct {
	Label    string
	Features []map[string]float64
	Starts   []float64
	Ends     []float64
	Duration float64
}

// turnTarget is what a call's weighted mean of w·x is fitted to: positive 1,
// negative -1, neutral 0. Mixed calls are left out of the fit: their turns
// pull both ways, which the rule (strong turns of both signs), not the mean,
// recognises.
func turnTarget(label string) (float64, bool) {
	switch label {
	case callscribe.SentimentPositive:
		return 1, true
	case callscribe.SentimentNegative:
		return -1, true
	case callscribe.SentimentNeutral:
		return 0, true
	}
	return 0, false
}

// FitTurnModel fits sentiment's turn model: least squares of the call's
// position-weighted mean of w·x against its target, L2 penalty lambda,
// full-batch gradient descent with Nesterov momentum from zero weights (300
// iterations, sorted vocabulary, no randomness: the same weights every run).
// The vocabulary is the features in at least minCalls training calls; weights
// are rounded to 4 decimals and zeros dropped.
func FitTurnModel(calls []SentimentCall, lambda, endWeight float64, minCalls int) *sentiment.TurnModel {
	vocab, index := turnVocabulary(calls, minCalls)
	type row struct {
		idx []int
		val []float64
		y   float64
	}
	var rows []row
	maxNorm := 0.0
	for _, c := range calls {
		y, ok := turnTarget(c.Label)
		if !ok || len(c.Features) == 0 {
			continue
		}
		agg := map[int]float64{}
		sw := 0.0
		for i := range c.Features {
			sw += 1 + endWeight*mid(c, i)
		}
		for i, x := range c.Features {
			b := (1 + endWeight*mid(c, i)) / sw
			for k, v := range x {
				if j, ok := index[k]; ok {
					agg[j] += b * v
				}
			}
		}
		r := row{y: y}
		for j := range agg {
			r.idx = append(r.idx, j)
		}
		slices.Sort(r.idx)
		n := 0.0
		for _, j := range r.idx {
			r.val = append(r.val, agg[j])
			n += agg[j] * agg[j]
		}
		maxNorm = math.Max(maxNorm, n)
		rows = append(rows, r)
	}
	w := make([]float64, len(vocab))
	v := make([]float64, len(vocab)) // momentum
	grad := make([]float64, len(vocab))
	look := make([]float64, len(vocab))
	nRows := float64(max(1, len(rows)))
	step := 1 / (2*maxNorm + 2*lambda)
	for it := range fitIterations {
		mu := float64(it) / float64(it+3)
		for j := range w {
			look[j] = w[j] + mu*v[j]
			grad[j] = 2 * lambda * look[j]
		}
		for _, r := range rows {
			p := 0.0
			for k, j := range r.idx {
				p += look[j] * r.val[k]
			}
			e := 2 * (p - r.y) / nRows
			for k, j := range r.idx {
				grad[j] += e * r.val[k]
			}
		}
		for j := range w {
			v[j] = mu*v[j] - step*grad[j]
			w[j] += v[j]
		}
	}
	m := &sentiment.TurnModel{Version: "1", Lambda: lambda, EndWeight: endWeight, MinCalls: minCalls, Weights: map[string]float64{}}
	for j, k := range vocab {
		if r := math.Round(w[j]*1e4) / 1e4; r != 0 {
			m.Weights[k] = r
		}
	}
	return m
}

// fitIterations bounds the descent: stopping early is part of the penalty.
var fitIterations = 300

// mid is turn i's midpoint as a fraction of the call.
func mid(c SentimentCall, i int) float64 {
	if c.Duration <= 0 {
		return 0
	}
	return math.Min(1, (c.Starts[i]+c.Ends[i])/2/c.Duration)
}

// TurnMargin is where a turn's w·x counts as strong in FitTurnMIL: the
// service's score is tanh(w·x / TurnMargin)... see FitTurnMIL.
const TurnMargin = 2.0

// FitTurnMIL fits the turn model to what the rule reads of it: whether a call
// holds a strong positive turn and whether it holds a strong negative one.
// A turn is positive with probability σ(s − a) and negative with σ(-s - a)
// (s = w·x, a = TurnMargin); a call holds a positive turn with probability
// 1 − Π(1 − σ(s_t − a)) over its customer turns (noisy-OR, multiple-instance
// learning), and likewise a negative one. Positive and mixed calls hold a
// positive turn, negative and mixed calls a negative one, the others none.
// Log-likelihood of both, L2 penalty lambda, the same descent as
// FitTurnModel.
func FitTurnMIL(calls []SentimentCall, lambda float64, minCalls int) *sentiment.TurnModel {
	vocab, index := turnVocabulary(calls, minCalls)
	type turnRow struct {
		idx []int
		val []float64
	}
	type callRow struct {
		turns        []turnRow
		hasPos, hasN bool
	}
	var rows []callRow
	maxNorm := 0.0
	for _, c := range calls {
		if len(c.Features) == 0 {
			continue
		}
		r := callRow{
			hasPos: c.Label == callscribe.SentimentPositive || c.Label == callscribe.SentimentMixed,
			hasN:   c.Label == callscribe.SentimentNegative || c.Label == callscribe.SentimentMixed,
		}
		norm := 0.0
		for _, x := range c.Features {
			keys := make([]string, 0, len(x))
			for k := range x {
				if _, ok := index[k]; ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			var tr turnRow
			for _, k := range keys {
				tr.idx = append(tr.idx, index[k])
				tr.val = append(tr.val, x[k])
				norm += x[k] * x[k]
			}
			r.turns = append(r.turns, tr)
		}
		maxNorm = math.Max(maxNorm, norm)
		rows = append(rows, r)
	}
	w := make([]float64, len(vocab))
	v := make([]float64, len(vocab))
	grad := make([]float64, len(vocab))
	look := make([]float64, len(vocab))
	nRows := float64(max(1, len(rows)))
	step := 1 / (0.5*maxNorm + 2*lambda)
	a := TurnMargin
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	var s, dp []float64
	for it := range fitIterations {
		mu := float64(it) / float64(it+3)
		for j := range w {
			look[j] = w[j] + mu*v[j]
			grad[j] = 2 * lambda * look[j]
		}
		for _, r := range rows {
			s = s[:0]
			dp = dp[:0]
			qPos, qNeg := 1.0, 1.0 // Π(1 - p_t), Π(1 - q_t)
			for _, tr := range r.turns {
				z := 0.0
				for k, j := range tr.idx {
					z += look[j] * tr.val[k]
				}
				s = append(s, z)
				qPos *= 1 - sig(z-a)
				qNeg *= 1 - sig(-z-a)
			}
			qPos, qNeg = math.Max(qPos, 1e-12), math.Max(qNeg, 1e-12)
			for _, z := range s {
				p, q := sig(z-a), sig(-z-a)
				g := 0.0
				if r.hasPos {
					g -= qPos * p / math.Max(1-qPos, 1e-12)
				} else {
					g += p
				}
				if r.hasN {
					g += qNeg * q / math.Max(1-qNeg, 1e-12)
				} else {
					g -= q
				}
				dp = append(dp, g/nRows)
			}
			for t, tr := range r.turns {
				for k, j := range tr.idx {
					grad[j] += dp[t] * tr.val[k]
				}
			}
		}
		for j := range w {
			v[j] = mu*v[j] - step*grad[j]
			w[j] += v[j]
		}
	}
	m := &sentiment.TurnModel{Version: "1", Lambda: lambda, MinCalls: minCalls, Weights: map[string]float64{}}
	for j, k := range vocab {
		if r := math.Round(w[j]*1e4) / 1e4; r != 0 {
			m.Weights[k] = r
		}
	}
	return m
}

// turnVocabulary is the turn models' vocabulary: the features found in at
// least minCalls training calls, sorted, with each one's position.
func turnVocabulary(calls []SentimentCall, minCalls int) ([]string, map[string]int) {
	df := map[string]int{}
	for _, c := range calls {
		seen := map[string]bool{}
		for _, x := range c.Features {
			for k := range x {
				seen[k] = true
			}
		}
		for k := range seen {
			df[k]++
		}
	}
	vocab := make([]string, 0, len(df))
	for k, n := range df {
		if n >= minCalls {
			vocab = append(vocab, k)
		}
	}
	sort.Strings(vocab)
	index := make(map[string]int, len(vocab))
	for i, k := range vocab {
		index[k] = i
	}
	return vocab, index
}
