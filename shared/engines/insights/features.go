package insights

import (
	"math"
	"slices"
	"strconv"
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
	// Phonetic: the phonetic keys (phoneticKey) of the stems, unigrams and
	// bigrams, so a misrecognised word still meets its training features
	// ("cancelation", "cancellation").
	Phonetic bool `json:"phonetic,omitempty"`
	// Opening (call_reason): words of the customer's first two turns, where
	// the reason is stated (the first three turns without known speakers).
	Opening bool `json:"opening,omitempty"`
	// Sides: the Position words are kept apart by speaker (the agent's "I've
	// escalated" and the customer's "thanks, that fixed it"), and each
	// speaker's last turn apart from the one before.
	Sides bool `json:"sides,omitempty"`
	// Clusters (experiment only, insights/train): the word classes of the
	// call's words at every level ("k0:", "k1:" …) and bigrams of the finest,
	// and in the Opening and Position groups the classes of those turns'
	// words. Read only when the calls were prepared with a word-class table.
	Clusters bool `json:"clusters,omitempty"`
	// Vectors (experiment only, insights/train): the frequency-weighted mean
	// word vector of the category's words, and of the opening turns
	// (call_reason) or the last turns (the others). Read only when the calls
	// were prepared with a table.
	Vectors bool `json:"vectors,omitempty"`
	// Late (call_outcome): word unigrams and bigrams of the second half of the
	// call ("h:"), besides the whole call's, so that what is said late can
	// outweigh the same words early ("if this fails I'll escalate it" at the
	// start of a call that ends fixed).
	Late bool `json:"late,omitempty"`
	// Offer (call_outcome, experiment only, insights/train): the turns around
	// the agent's last priced offer, the customer's reply and the agent's
	// answer to it.
	Offer bool `json:"offer,omitempty"`
}

// String names a feature set in the training log.
func (f FeatureSet) String() string {
	var p []string
	for _, g := range []struct {
		on   bool
		name string
	}{{f.Words, "words"}, {f.Chars, "chars"}, {f.Lexicon, "lexicon"}, {f.Position, "position"}, {f.Phonetic, "phonetic"}, {f.Opening, "opening"}, {f.Sides, "sides"}, {f.Clusters, "clusters"}, {f.Vectors, "vectors"}, {f.Offer, "offer"}, {f.Late, "late"}} {
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
//
// It computes the groups a model file can name. The experiments' groups
// (Clusters, Vectors, Offer) are the trainer's (insights/train); extra, nil in
// the service, lets it add its names for a token to the Position ("e:…") and
// Opening ("f:") groups, which are scaled to unit length with them.
func features(a *analysis, cat string, fs FeatureSet, lex *catResult, extra func(prefix string, t *token) []string) map[string]float64 {
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
	if fs.Late && cat == callscribe.CategoryCallOutcome {
		g := map[string]bool{}
		for i, t := range toks {
			if t.pos < 0.5 {
				continue
			}
			g["h:"+t.stem] = true
			if i > 0 && toks[i-1].turn == t.turn {
				g["h:"+toks[i-1].stem+"_"+t.stem] = true
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
	if fs.Phonetic {
		g := map[string]bool{}
		for i, t := range toks {
			if t.key == "" {
				continue
			}
			g["p:"+t.key] = true
			if i > 0 && toks[i-1].turn == t.turn && toks[i-1].key != "" {
				g["p:"+toks[i-1].key+"_"+t.key] = true
			}
		}
		addGroup(out, g)
	}
	if fs.Position && cat != callscribe.CategoryCallReason {
		end := endTurns(a, cat)
		g := map[string]bool{}
		for i, t := range toks {
			rank, ok := end[t.turn]
			if !ok {
				continue
			}
			p := "e:"
			if fs.Sides {
				// e:<side><rank>: "e:a1:" is the agent's last turn, "e:u2:" the
				// customer's one before; "e:?" without known speakers.
				side := "?"
				if a.known && t.speaker != "" {
					side = strings.ToLower(t.speaker[:1])
				}
				p = "e:" + side + strconv.Itoa(rank) + ":"
			}
			g[p+t.stem] = true
			if i > 0 && toks[i-1].turn == t.turn {
				g[p+toks[i-1].stem+"_"+t.stem] = true
			}
			if extra != nil {
				for _, n := range extra(p, &toks[i]) {
					g[n] = true
				}
			}
		}
		addGroup(out, g)
	}
	if fs.Opening && cat == callscribe.CategoryCallReason {
		open := openingTurns(a)
		g := map[string]bool{}
		for i, t := range a.toks {
			if !open[t.turn] {
				continue
			}
			g["f:"+t.stem] = true
			if i > 0 && a.toks[i-1].turn == t.turn {
				g["f:"+a.toks[i-1].stem+"_"+t.stem] = true
			}
			if extra != nil {
				for _, n := range extra("f:", &a.toks[i]) {
					g[n] = true
				}
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
//
// The value is the turn's rank from the end within its speaker (1: the last).
func endTurns(a *analysis, cat string) map[int]int {
	end := map[int]int{}
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
			end[i] = count[sp]
		}
	}
	return end
}

// openingTurns marks the customer's first two turns (the first three turns
// without known speakers): where a caller says why they called.
func openingTurns(a *analysis) map[int]bool {
	open := map[int]bool{}
	n := 0
	for i, t := range a.turns {
		if a.known && t.speaker != speakerUser {
			continue
		}
		if n == 2 && a.known || n == 3 {
			break
		}
		n++
		open[i] = true
	}
	return open
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
