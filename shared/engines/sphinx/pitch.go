package sphinx

import (
	"math"
	"slices"
)

// The narrowband map is for high voices. Band-limiting to 4 kHz costs a high
// voice far more than a low one (a female voice's fricatives and upper formants
// sit above 4 kHz, a male voice keeps more below), and on the ASR bench's call
// set and its dev set the map rescued the female channel but cost the male one.
// So a channel whose median pitch is at or below mapLowHz, the top of the
// typical adult male speaking range (85-155 Hz), is decoded unmapped; at or
// above mapHighHz, the bottom of the typical female range (165-255 Hz), fully
// mapped; in between, a blend. The anchors come from phonetics, not from the
// bench's voices.
const (
	mapLowHz  = 155
	mapHighHz = 165
)

// narrowbandMapWeight is the share of mapped features for a voice of median
// pitch hz. A channel with no voiced frame (hz 0) is mapped: that is the
// behaviour for telephone audio without the pitch rule.
func narrowbandMapWeight(hz float64) float64 {
	if hz <= 0 {
		return 1
	}
	return min(max((hz-mapLowHz)/(mapHighHz-mapLowHz), 0), 1)
}

// mappedChannel reports whether a channel given weight of the map counts as
// mapped: it is adapted with the mapped channels' MLLR transform
// (narrowband_mapped.mllr) and may be decoded from its voice band
// (lowband.go).
func mappedChannel(weight float64) bool { return weight >= 0.5 }

// Pitch analysis settings, for 16 kHz audio: 40 ms frames every 20 ms, voice
// between 70 and 400 Hz, and at most pitchMaxFrames frames per channel (spread
// over the speech), which is plenty for a median and keeps the cost to a few
// tens of milliseconds per channel.
const (
	pitchFrame     = 640
	pitchHop       = 320
	pitchMinLag    = targetRate / 400
	pitchMaxLag    = targetRate / 70
	pitchMaxFrames = 600
	// pitchVoiced is the normalised autocorrelation a frame needs at its best
	// lag to count as voiced.
	pitchVoiced = 0.7
)

// medianPitch estimates a speaker's median fundamental frequency in Hz over the
// voiced frames of the given speech regions (16 kHz samples read from r), or 0
// when no frame is voiced. It is a plain normalised-autocorrelation estimator:
// good enough to tell a voice's register, which is all it is used for.
func medianPitch(r *resampler, regions []region) float64 {
	total := 0
	for _, g := range regions {
		total += max(0, (g.End-g.Start-pitchFrame)/pitchHop+1)
	}
	if total == 0 {
		return 0
	}
	step := max(1, total/pitchMaxFrames) // analyse every step-th frame
	frame := make([]int16, pitchFrame)
	x := make([]float64, pitchFrame)
	var f0s []float64
	k := 0
	for _, g := range regions {
		for at := g.Start; at+pitchFrame <= g.End; at += pitchHop {
			k++
			if k%step != 0 {
				continue
			}
			frame = frame[:r.Read(frame[:pitchFrame], at)]
			if len(frame) < pitchFrame {
				continue
			}
			for i, v := range frame {
				x[i] = float64(v)
			}
			if f0 := framePitch(x); f0 > 0 {
				f0s = append(f0s, f0)
			}
		}
	}
	if len(f0s) == 0 {
		return 0
	}
	slices.Sort(f0s)
	return f0s[len(f0s)/2]
}

// framePitch returns the fundamental frequency of one frame in Hz, or 0 when
// the frame is not clearly voiced. The lag with the highest normalised
// autocorrelation wins; a shorter lag close to it is preferred, which avoids
// reporting half the pitch (the period's multiples correlate too).
func framePitch(x []float64) float64 {
	var energy float64
	for _, v := range x {
		energy += v * v
	}
	// Below about -50 dBFS there is nothing to measure.
	if energy/float64(len(x)) < 100*100 {
		return 0
	}
	corr := make([]float64, pitchMaxLag+1)
	best, bestLag := 0.0, 0
	for lag := pitchMinLag; lag <= pitchMaxLag; lag++ {
		var xy, xx, yy float64
		for i := 0; i+lag < len(x); i++ {
			xy += x[i] * x[i+lag]
			xx += x[i] * x[i]
			yy += x[i+lag] * x[i+lag]
		}
		if xx == 0 || yy == 0 {
			continue
		}
		corr[lag] = xy / math.Sqrt(xx*yy)
		if corr[lag] > best {
			best, bestLag = corr[lag], lag
		}
	}
	if best < pitchVoiced {
		return 0
	}
	for lag := pitchMinLag; lag < bestLag; lag++ {
		// A local peak nearly as strong at a shorter lag is the true period.
		if corr[lag] >= 0.9*best && corr[lag] >= corr[lag-1] && corr[lag] >= corr[lag+1] {
			bestLag = lag
			break
		}
	}
	return float64(targetRate) / float64(bestLag)
}
