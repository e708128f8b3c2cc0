//go:build cgo

package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/ngram_model.h>

// member_probs gives, for each word words[1..n) of a sentence (words[0] is
// "<s>"), the probability the member LM named member of the set mix gives
// it after the (up to two) words before it: the raw n-gram probability,
// without the decoder's language weight or insertion penalty. Words map to
// the member's as ngram_model_set_init maps them: a word outside its
// vocabulary is its unknown word if it has one, else impossible (0); the
// history stops at a word it cannot hold.
static int member_probs(ps_decoder_t *ps, ngram_model_t *mix, const char *member, char **words, int n, double *out) {
	ngram_model_t *lm = ngram_model_set_lookup(mix, member);
	if (lm == NULL) return -2;
	logmath_t *lmath = ps_get_logmath(ps);
	int32 zero = ngram_zero(lm);
	for (int i = 1; i < n; i++) {
		int32 wid = ngram_wid(lm, words[i]);
		if (wid == NGRAM_INVALID_WID) { out[i-1] = 0; continue; }
		int32 hist[2];
		int32 nh = 0;
		for (int j = i - 1; j >= 0 && nh < 2; j--) {
			int32 h = ngram_wid(lm, words[j]);
			if (h == NGRAM_INVALID_WID) break;
			hist[nh++] = h;
		}
		int32 used;
		int32 p = ngram_ng_prob(lm, wid, hist, nh, &used);
		out[i-1] = p <= zero ? 0 : logmath_exp(lmath, p);
	}
	return 0;
}

// set_domain_weight gives the domain member of the set mix the weight
// domain_w, the stock member the rest.
static int set_domain_weight(ngram_model_t *mix, float domain_w) {
	const char *names[2] = {"stock", "domain"};
	float32 weights[2] = {1.0f - domain_w, domain_w};
	return ngram_model_set_interp(mix, names, weights) == NULL ? -1 : 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// mixProbs returns the probability the decoder's stock and domain LMs each
// give every word of sentence after the words before it, the sentence taken
// from "<s>" to "</s>" (so one more value than words).
func (d *decoder) mixProbs(sentence []string) (stock, domain []float64, err error) {
	if d.mix == nil {
		return nil, nil, errors.New("sphinx: the decoder has no domain LM")
	}
	words := append(append([]string{"<s>"}, sentence...), "</s>")
	cwords, free := cArgs(words)
	defer free()
	read := func(member string) ([]float64, error) {
		out := make([]float64, len(words)-1)
		cm := C.CString(member)
		defer C.free(unsafe.Pointer(cm))
		if C.member_probs(d.ps, d.mix, cm, cwords, C.int(len(words)), (*C.double)(unsafe.Pointer(&out[0]))) < 0 {
			return nil, fmt.Errorf("sphinx: the decoder's LM has no member %q", member)
		}
		return out, nil
	}
	if stock, err = read("stock"); err != nil {
		return nil, nil, err
	}
	if domain, err = read("domain"); err != nil {
		return nil, nil, err
	}
	return stock, domain, nil
}

// setDomainWeight re-weights the decoder's stock/domain mix in place, which
// every search scores with (the quick and full searches, and a keyterm
// search, whose set holds the mix as a member).
func (d *decoder) setDomainWeight(domainWeight float64) error {
	if d.mix == nil {
		return errors.New("sphinx: the decoder has no domain LM")
	}
	if C.set_domain_weight(d.mix, C.float(domainWeight)) < 0 {
		return errors.New("sphinx: re-weighting the decoder's LM failed")
	}
	return nil
}

// channelWordProbs returns each confident first-pass word's probability under
// the decoder's stock and domain LMs, each region a sentence.
func channelWordProbs(d *decoder, passes []regionPass, minPosterior float64) ([]wordProbs, error) {
	var out []wordProbs
	for _, p := range passes {
		if len(p.words) == 0 {
			continue
		}
		sentence := make([]string, len(p.words))
		for i, w := range p.words {
			sentence[i] = w.Text
		}
		stock, domain, err := d.mixProbs(sentence)
		if err != nil {
			return nil, err
		}
		for i, w := range p.words {
			if w.Posterior >= minPosterior {
				out = append(out, wordProbs{stock: stock[i], domain: domain[i]})
			}
		}
	}
	return out, nil
}
