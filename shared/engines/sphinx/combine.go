package sphinx

import (
	"math"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Two recognisers, one channel. With Config.Moonshine the engine decodes
// each speech region twice: with PocketSphinx as always (its acoustic model
// adapted to the speaker, its LM mixed with call language) and with the
// neural model (trained on real speech, with no call language and no
// adaptation). They fail in different places. On the bench's synthetic
// voices, which every PocketSphinx choice was fitted on, PocketSphinx is the
// better of the two (dev, the tuned pair: 9.7% against 17.1% clean); on real
// voices the neural model is, by far (the recorded prompts through a line:
// 9.7% against 38.9%; LibriVox at 8 kHz: 2.8% against 36.6%). Which one a
// caller's voice is like is not known in advance, so each channel is
// combined by the words' own confidences:
//
//   - a channel whose neural words are on average more confident than its
//     PocketSphinx words (PocketSphinx's confidences are calibrated, so they
//     drop where its model does not fit the voice) takes the neural words;
//   - any other channel is combined word by word, as ROVER combines
//     recognisers: each region's two word sequences are aligned, a word
//     both wrote stands, where they differ the more confident word stands,
//     and a word only one of them wrote stands when its confidence is at
//     least roverKeepAlone.
//
// Chosen on the dev split (infra/bench/README.md, "Two recognisers"): the
// channel rule alone, a choice per region, word-by-word alone and this
// two-level rule were read on the tuned pair, the formant voices, the
// recorded prompts and LibriVox; this one was better than PocketSphinx alone
// on every one of them (the tuned pair through the line 187 -> 164 errors,
// the formant voices clean 336 -> 312), which no other rule was. The two
// confidences can be compared as they are: on the dev words each reads
// near the share of its words that are right (the neural model's product
// of token probabilities 0.96 right at 0.9 and up, 0.54 at 0.3-0.4).

// roverKeepAlone is the confidence a word only one recogniser wrote needs to
// stand in a word-by-word combination.
const roverKeepAlone = 0.5

// combineChannel combines one channel's words region by region: ps and ms
// hold each region's PocketSphinx and neural words (spoken form, times in
// seconds, with confidences). It returns each region's words and whether
// the channel took the neural words whole.
func combineChannel(ps, ms [][]callscribe.Word) ([][]callscribe.Word, bool) {
	if meanConfidence(ms) > meanConfidence(ps) {
		out := make([][]callscribe.Word, len(ms))
		for i := range ms {
			out[i] = withinSpeech(ms[i], ps[i])
		}
		return out, true
	}
	out := make([][]callscribe.Word, len(ps))
	for i := range ps {
		out[i] = roverRegion(ps[i], ms[i])
	}
	return out, false
}

// withinSpeech returns the neural words of a region moved into the stretch
// PocketSphinx's words of the same region span, when it wrote any: the neural
// words share out the whole region, whose bounds the detector pads, while
// PocketSphinx's word times are aligned to the speech, so a turn taken from
// the neural model starts and ends where the talker did. Their relative
// times are kept (scaled linearly).
func withinSpeech(neural, ps []callscribe.Word) []callscribe.Word {
	if len(neural) == 0 || len(ps) == 0 {
		return neural
	}
	from, to := neural[0].Start, neural[len(neural)-1].End
	start, end := ps[0].Start, ps[len(ps)-1].End
	if to <= from || end <= start {
		return neural
	}
	scale := (end - start) / (to - from)
	out := make([]callscribe.Word, len(neural))
	for i, w := range neural {
		w.Start = start + (w.Start-from)*scale
		w.End = start + (w.End-from)*scale
		out[i] = w
	}
	return out
}

// meanConfidence is the mean confidence of every word in regions (a word
// without one counts as 0), and 0 when there are none.
func meanConfidence(regions [][]callscribe.Word) float64 {
	var sum float64
	n := 0
	for _, words := range regions {
		for _, w := range words {
			sum += confidenceOf(w)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func confidenceOf(w callscribe.Word) float64 {
	if w.Confidence == nil || math.IsNaN(*w.Confidence) {
		return 0
	}
	return *w.Confidence
}

// roverRegion combines one region's two word sequences: aligned by the
// fewest edits between their texts, a word in both stands as PocketSphinx
// wrote it (its times are measured, the neural model's shared out), a
// substitution takes the more confident word (on PocketSphinx's times), and
// a word in one only stands at roverKeepAlone or more.
func roverRegion(ps, ms []callscribe.Word) []callscribe.Word {
	var (
		out []callscribe.Word
		// timed says which of out carry PocketSphinx's times.
		timed []bool
	)
	for _, p := range alignWords(ps, ms) {
		switch {
		case p.ps >= 0 && p.ms >= 0:
			w := ps[p.ps]
			if m := ms[p.ms]; m.Text != w.Text && confidenceOf(m) > confidenceOf(w) {
				w.Text, w.Confidence = m.Text, m.Confidence
			}
			out, timed = append(out, w), append(timed, true)
		case p.ps >= 0:
			if confidenceOf(ps[p.ps]) >= roverKeepAlone {
				out, timed = append(out, ps[p.ps]), append(timed, true)
			}
		default:
			if confidenceOf(ms[p.ms]) >= roverKeepAlone {
				out, timed = append(out, ms[p.ms]), append(timed, false)
			}
		}
	}
	placeUntimed(out, timed)
	return out
}

// placeUntimed gives the words only the neural model wrote times beside
// their measured neighbours: the neural times are the region's shared out,
// and the region's bounds are the detector's, padded, so a word the model
// heard before PocketSphinx's first would otherwise open the turn too early.
// Each keeps its shared-out length: after the word before it, or, leading
// the region, ending where the first measured word starts; never past the
// next measured word's start.
func placeUntimed(words []callscribe.Word, timed []bool) {
	for k := range words {
		if timed[k] {
			continue
		}
		next := -1
		for j := k + 1; j < len(words); j++ {
			if timed[j] {
				next = j
				break
			}
		}
		d := words[k].End - words[k].Start
		switch {
		case k > 0:
			words[k].Start = words[k-1].End
		case next >= 0:
			words[k].Start = words[next].Start - d*float64(next-k)
		default:
			continue
		}
		words[k].End = words[k].Start + d
		if next >= 0 {
			words[k].End = max(min(words[k].End, words[next].Start), words[k].Start)
		}
	}
}

// wordPair is one step of an alignment: indices into the two sequences, -1
// where a word has no partner.
type wordPair struct{ ps, ms int }

// alignWords aligns two word sequences by the fewest substitutions,
// insertions and deletions of their texts (Levenshtein) and, among
// alignments with as few, the one that pairs the most equal words: "a uh b"
// against "a b c" pairs the two b's rather than substituting b for uh and c
// for b, which would write b twice.
func alignWords(a, b []callscribe.Word) []wordPair {
	// score = edits*edit - matches: fewest edits first, then most matches
	// (a region holds far fewer than edit words).
	const edit = 1 << 16
	n, m := len(a), len(b)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i * edit
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j * edit
	}
	pair := func(i, j int) int {
		if a[i-1].Text == b[j-1].Text {
			return -1
		}
		return edit
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			d[i][j] = min(d[i-1][j-1]+pair(i, j), d[i-1][j]+edit, d[i][j-1]+edit)
		}
	}
	var rev []wordPair
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && d[i][j] == d[i-1][j-1]+pair(i, j):
			rev = append(rev, wordPair{i - 1, j - 1})
			i, j = i-1, j-1
		case i > 0 && d[i][j] == d[i-1][j]+edit:
			rev = append(rev, wordPair{i - 1, -1})
			i--
		default:
			rev = append(rev, wordPair{-1, j - 1})
			j--
		}
	}
	out := make([]wordPair, len(rev))
	for k, p := range rev {
		out[len(rev)-1-k] = p
	}
	return out
}

// regionSegments turns each region's words into a segment of channel ch
// (agent: Config.AgentChannel), leaving out regions without words.
func regionSegments(regions [][]callscribe.Word, ch, agent int) []callscribe.Segment {
	alias := callscribe.SpeakerAlias(ch, agent)
	var out []callscribe.Segment
	for _, words := range regions {
		if len(words) > 0 {
			out = append(out, regionSegment(words, ch, alias))
		}
	}
	return out
}

// regionSegment is one region's words as a segment of channel ch, its times
// the words' (rounded, kept in order and inside it by fitWords).
func regionSegment(words []callscribe.Word, ch int, alias string) callscribe.Segment {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.Text
	}
	seg := callscribe.Segment{
		Text:         strings.Join(texts, " "),
		TimeStart:    round2(words[0].Start),
		TimeEnd:      round2(words[len(words)-1].End),
		SpeakerID:    ch,
		SpeakerAlias: alias,
	}
	seg.Words = fitWords(words, seg.TimeStart, seg.TimeEnd)
	seg.Confidence = callscribe.MeanConfidence(seg.Words)
	return seg
}
