package sphinx

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const tinyCorpus = `# comment
thank you for calling
thank you for waiting
how can i help you
can i help you with your bill
your bill is ready
`

// The back-off model must be a proper distribution for every history: seen,
// unseen and sentence-start.
func TestLMNormalised(t *testing.T) {
	lm := BuildLM(strings.NewReader(tinyCorpus))
	var vocab []string
	for w := range lm.probs[0] {
		if w != bos {
			vocab = append(vocab, w)
		}
	}
	for _, h := range [][]string{nil, {bos}, {"thank"}, {"thank", "you"}, {"help", "you"}, {"bill", "thank"}, {"zzz"}} {
		var sum float64
		for _, w := range vocab {
			sum += math.Pow(10, lm.Prob(h, w))
		}
		if math.Abs(sum-1) > 1e-3 {
			t.Errorf("history %q: probabilities sum to %.5f", h, sum)
		}
	}
	// Seen continuations must beat unseen ones.
	if lm.Prob([]string{"thank", "you"}, "for") <= lm.Prob([]string{"thank", "you"}, "bill") {
		t.Error("seen trigram not preferred")
	}
}

func TestLMWriteARPA(t *testing.T) {
	var b bytes.Buffer
	if err := BuildLM(strings.NewReader(tinyCorpus)).WriteARPA(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"\\data\\\n", "ngram 1=", "ngram 3=", "\\1-grams:", "-99.0000 <s>", "\\3-grams:", "thank you for", "\\end\\"} {
		if !strings.Contains(s, want) {
			t.Errorf("ARPA lacks %q", want)
		}
	}
	if strings.Contains(s, "comment") {
		t.Error("comment lines were trained on")
	}
}

func TestNormalizeText(t *testing.T) {
	got := strings.Join(NormalizeText("Hi Sarah, I'm sure -- it's $80.50!"), " ")
	if got != "hi sarah i'm sure it's 80 50" {
		t.Errorf("got %q", got)
	}
}

func TestEnglishHint(t *testing.T) {
	for tag, want := range map[string]bool{"": true, "en": true, "en-US": true, "EN_gb": true, "eng": true, "de": false, "de-DE": false, "fr": false, "es-US": false} {
		if got := englishHint(tag); got != want {
			t.Errorf("englishHint(%q) = %v", tag, got)
		}
	}
}

// The domain LM is built from DomainText on every engine start (cold start).
func BenchmarkBuildDomainLM(b *testing.B) {
	text := DomainText()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := BuildLM(strings.NewReader(text)).WriteARPA(&buf); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(buf.Len()))
	}
}
