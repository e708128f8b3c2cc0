package insights

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Speaker of a turn. speakerUnknown is plain text without line prefixes: then
// every side-specific rule falls back to the whole text.
const (
	speakerUnknown = ""
	speakerAgent   = callscribe.AliasAgent
	speakerUser    = callscribe.AliasUser
)

// turn is one speaker's utterance in call order.
type turn struct {
	speaker string
	text    string
}

// token is one word of the call. stem is what lexicon cues match on; surface is
// the word as written, kept for quotes in summaries ("" for the second half of
// an expanded contraction).
type token struct {
	word     string // lower case, contractions expanded: "didn't" is "did", "not"
	stem     string
	key      string // phoneticKey(stem)
	surface  string
	turn     int
	speaker  string
	pos      float64 // relative position in the call, 0 (start) to 1 (end)
	sentence int     // index of the sentence (punctuation bounded) within the call
	clause   int     // index of the clause (sentence or comma bounded): the scope of a negator
}

// prefixRE recognises the line prefixes of plain-text transcripts. Customer and
// Caller are the User side: this service only knows two sides, the agent and
// whoever called.
var prefixRE = regexp.MustCompile(`(?i)^\s*(agent|representative|rep|operator|user|customer|caller|client)\s*:\s*`)

func prefixSpeaker(p string) string {
	switch strings.ToLower(p) {
	case "agent", "representative", "rep", "operator":
		return speakerAgent
	}
	return speakerUser
}

// turnsOf returns the turns of a transcript: the segments in time order when
// present (speech-engine output), else the lines of the text.
func turnsOf(t callscribe.Transcript) (turns []turn, source string) {
	if len(t.Segments) > 0 {
		segs := slices.Clone(t.Segments)
		slices.SortStableFunc(segs, func(a, b callscribe.Segment) int { return cmp.Compare(a.TimeStart, b.TimeStart) })
		for _, s := range segs {
			if strings.TrimSpace(s.Text) == "" {
				continue
			}
			sp := speakerUnknown
			switch s.SpeakerAlias {
			case callscribe.AliasAgent:
				sp = speakerAgent
			case callscribe.AliasUser:
				sp = speakerUser
			}
			turns = append(turns, turn{speaker: sp, text: s.Text})
		}
		return turns, "segments"
	}
	var cur *turn
	for _, line := range strings.Split(t.Text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m := prefixRE.FindStringSubmatch(line); m != nil {
			turns = append(turns, turn{speaker: prefixSpeaker(m[1]), text: line[len(m[0]):]})
			cur = &turns[len(turns)-1]
			continue
		}
		// A line without a prefix continues the current speaker's turn; before any
		// prefix it is text of an unknown speaker.
		if cur == nil {
			turns = append(turns, turn{speaker: speakerUnknown, text: line})
			cur = &turns[len(turns)-1]
			continue
		}
		cur.text += "\n" + line
	}
	return turns, "text"
}

// speakersKnown reports whether both sides are identified, which is when the
// user-only and agent-only rules apply.
func speakersKnown(turns []turn) bool {
	var agent, user bool
	for _, t := range turns {
		agent = agent || t.speaker == speakerAgent
		user = user || t.speaker == speakerUser
	}
	return agent && user
}

// wordBreak is what separates a word from the one before it.
type wordBreak uint8

const (
	breakNone     wordBreak = iota
	breakClause             // comma: "No, that's everything" does not negate "everything"
	breakSentence           // . ! ? ; : or a new line
)

// contractions expands the forms negation handling must see as "not" and folds
// the rest, so that "didn't", "did not" and the apostrophe-less "didnt" of some
// speech engines all match the same cues.
var contractions = map[string][]string{
	"can't": {"can", "not"}, "cant": {"can", "not"}, "cannot": {"can", "not"},
	"won't": {"will", "not"}, "wont": {"will", "not"},
	"ain't": {"is", "not"}, "shan't": {"shall", "not"},
	"dont": {"do", "not"}, "didnt": {"did", "not"}, "doesnt": {"does", "not"},
	"isnt": {"is", "not"}, "wasnt": {"was", "not"}, "arent": {"are", "not"},
	"havent": {"have", "not"}, "hasnt": {"has", "not"}, "couldnt": {"could", "not"},
	"wouldnt": {"would", "not"}, "shouldnt": {"should", "not"}, "werent": {"were", "not"},
	"im": {"i", "am"}, "ive": {"i", "have"}, "youre": {"you", "are"}, "theyre": {"they", "are"},
}

// words splits text into lower-case words with their surface forms, expanding
// contractions; breaks[i] is true when sentence punctuation precedes word i.
func words(text string) (ws, surfaces []string, breaks []wordBreak) {
	text = strings.NewReplacer("’", "'", "‘", "'").Replace(text)
	brk := breakNone
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		raw := strings.Trim(text[start:end], "'")
		start = -1
		if raw == "" {
			return
		}
		low := strings.ToLower(raw)
		parts := expand(low)
		for i, p := range parts {
			ws = append(ws, p)
			if i == 0 {
				surfaces = append(surfaces, raw)
			} else {
				surfaces = append(surfaces, "")
			}
			if i == 0 {
				breaks = append(breaks, brk)
			} else {
				breaks = append(breaks, breakNone)
			}
		}
		brk = breakNone
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		switch r {
		case '.', '!', '?', ';', ':', '\n':
			brk = breakSentence
		case ',':
			brk = max(brk, breakClause)
		}
	}
	flush(len(text))
	return ws, surfaces, breaks
}

var suffixForms = [][2]string{{"'m", "am"}, {"'re", "are"}, {"'ve", "have"}, {"'ll", "will"}, {"'d", "would"}}

func expand(w string) []string {
	if e, ok := contractions[w]; ok {
		return e
	}
	if base, ok := strings.CutSuffix(w, "n't"); ok {
		return []string{base, "not"}
	}
	for _, sf := range suffixForms {
		if base, ok := strings.CutSuffix(w, sf[0]); ok {
			return []string{base, sf[1]}
		}
	}
	// "'s" is "is", "has" or a possessive: none of them matters to a cue.
	if base, ok := strings.CutSuffix(w, "'s"); ok {
		return []string{base}
	}
	return []string{strings.ReplaceAll(w, "'", "")}
}

// stem is a deliberately small suffix stripper (plural, -ing, -ed, -ly, final e,
// doubled final consonant). It only has to map the inflections of one word onto
// one key, the same way for the lexicon and the call, so that "charge",
// "charged", "charges" and "charging" are one cue; it need not produce words.
func stem(w string) string {
	if s := strip(w); s != "not" && s != "no" && s != "nor" {
		return s
	}
	// Stripping must never turn a word into a negator ("noted" -> "not").
	return w
}

func strip(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ingly", "edly", "ing", "ed", "ly"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 && (suf != "ly" || len(w)-len(suf) >= 4) {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiou", rune(w[n-1])) {
		w = w[:n-1]
	}
	// Final e only on longer words: "made" must not become "mad".
	if n := len(w); n > 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// stems returns the stems of a phrase as the lexicon writes it.
func stems(phrase string) []string {
	ws, _, _ := words(phrase)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

// tokenize turns the turns into one token stream with positions.
func tokenize(turns []turn) []token {
	var toks []token
	sentence, clause := 0, 0
	for ti, t := range turns {
		ws, surf, breaks := words(t.text)
		sentence++ // a new turn is always a new sentence
		clause++
		for i, w := range ws {
			if i > 0 && breaks[i] == breakSentence {
				sentence++
			}
			if i > 0 && breaks[i] != breakNone {
				clause++
			}
			st := stem(w)
			toks = append(toks, token{word: w, stem: st, key: phoneticKey(st), surface: surf[i], turn: ti, speaker: t.speaker, sentence: sentence, clause: clause})
		}
	}
	if n := len(toks); n > 1 {
		for i := range toks {
			toks[i].pos = float64(i) / float64(n-1)
		}
	}
	return toks
}
