package insights

import (
	"math"
	"slices"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// FeatureSet says which feature groups the linear model reads for a category.
// Every group is scaled to unit length, so that no group outweighs another by
// its size alone.
type FeatureSet struct {
	// Words: word unigrams and bigrams (stems: lower case, no punctuation,
	// contractions expanded), so clean text and speech-engine output map to
	// the same features.
	Words bool `json:"words"`
	// Chars: character 3-5-grams within words (with word-boundary marks), which
	// survive misspellings and misrecognitions ("verify cation").
	Chars bool `json:"chars"`
	// Lexicon: the lexicon's per-value scores for the category (log(1+score)),
	// so the hand-written cues contribute and stay visible.
	Lexicon bool `json:"lexicon"`
	// Position: words of the last turns (both speakers' last two for
	// call_outcome, the customer's last two for customer_sentiment).
	Position bool `json:"position"`
}

// String names a feature set in the training log.
func (f FeatureSet) String() string {
	var p []string
	for _, g := range []struct {
		on   bool
		name string
	}{{f.Words, "words"}, {f.Chars, "chars"}, {f.Lexicon, "lexicon"}, {f.Position, "position"}} {
		if g.on {
			p = append(p, g.name)
		}
	}
	return strings.Join(p, "+")
}

// sideOf is the side whose words count for a category's text features:
// customer_sentiment reads the customer only (when the speakers are known).
func sideOf(cat string) string {
	if cat == callscribe.CategoryCustomerSentiment {
		return speakerUser
	}
	return ""
}

// features returns the named, real-valued features of one call for one
// category. Names are prefixed by group: w: words, c: characters, e: end turns,
// x: lexicon scores; "bias" is always 1.
func features(a *analysis, cat string, fs FeatureSet, lex *catResult) map[string]float64 {
	out := map[string]float64{"bias": 1}
	side := sideOf(cat)
	var toks []token
	for _, t := range a.toks {
		if side == "" || !a.known || t.speaker == side {
			toks = append(toks, t)
		}
	}
	if fs.Words {
		g := map[string]bool{}
		for i, t := range toks {
			g["w:"+t.stem] = true
			if i > 0 && toks[i-1].turn == t.turn {
				g["w:"+toks[i-1].stem+"_"+t.stem] = true
			}
		}
		addGroup(out, g)
	}
	if fs.Chars {
		g := map[string]bool{}
		for _, t := range toks {
			w := []rune("<" + t.stem + ">")
			for n := 3; n <= 5; n++ {
				for i := 0; i+n <= len(w); i++ {
					g["c:"+string(w[i:i+n])] = true
				}
			}
		}
		addGroup(out, g)
	}
	if fs.Position && cat != callscribe.CategoryCallReason {
		end := endTurns(a, cat)
		g := map[string]bool{}
		for i, t := range toks {
			if !end[t.turn] {
				continue
			}
			g["e:"+t.stem] = true
			if i > 0 && toks[i-1].turn == t.turn {
				g["e:"+toks[i-1].stem+"_"+t.stem] = true
			}
		}
		addGroup(out, g)
	}
	if fs.Lexicon && lex != nil {
		for v, s := range lex.scores {
			if s.score > 0 {
				out["x:"+v] = math.Log1p(s.score)
			}
		}
	}
	return out
}

// endTurns marks the last two turns of each speaker (call_outcome) or of the
// customer (customer_sentiment); without known speakers, the last two turns.
func endTurns(a *analysis, cat string) map[int]bool {
	end := map[int]bool{}
	count := map[string]int{}
	for i := len(a.turns) - 1; i >= 0; i-- {
		sp := a.turns[i].speaker
		if !a.known {
			sp = ""
		}
		if cat == callscribe.CategoryCustomerSentiment && a.known && sp != speakerUser {
			continue
		}
		if count[sp] < 2 {
			count[sp]++
			end[i] = true
		}
	}
	return end
}

// addGroup adds binary features scaled to unit length.
func addGroup(out map[string]float64, g map[string]bool) {
	if len(g) == 0 {
		return
	}
	v := 1 / math.Sqrt(float64(len(g)))
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out[k] += v
	}
}
