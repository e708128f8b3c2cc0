package sphinx

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// talkLevels returns frame levels (dB) of a talker who speaks in the given
// [from, to) frame spans, 55-75 dB a frame (a syllable's rise and fall, with
// jitter), over a floor of floorDB; rng makes each talker's levels its own.
func talkLevels(n int, spans [][2]int, floorDB float64, rng *rand.Rand) []float64 {
	db := make([]float64, n)
	for i := range db {
		db[i] = floorDB + rng.Float64()
	}
	for _, s := range spans {
		for i := s[0]; i < s[1] && i < n; i++ {
			syllable := math.Sin(math.Pi * float64((i-s[0])%20) / 20)
			db[i] = powerSum(db[i], 55+15*syllable+3*rng.Float64())
		}
	}
	return db
}

func powerSum(a, b float64) float64 {
	return 10 * math.Log10(math.Pow(10, a/10)+math.Pow(10, b/10))
}

// withEchoLevels lays far into near lossDB down and lag frames late.
func withEchoLevels(near, far []float64, lag int, lossDB float64) []float64 {
	out := make([]float64, len(near))
	for i := range near {
		out[i] = near[i]
		if j := i - lag; j >= 0 {
			out[i] = powerSum(near[i], far[j]-lossDB)
		}
	}
	return out
}

func regionsOf(spans [][2]int) []region {
	rs := make([]region, len(spans))
	for i, s := range spans {
		rs[i] = region{s[0] * frameShift, s[1] * frameShift}
	}
	return rs
}

// A conversation of 20 s: the far talker's turns, and the near talker's
// between them, one of which overlaps the far talker's (double talk).
var (
	farTurns  = [][2]int{{100, 400}, {700, 1000}, {1300, 1700}}
	nearTurns = [][2]int{{420, 680}, {1020, 1200}, {1600, 1900}}
)

func TestEstimateEchoFindsTheDelayAndTheLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	far := talkLevels(2000, farTurns, 20, rng)
	own := talkLevels(2000, nearTurns, 20, rng)
	for _, c := range []struct {
		lag  int
		loss float64
	}{{4, 20}, {0, 12}, {25, 25}} {
		near := withEchoLevels(own, far, c.lag, c.loss)
		p, ok := estimateEcho(near, far, regionsOf(farTurns))
		if !ok {
			t.Errorf("echo %d frames late, %v dB down: not found", c.lag, c.loss)
			continue
		}
		if p.lag != c.lag || math.Abs(p.lossDB-c.loss) > 1.5 {
			t.Errorf("echo %d frames late, %v dB down: estimated %d frames, %.1f dB", c.lag, c.loss, p.lag, p.lossDB)
		}
	}
}

func TestEstimateEchoFindsNoneWhereThereIsNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	far := talkLevels(2000, farTurns, 20, rng)
	own := talkLevels(2000, nearTurns, 20, rng)
	if p, ok := estimateEcho(own, far, regionsOf(farTurns)); ok {
		t.Errorf("two legs without echo: found a path %+v", p)
	}
	// Digital silence under the other's turns (clean synthesis, a recorder
	// with a perfect canceller): nothing follows the far leg.
	silent := talkLevels(2000, nearTurns, 0, rng)
	for i := range silent {
		if silent[i] < 10 {
			silent[i] = 0
		}
	}
	if p, ok := estimateEcho(silent, far, regionsOf(farTurns)); ok {
		t.Errorf("a leg of digital silence under the far turns: found a path %+v", p)
	}
	// The same mix on both channels (a mono call copied to stereo, or both
	// parties at one microphone): no echo to take out, or the call would go.
	mix := make([]float64, len(far))
	for i := range far {
		mix[i] = powerSum(far[i], own[i])
	}
	if p, ok := estimateEcho(mix, mix, regionsOf(append(append([][2]int{}, farTurns...), nearTurns...))); ok {
		t.Errorf("the same mix on both channels: found a path %+v", p)
	}
}

// framesIn counts the frames of [from, to) inside regions.
func framesIn(rs []region, from, to int) int {
	n := 0
	for i := from; i < to; i++ {
		for _, g := range rs {
			if i*frameShift >= g.Start && i*frameShift < g.End {
				n++
				break
			}
		}
	}
	return n
}

func TestRemoveEchoDropsTheEchoAndKeepsTheSpeaker(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ownFar := talkLevels(2000, farTurns, 20, rng)
	own := talkLevels(2000, nearTurns, 20, rng)
	// Each leg carries the other's echo, as both do through one hybrid.
	near := withEchoLevels(own, ownFar, 4, 20)
	far := withEchoLevels(ownFar, own, 4, 20)
	p, ok := estimateEcho(near, far, regionsOf(farTurns))
	if !ok {
		t.Fatal("no echo path")
	}
	// What a detector gives on the echoed leg: its own turns with a lead-in
	// of its floor, and the far turns' echo as regions of their own, the
	// last one run into the near talker's turn that overlaps it.
	found := regionsOf([][2]int{{80, 404}, {395, 680}, {704, 1004}, {1020, 1200}, {1304, 1900}})
	got, removed := removeEcho(found, near, far, regionsOf(farTurns), p)
	if removed < 800 {
		t.Errorf("%d echo frames removed, want most of the far turns' 1000", removed)
	}
	for _, s := range nearTurns {
		if k := framesIn(got, s[0], s[1]); k != s[1]-s[0] {
			t.Errorf("near turn %v: %d of its %d frames kept", s, k, s[1]-s[0])
		}
	}
	for _, s := range [][2]int{{80, 394}, {704, 1004}, {1304, 1580}} {
		if k := framesIn(got, s[0], s[1]); k > 0 {
			t.Errorf("echo of far turn %v: %d frames kept", s, k)
		}
	}
	// The quiet before the near talker's turn stays in its region up to the
	// echo it follows (the decoder's noise estimate starts there), and the
	// turn without echo in its region stays as the detector found it.
	lastEcho := farTurns[0][1] - 1 + 4 + echoSpread
	if k := framesIn(got, lastEcho+1-echoPad, 420); k != 420-lastEcho-1+echoPad {
		t.Errorf("lead-in of the first near turn: %d of its %d frames kept", k, 420-lastEcho-1+echoPad)
	}
	if k := framesIn(got, 1020, 1200); k != 180 {
		t.Errorf("the echo-free region: %d of its 180 frames kept", k)
	}
	// A leg that carries no echo keeps its own turns whole under a path, the
	// double talk with the far turn included.
	mine := regionsOf(nearTurns)
	if kept, n := removeEcho(mine, own, far, regionsOf(farTurns), p); n != 0 || len(kept) != len(mine) {
		t.Errorf("the near turns alone: %d frames removed, %d regions of %d left", n, len(kept), len(mine))
	}
}

// A region of echo and the leg's floor alone, with no frame of the near
// talker's own, goes whole: its quiet is not the talker's speech.
func TestRemoveEchoDropsARegionOfEchoAndQuiet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	far := talkLevels(2000, farTurns, 20, rng)
	own := talkLevels(2000, nearTurns, 20, rng)
	near := withEchoLevels(own, far, 4, 20)
	p, ok := estimateEcho(near, far, regionsOf(farTurns))
	if !ok {
		t.Fatal("no echo path")
	}
	echoOnly := regionsOf([][2]int{{660 + 25, 1010}}) // a lead-in of quiet, then the echo of the second far turn
	if got, _ := removeEcho(echoOnly, near, far, regionsOf(farTurns), p); len(got) != 0 {
		t.Errorf("a region of quiet and echo: %v left", got)
	}
}

// Whatever the levels, regions and path, removeEcho only ever takes frames
// out: what it returns is in order, does not overlap, lies inside the
// regions it was given, and the count it reports is what it took; and
// estimateEcho never reports a path outside its bounds.
func TestRemoveEchoOnlyTakesFramesOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 200 {
		n := rng.IntN(3000)
		near, far := make([]float64, n), make([]float64, n)
		for i := range n {
			near[i], far[i] = 90*rng.Float64(), 90*rng.Float64()
			if rng.IntN(4) == 0 { // runs of digital silence
				near[i] = 0
			}
		}
		randomRegions := func() []region {
			var rs []region
			for at := rng.IntN(50); at < n; at += 1 + rng.IntN(400) {
				end := min(at+1+rng.IntN(600), n)
				rs = append(rs, region{at * frameShift, end * frameShift})
				at = end
			}
			return rs
		}
		regions, farRegions := randomRegions(), randomRegions()
		p := echoPath{lag: rng.IntN(echoMaxLag + 1), lossDB: 60 * rng.Float64()}
		if found, ok := estimateEcho(near, far, farRegions); ok {
			if found.lag < 0 || found.lag > echoMaxLag || found.lossDB < echoMinLossDB || found.spreadShare > echoMaxSpreadShare {
				t.Fatalf("trial %d: path %+v outside the bounds", trial, found)
			}
			p = found
		}
		got, removed := removeEcho(regions, near, far, farRegions, p)
		if removed != regionFrames(regions)-regionFrames(got) || removed < 0 {
			t.Fatalf("trial %d: %d frames reported removed, %d -> %d frames", trial, removed, regionFrames(regions), regionFrames(got))
		}
		for i, g := range got {
			if g.End <= g.Start || (i > 0 && g.Start <= got[i-1].End) {
				t.Fatalf("trial %d: regions out of order or overlapping: %v", trial, got)
			}
			inside := false
			for _, r := range regions {
				inside = inside || (g.Start >= r.Start && g.End <= r.End)
			}
			if !inside {
				t.Fatalf("trial %d: region %v lies outside the regions given %v", trial, g, regions)
			}
		}
	}
}

// BenchmarkEchoOfAnHourLongCall estimates and removes one leg's echo in an
// hour-long call (360,000 frames, turns of 3-9 s), the cost a call pays
// before decoding.
func BenchmarkEchoOfAnHourLongCall(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 360_000
	var farTurns, nearTurns [][2]int
	for at, far := 0, true; at < n; far = !far {
		end := min(at+300+rng.IntN(600), n)
		if far {
			farTurns = append(farTurns, [2]int{at, end})
		} else {
			nearTurns = append(nearTurns, [2]int{at, end})
		}
		at = end + 50
	}
	far := talkLevels(n, farTurns, 20, rng)
	near := withEchoLevels(talkLevels(n, nearTurns, 20, rng), far, 4, 20)
	found := regionsOf(append(append([][2]int{}, nearTurns...), farTurns...))
	slices.SortFunc(found, func(x, y region) int { return x.Start - y.Start })
	b.ResetTimer()
	for b.Loop() {
		p, ok := estimateEcho(near, far, regionsOf(farTurns))
		if !ok {
			b.Fatal("no echo path")
		}
		removeEcho(found, near, far, regionsOf(farTurns), p)
	}
}
