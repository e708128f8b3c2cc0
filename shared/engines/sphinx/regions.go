package sphinx

import (
	"math"
	"slices"
)

// Speech regions on a noisy line.
//
// The front end's voice activity detector (regions_cgo.go) tracks the noise
// it hears, but on a telephone line it stops telling a steady noise floor from
// speech: with pink noise 35 dB below the talker, regions swell to take in
// the pauses and the other party's turns (a dev call's Agent channel went
// from 32 s of speech to 50 s), and at 20 dB the whole channel is one region,
// cut every 30 s wherever that falls, mid-word included. The decoder then
// spends its time on noise, inserts words into it, and each region's
// cepstral mean (batch CMN) is taken over more noise than speech.
//
// So the detector's regions are refined by level. Each 10 ms block's energy is
// known from the same samples the detector read; a frame is loud when its
// energy clears a threshold set between the channel's noise floor (a low
// percentile of all its frames) and its speech level (a high percentile of the
// frames inside the regions). Within each region, quiet stretches of at
// least refineMinGap frames split it, and ends with such a stretch beyond the
// detector's own padding are trimmed to that padding. The threshold sits a share of
// the way from floor to speech, never more than refineMaxRise above the
// floor: on clean audio (a floor of digital silence) it is far below any
// speech, so the detector's regions come back unchanged, and only a floor the
// line put there moves it up. Everything is relative to the channel, so a
// quiet talker or a loud line reads the same.
//
// Regions longer than maxRegion are still split, but at the quietest point of
// their last stretch rather than at a fixed length.
const (
	frameShift = 160 // samples per 10 ms frame at 16 kHz
	// maxRegion splits very long stretches of speech: utterances of more than
	// half a minute slow the search and gain nothing from the longer context.
	maxRegion = 30 * targetRate
)

// VAD settings in 10 ms frames: speech is declared after vadStart speech frames
// and ended after vadPost silent ones (the hangover bridges pauses between
// words); regions start vadPre frames before the onset, so a region includes a
// little silence on each side, which the decoder's silence model absorbs.
const (
	vadStart = 10
	vadPost  = 40
	vadPre   = 25
)

const (
	// Frames are 30 ms of energy (three 10 ms blocks) every 10 ms, centred
	// on their block.
	energyBlocks = 3
	// The floor is this percentile of every frame of the channel: a channel
	// is silent at least while the other party talks.
	floorPercentile = 0.10
	// The speech level is this percentile of the frames inside the regions.
	levelPercentile = 0.90
	// The threshold rises this share of the way from floor to level, at least
	// refineMinRise and at most refineMaxRise dB above the floor.
	refineShare   = 0.35
	refineMinRise = 3.0
	refineMaxRise = 15.0
	// A quiet stretch this long (frames) splits a region: longer than the
	// pause between words, about the detector's own hangover.
	refineMinGap = vadPost
	// A loud stretch shorter than this (frames), alone between quiet ones,
	// is a click or a burst of noise, not speech: as the detector requires.
	refineMinRun = vadStart
	// A long region is split at its quietest 200 ms among the last third of
	// its first maxRegion samples.
	quietWindow = 20
)

// refineRegions narrows and splits the detector's regions by level, given the
// channel's frame levels (frameLevels).
func refineRegions(db []float64, regions []region) []region {
	if len(regions) == 0 || len(db) < energyBlocks {
		return regions
	}
	floor, level, ok := floorAndLevel(db, regions)
	if !ok {
		return regions
	}
	threshold := speechThreshold(floor, level)

	var out []region
	for _, g := range regions {
		first, last := g.Start/frameShift, min((g.End-1)/frameShift, len(db)-1)
		runs := loudRuns(db, first, last, threshold)
		for i, run := range runs {
			r := region{
				Start: max(g.Start, (run[0]-vadPre)*frameShift),
				End:   min(g.End, (run[1]+1+vadPost/2)*frameShift+energyBlocks*frameShift),
			}
			// An edge moves only past a quiet stretch that would split a
			// region: the decoder's noise estimate starts from a region's
			// first frames, and a short clip lost words when its lead-in of
			// silence was trimmed by a tenth of a second.
			if i == 0 && run[0]-first < vadPre+refineMinGap {
				r.Start = g.Start
			}
			if i == len(runs)-1 && last-run[1] < vadPost/2+refineMinGap {
				r.End = g.End
			}
			if r.End > r.Start {
				out = appendRegion(out, r)
			}
		}
	}
	return splitLong(db, out)
}

// speechThreshold is the level (dB) a frame of a channel with this floor and
// speech level must reach to count as speech.
func speechThreshold(floor, level float64) float64 {
	return floor + min(max(refineShare*(level-floor), refineMinRise), refineMaxRise)
}

// floorAndLevel returns a channel's noise floor (a low percentile of all its
// frame levels db) and its speech level (a high percentile of the frames
// inside regions); ok is false when no frame lies inside a region.
func floorAndLevel(db []float64, regions []region) (floor, level float64, ok bool) {
	var inside []float64
	for _, g := range regions {
		for i := g.Start / frameShift; i < min(g.End/frameShift, len(db)); i++ {
			inside = append(inside, db[i])
		}
	}
	if len(inside) == 0 {
		return 0, 0, false
	}
	return noiseFloor(db), percentile(inside, levelPercentile), true
}

// noiseFloor is a channel's noise floor: a low percentile of all its frame
// levels db.
func noiseFloor(db []float64) float64 {
	return percentile(slices.Clone(db), floorPercentile)
}

// speechOverFloor is how far (dB) a channel's speech level lies above its
// noise floor, measured as refineRegions measures them, over the regions it
// gave: 1-4 dB more than a line's signal-to-noise ratio by active speech
// level on the ASR bench (the speech level is a high percentile), and 70 dB
// or more over digital silence. 0 for a channel without speech.
func speechOverFloor(db []float64, regions []region) float64 {
	if len(db) < energyBlocks {
		return 0
	}
	floor, level, ok := floorAndLevel(db, regions)
	if !ok {
		return 0
	}
	return level - floor
}

// appendRegion adds g (which starts no earlier than the last region) to rs,
// merged into the last region when the two overlap or touch.
func appendRegion(rs []region, g region) []region {
	if n := len(rs); n > 0 && g.Start <= rs[n-1].End {
		rs[n-1].End = max(rs[n-1].End, g.End)
		return rs
	}
	return append(rs, g)
}

// loudRuns returns the stretches [from, to] (frames, inclusive) of db[first:last+1]
// above threshold, joined across quiet gaps shorter than refineMinGap, without
// those shorter than refineMinRun.
func loudRuns(db []float64, first, last int, threshold float64) [][2]int {
	return runsWhere(first, last, func(i int) bool { return db[i] > threshold })
}

// runsWhere returns the stretches [from, to] (frames, inclusive) of
// first..last where on holds, joined across gaps shorter than refineMinGap,
// without those shorter than refineMinRun: speech as the detector marks it.
func runsWhere(first, last int, on func(int) bool) [][2]int {
	var runs [][2]int
	start := -1
	for i := first; i <= last+1; i++ {
		o := i <= last && on(i)
		switch {
		case o && start < 0:
			start = i
		case !o && start >= 0:
			if n := len(runs); n > 0 && start-runs[n-1][1]-1 < refineMinGap {
				runs[n-1][1] = i - 1
			} else {
				runs = append(runs, [2]int{start, i - 1})
			}
			start = -1
		}
	}
	kept := runs[:0]
	for _, r := range runs {
		if r[1]-r[0]+1 >= refineMinRun {
			kept = append(kept, r)
		}
	}
	return kept
}

// splitLong cuts regions longer than maxRegion, each time at the quietest
// window of the last third of the first maxRegion samples.
func splitLong(db []float64, regions []region) []region {
	var out []region
	for _, g := range regions {
		for g.End-g.Start > maxRegion {
			cut := g.Start + maxRegion
			lo, hi := (g.Start+2*maxRegion/3)/frameShift, cut/frameShift-quietWindow
			best := math.Inf(1)
			for i := lo; i <= hi && i+quietWindow <= len(db); i++ {
				var sum float64
				for _, v := range db[i : i+quietWindow] {
					sum += v
				}
				if sum < best {
					best, cut = sum, (i+quietWindow/2)*frameShift
				}
			}
			out = append(out, region{g.Start, cut})
			g.Start = cut
		}
		if g.End > g.Start {
			out = append(out, g)
		}
	}
	return out
}

// frameLevels turns 10 ms block energies into frame levels in dB relative to
// one quantisation step: frame i is centred on block i (the first and last
// frames cover fewer blocks). The +1 keeps digital silence at 0 dB, not -Inf.
func frameLevels(blocks []float64) []float64 {
	db := make([]float64, len(blocks))
	for i := range blocks {
		var sum float64
		n := 0
		for j := max(i-energyBlocks/2, 0); j < min(i+energyBlocks/2+1, len(blocks)); j++ {
			sum += blocks[j]
			n++
		}
		db[i] = 10 * math.Log10(sum/float64(n*frameShift)+1)
	}
	return db
}

// percentile returns the p-quantile of v (nearest rank), reordering v.
func percentile(v []float64, p float64) float64 {
	slices.Sort(v)
	i := int(p * float64(len(v)-1))
	return v[i]
}
