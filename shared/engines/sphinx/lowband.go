package sphinx

import "math"

// Which high-voiced telephone channels came through a line's voice band.
//
// Band-passing a mapped channel to 300-3400 Hz (voiceband.go) helps when what
// lies below 300 Hz is a line's noise, and costs words when it is the talker.
// The two are easy to tell apart by where the talker's energy is. A line
// that passes only the voice band leaves the speech 45-50 dB weaker below its
// low edge than across the whole band, whatever noise it adds there (on the
// ASR bench's mu-law, `line` and 20 dB noise conditions alike); speech that
// never went through such a line (synthesis, a recording made off the line,
// the LibriVox clips) has its fundamental and first harmonics there, within
// about 13 dB of the whole band. So a mapped channel is band-passed only when
// its speech below lowBandTopHz lies more than lowBandMaxDrop dB under its
// speech overall. A line whose own low-band noise is within 30 dB of the
// talker (strong hum) reads as full band and keeps its band: the engine as it
// was before the band-pass, not worse.
const (
	// lowBandTopHz is the top of the band examined: the voice band's low
	// edge less its transition, so a line's own band edge does not count.
	lowBandTopHz = voiceBandLowHz - voiceBandTransitionHz/2
	// lowBandMaxDrop (dB) sits midway in the gap between the two kinds of
	// channel the bench has (13 and 45 dB).
	lowBandMaxDrop = 30
)

// lowBandDrop is how far (dB) the channel's speech level below lowBandTopHz
// lies under its speech level across the whole band: a high percentile of the
// 10 ms frames inside the speech regions (given in 16 kHz samples), as
// refineRegions takes a channel's speech level. ok is false for a channel
// with no speech frames or a rate too low for the band.
func lowBandDrop(samples []int16, rate int, regions []region) (drop float64, ok bool) {
	step := rate / 100
	if step == 0 || rate <= 2*lowBandTopHz {
		return 0, false
	}
	taps := lowPassTaps(rate, lowBandTopHz, voiceBandTransitionHz)
	var low, all []float64
	for _, g := range regions {
		from := max(0, g.Start*rate/targetRate)
		to := min(len(samples), g.End*rate/targetRate)
		if to-from < step {
			continue
		}
		filtered := firFilter(samples[from:to], taps)
		for i := 0; i+step <= len(filtered); i += step {
			low = append(low, meanSquareDB(filtered[i:i+step]))
			all = append(all, meanSquareDB(samples[from+i:from+i+step]))
		}
	}
	if len(all) == 0 {
		return 0, false
	}
	return percentile(all, levelPercentile) - percentile(low, levelPercentile), true
}

// voiceBandOnly reports whether a channel's speech is band-limited to the
// voice band, as a telephone line leaves it.
func voiceBandOnly(samples []int16, rate int, regions []region) bool {
	drop, ok := lowBandDrop(samples, rate, regions)
	return ok && drop > lowBandMaxDrop
}

// meanSquareDB is the level of a block in dB above one quantisation step
// (the +1 keeps digital silence at 0 dB, as frameLevels does).
func meanSquareDB(block []int16) float64 {
	var sum float64
	for _, x := range block {
		sum += float64(x) * float64(x)
	}
	return 10 * math.Log10(sum/float64(len(block))+1)
}
