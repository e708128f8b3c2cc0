package redact

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Span is a stretch of the call's timeline, in seconds, whose audio held a
// redacted item.
type Span struct {
	Start, End float64
}

// Text redacts plain text: each match becomes its category's token, and
// everything between matches, and the punctuation after one, is kept byte
// for byte.
func Text(s string) (string, Counts) {
	type tok struct{ start, end int }
	var toks []tok
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				toks = append(toks, tok{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		toks = append(toks, tok{start, len(s)})
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = s[t.start:t.end]
	}
	counts := Counts{}
	matches := Find(words)
	if len(matches) == 0 {
		return s, counts
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:toks[m.Start].start])
		b.WriteString(Token(m.Category))
		// The sentence's punctuation after the item stays.
		lastTok := s[toks[m.End-1].start:toks[m.End-1].end]
		last = toks[m.End-1].start + len(strings.TrimRight(lastTok, ".,;:!?"))
		counts[m.Category]++
	}
	b.WriteString(s[last:])
	return b.String(), counts
}

// MaxChainGap is the longest pause between two segments of one speaker
// across which a digit run or an address is still read as one: recognisers
// end a segment at a pause, and people pause between the groups of a card
// or phone number.
const MaxChainGap = 2.0

// wordRef is one word of a chain: its segment and its index there.
type wordRef struct{ seg, word int }

// part is the stretch of one segment's words that a match covers.
type part struct {
	start, end int
	category   string
}

// Segments redacts a transcript. Segments with words are read by their
// words, each speaker's in chains of segments no more than MaxChainGap
// apart, so an item said across a pause is caught: the words of a match
// become one word per segment it touches, the token, spanning their times
// (the item is counted once). A segment's text is rebuilt from its words
// when it was their plain join (otherwise the text is redacted on its own).
// A segment without words is redacted by its text, and its whole time range
// is a span, since nothing tells where in it the item was said. The input is
// not modified.
func Segments(segs []callscribe.Segment) ([]callscribe.Segment, Counts, []Span) {
	out := make([]callscribe.Segment, len(segs))
	copy(out, segs)
	counts := Counts{}
	var spans []Span
	parts := make([][]part, len(segs))

	// Chains of one speaker's segments with words, in transcript order.
	var chains [][]int
	open := map[int]int{} // speaker -> index in chains of the speaker's open chain
	for i, seg := range segs {
		if len(seg.Words) == 0 {
			text, c := Text(seg.Text)
			if c.Total() > 0 {
				out[i].Text = text
				counts.Add(c)
				spans = append(spans, Span{seg.TimeStart, seg.TimeEnd})
			}
			continue
		}
		if k, ok := open[seg.SpeakerID]; ok {
			last := segs[chains[k][len(chains[k])-1]]
			if seg.TimeStart-last.TimeEnd <= MaxChainGap {
				chains[k] = append(chains[k], i)
				continue
			}
		}
		chains = append(chains, []int{i})
		open[seg.SpeakerID] = len(chains) - 1
	}
	for _, chain := range chains {
		var texts []string
		var refs []wordRef
		for _, si := range chain {
			for wi, w := range segs[si].Words {
				texts = append(texts, w.Text)
				refs = append(refs, wordRef{si, wi})
			}
		}
		for _, m := range Find(texts) {
			counts[m.Category]++
			for k := m.Start; k < m.End; {
				si := refs[k].seg
				from := refs[k].word
				for k < m.End && refs[k].seg == si {
					k++
				}
				to := refs[k-1].word + 1
				parts[si] = append(parts[si], part{from, to, m.Category})
				spans = append(spans, Span{segs[si].Words[from].Start, segs[si].Words[to-1].End})
			}
		}
	}
	for i, ps := range parts {
		if len(ps) > 0 {
			out[i] = replaceWords(segs[i], ps)
		} else if len(segs[i].Words) > 0 {
			// The words are clean, but a text that is not their join is
			// checked on its own.
			seg := segs[i]
			if seg.Text != joinWords(seg.Words) {
				text, c := Text(seg.Text)
				if c.Total() > 0 {
					out[i].Text = text
					counts.Add(c)
					spans = append(spans, Span{seg.TimeStart, seg.TimeEnd})
				}
			}
		}
	}
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	return out, counts, spans
}

func joinWords(words []callscribe.Word) string {
	texts := make([]string, len(words))
	for k, w := range words {
		texts[k] = w.Text
	}
	return strings.Join(texts, " ")
}

// replaceWords puts one token word in place of each part's words.
func replaceWords(seg callscribe.Segment, ps []part) callscribe.Segment {
	words := make([]callscribe.Word, 0, len(seg.Words))
	last := 0
	for _, p := range ps {
		words = append(words, seg.Words[last:p.start]...)
		first, final := seg.Words[p.start], seg.Words[p.end-1]
		words = append(words, callscribe.Word{
			Text: Token(p.category), Start: first.Start, End: final.End,
			Confidence: callscribe.MeanConfidence(seg.Words[p.start:p.end]),
		})
		last = p.end
	}
	words = append(words, seg.Words[last:]...)
	out := seg
	out.Words = words
	if seg.Text == joinWords(seg.Words) {
		out.Text = joinWords(words)
	} else {
		// Punctuated text (engines that give both): redacted on its own;
		// should its rules see less than the words did (a part of an item
		// said across a pause), the text is rebuilt from the redacted words
		// so nothing survives.
		text, c := Text(seg.Text)
		if c.Total() < len(ps) {
			text = joinWords(words)
		}
		out.Text = text
	}
	if seg.Confidence != nil {
		out.Confidence = callscribe.MeanConfidence(words)
	}
	return out
}

// Transcript redacts a derived job's input: its segments and its text.
func Transcript(t callscribe.Transcript) (callscribe.Transcript, Counts) {
	segs, counts, _ := Segments(t.Segments)
	if t.Segments == nil {
		segs = nil
	}
	text, c := Text(t.Text)
	counts.Add(c)
	return callscribe.Transcript{Segments: segs, Text: text}, counts
}
