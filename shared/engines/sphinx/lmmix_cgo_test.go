//go:build cgo

package sphinx

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The domain member's probabilities are the ARPA model's own (BuildLM of the
// same text, read by back-off), a word outside its vocabulary has none, and
// the stock member gives every dictionary word some.
func TestMemberProbsReadEachLM(t *testing.T) {
	t.Parallel()
	needModel(t)
	text := "i would like to check my balance please\nmy card was charged twice\ni would like a refund"
	tr, err := NewTranscriber(Config{Decoders: 1, DomainText: text})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	d := tr.all[0]
	lm := BuildLM(strings.NewReader(text))
	sentence := []string{"i", "would", "like", "a", "balance", "of", "money"}
	stock, domain, err := d.mixProbs(sentence)
	if err != nil {
		t.Fatal(err)
	}
	words := append(append([]string{bos}, sentence...), eos)
	for i := 1; i < len(words); i++ {
		want := 0.0
		if p := lm.Prob(words[max(i-2, 0):i], words[i]); !math.IsInf(p, -1) {
			want = math.Pow(10, p)
		}
		got := domain[i-1]
		if math.Abs(got-want) > 1e-3*want || (want == 0) != (got == 0) {
			t.Errorf("domain P(%s | %v) = %.5g, the ARPA model's %.5g", words[i], words[max(i-2, 0):i], got, want)
		}
		if stock[i-1] <= 0 || stock[i-1] >= 1 {
			t.Errorf("stock P(%s) = %g, want a probability", words[i], stock[i-1])
		}
	}
	if domain[5] != 0 || domain[6] != 0 {
		t.Errorf("the domain text has no \"of\" or \"money\", yet P = %g, %g", domain[5], domain[6])
	}
}

// Re-weighting the decoder's mix in place decodes as a decoder built with
// that weight, and weighting it back decodes as before.
func TestDomainWeightInPlaceDecodesAsADecoderBuiltWithIt(t *testing.T) {
	t.Parallel()
	needModel(t)
	decoderAt := func(w float64) *decoder {
		tr, err := NewTranscriber(Config{Decoders: 1, DomainLMWeight: w})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tr.Close)
		return tr.all[0]
	}
	d, at02 := decoderAt(DefaultDomainLMWeight), decoderAt(0.02)
	cep, err := d.cepstra(speak(t, "slt", agentLine, 16000))
	if err != nil {
		t.Fatal(err)
	}
	decode := func(d *decoder) string {
		t.Helper()
		words, err := d.decodeCepstra(cep)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(words) // text, frames and posterior of each word
	}
	before, want := decode(d), decode(at02)
	if before == want {
		t.Fatalf("weights 0.5 and 0.02 decode alike (%s): this test would prove nothing", want)
	}
	if err := d.setDomainWeight(0.02); err != nil {
		t.Fatal(err)
	}
	if got := decode(d); got != want {
		t.Errorf("re-weighted to 0.02:\n%s\nbuilt at 0.02:\n%s", got, want)
	}
	if err := d.setDomainWeight(DefaultDomainLMWeight); err != nil {
		t.Fatal(err)
	}
	if got := decode(d); got != before {
		t.Errorf("weighted back to 0.5:\n%s\nbefore:\n%s", got, before)
	}
}

// With the shipped LMs, a call's words fit the domain LM above the fixed
// weight and read prose fits the stock LM, each sentence heard with
// confidence (posterior 1).
func TestCallWordsFitTheDomainLMAndProseTheStock(t *testing.T) {
	t.Parallel()
	_, d := oneDecoder(t)
	fitted := func(lines ...string) float64 {
		t.Helper()
		var passes []regionPass
		for _, l := range lines {
			var p regionPass
			for _, w := range NormalizeText(l) {
				p.words = append(p.words, word{Text: w, Posterior: 1})
			}
			passes = append(passes, p)
		}
		words, err := channelWordProbs(d, passes, DefaultSpeakerMinPosterior)
		if err != nil {
			t.Fatal(err)
		}
		return fitDomainWeight(words, DefaultDomainLMWeight, 0)
	}
	call := fitted("thank you for calling how can i help you today",
		"i was charged twice for my order and i would like a refund",
		"let me check your account for you")
	prose := fitted("the river ran quietly past the old mill where the miller had lived for forty years",
		"she could not remember when the letters had stopped coming from the north",
		"in the evening the family gathered by the fire to read")
	if call <= DefaultDomainLMWeight || prose >= DefaultDomainLMWeight {
		t.Errorf("fitted domain weight: call %.3f, prose %.3f; want the call above %v and the prose below", call, prose, DefaultDomainLMWeight)
	}
	t.Logf("fitted domain weight: call %.3f, prose %.3f", call, prose)
}

// BenchmarkChannelDomainWeight: one channel's fit, a call's channel of 30
// regions of 12 words (360), each read under both LMs, then EM.
func BenchmarkChannelDomainWeight(b *testing.B) {
	needModel(b)
	tr, err := NewTranscriber(Config{Decoders: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	d := tr.all[0]
	line := NormalizeText("thank you for calling can i take your account number so i can check the charge")
	passes := make([]regionPass, 30)
	for i := range passes {
		for j := 0; j < 12; j++ {
			passes[i].words = append(passes[i].words, word{Text: line[(i+j)%len(line)], Posterior: 1})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		words, err := channelWordProbs(d, passes, DefaultSpeakerMinPosterior)
		if err != nil {
			b.Fatal(err)
		}
		fitDomainWeight(words, DefaultDomainLMWeight, 0)
	}
}
