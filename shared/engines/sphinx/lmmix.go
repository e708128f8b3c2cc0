package sphinx

import "math"

// The decoder's language model is the stock English LM interpolated with the
// call-centre LM at a fixed weight (Config.DomainLMWeight). A fixed weight
// suits talk like the domain text and pulls everything else towards it: read
// prose, or calls about a business the text never saw, come out with call
// phrases in them. With speaker adaptation every adapted channel is decoded
// twice, and the first pass's words say how much the domain LM is worth for
// this channel: the weight that gives those words the highest likelihood
// under the mix, found by expectation-maximisation, as an interpolated LM's
// weights are fitted on held-out text. The final decode uses it.
//
// The first pass was decoded at the fixed weight, so its words lean towards
// the domain; only its confident words (the ones speaker adaptation aligns)
// are counted. A prior towards the fixed weight
// (Config.DomainLMWeightPriorWords) is off by default: at 20 words it held
// read prose's short clips near the fixed weight and changed nothing, while
// without it they fitted 0 and made six errors fewer in 71 words, and calls
// fitted 0.2-0.97 with about the errors they had (infra/bench/README.md, "The
// call-centre LM's weight per channel"). The weight is bounded at
// maxDomainWeight instead.

// wordProbs is one word's probability under each member of the mix.
type wordProbs struct {
	stock, domain float64
}

// fitDomainWeight returns the domain weight that maximises the words'
// likelihood under the mix, with a Beta prior worth priorWords words centred
// on prior (0: none): the MAP estimate, by EM from prior, at most
// maxDomainWeight (or prior, when a fixed weight above it was asked for).
// Words neither member can give are skipped. With no words (or priorWords
// +Inf) it returns prior.
func fitDomainWeight(words []wordProbs, prior, priorWords float64) float64 {
	if math.IsInf(priorWords, 1) {
		return prior
	}
	return min(emDomainWeight(words, prior, priorWords), max(prior, maxDomainWeight))
}

// maxDomainWeight keeps the stock LM a share of every mix, so that words the
// domain text never had stay possible however call-like a channel's words are.
const maxDomainWeight = 0.95

func emDomainWeight(words []wordProbs, prior, priorWords float64) float64 {
	lambda := prior
	for iter := 0; iter < 100; iter++ {
		var resp float64
		n := 0
		for _, w := range words {
			d, s := lambda*w.domain, (1-lambda)*w.stock
			if d+s <= 0 {
				continue
			}
			resp += d / (d + s)
			n++
		}
		if n == 0 {
			return prior
		}
		next := (resp + priorWords*prior) / (float64(n) + priorWords)
		if math.Abs(next-lambda) < 1e-6 {
			return next
		}
		lambda = next
	}
	return lambda
}
