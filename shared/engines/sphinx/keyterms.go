package sphinx

import (
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Per-job vocabulary (keyterms).
//
// A job's keyterms are boosted by interpolating a tiny n-gram model of the
// terms with the decoder's language model, for that job only. PocketSphinx
// 5prealpha has no per-utterance bias, but it keeps several named searches per
// decoder: ps_set_lm builds a search over any ngram_model_t, and an
// ngram_model_set interpolates its members linearly. So for a job with
// keyterms each decoder it uses gets a search "keyterms" over the set
// {stock LM, domain LM, keyterm LM} (the stock and domain models are the
// decoder's own, retained rather than read again), decodes the job's regions
// with it, then switches back to its usual search and frees the job's one
// (ps_unset_search): the next job decodes exactly as if the terms had never
// been sent (TestKeytermsDoNotLeak checks the words and times).
//
// The keyterm model is a trigram model (BuildLM) trained on the terms as
// sentences, so a term's words get unigram mass and a phrase's words their
// bigrams; interpolated at KeytermWeight, a term's word has at least about
// KeytermWeight/(number of term words) probability in any context, against
// 1e-5 or less for a rare name in the stock model. Alternatives considered:
// ngram_model_add_word on the live set changes it for every later job and
// only adds unigrams; adding a third member to the live set with
// ngram_model_set_add and removing it afterwards leaves the live search's
// lexicon tree stale (it is built once, from the vocabulary at ps_set_lm).
//
// Words that are not in the pronouncing dictionary cannot be recognised at all
// (5prealpha has no grapheme-to-phoneme model, and ps_add_word would change the
// dictionary for every later job): they are left out of the keyterm model and
// reported as unknown_words in the result's meta_data. A term with some known
// words is applied with those; its unknown words split it into phrases.
//
// Building the job's search costs a lexicon tree over the whole vocabulary,
// about 0.4 s of CPU per channel, and scoring through three models instead of
// two makes decoding slower: on the 8 kHz call set a keyterm job took about a
// third more CPU, and building the search takes about 60 MiB per decoder,
// freed at the end of the job and handed back to the system there
// (keyterms_cgo.go: without that, glibc's per-thread arenas kept it and the
// bench's peak grew from 124 to 354 MiB; README, speech figures). Jobs without
// keyterms pay nothing. Restricting the job's search to a smaller vocabulary, or
// reusing the live search's tree, would cut both; not done yet.

// DefaultKeytermWeight is the keyterm model's interpolation weight. It was
// fixed before any bench run (a tenth of the probability mass, tried only on
// the four sentences of the first exploration, none from the call set or the
// dev set) and not tuned since: the call-set figures in the README are not
// flattered by tuning. A sweep belongs on the dev set
// (ASR_VARIANTS="dev dev-keyterms", ASR_ARGS="-keyterm-weight W").
const DefaultKeytermWeight = 0.1

// keytermPlan is what the engine does with a job's terms.
type keytermPlan struct {
	// sentences are the runs of known words, one phrase a line, for BuildLM.
	sentences []string
	report    *callscribe.KeytermsReport
}

// planKeyterms splits each term into words as the dictionary spells them
// (NormalizeText) and keeps the runs of words that known reports as in the
// pronouncing dictionary.
func planKeyterms(terms []string, known func(word string) bool) keytermPlan {
	plan := keytermPlan{report: callscribe.NewKeytermsReport(callscribe.KeytermsLanguageModel)}
	unknownSeen := map[string]bool{}
	for _, term := range terms {
		words := NormalizeText(term)
		runs := KnownRuns(words, known)
		for _, run := range runs {
			plan.sentences = append(plan.sentences, strings.Join(run, " "))
		}
		for _, w := range words {
			if !known(w) && !unknownSeen[w] {
				unknownSeen[w] = true
				plan.report.UnknownWords = append(plan.report.UnknownWords, w)
			}
		}
		if len(runs) > 0 {
			plan.report.Applied = append(plan.report.Applied, term)
		}
	}
	return plan
}

// KnownRuns splits words into the maximal runs whose every word known
// accepts: a job's keyterms here, the domain LM's training text in package
// train.
func KnownRuns(words []string, known func(word string) bool) [][]string {
	var runs [][]string
	start := -1
	for i, w := range words {
		if known(w) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			runs = append(runs, words[start:i])
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, words[start:])
	}
	return runs
}
