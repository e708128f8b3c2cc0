// Package insights is the built-in, offline summarizer and tagger. Both rest on
// a transparent lexicon: weighted phrase cues per taxonomy value, read from one
// embedded file (lexicon.json) that anyone can read and extend, scored with a
// few rules (negation, speaker side, position in the call). A small trained
// model (model.json: multinomial logistic regression over word and character
// n-grams, trained on the train split by make train-insights, settings chosen
// on dev) decides call_reason, customer_sentiment and call_outcome when it is
// confident enough, the lexicon otherwise; README.md has the design and the
// alternatives measured. Nothing is learned at run time and nothing depends on
// the account.
package insights

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

//go:embed lexicon.json
var lexiconJSON []byte

// lexiconFile is the shape of lexicon.json; see the "_about" text in the file.
type lexiconFile struct {
	Version        string   `json:"version"`
	Negators       []string `json:"negators"`
	NegationWindow int      `json:"negation_window"`
	// PhoneticMatch: cue words of 5+ letters also match by phonetic key.
	PhoneticMatch bool                    `json:"phonetic_match"`
	Categories    map[string]categorySpec `json:"categories"`
}

type categorySpec struct {
	// Speaker limits the cues to one side ("user", "agent") when the speakers are
	// known; "any" uses both.
	Speaker string `json:"speaker"`
	// SpeakerWeights scales cues by side for "any" categories (a reason stated by
	// the customer says more than the agent repeating it).
	SpeakerWeights map[string]float64 `json:"speaker_weights"`
	// Position weights cues by where they occur: "early", "late" or "flat".
	Position string `json:"position"`
	// Negation: whether a negator shortly before a cue changes it (see NegatedAs).
	Negation bool `json:"negation"`
	// MinScore is the score a value needs to be selected at all.
	MinScore float64 `json:"min_score"`
	// SecondaryRatio: in multi-valued categories, further values are kept when
	// they reach this fraction of the top score.
	SecondaryRatio float64 `json:"secondary_ratio"`
	// MixedRatio (customer_sentiment): both sides at least this fraction of the
	// other makes the sentiment mixed.
	MixedRatio float64              `json:"mixed_ratio"`
	Values     map[string]valueSpec `json:"values"`
}

type valueSpec struct {
	Label  string `json:"label"`  // for topics: "Billing"
	Phrase string `json:"phrase"` // for summaries: "a billing question"
	// NegatedAs credits a negated cue ("not happy") to another value of the same
	// category, with NegatedWeight; "" ignores negated cues.
	NegatedAs     string  `json:"negated_as"`
	NegatedWeight float64 `json:"negated_weight"`
	// MinScore overrides the category's bar for this value.
	MinScore float64            `json:"min_score"`
	Cues     map[string]float64 `json:"cues"`
}

// cue is one compiled phrase.
type cue struct {
	value   string
	phrase  string
	stems   []string
	weight  float64
	negator bool // the phrase itself starts with a negator ("never received")
}

type category struct {
	name string
	spec categorySpec
	// byFirst indexes cues by their first stem for the scan; byKey by the
	// phonetic key of their first stem (phonetic matching, see model.phonetic).
	byFirst map[string][]cue
	byKey   map[string][]cue
}

// phoneticMinLen: a cue word is matched by its phonetic key only when it has at
// least this many letters; short words ("bill", "fee", "not") must match
// exactly, their keys are shared by too many other words.
const phoneticMinLen = 5

// candidates are the cues that may start at a token, longest first: those whose
// first stem is the token's, and with phonetic matching those whose first stem
// sounds like it.
func (c *category) candidates(t token, phonetic bool) []cue {
	exact := c.byFirst[t.stem]
	if !phonetic || len(t.stem) < phoneticMinLen {
		return exact
	}
	var more []cue
	for _, cu := range c.byKey[t.key] {
		if cu.stems[0] != t.stem {
			more = append(more, cu)
		}
	}
	if len(more) == 0 {
		return exact
	}
	all := append(slices.Clone(exact), more...)
	slices.SortStableFunc(all, cueOrder)
	return all
}

// cueOrder sorts cues longest first, then by weight and phrase.
func cueOrder(a, b cue) int {
	if d := len(b.stems) - len(a.stems); d != 0 {
		return d
	}
	if a.weight != b.weight {
		if b.weight > a.weight {
			return 1
		}
		return -1
	}
	return strings.Compare(a.phrase+a.value, b.phrase+b.value)
}

type model struct {
	version   string
	negators  map[string]bool
	window    int
	cats      map[string]*category
	catsOrder []string
	// linear is the trained model that decides call_reason, call_outcome and
	// customer_sentiment (model.json); nil: the lexicon decides alone.
	linear *ModelFile
	// phonetic: a cue word of phoneticMinLen letters or more also matches a
	// word with the same phonetic key (phoneticKey), so the speech engine's
	// misspellings of a cue still count (lexicon.json "phonetic_match").
	phonetic bool
}

// defaultModel is built once from the embedded file; init panics on a broken file
// so that a bad edit cannot ship (the package tests fail first).
var defaultModel = mustModel(lexiconJSON)

func init() { defaultModel.linear = defaultLinear }

func mustModel(b []byte) *model {
	m, err := parseModel(b)
	if err != nil {
		panic("insights: lexicon.json: " + err.Error())
	}
	return m
}

// parseModel reads and validates a lexicon against the service's taxonomy.
func parseModel(b []byte) (*model, error) {
	var f lexiconFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.NegationWindow <= 0 {
		return nil, fmt.Errorf("negation_window must be positive")
	}
	m := &model{version: f.Version, negators: map[string]bool{}, window: f.NegationWindow, cats: map[string]*category{}, phonetic: f.PhoneticMatch}
	for _, n := range f.Negators {
		for _, s := range stems(n) {
			m.negators[s] = true
		}
	}
	for name := range f.Categories {
		if _, ok := callscribe.TaxonomyCategoryNamed(name); !ok {
			return nil, fmt.Errorf("category %q is not in the taxonomy", name)
		}
	}
	for _, tc := range callscribe.Taxonomy() {
		spec, ok := f.Categories[tc.Name]
		if !ok {
			return nil, fmt.Errorf("category %q missing", tc.Name)
		}
		if !slices.Contains([]string{"user", "agent", "any"}, spec.Speaker) || !slices.Contains([]string{"early", "late", "flat"}, spec.Position) {
			return nil, fmt.Errorf("%s: bad speaker %q or position %q", tc.Name, spec.Speaker, spec.Position)
		}
		c := &category{name: tc.Name, spec: spec, byFirst: map[string][]cue{}, byKey: map[string][]cue{}}
		for v, vs := range spec.Values {
			if !callscribe.IsTaxonomyValue(tc.Name, v) {
				return nil, fmt.Errorf("%s: value %q is not in the taxonomy", tc.Name, v)
			}
			if vs.NegatedAs != "" && !callscribe.IsTaxonomyValue(tc.Name, vs.NegatedAs) {
				return nil, fmt.Errorf("%s.%s: negated_as %q is not in the taxonomy", tc.Name, v, vs.NegatedAs)
			}
			// Inflections of one cue ("annoyed", "annoying") share their stems and
			// would count the same words twice: keep the heaviest of them.
			byStems := map[string]cue{}
			for phrase, w := range vs.Cues {
				st := stems(phrase)
				if len(st) == 0 || w <= 0 {
					return nil, fmt.Errorf("%s.%s: bad cue %q (weight %v)", tc.Name, v, phrase, w)
				}
				key := strings.Join(st, " ")
				if old, ok := byStems[key]; ok && (old.weight > w || old.weight == w && old.phrase < phrase) {
					continue
				}
				byStems[key] = cue{value: v, phrase: phrase, stems: st, weight: w, negator: m.negators[st[0]]}
			}
			for _, cu := range byStems {
				c.byFirst[cu.stems[0]] = append(c.byFirst[cu.stems[0]], cu)
				if len(cu.stems[0]) >= phoneticMinLen {
					k := phoneticKey(cu.stems[0])
					c.byKey[k] = append(c.byKey[k], cu)
				}
			}
		}
		// Longest cues first so the scan can stop at the first match; then by
		// weight and phrase for a deterministic order.
		for k := range c.byFirst {
			slices.SortFunc(c.byFirst[k], cueOrder)
		}
		for k := range c.byKey {
			slices.SortFunc(c.byKey[k], cueOrder)
		}
		m.cats[tc.Name] = c
		m.catsOrder = append(m.catsOrder, tc.Name)
	}
	return m, nil
}
