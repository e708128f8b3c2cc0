package sphinx

// A telephone line's noise keeps the decoder's search busy: in noise more
// hypotheses score alike, so more of them survive each frame's pruning, and a
// line's channel cost about 1.7 times a clean one's CPU, most of it in the two
// decodes speaker adaptation makes (the first pass and the last). The first
// pass's words only choose which frames the speaker's transform is estimated
// on, so on such a channel it runs on a quick search that keeps fewer HMMs
// active per frame. Measured on the dev split (infra/bench/README.md), the
// cap costs a line nothing and saves a third of its first pass's CPU: the
// tuned voices through the line read 181 -> 174 errors, the formant voices
// 358 -> 352. On clean channels the same cap cost the formant voices 21
// words: their first pass is poor already, and a narrower one chooses worse
// frames. So only channels with a line's floor take it, and the last decode
// always runs on the full search.

const (
	// DefaultLineQuickSearchMaxHMMs is the HMMs a line's first pass keeps
	// active per frame (PocketSphinx's own -maxhmmpf is 30,000).
	DefaultLineQuickSearchMaxHMMs = 2000
	// DefaultLineFloorBelowDB is the speech-over-floor level (dB) under which
	// a telephone-band channel has a line's noise floor: the lines read 31-47
	// dB over theirs (GSM and a quieter talker included), noisier ones less,
	// clean audio 66 dB and up (the same gate as the energy spread's,
	// energyspread.go).
	DefaultLineFloorBelowDB = 50
)

// lineQuickMaxHMMs is the cap of the line's quick search, or 0 for none.
func lineQuickMaxHMMs(cfg Config) int {
	switch {
	case cfg.LineQuickSearchMaxHMMs < 0:
		return 0
	case cfg.LineQuickSearchMaxHMMs == 0:
		return DefaultLineQuickSearchMaxHMMs
	default:
		return cfg.LineQuickSearchMaxHMMs
	}
}

// firstPassSearch names the quick search a channel at rate whose speech lies
// speechOverFloor dB above its floor takes its first pass on: the line's
// when the decoder has one (lineQuick) and the channel has a line's floor.
func firstPassSearch(rate int, speechOverFloor float64, lineQuick bool) string {
	if lineQuick && rate <= NarrowbandRate && speechOverFloor < DefaultLineFloorBelowDB {
		return lineQuickSearch
	}
	return quickSearch
}
