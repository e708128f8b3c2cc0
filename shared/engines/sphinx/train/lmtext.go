package train

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// Training text for the domain LM from written dialogues.
//
// The hand-written call-centre sentences (lmdata/callcentre.txt) are a few
// hundred lines; the labelled support calls of the tagger's train split hold
// thousands of sentences of the same kind of talk, written by other hands in
// several styles. lmdata/calls.txt is generated from them by `make lm-text`
// (infra/bench/cmd/lmtext) with the functions below, so that what reaches the
// LM is exactly what the decoder can say: words of its pronouncing
// dictionary, one sentence a line, in the form sphinx.NormalizeText gives.
//
// A sentence is cut where a word is missing from the dictionary (made-up
// company names, order numbers, postcodes): the decoder can never output such
// a word, and gluing its neighbours together would teach the LM word pairs
// nobody says. Runs shorter than two words carry no n-gram beyond a unigram
// and are dropped.

// isSentenceEnd reports whether r ends a spoken sentence in written dialogue.
func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '?', '!', ';', '\n':
		return true
	}
	return false
}

// LMSentences splits text (one speaker's words) into sentences and returns the
// runs of at least minWords in-dictionary words, normalised, one a string.
func LMSentences(text string, known func(word string) bool, minWords int) []string {
	var out []string
	for _, sentence := range strings.FieldsFunc(text, isSentenceEnd) {
		for _, run := range sphinx.KnownRuns(sphinx.NormalizeText(sentence), known) {
			if len(run) >= minWords {
				out = append(out, strings.Join(run, " "))
			}
		}
	}
	return out
}

// speakerPrefix is the "Agent:" / "User:" at the start of a dialogue line.
var speakerPrefix = regexp.MustCompile(`^\s*[A-Za-z]+\s*:\s*`)

// DialogueSentences is LMSentences over a dialogue in the `Speaker: text` line
// format (the labelled calls, the ASR bench's dialogues), speaker prefixes
// removed: what the LM text is made of, and what a leak check compares.
func DialogueSentences(dialogue string, known func(word string) bool, minWords int) []string {
	var out []string
	for _, line := range strings.Split(dialogue, "\n") {
		out = append(out, LMSentences(speakerPrefix.ReplaceAllString(line, ""), known, minWords)...)
	}
	return out
}

// AnyWord is a known function that accepts every word (no dictionary).
func AnyWord(string) bool { return true }

// DomainTextIndex finds sentences in the built-in domain text: a sentence of
// an evaluation set found there is one the LM has read.
type DomainTextIndex struct {
	joined string // the normalised text, space-separated, with a space at each end
}

// NewDomainTextIndex indexes sphinx.DomainText.
func NewDomainTextIndex() *DomainTextIndex {
	return &DomainTextIndex{joined: " " + strings.Join(sphinx.NormalizeText(sphinx.DomainText()), " ") + " "}
}

// Contains reports whether the normalised sentence (words separated by single
// spaces, as DialogueSentences returns them) occurs in the text.
func (x *DomainTextIndex) Contains(sentence string) bool {
	return strings.Contains(x.joined, " "+sentence+" ")
}

// ReadDictionaryWords reads a CMU-style pronouncing dictionary ("word PH ONES",
// alternates as "word(2) ..."), returning its words.
func ReadDictionaryWords(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	words := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		field, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if field == "" || strings.HasPrefix(field, ";;;") {
			continue
		}
		if i := strings.IndexByte(field, '('); i > 0 {
			field = field[:i]
		}
		words[field] = true
	}
	return words, sc.Err()
}

// LeakWords is the length from which a sentence of an evaluation set found in
// the domain text counts as read by the LM. Shorter ones do not: the formulas
// every call says ("how can i help you today", "let me check that for you",
// six words each) turn up in any call-centre text, the hand-written one
// included.
const LeakWords = 8

// EvaluationFiles lists the dialogues whose speech the benches score, under
// testdata: the ASR call set (dialogues), the ASR dev set (the first 24
// original calls of the tagger's train split, insights/call01–call24) and the
// tagger's dev and test splits. The domain LM must never read a sentence of
// theirs (TestDomainTextDisjointFromEvaluation; make lm-text leaves them out).
func EvaluationFiles(testdata string) ([]string, error) {
	var files []string
	for _, pattern := range []string{"dialogues/*.txt", "insights-dev/*.txt", "insights-test/*.txt", "insights-test2/*.txt"} {
		m, err := filepath.Glob(filepath.Join(testdata, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	for i := 1; i <= 24; i++ {
		files = append(files, filepath.Join(testdata, "insights", fmt.Sprintf("call%02d.txt", i)))
	}
	return files, nil
}

// EvaluationSentences reads files and returns their sentences of LeakWords or
// more words, normalised as DialogueSentences gives them.
func EvaluationSentences(files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, DialogueSentences(string(b), AnyWord, LeakWords)...)
	}
	return out, nil
}
