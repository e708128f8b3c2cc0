//go:build cgo

package sphinx

import "testing"

// In a call whose one leg is a high voice as synthesised and whose other is
// the same voice through a line's voice band, only the band-limited leg has
// the band below 300 Hz regenerated, and it is still recognised; with
// KeepLowBandEmpty neither leg is.
func TestOnlyBandLimitedHighVoicesGetTheirLowBandRegenerated(t *testing.T) {
	needModel(t)
	t.Parallel()
	audio := fullAndBandLimitedLegs(t)
	lines, texts := transcribeLogged(t, Config{}, audio)
	if l := lines[0]; l.VoiceBand || l.LowBandRegenerated {
		t.Errorf("full-band leg: %+v, want neither its voice band nor a regenerated low band", l)
	}
	if l := lines[1]; !l.VoiceBand || !l.LowBandRegenerated {
		t.Errorf("band-limited leg: %+v, want its voice band with the low band regenerated", l)
	}
	if w := wer(shortLine, texts[1]); w > 0.3 {
		t.Errorf("band-limited leg: %q (WER %.0f%%)", texts[1], 100*w)
	}
	if lines, _ := transcribeLogged(t, Config{KeepLowBandEmpty: true}, audio); lines[1].LowBandRegenerated || !lines[1].VoiceBand {
		t.Errorf("KeepLowBandEmpty, band-limited leg: %+v, want its voice band alone", lines[1])
	}
}

// fullAndBandLimitedLegs is an 8 kHz call whose left leg is a high voice
// (slt saying shortLine) as synthesised and whose right leg is the same
// speech through a line's voice band.
func fullAndBandLimitedLegs(t *testing.T) []byte {
	t.Helper()
	const rate = 8000
	speech := speak(t, "slt", shortLine, rate)
	full := track(rate, 0.5+float64(len(speech))/float64(rate)+0.5, clip{0.5, speech})
	return wavOf(t, rate, full, voiceBand(full, rate))
}
