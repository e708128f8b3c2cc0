// Package sentiment scores the sentiment of one turn (a segment, or a line of a
// text transcript): a signed polarity in [-1, 1], offline, from a lexicon
// written for it (lexicon.go) with negation, intensifiers and the phrases
// customers thank and complain with. The transcription worker scores every
// segment with it (through callscribe.SentimentScorer) and the built-in tagger
// scores the User's turns with it, so both read the same turn scores
// (shared/callscribe/callsentiment: the result's label is its rule, the
// tag its hybrid with the call-level model).
//
// A turn's raw polarity is the sum of its matched phrases' weights, each
// multiplied by the intensifiers just before it ("really" ×1.5, "a bit" ×0.6)
// and by -0.6 when a negator is within three tokens before it in the same
// clause ("not happy" is negative, "not bad" mildly positive); an
// exclamation mark in the clause adds a fifth. The score is tanh(raw / 2.5):
// a plain "thanks" 0.24, "excellent, thank you" 0.77, "this is ridiculous"
// -0.83.
//
// The package is small and has no model file, so the AWS transcription worker
// links it without the tagger's trained model.
package sentiment

import (
	"math"
	"strings"
	"unicode"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
)

const (
	negationWindow = 3
	negatedFactor  = -0.6
	exclaimBoost   = 1.2
	squash         = 2.5
	maxPhrase      = 5 // tokens in the longest lexicon or intensifier phrase
)

// Scorer is the built-in callscribe.SentimentScorer.
type Scorer struct{ rule callsentiment.Rule }

// NewScorer returns the scorer with the service's rule's turn labels.
func NewScorer() *Scorer { return &Scorer{rule: callsentiment.Default} }

var _ callscribe.SentimentScorer = (*Scorer)(nil)

// ScoreSentiment implements callscribe.SentimentScorer: nil for text without
// words.
func (s *Scorer) ScoreSentiment(text string) *callscribe.SegmentSentiment {
	a := Analyze(text)
	if a.Words == 0 {
		return nil
	}
	return &callscribe.SegmentSentiment{Label: s.rule.TurnLabel(a.Score), Score: a.Score}
}

// Analysis is one turn's score and what made it.
type Analysis struct {
	Score float64
	// Raw is the lexicon's polarity, Pos + Neg (Neg is <= 0).
	Raw, Pos, Neg float64
	Words         int
	// Phrases are the matched phrases, as said, with "not " before a negated
	// one.
	Phrases []string
}

// Analyze scores one turn.
func Analyze(text string) Analysis {
	toks := tokenize(text)
	a := analyzeLexicon(toks)
	a.Score = LexiconScore(a)
	if m := turnModel(); m != nil {
		a.Score = math.Round(math.Tanh(m.apply(Features(toks, a))/m.Margin)*1000) / 1000
	}
	return a
}

// analyzeLexicon matches the lexicon's phrases in a turn.
func analyzeLexicon(toks []tok) Analysis {
	var a Analysis
	a.Words = len(toks)
	for i := 0; i < len(toks); {
		n, w := longest(toks, i, lexicon)
		if n == 0 {
			i++
			continue
		}
		phrase := joinWords(toks[i : i+n])
		if negatedAt(toks, i) {
			w *= negatedFactor
			phrase = "not " + phrase
		}
		w *= intensity(toks, i)
		if toks[i+n-1].exclaim || toks[i].exclaim {
			w *= exclaimBoost
		}
		a.Raw += w
		if w > 0 {
			a.Pos += w
		} else {
			a.Neg += w
		}
		a.Phrases = append(a.Phrases, phrase)
		i += n
	}
	return a
}

type tok struct {
	word    string
	clause  int
	exclaim bool // the clause ends with "!"
}

// tokenize lower-cases, splits on anything but letters and apostrophes, expands
// "n't" (and the apostrophe-less forms speech engines write) to "not", and
// numbers clauses: punctuation ends one.
func tokenize(text string) []tok {
	var out []tok
	clause := 0
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		for _, w := range expand(b.String()) {
			out = append(out, tok{word: w, clause: clause})
		}
		b.Reset()
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || r == '\'' || r == '’':
			if r == '’' {
				r = '\''
			}
			b.WriteRune(r)
		case strings.ContainsRune(".,;:!?\n", r):
			flush()
			if r == '!' {
				for j := len(out) - 1; j >= 0 && out[j].clause == clause; j-- {
					out[j].exclaim = true
				}
			}
			clause++
		default:
			flush()
		}
	}
	flush()
	return out
}

// contractions whose negation matters; other apostrophes are dropped ("i'm"
// is "im", which no phrase needs).
var contractions = map[string][]string{
	"can't": {"can", "not"}, "cant": {"can", "not"}, "won't": {"will", "not"}, "wont": {"will", "not"},
	"shan't": {"shall", "not"}, "ain't": {"is", "not"}, "i'll": {"i", "will"}, "you're": {"you", "are"},
	"youre": {"you", "are"}, "it's": {"it", "is"}, "that's": {"that", "is"}, "thats": {"that", "is"},
	"i've": {"i", "have"}, "i'd": {"i", "would"}, "you've": {"you", "have"}, "we've": {"we", "have"},
}

func expand(w string) []string {
	w = strings.Trim(w, "'")
	if x, ok := contractions[w]; ok {
		return x
	}
	if base, ok := strings.CutSuffix(w, "n't"); ok {
		return []string{base, "not"}
	}
	switch w {
	case "dont", "didnt", "doesnt", "isnt", "wasnt", "arent", "werent", "havent", "hasnt", "hadnt", "wouldnt", "couldnt", "shouldnt":
		return []string{strings.TrimSuffix(w, "nt"), "not"}
	}
	return []string{strings.ReplaceAll(w, "'", "")}
}

// longest is the longest phrase of dict starting at token i within one clause:
// its length in tokens (0: none) and weight.
func longest(toks []tok, i int, dict map[string]float64) (int, float64) {
	var b strings.Builder
	bestN, bestW := 0, 0.0
	for n := 1; n <= maxPhrase && i+n <= len(toks); n++ {
		if toks[i+n-1].clause != toks[i].clause {
			break
		}
		if n > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(toks[i+n-1].word)
		if w, ok := dict[b.String()]; ok {
			bestN, bestW = n, w
		}
	}
	return bestN, bestW
}

// negatedAt reports a negator within the window before token i in its clause.
func negatedAt(toks []tok, i int) bool {
	for j := i - 1; j >= 0 && j >= i-negationWindow; j-- {
		if toks[j].clause != toks[i].clause {
			return false
		}
		if negators[toks[j].word] {
			return true
		}
	}
	return false
}

// intensity is the product of the intensifiers in the two tokens before i
// (same clause): "really very" counts both.
func intensity(toks []tok, i int) float64 {
	f := 1.0
	for j := i - 1; j >= 0 && j >= i-2; j-- {
		if toks[j].clause != toks[i].clause {
			break
		}
		if v, ok := intensifiers[toks[j].word]; ok {
			f *= v
			continue
		}
		if j > 0 && toks[j-1].clause == toks[i].clause {
			if v, ok := intensifiers[toks[j-1].word+" "+toks[j].word]; ok {
				f *= v
				break
			}
		}
	}
	return f
}

func joinWords(ts []tok) string {
	ws := make([]string, len(ts))
	for i, t := range ts {
		ws[i] = t.word
	}
	return strings.Join(ws, " ")
}
