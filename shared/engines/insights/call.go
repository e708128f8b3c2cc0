package insights

import (
	"sync"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// What the trainer (insights/train, infra/bench/cmd/trainmodel) reads of one
// call: the lexicon's decisions and the model's features, computed by the
// code the service runs, so that a model is fitted on the features it is
// applied to. The service itself never builds a Call.

// Call is one call as the lexicon alone reads it.
type Call struct{ a *analysis }

// Token is one word of a call.
type Token struct {
	Word    string // lower case, contractions expanded
	Stem    string
	Turn    int // index into Turns
	Speaker string
}

// Turn is one speaker's utterance in call order.
type Turn struct{ Speaker, Text string }

// The lexicons the trainer reads calls with, built on first use so that the
// service does not parse lexicon.json again at start-up: the embedded lexicon
// without the trained model, and the same with phonetic cue matching.
var (
	lexiconAlone         = sync.OnceValue(func() *model { return mustModel(lexiconJSON) })
	lexiconPhoneticAlone = sync.OnceValue(func() *model {
		m := mustModel(lexiconJSON)
		m.phonetic = true
		return m
	})
)

// ReadCall analyses a transcript with the lexicon alone; phoneticCues also
// matches a cue word by its phonetic key (the lexicon's phonetic_match).
func ReadCall(t callscribe.Transcript, phoneticCues bool) *Call {
	return &Call{a: lexiconFor(phoneticCues).analyzeLexicon(t)}
}

// lexiconFor is the embedded lexicon without the trained model, with or
// without phonetic cue matching.
func lexiconFor(phonetic bool) *model {
	if phonetic {
		return lexiconPhoneticAlone()
	}
	return lexiconAlone()
}

// Words is the call's length in tokens (what ModelFile.MinWords counts).
func (c *Call) Words() int { return len(c.a.toks) }

// LexiconValues are the values the lexicon selects for a category.
func (c *Call) LexiconValues(cat string) []string {
	if r := c.a.cats[cat]; r != nil {
		return r.selected
	}
	return nil
}

// Features are the call's features for a category, as the service computes
// them for a model with these settings. extra (nil: none) names further
// features of a token in the Position and Opening groups, whose names start
// with prefix ("e:…" or "f:"); they are scaled to unit length with the group.
func (c *Call) Features(cat string, fs FeatureSet, extra func(prefix string, t Token) []string) map[string]float64 {
	var ext func(string, *token) []string
	if extra != nil {
		ext = func(p string, t *token) []string { return extra(p, exportToken(t)) }
	}
	return features(c.a, cat, fs, c.a.cats[cat], ext)
}

func exportToken(t *token) Token {
	return Token{Word: t.word, Stem: t.stem, Turn: t.turn, Speaker: t.speaker}
}

// Tokens are the words a category's text features read: the customer's for
// customer_sentiment when the speakers are known, every word otherwise (and
// for cat "").
func (c *Call) Tokens(cat string) []Token {
	side := sideOf(cat)
	var out []Token
	for i := range c.a.toks {
		if t := &c.a.toks[i]; side == "" || !c.a.known || t.speaker == side {
			out = append(out, exportToken(t))
		}
	}
	return out
}

// Turns are the call's turns.
func (c *Call) Turns() []Turn {
	out := make([]Turn, len(c.a.turns))
	for i, t := range c.a.turns {
		out[i] = Turn{Speaker: t.speaker, Text: t.text}
	}
	return out
}

// SpeakersKnown says whether the turns name their speakers.
func (c *Call) SpeakersKnown() bool { return c.a.known }

// EndTurns are the turns the Position group reads for a category, each with
// its rank from the end within its speaker (1: the last).
func (c *Call) EndTurns(cat string) map[int]int { return endTurns(c.a, cat) }

// OpeningTurns are the turns the Opening group reads.
func (c *Call) OpeningTurns() map[int]bool { return openingTurns(c.a) }

// AddGroup adds a group of binary features scaled to unit length, as every
// text group is.
func AddGroup(out map[string]float64, g map[string]bool) { addGroup(out, g) }
