package train

import (
	"fmt"
	"math"
	"sort"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// FitIsotonic fits the non-decreasing map from posterior to the probability
// of being correct that is closest in squared error to the outcomes
// (isotonic regression, pool-adjacent-violators). Equal posteriors share a
// block; blocks of fewer than minBlock words are then pooled with a
// neighbour, so no knot rests on a handful of words. The knots are the
// blocks' mean posteriors and their fractions correct.
func FitIsotonic(posterior []float64, correct []bool, minBlock int) (sphinx.ConfidenceCurve, error) {
	if len(posterior) != len(correct) || len(posterior) == 0 {
		return sphinx.ConfidenceCurve{}, fmt.Errorf("train: %d posteriors, %d outcomes", len(posterior), len(correct))
	}
	idx := make([]int, len(posterior))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return posterior[idx[a]] < posterior[idx[b]] })
	type block struct{ sx, sy, n float64 }
	mean := func(b block) float64 { return b.sy / b.n }
	var blocks []block
	for k, i := range idx {
		y := 0.0
		if correct[i] {
			y = 1
		}
		if k > 0 && posterior[i] == posterior[idx[k-1]] {
			b := &blocks[len(blocks)-1]
			b.sx, b.sy, b.n = b.sx+posterior[i], b.sy+y, b.n+1
		} else {
			blocks = append(blocks, block{posterior[i], y, 1})
		}
		// Pool while the last block's mean falls below the one before.
		for len(blocks) >= 2 && mean(blocks[len(blocks)-2]) >= mean(blocks[len(blocks)-1]) {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			blocks = append(blocks[:len(blocks)-2], block{a.sx + b.sx, a.sy + b.sy, a.n + b.n})
		}
	}
	// Pooling two neighbours of a non-decreasing sequence gives a mean
	// between theirs, so the sequence stays non-decreasing.
	for len(blocks) > 1 {
		small := -1
		for i, b := range blocks {
			if b.n < float64(minBlock) && (small < 0 || b.n < blocks[small].n) {
				small = i
			}
		}
		if small < 0 {
			break
		}
		j := small + 1
		if j == len(blocks) || (small > 0 && blocks[small-1].n < blocks[j].n) {
			j = small - 1
		}
		lo := min(small, j)
		a, b := blocks[lo], blocks[lo+1]
		blocks = append(blocks[:lo], append([]block{{a.sx + b.sx, a.sy + b.sy, a.n + b.n}}, blocks[lo+2:]...)...)
	}
	var c sphinx.ConfidenceCurve
	for _, b := range blocks {
		c.Posterior = append(c.Posterior, b.sx/b.n)
		c.Confidence = append(c.Confidence, b.sy/b.n)
	}
	return c, c.Check()
}

// CalibrationBin is one bin of a reliability table: the words whose
// confidence is in [Lo, Hi), their mean confidence and fraction correct.
type CalibrationBin struct {
	Lo, Hi         float64
	Words          int
	MeanConfidence float64
	FractionRight  float64
}

// Calibration tabulates confidences against outcomes in bins equal-width
// bins of [0, 1] (the last includes 1) and returns the expected calibration
// error: the words-weighted mean of |mean confidence - fraction correct|
// over the bins.
func Calibration(confidence []float64, correct []bool, bins int) ([]CalibrationBin, float64) {
	table := make([]CalibrationBin, bins)
	for i := range table {
		table[i].Lo, table[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	for i, c := range confidence {
		b := min(int(c*float64(bins)), bins-1)
		table[b].Words++
		table[b].MeanConfidence += c
		if correct[i] {
			table[b].FractionRight++
		}
	}
	var ece float64
	for i := range table {
		if n := float64(table[i].Words); n > 0 {
			table[i].MeanConfidence /= n
			table[i].FractionRight /= n
			ece += n * math.Abs(table[i].MeanConfidence-table[i].FractionRight)
		}
	}
	if len(confidence) > 0 {
		ece /= float64(len(confidence))
	}
	return table, ece
}

// FitLogistic fits P(correct) = 1/(1+exp(-(w0 + w·x))) by Newton's method
// with a small ridge penalty (not on the intercept) and returns (w0, w...).
// The bench compares it, on features of the posterior and the word, with
// the isotonic map.
func FitLogistic(x [][]float64, correct []bool, ridge float64) []float64 {
	if len(x) == 0 {
		return nil
	}
	p := len(x[0]) + 1
	w := make([]float64, p)
	row := make([]float64, p)
	for iter := 0; iter < 50; iter++ {
		grad := make([]float64, p)
		hess := make([][]float64, p)
		for i := range hess {
			hess[i] = make([]float64, p)
		}
		for i, xi := range x {
			row[0] = 1
			copy(row[1:], xi)
			z := 0.0
			for j := range row {
				z += w[j] * row[j]
			}
			mu := 1 / (1 + math.Exp(-z))
			y := 0.0
			if correct[i] {
				y = 1
			}
			for j := range row {
				grad[j] += (mu - y) * row[j]
				for k := range row {
					hess[j][k] += mu * (1 - mu) * row[j] * row[k]
				}
			}
		}
		for j := 1; j < p; j++ {
			grad[j] += ridge * w[j]
			hess[j][j] += ridge
		}
		step, ok := solve(hess, grad)
		if !ok {
			break
		}
		moved := 0.0
		for j := range w {
			w[j] -= step[j]
			moved = max(moved, math.Abs(step[j]))
		}
		if moved < 1e-9 {
			break
		}
	}
	return w
}

// Logistic evaluates a model FitLogistic returned on one word's features.
func Logistic(w, x []float64) float64 {
	z := w[0]
	for j, v := range x {
		z += w[j+1] * v
	}
	return 1 / (1 + math.Exp(-z))
}

// solve solves a x = b for a small symmetric positive-definite a by
// Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		if math.Abs(m[piv][c]) < 1e-12 {
			return nil, false
		}
		m[c], m[piv] = m[piv], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	out := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		v := m[r][n]
		for k := r + 1; k < n; k++ {
			v -= m[r][k] * out[k]
		}
		out[r] = v / m[r][r]
	}
	return out, true
}
