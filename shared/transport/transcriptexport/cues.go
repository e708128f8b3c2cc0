package transcriptexport

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Cue is one subtitle: a time span, its speaker and at most MaxCueLines lines.
type Cue struct {
	Start, End float64
	Speaker    string
	Lines      []string
}

// Word is one word of a segment with its time span.
type Word struct {
	Text       string
	Start, End float64
}

// WordTimer returns the words of a segment with their times.
type WordTimer func(seg callscribe.Segment) []Word

// segmentWords uses the engine's word times when the segment carries one word
// per word of its text (the text's words keep their punctuation, which the
// engine's words may not), and interpolates otherwise.
func segmentWords(seg callscribe.Segment) []Word {
	fields := strings.Fields(seg.Text)
	if len(seg.Words) == 0 || len(seg.Words) != len(fields) {
		return interpolatedWords(seg)
	}
	words := make([]Word, len(fields))
	for i, f := range fields {
		words[i] = Word{Text: f, Start: seg.Words[i].Start, End: seg.Words[i].End}
	}
	return words
}

// interpolatedWords gives each word of seg a share of the segment's span in
// proportion to its characters (a space counts with the word after it), so a
// long word takes longer to say than a short one.
func interpolatedWords(seg callscribe.Segment) []Word {
	fields := strings.Fields(seg.Text)
	if len(fields) == 0 {
		return nil
	}
	total := chars(strings.Join(fields, " "))
	span := max(seg.TimeEnd-seg.TimeStart, 0)
	words := make([]Word, len(fields))
	offset := 0
	for i, f := range fields {
		if i > 0 {
			offset++ // the space before the word
		}
		start := seg.TimeStart + span*float64(offset)/float64(total)
		offset += chars(f)
		words[i] = Word{Text: f, Start: start, End: seg.TimeStart + span*float64(offset)/float64(total)}
	}
	return words
}

// Cues splits every segment into cues within the limits (MaxCueSeconds,
// MaxCueLines of MaxLineChars), at word boundaries, in order of start time:
// when speakers talk over each other, a short reply starts inside a long
// segment and its cue goes between that segment's cues. With labelled, the
// first line leaves room for the "Agent: " label a format writes before it
// (SRT shows it as text; a WebVTT voice span is not shown as text).
func Cues(segs []callscribe.Segment, timer WordTimer, labelled bool) []Cue {
	var cues []Cue
	for _, seg := range segs {
		words := timer(seg)
		reserve := 0
		if labelled && seg.SpeakerAlias != "" {
			reserve = chars(seg.SpeakerAlias + ": ")
		}
		for len(words) > 0 {
			n, lines := fit(words, reserve)
			// fit keeps several words within MaxCueSeconds; a single word can
			// span longer (a segment that includes the pause after it), and
			// its cue is cut short rather than held on screen.
			end := min(words[n-1].End, words[0].Start+MaxCueSeconds)
			cues = append(cues, Cue{Start: words[0].Start, End: end, Speaker: seg.SpeakerAlias, Lines: lines})
			words = words[n:]
		}
	}
	// Stable, so cues starting together keep the segments' order.
	slices.SortStableFunc(cues, func(a, b Cue) int { return cmp.Compare(a.Start, b.Start) })
	return cues
}

// fit takes as many leading words as fit one cue (at least one) and returns
// how many, wrapped into lines; the first line has reserve characters less.
func fit(words []Word, reserve int) (int, []string) {
	var lines []string
	line := ""
	for i, w := range words {
		if i > 0 && w.End-words[0].Start > MaxCueSeconds {
			return i, append(lines, line)
		}
		room := MaxLineChars
		if len(lines) == 0 {
			room -= reserve
		}
		switch {
		case line == "":
			line = w.Text
		case chars(line)+1+chars(w.Text) <= room:
			line += " " + w.Text
		case len(lines)+1 < MaxCueLines:
			lines = append(lines, line)
			line = w.Text
		default:
			return i, append(lines, line)
		}
	}
	return len(words), append(lines, line)
}

// chars counts characters as code points, not bytes, so "número" is 6 long
// like "number". A combining mark counts as one more, which can only make a
// line shorter than the limit allows, never longer.
func chars(s string) int { return utf8.RuneCountInString(s) }
