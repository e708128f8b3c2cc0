package sphinx

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode"
)

//go:embed lmdata/callcentre.txt
var domainText string

// DomainText is the built-in call-centre training text: customer-service
// sentences written for this LM. It is deliberately disjoint from the
// evaluation dialogues in testdata/dialogues, or the bench would flatter the LM.
func DomainText() string { return domainText }

// LM is a trigram language model with interpolated Kneser-Ney smoothing,
// written in ARPA back-off form for PocketSphinx.
type LM struct {
	// probs[n-1] maps an n-gram ("w1 w2 w3") to log10 P(w_n | history).
	probs [3]map[string]float64
	// bows[n-1] maps an n-gram used as a history to its log10 back-off weight.
	bows [3]map[string]float64
}

const (
	bos = "<s>"
	eos = "</s>"
	// discount is the absolute discount of Kneser-Ney; 0.7 is a good value for
	// small corpora where most counts are one.
	discount = 0.7
)

// NormalizeText lower-cases, keeps letters, digits and apostrophes inside words,
// and splits on everything else: the form the dictionary and WER scoring use.
func NormalizeText(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'')
	})
}

// BuildLM trains the model on r, one sentence per line (blank lines and lines
// starting with # are skipped).
func BuildLM(r io.Reader) *LM {
	counts := [3]map[string]int{{}, {}, {}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		toks := NormalizeText(line)
		if len(toks) == 0 {
			continue
		}
		toks = append(append([]string{bos}, toks...), eos)
		for n := 1; n <= 3; n++ {
			for i := 0; i+n <= len(toks); i++ {
				counts[n-1][strings.Join(toks[i:i+n], " ")]++
			}
		}
	}
	// Kneser-Ney: lower orders count distinct left contexts, not occurrences.
	lower := [3]map[string]int{{}, {}, counts[2]}
	for g := range counts[2] {
		lower[1][g[strings.IndexByte(g, ' ')+1:]]++
	}
	for g := range counts[1] {
		lower[0][g[strings.IndexByte(g, ' ')+1:]]++
	}
	// A bigram starting with <s> has no left context; keep its real count so
	// sentence starts are modelled.
	for g, c := range counts[1] {
		if strings.HasPrefix(g, bos+" ") {
			lower[1][g] = c
		}
	}
	lm := &LM{}
	for n := range lm.probs {
		lm.probs[n] = map[string]float64{}
		lm.bows[n] = map[string]float64{}
	}

	// Unigrams: continuation probability, interpolated with a uniform floor.
	vocab := make([]string, 0, len(counts[0]))
	for w := range counts[0] {
		vocab = append(vocab, w)
	}
	var total float64
	for _, w := range vocab {
		if w != bos {
			total += float64(lower[0][w])
		}
	}
	uni := map[string]float64{}
	for _, w := range vocab {
		if w == bos {
			continue
		}
		uni[w] = 0.99*float64(lower[0][w])/total + 0.01/float64(len(vocab)-1)
	}
	// prob returns the interpolated probability of word w after history h
	// (0, 1 or 2 words) using the counts of the given order.
	var prob func(h []string, w string) float64
	histTotals := [3]map[string][2]float64{{}, {}, {}} // history -> (sum of counts, distinct followers)
	for n := 2; n <= 3; n++ {
		for g, c := range lower[n-1] {
			h := g[:strings.LastIndexByte(g, ' ')]
			t := histTotals[n-1][h]
			t[0] += float64(c)
			t[1]++
			histTotals[n-1][h] = t
		}
	}
	prob = func(h []string, w string) float64 {
		if len(h) == 0 {
			return uni[w]
		}
		n := len(h) + 1
		key := strings.Join(h, " ")
		t, ok := histTotals[n-1][key]
		if !ok {
			return prob(h[1:], w)
		}
		c := float64(lower[n-1][key+" "+w])
		return math.Max(c-discount, 0)/t[0] + discount*t[1]/t[0]*prob(h[1:], w)
	}

	for _, w := range vocab {
		if w == bos {
			lm.probs[0][w] = -99 // never predicted, only a history
			continue
		}
		lm.probs[0][w] = math.Log10(uni[w])
	}
	for n := 2; n <= 3; n++ {
		for g := range counts[n-1] {
			ws := strings.Fields(g)
			lm.probs[n-1][g] = math.Log10(prob(ws[:n-1], ws[n-1]))
		}
	}
	// Back-off weights make the explicit probabilities and the lower order sum
	// to one for every history.
	for n := 1; n <= 2; n++ {
		seen := map[string][2]float64{} // history -> (sum of p, sum of lower p)
		for g := range lm.probs[n] {
			ws := strings.Fields(g)
			h := strings.Join(ws[:n], " ")
			s := seen[h]
			s[0] += math.Pow(10, lm.probs[n][g])
			s[1] += prob(ws[1:n], ws[n])
			seen[h] = s
		}
		for h, s := range seen {
			if s[1] >= 1 || s[0] >= 1 {
				lm.bows[n-1][h] = 0
				continue
			}
			lm.bows[n-1][h] = math.Log10((1 - s[0]) / (1 - s[1]))
		}
	}
	return lm
}

// WriteARPA writes the model in ARPA text format.
func (lm *LM) WriteARPA(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\\data\\\n")
	for n := range lm.probs {
		fmt.Fprintf(bw, "ngram %d=%d\n", n+1, len(lm.probs[n]))
	}
	for n := range lm.probs {
		fmt.Fprintf(bw, "\n\\%d-grams:\n", n+1)
		grams := make([]string, 0, len(lm.probs[n]))
		for g := range lm.probs[n] {
			grams = append(grams, g)
		}
		sort.Strings(grams)
		for _, g := range grams {
			if n < 2 {
				if b, ok := lm.bows[n][g]; ok {
					fmt.Fprintf(bw, "%.4f %s %.4f\n", lm.probs[n][g], g, b)
					continue
				}
			}
			fmt.Fprintf(bw, "%.4f %s\n", lm.probs[n][g], g)
		}
	}
	fmt.Fprintf(bw, "\n\\end\\\n")
	return bw.Flush()
}

// Prob returns log10 P(w | history) by ARPA back-off over the stored n-grams,
// the way a decoder reads the file; tests use it to check normalisation.
func (lm *LM) Prob(history []string, w string) float64 {
	if len(history) > 2 {
		history = history[len(history)-2:]
	}
	g := strings.Join(append(append([]string{}, history...), w), " ")
	if p, ok := lm.probs[len(history)][g]; ok {
		return p
	}
	if len(history) == 0 {
		return math.Inf(-1)
	}
	return lm.bows[len(history)-1][strings.Join(history, " ")] + lm.Prob(history[1:], w)
}
