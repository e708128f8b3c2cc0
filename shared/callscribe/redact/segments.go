package redact

import (
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

// Segments redacts a transcript. A segment with words is redacted by its
// words: the words of a match become one word, the token, spanning their
// times, and the segment's text is rebuilt from its words when it was their
// plain join (otherwise the text is redacted on its own). A segment without
// words is redacted by its text, and its whole time range is a span, since
// nothing tells where in it the item was said. The input is not modified.
func Segments(segs []callscribe.Segment) ([]callscribe.Segment, Counts, []Span) {
	out := make([]callscribe.Segment, len(segs))
	counts := Counts{}
	var spans []Span
	for i, seg := range segs {
		out[i] = seg
		if len(seg.Words) == 0 {
			text, c := Text(seg.Text)
			if c.Total() > 0 {
				out[i].Text = text
				counts.Add(c)
				spans = append(spans, Span{seg.TimeStart, seg.TimeEnd})
			}
			continue
		}
		texts := make([]string, len(seg.Words))
		for k, w := range seg.Words {
			texts[k] = w.Text
		}
		matches := Find(texts)
		if len(matches) == 0 {
			// The words are clean, but a text that is not their join is
			// checked on its own.
			if seg.Text != strings.Join(texts, " ") {
				text, c := Text(seg.Text)
				if c.Total() > 0 {
					out[i].Text = text
					counts.Add(c)
					spans = append(spans, Span{seg.TimeStart, seg.TimeEnd})
				}
			}
			continue
		}
		words := make([]callscribe.Word, 0, len(seg.Words))
		last := 0
		for _, m := range matches {
			words = append(words, seg.Words[last:m.Start]...)
			first, final := seg.Words[m.Start], seg.Words[m.End-1]
			words = append(words, callscribe.Word{
				Text: Token(m.Category), Start: first.Start, End: final.End,
				Confidence: callscribe.MeanConfidence(seg.Words[m.Start:m.End]),
			})
			spans = append(spans, Span{first.Start, final.End})
			counts[m.Category]++
			last = m.End
		}
		words = append(words, seg.Words[last:]...)
		out[i].Words = words
		if seg.Text == strings.Join(texts, " ") {
			joined := make([]string, len(words))
			for k, w := range words {
				joined[k] = w.Text
			}
			out[i].Text = strings.Join(joined, " ")
		} else {
			// Punctuated text (engines that give both): redacted on its own;
			// should its rules see less than the words did, the segment's
			// text is rebuilt from the redacted words so nothing survives.
			text, c := Text(seg.Text)
			if c.Total() < len(matches) {
				joined := make([]string, len(words))
				for k, w := range words {
					joined[k] = w.Text
				}
				text = strings.Join(joined, " ")
			}
			out[i].Text = text
		}
		out[i].Confidence = callscribe.MeanConfidence(words)
		if seg.Confidence == nil {
			out[i].Confidence = nil
		}
	}
	return out, counts, spans
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
