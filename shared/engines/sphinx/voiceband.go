package sphinx

import "math"

// High-voiced channels that came through a telephone line are decoded from
// the voice band only.
//
// A telephone line passes 300-3400 Hz, and whatever else reaches an 8 kHz
// file is the line's: hum, and the low end of its noise, where pink noise is
// strongest. The wideband model's filter bank starts at 130 Hz, so that noise
// lands in filters the narrowband map (featuremap.go) reads, and the map,
// fitted on clean speech, passes it on amplified: on the ASR dev set pink
// noise 35 dB below the talker cost the mapped (high-voice) channel 10 points
// and the unmapped one 1. Band-passing the mapped channels took 3 of those
// 10 points back. Two kinds of channel lose words to it, so they keep their
// band. A low voice has two or three harmonics below 300 Hz, and the unmapped
// channels read them: the band cost the dev set's male channel 3 words clean
// and 6 on the line, and the LibriVox reader (real speech, male) 7 of 71
// words; so the band-pass applies only to channels the map applies to
// (pitch.go), after the pitch is known. And speech that never went through a
// line has its fundamental there: a clean formant voice (espeak-ng) lost 6
// of its 33 points; so only channels whose speech is band-limited as a
// line's is (lowband.go) are band-passed. The voice activity detector reads
// the channel as it came.
const (
	voiceBandLowHz  = 300
	voiceBandHighHz = 3400
	// voiceBandTransitionHz is the width of each edge of the filter; the
	// taps follow from it (windowedSincTaps).
	voiceBandTransitionHz = 150
)

// voiceBand returns the channel (at rate Hz) through a linear-phase
// windowed-sinc band-pass of the voice band, delay-compensated so that sample
// i of the output is sample i of the input, filtered. Rates whose Nyquist is
// below the band's top edge get only the low edge.
func voiceBand(src []int16, rate int) []int16 {
	if len(src) == 0 || rate <= 2*voiceBandLowHz {
		return src
	}
	return firFilter(src, voiceBandTaps(rate))
}

// voiceBandTaps designs the band-pass for rate: the difference of two
// windowed-sinc low-passes (high edge minus low edge).
func voiceBandTaps(rate int) []float32 {
	low := float64(voiceBandLowHz) / float64(rate)
	high := math.Min(float64(voiceBandHighHz), 0.5*float64(rate)-voiceBandTransitionHz/2) / float64(rate)
	return windowedSincTaps(rate, voiceBandTransitionHz, func(n float64) float64 {
		return 2*high*sinc(2*high*n) - 2*low*sinc(2*low*n)
	})
}

// lowPassTaps designs a windowed-sinc low-pass for rate with its transition
// band, transition Hz wide, centred on cutoff Hz.
func lowPassTaps(rate int, cutoff, transition float64) []float32 {
	fc := cutoff / float64(rate)
	return windowedSincTaps(rate, transition, func(n float64) float64 { return 2 * fc * sinc(2*fc*n) })
}

// windowedSincTaps is an odd-length linear-phase FIR for rate whose ideal
// response at tap offset n is ideal(n), under a Blackman window long enough
// for transition-Hz-wide edges (a Blackman window needs about 5.5 rate/width
// taps).
func windowedSincTaps(rate int, transition float64, ideal func(n float64) float64) []float32 {
	half := int(math.Ceil(2.75 * float64(rate) / transition))
	taps := make([]float32, 2*half+1)
	for k := range taps {
		n := float64(k - half)
		taps[k] = float32(ideal(n) * blackman(n/float64(half+1)))
	}
	return taps
}

// firFilter applies odd-length linear-phase taps to src, delay-compensated so
// sample i of the output is sample i of the input, filtered.
func firFilter(src []int16, taps []float32) []int16 {
	half := len(taps) / 2
	out := make([]int16, len(src))
	for i := range src {
		var acc float32
		lo, hi := max(0, i-half), min(len(src)-1, i+half)
		for j := lo; j <= hi; j++ {
			acc += taps[j-i+half] * float32(src[j])
		}
		out[i] = clamp16(acc)
	}
	return out
}
