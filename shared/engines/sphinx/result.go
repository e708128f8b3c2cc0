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
