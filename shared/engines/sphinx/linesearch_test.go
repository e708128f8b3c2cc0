package sphinx

import "testing"

// Only a telephone-band channel with a line's noise floor takes the capped
// first pass, and only on a decoder that has it, which only a cap above 0
// builds.
func TestFirstPassSearchByChannel(t *testing.T) {
	for _, c := range []struct {
		rate      int
		overFloor float64
		lineQuick bool
		want      string
	}{
		{8000, 37, true, lineQuickSearch}, // a 35 dB SNR line
		{8000, 23, true, lineQuickSearch}, // noisier: noise removal's channels too
		{8000, 75, true, quickSearch},     // clean synthesis over digital silence
		{8000, DefaultLineFloorBelowDB, true, quickSearch},
		{16000, 37, true, quickSearch}, // wideband audio is never adapted
		{8000, 37, false, quickSearch}, // the cap turned off
	} {
		if got := firstPassSearch(c.rate, c.overFloor, c.lineQuick); got != c.want {
			t.Errorf("%d Hz, %.0f dB over the floor, line search %v: %q, want %q", c.rate, c.overFloor, c.lineQuick, got, c.want)
		}
	}
	for set, want := range map[int]int{0: 0, -1: 0, 2000: 2000} {
		if got := lineQuickMaxHMMs(Config{LineQuickSearchMaxHMMs: set}); got != want {
			t.Errorf("LineQuickSearchMaxHMMs %d: cap %d, want %d", set, got, want)
		}
	}
}
