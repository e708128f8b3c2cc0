package sphinx

// A telephone line's noise keeps the decoder's search busy: in noise more
// hypotheses score alike, so more of them survive each frame's pruning, and a
// line's channel costs about 1.7 times a clean one's CPU, most of it in the two
// decodes speaker adaptation makes (the first pass and the last). The first
// pass's words only choose which frames the speaker's transform is estimated
// on, so Config.LineQuickSearchMaxHMMs can run it, on channels with a line's
// noise floor, on a quick search that keeps fewer HMMs active per frame; the
// last decode always runs on the full search, and clean channels keep the full
// quick search (a cap there cost the formant voices' clean first pass 21 words
// on dev).
//
// It is off by default. With 2,000 HMMs (PocketSphinx's own -maxhmmpf is
// 30,000) the dev split's lines read 15 words better and took 15-35% less CPU,
// but the test split, read once after that choice, lost words: the tuned
// voices through the line 337 -> 336 errors, the formant voices 809 -> 831,
// and the real speech (LibriVox through the line) 30 -> 35 of 71, whose
// adapted clips were aligned to a worse first pass. The CPU saving held there
// (real-time factor per channel 0.33 -> 0.18 and 0.42 -> 0.26), so a
// deployment that pays for CPU before accuracy can turn it on
// (infra/bench/README.md has the figures).

// DefaultLineFloorBelowDB is the speech-over-floor level (dB) under which a
// telephone-band channel has a line's noise floor: the lines read 31-47 dB
// over theirs (GSM and a quieter talker included), noisier ones less, clean
// audio 66 dB and up. It is the energy spread's gate (energyspread.go), which
// tells the same channels apart.
const DefaultLineFloorBelowDB = DefaultEnergySpreadBelowDB

// quickSearch and lineQuickSearch name the decoder's quick searches
// (engine_cgo.go sets them up).
const (
	quickSearch     = "quick"
	lineQuickSearch = "quick-line"
)

// lineQuickMaxHMMs is the cap of the line's quick search, or 0 for none.
func lineQuickMaxHMMs(cfg Config) int {
	return max(cfg.LineQuickSearchMaxHMMs, 0)
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
