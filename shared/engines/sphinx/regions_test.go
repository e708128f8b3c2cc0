package sphinx

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// channelBlocks builds a channel's 10 ms block energies: a floor of noise at
// rms floorRMS (0: digital silence), with speech at rms speechRMS in the
// given spans (seconds), the level of each block varied by a seeded
// generator as a real signal's is.
func channelBlocks(seconds float64, floorRMS, speechRMS float64, speech [][2]float64) []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	n := int(seconds * 100)
	blocks := make([]float64, n)
	for i := range blocks {
		a := floorRMS * (0.8 + 0.4*rng.Float64())
		for _, s := range speech {
			if float64(i) >= s[0]*100 && float64(i) < s[1]*100 {
				// Syllables: the level swings by up to 20 dB within speech.
				a = speechRMS * math.Pow(10, -rng.Float64())
			}
		}
		blocks[i] = a * a * frameShift
	}
	return blocks
}

func sec(s float64) int { return int(s * targetRate) }

// spans turns regions into seconds, rounded to the frame, for messages.
func spans(rs []region) [][2]float64 {
	var out [][2]float64
	for _, g := range rs {
		out = append(out, [2]float64{math.Round(float64(g.Start)/frameShift) / 100, math.Round(float64(g.End)/frameShift) / 100})
	}
	return out
}

func TestRefineRegionsLeavesCleanAudioAlone(t *testing.T) {
	// Digital silence between turns: the detector's regions are already
	// tight, with its padding; refining must give them back as they are.
	talk := [][2]float64{{1, 4}, {8, 12.5}, {20, 21}}
	blocks := channelBlocks(25, 0, 3000, talk)
	var detected []region
	for _, s := range talk {
		detected = append(detected, region{sec(s[0]) - vadPre*frameShift, sec(s[1]) + vadPost/2*frameShift + energyBlocks*frameShift})
	}
	got := refineRegions(frameLevels(blocks), detected)
	if !slices.Equal(got, detected) {
		t.Fatalf("clean regions changed:\n got %v\nwant %v", spans(got), spans(detected))
	}
}

func TestRefineRegionsSplitsWhatNoiseJoined(t *testing.T) {
	talk := [][2]float64{{1, 4}, {8, 12.5}, {20, 21}}
	for _, snr := range []float64{35, 20, 10} {
		speechRMS := 3000.0
		floor := speechRMS / math.Pow(10, snr/20)
		blocks := channelBlocks(25, floor, speechRMS, talk)
		// What the detector does under noise: one region for the whole channel.
		got := refineRegions(frameLevels(blocks), []region{{0, sec(25)}})
		if len(got) != len(talk) {
			t.Fatalf("%v dB: %d regions %v, want one per turn %v", snr, len(got), spans(got), talk)
		}
		for i, g := range got {
			// Each region holds its turn, with at most the detector's padding around it.
			start, end := sec(talk[i][0]), sec(talk[i][1])
			if g.Start > start || g.Start < start-(vadPre+2)*frameShift ||
				g.End < end || g.End > end+(vadPost/2+energyBlocks+2)*frameShift {
				t.Errorf("%v dB: region %d is %v, turn %v", snr, i, spans([]region{g}), talk[i])
			}
		}
	}
}

func TestRefineRegionsIgnoresLevel(t *testing.T) {
	// The same call, 30 dB quieter: the same regions.
	talk := [][2]float64{{1, 4}, {6, 9}}
	loud := channelBlocks(12, 100, 3000, talk)
	quiet := make([]float64, len(loud))
	for i, b := range loud {
		quiet[i] = b / 1000
	}
	whole := []region{{0, sec(12)}}
	a, b := refineRegions(frameLevels(loud), whole), refineRegions(frameLevels(quiet), whole)
	if !slices.Equal(a, b) || len(a) != 2 {
		t.Fatalf("loud %v, quiet %v: want the same two regions", spans(a), spans(b))
	}
}

func TestRefineRegionsDropsClicks(t *testing.T) {
	// A 50 ms burst in a noisy pause is not speech.
	blocks := channelBlocks(10, 30, 3000, [][2]float64{{1, 3}, {6, 6.05}})
	got := refineRegions(frameLevels(blocks), []region{{0, sec(10)}})
	if len(got) != 1 || got[0].End > sec(3.5) {
		t.Fatalf("regions %v: want only the speech at 1-3 s", spans(got))
	}
}

func TestRefineRegionsKeepsPausesWithinSpeech(t *testing.T) {
	// A 0.3 s pause between words does not split the turn.
	blocks := channelBlocks(8, 30, 3000, [][2]float64{{1, 3}, {3.3, 5}})
	got := refineRegions(frameLevels(blocks), []region{{0, sec(8)}})
	if len(got) != 1 {
		t.Fatalf("regions %v: want one", spans(got))
	}
}

func TestSplitLongCutsAtTheQuietestPoint(t *testing.T) {
	// 70 s of talk with a breath at 25 s and another at 52 s: cut there, not at 30 s.
	blocks := channelBlocks(70, 30, 3000, [][2]float64{{0, 25}, {25.2, 52}, {52.2, 70}})
	got := splitLong(frameLevels(blocks), []region{{0, sec(70)}})
	if len(got) != 3 {
		t.Fatalf("regions %v: want three", spans(got))
	}
	for i, want := range []float64{25.1, 52.1} {
		if cut := float64(got[i].End) / targetRate; math.Abs(cut-want) > 0.15 {
			t.Errorf("cut %d at %.2f s, want about %.1f s", i, cut, want)
		}
		if got[i].End != got[i+1].Start {
			t.Errorf("cut %d leaves a gap: %v", i, spans(got))
		}
	}
	for _, g := range got {
		if g.End-g.Start > maxRegion {
			t.Errorf("region %v is longer than %d s", spans([]region{g}), maxRegion/targetRate)
		}
	}
}

func TestRefineRegionsEdgeCases(t *testing.T) {
	if got := refineRegions(nil, nil); got != nil {
		t.Errorf("no audio: %v", got)
	}
	one := []region{{0, 100}}
	if got := refineRegions(frameLevels([]float64{1}), one); !slices.Equal(got, one) {
		t.Errorf("shorter than a frame: %v", got)
	}
	// All silence inside the regions: nothing loud, nothing left.
	if got := refineRegions(frameLevels(make([]float64, 500)), []region{{0, sec(5)}}); len(got) != 0 {
		t.Errorf("digital silence: %v", spans(got))
	}
}
