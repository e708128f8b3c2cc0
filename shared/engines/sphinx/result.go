package sphinx

import (
	"math"
	"sort"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// buildResult merges the channels' segments in time order.
func buildResult(perChannel [][]callscribe.Segment, duration float64) *callscribe.TranscriptionResult {
	all := []callscribe.Segment{}
	words := 0
	for _, segs := range perChannel {
		for _, s := range segs {
			words += len(strings.Fields(s.Text))
			all = append(all, s)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].TimeStart != all[j].TimeStart {
			return all[i].TimeStart < all[j].TimeStart
		}
		return all[i].SpeakerID < all[j].SpeakerID
	})
	lang := Language
	return &callscribe.TranscriptionResult{
		Language:        &lang,
		DurationSeconds: round2(duration),
		WordsCount:      &words,
		Transcript:      all,
	}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// framesPerSecond is the decoder's frame rate (PocketSphinx's default -frate).
const framesPerSecond = 100

// fitWords rounds the words' times to centiseconds as the segment's are, and
// keeps them in order and inside the segment [start, end]: each word starts no
// earlier than the one before ends and ends no earlier than it starts, and a
// time that overshoots the segment's bounds by rounding is clamped to them.
// Confidences are clamped to [0, 1].
func fitWords(words []callscribe.Word, start, end float64) []callscribe.Word {
	out := make([]callscribe.Word, len(words))
	prev := start
	for i, w := range words {
		ws := min(max(round2(w.Start), prev), end)
		we := min(max(round2(w.End), ws), end)
		w.Start, w.End = ws, we
		if w.Confidence != nil {
			c := min(max(*w.Confidence, 0), 1)
			w.Confidence = &c
		}
		out[i] = w
		prev = we
	}
	return out
}

// calibrate replaces each word's posterior by its confidence under m for
// audio at the source sample rate rate; a nil m leaves the posteriors.
func calibrate(words []callscribe.Word, rate int, m *ConfidenceMap) {
	if m == nil {
		return
	}
	for i := range words {
		if words[i].Confidence != nil {
			c := m.Apply(*words[i].Confidence, rate)
			words[i].Confidence = &c
		}
	}
}
