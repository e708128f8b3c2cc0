package insights

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// match is one cue found in the call.
type match struct {
	cue     cue
	start   int // token index
	end     int // token index after the last word
	value   string
	weight  float64
	negated bool
}

// valueScore is the evidence gathered for one value.
type valueScore struct {
	value   string
	score   float64
	matches []match
}

// catResult is one category's scores and the values selected from them.
type catResult struct {
	scores   map[string]*valueScore
	selected []string
	// model holds the trained model's class probabilities (nil when it does not
	// decide the category); byModel says whether it made the decision.
	model   map[string]float64
	byModel bool
	// turns is the customer's label by callsentiment's rule over their
	// scored turns, with the call score, trend, decisive and strong turns and
	// who decided the tag (customersentiment.go); byTurns: the turns
	// overruled the decision of the model (or lexicon).
	turns   map[string]any
	byTurns bool
}

// analysis is everything the tagger and the summarizer derive from one call.
type analysis struct {
	turns  []turn
	toks   []token
	source string
	known  bool
	cats   map[string]*catResult
}

func (m *model) analyze(t callscribe.Transcript) *analysis {
	a := m.analyzeLexicon(t)
	if m.linear != nil {
		m.linear.apply(a)
	}
	if r := a.cats[callscribe.CategoryCustomerSentiment]; r != nil {
		model := ""
		if len(r.selected) > 0 {
			model = r.selected[0]
		}
		if label, byTurns, ev, ok := customerSentiment(t, model); ok {
			r.selected, r.byTurns, r.turns = []string{label}, byTurns, ev
			if !byTurns && !r.byModel {
				ev["decided_by"] = "lexicon" // the model was not confident or did not run
			}
		}
	}
	return a
}

// analyzeLexicon scores and decides every category by the lexicon alone.
func (m *model) analyzeLexicon(t callscribe.Transcript) *analysis {
	turns, source := turnsOf(t)
	a := &analysis{turns: turns, source: source, known: speakersKnown(turns)}
	a.toks = tokenize(turns)
	a.cats = make(map[string]*catResult, len(m.cats))
	for _, name := range m.catsOrder {
		c := m.cats[name]
		r := m.score(c, a)
		r.selected = decide(c, r)
		a.cats[name] = r
	}
	return a
}

// allows reports whether a token's side counts for the category.
func (c *category) allows(speaker string, known bool) bool {
	if !known {
		return true
	}
	switch c.spec.Speaker {
	case "user":
		return speaker == speakerUser
	case "agent":
		return speaker == speakerAgent
	}
	return true
}

// positionWeight encodes where in the call a category's evidence is most
// telling: the reason is stated early, the outcome is settled at the end.
func positionWeight(mode string, pos float64) float64 {
	switch mode {
	case "early":
		return 1 - 0.5*pos
	case "late":
		return 0.15 + 0.85*pos*pos
	}
	return 1
}

func (m *model) score(c *category, a *analysis) *catResult {
	r := &catResult{scores: map[string]*valueScore{}}
	seen := map[string]int{} // value + cue -> occurrences so far
	toks := a.toks
	coveredTo := 0 // end of the last match: a cue inside it is part of that match
	for i := 0; i < len(toks); i++ {
		if !c.allows(toks[i].speaker, a.known) {
			continue
		}
		var best []cue
		for _, cu := range c.candidates(toks[i], m.phonetic) {
			if len(best) > 0 && len(cu.stems) < len(best[0].stems) {
				break // shorter cues: the longest match wins
			}
			if len(best) > 0 && !slices.Equal(cu.stems, best[0].stems) {
				if !m.phonetic {
					break
				}
				continue // a cue of the same length matched by sound: the first match wins
			}
			if matchesAt(toks, i, cu.stems, m.phonetic) {
				best = append(best, cu)
			}
		}
		n := len(best)
		if n > 0 {
			n = len(best[0].stems)
		}
		// The longest cue at a position wins; a shorter one wholly inside an
		// earlier match adds nothing, but overlapping ones ("i'll call" and "call
		// you back") both count.
		if n == 0 || i+n <= coveredTo {
			continue
		}
		coveredTo = i + n
		negated := c.spec.Negation && !best[0].negator && m.negatedAt(toks, i)
		for _, cu := range best {
			value, w := cu.value, cu.weight
			if negated {
				vs := c.spec.Values[cu.value]
				if vs.NegatedAs == "" {
					continue
				}
				value, w = vs.NegatedAs, w*cmp.Or(vs.NegatedWeight, 1)
			}
			key := value + "\x00" + cu.phrase
			seen[key]++
			// Repeating a cue adds less each time: a customer saying "internet"
			// five times is one topic, not five.
			w *= positionWeight(c.spec.Position, toks[i].pos) / float64(seen[key])
			if c.spec.Speaker == "any" && a.known {
				if sw, ok := c.spec.SpeakerWeights[strings.ToLower(toks[i].speaker)]; ok {
					w *= sw
				}
			}
			vs := r.scores[value]
			if vs == nil {
				vs = &valueScore{value: value}
				r.scores[value] = vs
			}
			vs.score += w
			vs.matches = append(vs.matches, match{cue: cu, start: i, end: i + n, value: value, weight: w, negated: negated})
		}
	}
	return r
}

// matchesAt reports whether the cue's stems occur from token i within one
// turn: each exactly or, with phonetic matching, by the phonetic key when both
// the cue word and the token have phoneticMinLen letters or more.
func matchesAt(toks []token, i int, st []string, phonetic bool) bool {
	if i+len(st) > len(toks) {
		return false
	}
	for k, s := range st {
		t := toks[i+k]
		if t.turn != toks[i].turn {
			return false
		}
		if t.stem != s && !(phonetic && len(s) >= phoneticMinLen && len(t.stem) >= phoneticMinLen && t.key == phoneticKey(s)) {
			return false
		}
	}
	return true
}

// negatedAt reports a negator within the window before token i, in the same
// turn and clause ("I'm not happy", "it never arrived"); punctuation ends the
// scope in written text, the turn ends it in speech-engine output.
func (m *model) negatedAt(toks []token, i int) bool {
	for j := i - 1; j >= 0 && j >= i-m.window; j-- {
		if toks[j].turn != toks[i].turn || toks[j].clause != toks[i].clause {
			return false
		}
		if m.negators[toks[j].stem] {
			return true
		}
	}
	return false
}

// ranked returns the scored values, best first.
func (r *catResult) ranked() []*valueScore {
	out := make([]*valueScore, 0, len(r.scores))
	for _, v := range r.scores {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *valueScore) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.value, b.value)
	})
	return out
}

// decide selects a category's values from its scores. Selecting nothing is
// allowed: the tagger then fills the taxonomy default and says so.
func decide(c *category, r *catResult) []string {
	ranked := r.ranked()
	spec := c.spec
	switch c.name {
	case callscribe.CategoryCustomerSentiment:
		// Positive words are often mere courtesy ("great, thanks"), negative ones
		// rarely are, so each side has its own bar; mixed needs both sides past
		// the category's (lower) bar and comparable in strength.
		pos, neg := score(r, "positive"), score(r, "negative")
		posMin, negMin := c.minScore("positive"), c.minScore("negative")
		switch {
		case pos >= spec.MinScore && neg >= spec.MinScore && math.Min(pos, neg) >= spec.MixedRatio*math.Max(pos, neg):
			return []string{"mixed"}
		case pos >= posMin && pos > neg:
			return []string{"positive"}
		case neg >= negMin && neg >= pos:
			return []string{"negative"}
		case pos >= posMin:
			return []string{"positive"}
		}
		return []string{"neutral"}
	case callscribe.CategoryCallOutcome:
		if len(ranked) > 0 && ranked[0].score >= spec.MinScore {
			return []string{ranked[0].value}
		}
		return nil
	}
	tc, _ := callscribe.TaxonomyCategoryNamed(c.name)
	var out []string
	for _, v := range ranked {
		if len(out) == tc.MaxValues || v.score < spec.MinScore || (len(out) > 0 && v.score < spec.SecondaryRatio*ranked[0].score) {
			break
		}
		// "other" means no specific reason: it never accompanies one.
		if v.value == "other" && len(out) > 0 {
			continue
		}
		out = append(out, v.value)
		if v.value == "other" {
			break
		}
	}
	return out
}

// minScore is a value's own bar, else the category's.
func (c *category) minScore(value string) float64 {
	if v := c.spec.Values[value].MinScore; v > 0 {
		return v
	}
	return c.spec.MinScore
}

func score(r *catResult, value string) float64 {
	if v := r.scores[value]; v != nil {
		return v.score
	}
	return 0
}

// evidence lists a value's strongest cues for meta_data, so a reader can see why
// a value was chosen.
func (v *valueScore) evidence(limit int) []string {
	type agg struct {
		label string
		w     float64
		n     int
	}
	byCue := map[string]*agg{}
	for _, m := range v.matches {
		label := m.cue.phrase
		if m.negated {
			label = "not " + label
		}
		a := byCue[label]
		if a == nil {
			a = &agg{label: label}
			byCue[label] = a
		}
		a.w += m.weight
		a.n++
	}
	all := make([]*agg, 0, len(byCue))
	for _, a := range byCue {
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b *agg) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return strings.Compare(a.label, b.label)
	})
	var out []string
	for _, a := range all[:min(limit, len(all))] {
		s := a.label
		if a.n > 1 {
			s += " ×" + strconv.Itoa(a.n)
		}
		out = append(out, s)
	}
	return out
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// sizes are the source sizes both results report in meta_data.
func (a *analysis) sizes() map[string]any {
	chars := 0
	for _, t := range a.turns {
		chars += len([]rune(strings.TrimSpace(t.text)))
	}
	return map[string]any{
		"source":         a.source,
		"turns":          len(a.turns),
		"words":          len(a.toks),
		"characters":     chars,
		"speakers_known": a.known,
	}
}
