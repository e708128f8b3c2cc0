package sphinx

import (
	"math"
	"testing"
)

// mixObjective is what fitDomainWeight maximises: the words' log-likelihood
// under the mix plus the Beta prior's log density.
func mixObjective(words []wordProbs, lambda, prior, priorWords float64) float64 {
	v := priorWords * (prior*math.Log(lambda) + (1-prior)*math.Log(1-lambda))
	for _, w := range words {
		if p := lambda*w.domain + (1-lambda)*w.stock; p > 0 {
			v += math.Log(p)
		}
	}
	return v
}

func TestFitDomainWeightMaximisesTheMixLikelihood(t *testing.T) {
	callLike := []wordProbs{{0.01, 0.2}, {0.02, 0.3}, {0.001, 0.05}, {0.05, 0.04}, {0.003, 0}, {0.1, 0.4}}
	prose := []wordProbs{{0.02, 0.001}, {0.01, 0}, {0.05, 0.01}, {0.004, 0.003}, {0.2, 0.1}, {0.03, 0}}
	for _, c := range []struct {
		name       string
		words      []wordProbs
		priorWords float64
		lower      bool // the fit lands below the prior's centre
	}{
		{"call-like", callLike, 0.01, false},
		{"call-like with a prior", callLike, 5, false},
		{"prose", prose, 0.01, true},
		{"prose with a prior", prose, 5, true},
	} {
		got := fitDomainWeight(c.words, 0.5, c.priorWords)
		// The grid's best point, to a thousandth.
		best, bestV := 0.0, math.Inf(-1)
		for i := 1; i < 1000; i++ {
			l := float64(i) / 1000
			if v := mixObjective(c.words, l, 0.5, c.priorWords); v > bestV {
				best, bestV = l, v
			}
		}
		if math.Abs(got-best) > 2e-3 {
			t.Errorf("%s: fitted %.4f, the objective's maximum is at %.3f", c.name, got, best)
		}
		if (got < 0.5) != c.lower {
			t.Errorf("%s: fitted %.3f, want it on the %s side of 0.5", c.name, got, map[bool]string{true: "stock", false: "domain"}[c.lower])
		}
	}
	// The prior pulls towards its centre: the more words it is worth, the
	// closer the fit.
	weak, strong := fitDomainWeight(prose, 0.5, 1), fitDomainWeight(prose, 0.5, 50)
	if !(weak < strong && strong < 0.5) {
		t.Errorf("prior of 1 word: %.3f, of 50: %.3f; want weak < strong < 0.5", weak, strong)
	}
}

func TestFitDomainWeightWithoutEvidenceKeepsThePrior(t *testing.T) {
	for _, words := range [][]wordProbs{nil, {{0, 0}, {0, 0}}} {
		if got := fitDomainWeight(words, 0.5, 20); got != 0.5 {
			t.Errorf("%v: fitted %v, want the prior 0.5", words, got)
		}
	}
	if got := fitDomainWeight([]wordProbs{{0.9, 0.001}}, 0.5, math.Inf(1)); got != 0.5 {
		t.Errorf("an infinite prior fitted %v, want 0.5", got)
	}
}

// However call-like the words, the stock LM keeps a share of the mix.
func TestFitDomainWeightLeavesTheStockLMAShare(t *testing.T) {
	onlyDomain := []wordProbs{{0, 0.2}, {0.001, 0.3}, {0, 0.05}}
	if got := fitDomainWeight(onlyDomain, 0.5, 0); got != maxDomainWeight {
		t.Errorf("fitted %v for words only the domain LM gives, want the bound %v", got, maxDomainWeight)
	}
}
