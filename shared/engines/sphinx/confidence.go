package sphinx

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// The decoder's word posterior (ps_seg_prob in the best-path lattice) ranks
// words well but is not a probability of being right: on the bench's speech
// most words it puts between 0.1 and 0.5 are right. A ConfidenceMap turns it
// into one: a monotone curve per band, fitted on the ASR dev set's words
// scored against their reference (infra/bench/cmd/confidence, make
// confidence-map, with package train's fits). The shipped curves are logistic
// in the posterior's log-odds (Platt scaling), sampled at knots; on the dev
// set's cross-validation that beat isotonic regression, which the same file
// format also holds. Monotone, so the map keeps the posterior's ranking of
// words; the figures are in infra/bench/README.md ("Word confidence").

// ConfidenceMap maps a word's lattice posterior to a calibrated confidence,
// with one curve for telephone audio (source rate NarrowbandRate or less) and
// one for wideband audio, since the two are decoded differently.
type ConfidenceMap struct {
	Narrowband ConfidenceCurve `json:"narrowband"`
	Wideband   ConfidenceCurve `json:"wideband"`
	// TrainedOn says what the curves were fitted on.
	TrainedOn string `json:"trained_on,omitempty"`
}

// ConfidenceCurve is a piecewise-linear, non-decreasing map on [0, 1]: the
// confidence at Posterior[i] is Confidence[i], linear in between, and flat
// beyond the first and last knots.
type ConfidenceCurve struct {
	Posterior  []float64 `json:"posterior"`
	Confidence []float64 `json:"confidence"`
}

// Apply maps a posterior to its confidence.
func (c ConfidenceCurve) Apply(p float64) float64 {
	n := len(c.Posterior)
	switch {
	case n == 0:
		return min(max(p, 0), 1)
	case p <= c.Posterior[0]:
		return c.Confidence[0]
	case p >= c.Posterior[n-1]:
		return c.Confidence[n-1]
	}
	// The first knot above p; p lies in (Posterior[i-1], Posterior[i]].
	i := sort.SearchFloat64s(c.Posterior, p)
	x0, x1 := c.Posterior[i-1], c.Posterior[i]
	y0, y1 := c.Confidence[i-1], c.Confidence[i]
	return y0 + (y1-y0)*(p-x0)/(x1-x0)
}

// Check reports whether the curve is a monotone map into [0, 1]: as many
// confidences as posteriors, posteriors strictly increasing in [0, 1],
// confidences non-decreasing in [0, 1].
func (c ConfidenceCurve) Check() error {
	if len(c.Posterior) != len(c.Confidence) {
		return fmt.Errorf("%d posteriors, %d confidences", len(c.Posterior), len(c.Confidence))
	}
	if len(c.Posterior) == 0 {
		return errors.New("no knots")
	}
	for i := range c.Posterior {
		p, y := c.Posterior[i], c.Confidence[i]
		if math.IsNaN(p) || math.IsNaN(y) || p < 0 || p > 1 || y < 0 || y > 1 {
			return fmt.Errorf("knot %d (%g, %g) outside [0, 1]", i, p, y)
		}
		if i > 0 && (p <= c.Posterior[i-1] || y < c.Confidence[i-1]) {
			return fmt.Errorf("knot %d (%g, %g) does not follow (%g, %g) monotonically", i, p, y, c.Posterior[i-1], c.Confidence[i-1])
		}
	}
	return nil
}

// Apply maps the posterior of a word from audio at the given source sample
// rate to its confidence.
func (m *ConfidenceMap) Apply(posterior float64, rate int) float64 {
	if rate <= NarrowbandRate {
		return m.Narrowband.Apply(posterior)
	}
	return m.Wideband.Apply(posterior)
}

// ParseConfidenceMap reads a map written by cmd/confidence and checks that
// both curves are monotone maps into [0, 1].
func ParseConfidenceMap(b []byte) (*ConfidenceMap, error) {
	var m ConfidenceMap
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if err := m.Narrowband.Check(); err != nil {
		return nil, fmt.Errorf("narrowband curve: %w", err)
	}
	if err := m.Wideband.Check(); err != nil {
		return nil, fmt.Errorf("wideband curve: %w", err)
	}
	return &m, nil
}

// builtinConfidenceMap is the map fitted by infra/bench/cmd/confidence (make
// confidence-map); its trained_on field says on what.
//
//go:embed confidence_map.json
var builtinConfidenceMap []byte

// BuiltinConfidenceMap returns the confidence map the engine uses by default.
func BuiltinConfidenceMap() (*ConfidenceMap, error) { return ParseConfidenceMap(builtinConfidenceMap) }
