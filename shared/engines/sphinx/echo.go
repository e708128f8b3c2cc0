package sphinx

import (
	"math"
)

// Echo between the legs of a two-channel call.
//
// A call recorder takes each party on a channel of its own, but the legs are
// not sealed from each other: a telephone hybrid without a working echo
// canceller, or a handset whose earpiece leaks into its microphone, lays the
// other party's speech into a leg, fainter (the echo return loss, 6 dB or
// more by G.168, often 15-25) and late by the path's delay (a few ms to a
// few hundred). Each channel is recognised alone, and the voice activity
// detector takes an echo that stands above the line's floor for speech, so
// the far talker's words come out again on the near speaker's channel:
// words the near speaker never said, in turns that interrupt the far
// speaker's own.
//
// The echo is told from speech by the levels alone, which the detector has
// already measured. Echo follows the far channel's level, late by a fixed
// delay and lower by a fixed loss; the near speaker's own speech follows
// neither. So for a two-channel call each leg's echo path is estimated from
// the frames where the other leg talks loudest (estimateEcho): the delay is
// the lag at which the difference of the two legs' frame levels holds
// steadiest (the least median absolute deviation, which double talk, up to
// half the frames, cannot move), and the loss is that difference's median. A
// leg whose levels follow the other's at no lag (the difference straying more
// than echoMaxSpreadShare of what the far leg's own level strays: a leg that
// only hears its floor then gives the far leg's own spread) has no echo, nor
// does one whose loss is under echoMinLossDB: a leg that close
// to the other is the same mix on both channels, or both parties in one
// room, and dropping what it shares would drop the call.
//
// With a path, a frame of the near leg is echo when the far leg talks then
// (its level, delay earlier or up to echoSpread frames before that, clears
// its own floor by echoFarRiseDB) and the near frame lies no more than
// echoMarginDB above what the path predicts or its own floor, whichever is higher:
// nothing in it that the echo and the line do not explain (removeEcho). A
// region without such frames stays as it is. One with them keeps only the
// near talker's own stretches: frames that are not echo and are speech by
// the level the regions were refined with (regions.go), joined and pruned
// as the regions are, each reaching out through the quiet around it to the
// nearest echo, so a region's lead-in of silence stays, and echoPad into the
// echo for a word's edge. Double talk keeps its frames, since the near
// speaker's own speech lies well above the echo.
const (
	// The delays tried, in 10 ms frames: up to 300 ms, beyond the longest
	// tail network echo cancellers handle (128 ms) with margin.
	echoMaxLag = 30
	// A path is read only from frames where the far leg's level lies within
	// this many dB of its speech level (the loud part of its speech), and
	// needs at least echoMinFrames of them (2 s).
	echoFarLoudDB = 15.0
	echoMinFrames = 200
	// A plain delayed echo reads a spread share of 0.01-0.10 (the bench's
	// echo line), one through a smooth few-millisecond path 0.16, and one
	// high-passed at about 270 Hz as a hybrid does 0.50 on a high voice,
	// whose lowest harmonics the filter takes and its consonants keep, and
	// 0.47-0.58 on real read speech (a LibriVox reader). Legs with
	// no echo mostly never reach the share (too few frames where an echo
	// would clear the near floor); those that do, under noise 10 dB below
	// the speech, read 0.93-1.12.
	echoMaxSpreadShare = 0.7
	echoMinLossDB      = 6.0
	echoFarRiseDB      = 10.0
	echoMarginDB       = 6.0
	// Frames before the delay whose far level the echo may still carry: a
	// delay between two whole frames, and a path's tail.
	echoSpread = 2
	// Frames of padding kept each side of the near speaker's own stretches,
	// as the detector pads its regions (vadPre is 250 ms; this is a word's
	// edge, not an onset).
	echoPad = 10
)

// echoPath is one leg's estimate of the other's echo in it: the near leg's
// level at frame i follows the far leg's at i-lag, lossDB lower.
type echoPath struct {
	lag    int
	lossDB float64
	// spreadShare is how far the difference of the two legs' levels strays
	// from lossDB (its median absolute deviation) as a share of how far the
	// far leg's own level strays: near 0 for a clean echo.
	spreadShare float64
}

// estimateEcho returns the far leg's echo path in the near leg, from their
// frame levels (frameLevels, dB) and the far leg's speech regions; ok is
// false when the near leg shows no echo of it.
func estimateEcho(near, far []float64, farRegions []region) (echoPath, bool) {
	n := min(len(near), len(far))
	if n < echoMinFrames {
		return echoPath{}, false
	}
	_, farLevel, ok := floorAndLevel(far, farRegions)
	if !ok {
		return echoPath{}, false
	}
	// The far leg's own speech: the loud part of its level, where it is the
	// louder leg by at least the least loss an echo has. That leaves out its
	// stretches of the near leg's echo (its regions hold those too) and most
	// double talk.
	var loud []int
	for i := 0; i < n; i++ {
		if far[i] >= farLevel-echoFarLoudDB && far[i] >= near[i]+echoMinLossDB {
			loud = append(loud, i)
		}
	}
	p, ok := steadiestLag(near, far, loud)
	if !ok {
		return echoPath{}, false
	}
	// Where the echo would lie under the near leg's floor the floor is all
	// the near leg shows, which says nothing of the path: read it again on the
	// frames whose echo, by the first reading, clears that floor.
	nearFloor := noiseFloor(near[:n])
	var audible []int
	for _, j := range loud {
		if far[j]-p.lossDB >= nearFloor+echoFarRiseDB {
			audible = append(audible, j)
		}
	}
	if p, ok = steadiestLag(near, far, audible); !ok || p.spreadShare > echoMaxSpreadShare || p.lossDB < echoMinLossDB {
		return echoPath{}, false
	}
	return p, true
}

// steadiestLag returns the lag at which far[j] - near[j+lag] over the far
// frames js strays least from its median (that median is the loss), with
// that spread as a share of far's own over js; ok is false with fewer than
// echoMinFrames frames to read.
func steadiestLag(near, far []float64, js []int) (echoPath, bool) {
	if len(js) < echoMinFrames {
		return echoPath{}, false
	}
	_, farSpread := medianAndDeviation(levelsAt(far, js))
	if farSpread <= 0 {
		return echoPath{}, false
	}
	// One buffer for every lag's differences: an hour-long call has
	// some 200,000 frames to read at each of the 31 lags.
	diff := make([]float64, 0, len(js))
	best := echoPath{lag: -1, spreadShare: math.Inf(1)}
	for lag := 0; lag <= echoMaxLag; lag++ {
		diff = levelDifferences(diff[:0], near, far, js, lag)
		if len(diff) < echoMinFrames {
			break
		}
		m, spread := medianAndDeviation(diff)
		if share := spread / farSpread; share < best.spreadShare {
			best = echoPath{lag: lag, lossDB: m, spreadShare: share}
		}
	}
	return best, best.lag >= 0
}

// levelsAt returns db at the frames js.
func levelsAt(db []float64, js []int) []float64 {
	out := make([]float64, len(js))
	for k, j := range js {
		out[k] = db[j]
	}
	return out
}

// levelDifferences appends to out far[j] - near[j+lag] over the far frames
// js (those with j+lag inside near).
func levelDifferences(out, near, far []float64, js []int, lag int) []float64 {
	for _, j := range js {
		if i := j + lag; i < len(near) {
			out = append(out, far[j]-near[i])
		}
	}
	return out
}

// medianAndDeviation returns v's median and the median absolute deviation
// of v from it, overwriting v.
func medianAndDeviation(v []float64) (median, deviation float64) {
	if len(v) == 0 {
		return 0, 0
	}
	median = percentile(v, 0.5)
	for i := range v {
		v[i] = math.Abs(v[i] - median)
	}
	return median, percentile(v, 0.5)
}

// removeEcho returns the near leg's regions without their stretches of the
// far leg's echo p (see above), and how many frames of them it took out.
func removeEcho(regions []region, near, far []float64, farRegions []region, p echoPath) ([]region, int) {
	farFloor, _, ok := floorAndLevel(far, farRegions)
	if !ok || len(near) == 0 {
		return regions, 0
	}
	nearFloor, nearLevel, ok := floorAndLevel(near, regions)
	if !ok {
		return regions, 0
	}
	threshold := speechThreshold(nearFloor, nearLevel)
	isEcho := func(i int) bool {
		j := i - p.lag
		if j < 0 || j >= len(far) || i >= len(near) {
			return false
		}
		// The far leg's loudest of the frames the echo at i can come from:
		// the delay is read in whole frames, and a real one falls between.
		talk := far[j]
		for k := max(j-echoSpread, 0); k < j; k++ {
			talk = max(talk, far[k])
		}
		return talk >= farFloor+echoFarRiseDB && near[i] <= max(talk-p.lossDB, nearFloor)+echoMarginDB
	}
	var out []region
	for _, g := range regions {
		first, last := g.Start/frameShift, min((g.End-1)/frameShift, len(near)-1)
		echo := make([]bool, max(last-first+1, 0))
		hasEcho := false
		for i := range echo {
			echo[i] = isEcho(first + i)
			hasEcho = hasEcho || echo[i]
		}
		if !hasEcho {
			out = appendRegion(out, g)
			continue
		}
		// The near speaker's own frames are speech by the level the regions
		// were refined with and not echo. Each run of them reaches out
		// through the quiet around it to the nearest echo (a region's
		// lead-in stays, which the decoder's noise estimate starts from),
		// and echoPad into it, for a word's edge under the echo.
		own := func(i int) bool { return !echo[i-first] && near[i] >= threshold }
		for _, run := range runsWhere(first, last, own) {
			s, e := run[0], run[1]
			for s > first && !echo[s-1-first] {
				s--
			}
			for e < last && !echo[e+1-first] {
				e++
			}
			r := region{max(g.Start, (s-echoPad)*frameShift), min(g.End, (e+1+echoPad)*frameShift)}
			out = appendRegion(out, r)
		}
	}
	return out, regionFrames(regions) - regionFrames(out)
}

// regionFrames is how many 10 ms frames regions cover.
func regionFrames(regions []region) int {
	n := 0
	for _, g := range regions {
		n += (g.End - g.Start) / frameShift
	}
	return n
}
