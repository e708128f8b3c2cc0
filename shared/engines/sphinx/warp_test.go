package sphinx

import (
	"math"
	"testing"
)

// bw's report as Debian's SphinxTrain prints it: an aligned utterance, one
// too short to try (no line end: the next report follows on the same line),
// one that could not be aligned, another aligned one, and the summary.
const bwReport = `utt>     0               w0-r0000-00  414    0   176 51  16 15 3.679040e-102 -1.578094e+02 -6.533309e+04
utt>     1               w0-r0001-00    5utt>     2               w1-r0000-00  414    0   176 19  7 7 2.142268e-102 -1.507942e+02 -6.242878e+04
utt>     3               w1-r0001-00  334    0   156 17  0 0
utt>     4               w1-r0002-00  334    0   156 -1.513249e+02 -5.054251e+04
overall> stats 1162 (-0) -1.549595e+02 -1.800583e+05
`

func TestParseAlignmentScores(t *testing.T) {
	got, err := parseAlignmentScores(bwReport)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]AlignmentScore{
		"w0-r0000-00": {Frames: 414, LogLik: -65333.09},
		"w1-r0000-00": {Frames: 414, LogLik: -62428.78},
		"w1-r0002-00": {Frames: 334, LogLik: -50542.51},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || g.Frames != w.Frames || math.Abs(g.LogLik-w.LogLik) > 1e-6 {
			t.Errorf("%s: got %+v, want %+v", id, g, w)
		}
	}
}

func TestParseAlignmentScoresRejectsGarbledNumbers(t *testing.T) {
	for _, report := range []string{
		"utt>     0    w0-r0000-00  4x2    0   126 -1.5e+02 -6.2e+04\n",
		"utt>     0    w0-r0000-00  414    0   126 -nan -nan\n",
		"utt>     0    w0-r0000-00  414    0   126 -1.5e+02 many\n",
	} {
		if _, err := parseAlignmentScores(report); err == nil {
			t.Errorf("%q: no error", report)
		}
	}
}

func TestBestWarp(t *testing.T) {
	ids := [][]string{
		{warpUtteranceID(0, 0, 0), warpUtteranceID(0, 1, 0)},
		{warpUtteranceID(1, 0, 0), warpUtteranceID(1, 1, 0)},
		{warpUtteranceID(2, 0, 0), warpUtteranceID(2, 1, 0)},
	}
	scores := map[string]AlignmentScore{
		ids[0][0]: {100, 10}, ids[0][1]: {300, 30},
		ids[1][0]: {100, 20}, ids[1][1]: {300, 60},
		ids[2][0]: {100, 15}, ids[2][1]: {300, 45},
	}
	best, perFrame := bestWarp(scores, ids, 0)
	if best != 1 {
		t.Errorf("best %d (%v), want 1", best, perFrame)
	}
	for k, want := range []float64{0.1, 0.2, 0.15} {
		if math.Abs(perFrame[k]-want) > 1e-12 {
			t.Errorf("candidate %d: %v per frame, want %v", k, perFrame[k], want)
		}
	}
	// A margin the gain does not reach keeps the unwarped features.
	if best, _ := bestWarp(scores, ids, 0.1); best != 0 {
		t.Errorf("with a margin of 0.1, best %d, want 0", best)
	}
	if best, _ := bestWarp(scores, ids, 0.09); best != 1 {
		t.Errorf("with a margin of 0.09, best %d, want 1", best)
	}
	// An utterance one candidate could not align counts for none: here the
	// second utterance, on which candidate 2 would have won.
	scores[ids[2][1]] = AlignmentScore{300, 300}
	delete(scores, ids[1][1])
	best, perFrame = bestWarp(scores, ids, 0)
	if best != 1 || math.Abs(perFrame[2]-0.15) > 1e-12 {
		t.Errorf("best %d (%v), want 1 on the first utterance alone", best, perFrame)
	}
	// Nothing aligned under every candidate: no figures, no warp.
	delete(scores, ids[0][0])
	best, perFrame = bestWarp(scores, ids, 0)
	if best != 0 || perFrame != nil {
		t.Errorf("best %d (%v), want 0 and no figures", best, perFrame)
	}
}

func TestSpeakerWarpFactors(t *testing.T) {
	if got := speakerWarpFactors(nil); len(got) != len(DefaultSpeakerWarpFactors) {
		t.Errorf("nil: %v, want the defaults %v", got, DefaultSpeakerWarpFactors)
	}
	if got := speakerWarpFactors([]float64{1}); len(got) != 0 {
		t.Errorf("[1]: %v, want none", got)
	}
	if got := speakerWarpFactors([]float64{0.96, 1, 1.08}); len(got) != 2 || got[0] != 0.96 || got[1] != 1.08 {
		t.Errorf("[0.96 1 1.08]: %v, want [0.96 1.08]", got)
	}
}
