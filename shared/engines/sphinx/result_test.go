package sphinx

import (
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func ptr(v float64) *float64 { return &v }

// Times are rounded like the segment's, overlaps and overshoots by rounding
// are pulled inside the segment, and confidences outside [0, 1] clamped.
func TestFitWordsKeepsWordsInsideTheSegment(t *testing.T) {
	in := []callscribe.Word{
		{Text: "a", Start: 1.204, End: 1.506, Confidence: ptr(0.9)},
		{Text: "b", Start: 1.49, End: 1.8, Confidence: ptr(1.0000001)},
		{Text: "c", Start: 1.81, End: 2.013, Confidence: nil},
	}
	got := fitWords(in, 1.21, 2.0)
	want := []struct{ start, end float64 }{{1.21, 1.51}, {1.51, 1.8}, {1.81, 2.0}}
	for i, w := range got {
		if w.Text != in[i].Text || w.Start != want[i].start || w.End != want[i].end {
			t.Errorf("word %d: %+v, want %q %.2f-%.2f", i, w, in[i].Text, want[i].start, want[i].end)
		}
	}
	if *got[0].Confidence != 0.9 || *got[1].Confidence != 1 || got[2].Confidence != nil {
		t.Errorf("confidences %v %v %v", got[0].Confidence, got[1].Confidence, got[2].Confidence)
	}
	if *in[1].Confidence != 1.0000001 {
		t.Error("fitWords changed its input")
	}
}
