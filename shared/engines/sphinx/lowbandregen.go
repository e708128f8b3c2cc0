package sphinx

import "math"

// The band below a telephone line's low edge, regenerated.
//
// A line passes 300-3400 Hz, so a voice that came through one has lost its
// fundamental and, for a high voice, its first harmonic; the wideband model's
// filter bank starts at 130 Hz and was trained on speech that has them. The
// synthetic voices the engine was tuned on hardly miss them (dev: band and
// mu-law cost their high voice nothing), but a real one does: the ASR bench's
// recorded woman's voice (the Asterisk prompts, dev) read 28.8% clean and
// 39.6% through band and mu-law, against 28.9% for the same prompts at 16 kHz,
// and taking away only the band below 300 Hz cost as much as band and mu-law
// together (on half the calls: 322 errors clean, 435 and 424). The harmonics
// the line keeps still carry the fundamental: a signal whose harmonics are spaced F0
// apart, rectified, has energy at F0 and its first multiples (the "missing
// fundamental" a listener hears on a phone). So for a channel decoded from its
// voice band (voiceband.go: a high voice whose speech came through a line's
// band) the engine rectifies the voice band, keeps lowBandRegenLowHz to
// lowBandRegenHighHz of the result, and adds it lowBandRegenDB under the voice
// band's level, about where that band lies in wideband speech (5-10 dB under
// the whole band in the bench's voices, real and synthetic; the level was set
// from that, not tuned). This is the low-band half of telephone bandwidth
// extension in its simplest form, non-linear and untrained. On dev it took the
// real voice through the line from 45.6% to 38.9%, cost the tuned synthetic
// high voice 7 words of 744 there and left the formant one as it was
// (2 fewer). Low voices are left alone, as the voice band leaves them: their
// fundamental lies near or under the filter bank's bottom and what the line
// takes is their second harmonic, and regenerating it cost the LibriVox
// reader (real, male) 6 of 71 words through mu-law.
const (
	lowBandRegenLowHz  = 70
	lowBandRegenHighHz = 280
	// lowBandRegenTransitionHz is the width of the two low-passes' edges.
	lowBandRegenTransitionHz = 60
	lowBandRegenDB           = -6
)

// withLowBand returns band (a channel's voice band, at rate) with the band
// below it regenerated: band plus its rectified self's 70-280 Hz, scaled to
// lowBandRegenDB under band's level.
func withLowBand(band []int16, rate int) []int16 {
	if len(band) == 0 || rate <= 2*voiceBandLowHz {
		return band
	}
	rectified := make([]int16, len(band))
	for i, x := range band {
		rectified[i] = int16(min(32767, abs32(int32(x))))
	}
	high := firFilter(rectified, lowPassTaps(rate, lowBandRegenHighHz, lowBandRegenTransitionHz))
	low := firFilter(rectified, lowPassTaps(rate, lowBandRegenLowHz, lowBandRegenTransitionHz))
	var bandPower, regenPower float64
	regen := make([]float64, len(band))
	for i := range band {
		regen[i] = float64(high[i]) - float64(low[i])
		bandPower += float64(band[i]) * float64(band[i])
		regenPower += regen[i] * regen[i]
	}
	if regenPower == 0 {
		return band
	}
	gain := math.Sqrt(bandPower/regenPower) * math.Pow(10, lowBandRegenDB/20.0)
	out := make([]int16, len(band))
	for i, x := range band {
		out[i] = clamp16(float32(float64(x) + gain*regen[i]))
	}
	return out
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
