package callmetrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// longCall is an hour-long stereo transcript as the embedded engine makes
// one: turns of 1 to 12 s, alternating speakers with gaps and some overlap
// and short backchannels, each segment carrying its words with times and
// confidences.
func longCall() ([]callscribe.Segment, float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	const hour = 3600.0
	var segs []callscribe.Segment
	t, speaker := 0.5, 0
	for t < hour-15 {
		length := 1 + 11*rng.Float64()
		s := seg(speaker, t, t+length, int(length*2.5)+1)
		words := make([]callscribe.Word, 0, int(length*2.5)+1)
		n := int(length*2.5) + 1
		for k := 0; k < n; k++ {
			c := 0.5 + 0.5*rng.Float64()
			ws := t + length*float64(k)/float64(n)
			words = append(words, callscribe.Word{Text: "word", Start: ws, End: ws + length/float64(n)*0.9, Confidence: &c})
		}
		s.Words = words
		s.Confidence = callscribe.MeanConfidence(words)
		segs = append(segs, s)
		if rng.Float64() < 0.15 {
			// A backchannel of the other speaker inside this turn.
			segs = append(segs, seg(1-speaker, t+length/2, t+length/2+0.6, 1))
		}
		// The next turn: mostly after a gap, sometimes cutting in.
		t += length + 2*rng.Float64() - 0.4
		speaker = 1 - speaker
	}
	return segs, hour
}

// BenchmarkComputeHourLongCall is the pipeline's cost of a transcription's
// metrics on an hour-long call (infra/bench/README.md compares it with the
// decoding it follows).
func BenchmarkComputeHourLongCall(b *testing.B) {
	segs, dur := longCall()
	for b.Loop() {
		if m := Compute(segs, dur); m == nil {
			b.Fatal("no metrics")
		}
	}
	b.ReportMetric(float64(len(segs)), "segments")
}

// The benchmark's call exercises what a real one does: two speakers,
// overtalk, many turns.
func TestLongCallHasFigures(t *testing.T) {
	segs, dur := longCall()
	m := Compute(segs, dur)
	if len(m.Speakers) != 2 || m.OvertalkCount == 0 || m.Speakers[0].Turns < 100 {
		t.Fatalf("metrics of the hour-long call: %s", fmt.Sprintf("%+v", m))
	}
}
