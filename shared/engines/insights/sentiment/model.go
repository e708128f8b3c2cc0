package sentiment

import (
	_ "embed"
	"encoding/json"
	"math"
	"sort"
	"sync"
)

// The learned part of the score: a linear model over a turn's features
// (Features), score = tanh(weights · features). It is trained against the
// calls' customer_sentiment labels, not against labelled turns (there are
// none): the call's prediction is the mean of its customer turns' w·x,
// weighted by where each falls in the call as callsentiment weighs them, so
// the call-level model decomposes exactly into the per-turn scores the
// service reports (trainer: insights/train, FitTurnModel). Without a model
// file the score is the lexicon's alone, tanh(raw / 2.5).

//go:embed turnmodel.json
var turnModelJSON []byte

// TurnModel is turnmodel.json.
type TurnModel struct {
	Version string `json:"version"`
	// Settings the trainer used, recorded so a retrain can repeat them.
	Lambda    float64 `json:"lambda"`
	EndWeight float64 `json:"end_weight"`
	MinCalls  int     `json:"min_calls"`
	// Margin: the score is tanh(w·x / Margin).
	Margin float64 `json:"margin"`
	// Weights by feature name.
	Weights map[string]float64 `json:"weights"`
}

func (m *TurnModel) apply(x map[string]float64) float64 {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a fixed order of summation: the same score on every run
	s := 0.0
	for _, k := range keys {
		s += m.Weights[k] * x[k]
	}
	return s
}

// Apply is w·x.
func (m *TurnModel) Apply(x map[string]float64) float64 { return m.apply(x) }

var turnModel = sync.OnceValue(func() *TurnModel {
	if len(turnModelJSON) == 0 {
		return nil
	}
	var m TurnModel
	if err := json.Unmarshal(turnModelJSON, &m); err != nil {
		panic("sentiment: turnmodel.json: " + err.Error())
	}
	if len(m.Weights) == 0 {
		return nil
	}
	if m.Margin <= 0 {
		m.Margin = 1
	}
	return &m
})

// Features are a turn's features: the lexicon's positive and negative
// polarity (lex+, lex-, in units of the squashing constant), whether a clause
// ends with "!", and the turn's words and in-clause word pairs (w:, b:; binary,
// scaled to unit length together).
func Features(toks []tok, a Analysis) map[string]float64 {
	x := map[string]float64{"lex+": a.Pos / squash, "lex-": -a.Neg / squash}
	text := map[string]bool{}
	excl := false
	for i, t := range toks {
		text["w:"+t.word] = true
		if charGrams {
			w := "<" + t.word + ">"
			for n := 3; n <= 4; n++ {
				for j := 0; j+n <= len(w); j++ {
					text["c:"+w[j:j+n]] = true
				}
			}
		}
		if i > 0 && toks[i-1].clause == t.clause {
			text["b:"+toks[i-1].word+"_"+t.word] = true
		}
		excl = excl || t.exclaim
	}
	if excl {
		x["!"] = 1
	}
	if len(text) > 0 {
		v := 1 / math.Sqrt(float64(len(text)))
		for k := range text {
			x[k] = v
		}
	}
	return x
}

// charGrams adds the words' character 3- and 4-grams (c:), so a misheard
// or misspelt word still shares features with its spelling.
var charGrams = false

// TurnFeatures are Features of a turn's text, and its lexicon analysis.
func TurnFeatures(text string) (map[string]float64, Analysis) {
	toks := tokenize(text)
	a := analyzeLexicon(toks)
	return Features(toks, a), a
}

// LexiconScore is the lexicon's score alone, tanh(raw / 2.5).
func LexiconScore(a Analysis) float64 { return math.Round(math.Tanh(a.Raw/squash)*1000) / 1000 }
