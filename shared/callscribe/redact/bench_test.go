package redact

import (
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// minuteOfCall is one minute of a two-sided call at 150 words a minute (the
// pace of callmetrics' typical speaker) in 15 segments, one of which reads out
// a card number, as the worker passes it to Segments.
func minuteOfCall() []callscribe.Segment {
	lines := []string{
		"thank you for calling how can i help you today",
		"i was charged twice on my bill and i want a refund please",
		"can i take the card number you paid with so i can find it",
		"four two four two four two four two four two four two four two four two",
		"thank you i can see two payments of forty nine ninety nine on the third",
	}
	var segs []callscribe.Segment
	t := 0.0
	for i := 0; i < 15; i++ {
		text := lines[i%len(lines)]
		ws := words(text, t, 0.4)
		segs = append(segs, callscribe.Segment{Text: text, TimeStart: t, TimeEnd: ws[len(ws)-1].End, Words: ws})
		t = ws[len(ws)-1].End
	}
	return segs
}

// BenchmarkSegmentsPerMinute is the text side of redaction's cost per
// minute of audio (infra/bench/README.md).
func BenchmarkSegmentsPerMinute(b *testing.B) {
	segs := minuteOfCall()
	n := 0
	for _, s := range segs {
		n += len(strings.Fields(s.Text))
	}
	b.ReportMetric(float64(n), "words/op")
	b.ReportAllocs()
	for b.Loop() {
		_, counts, _ := Segments(segs)
		if counts[Card] != 3 {
			b.Fatalf("counts = %v", counts)
		}
	}
}
