package sphinx

// Noise removal for noisy channels only.
//
// PocketSphinx's front end can suppress steady noise (-remove_noise): per mel
// filter it tracks a floor under the signal and takes it down. Decoded with it
// on, the ASR bench's clean calls, formant voices and the low voice on a
// 35 dB line lost words (Config.NoiseRemoval, infra/bench/README.md), so the
// decoded front end runs without it. On a noisy line the other way round: with
// pink noise 20 dB below the talker, a dev sub-set of six calls read 347 errors
// without it and 288 with it, both voices gaining (Agent 262 → 220, User 85 →
// 68).
//
// Which channels are noisy is measured, not guessed: speechOverFloor
// (regions.go) is how far the channel's speech level lies above its noise
// floor. The bench's conditions read 73-78 dB on clean calls (digital silence
// between turns), 36-38 dB through the 35 dB line, 22-23 dB at 20 dB and
// 12-14 dB at 10 dB; the LibriVox recordings, whose floor is their own
// low-frequency hum, read 22-26 dB (34-38 dB once a line's band has cut the
// hum away). A channel below NoiseRemovalBelowDB is decoded from front ends
// with noise removal on, its warped candidates included; the others as before.
// The detector's own front end keeps noise removal either way, since it needs
// the floor it tracks. The trainers' Cepstra and DecodedCepstra use the
// decoder's own front end, ungated: the narrowband map and the MLLR
// transforms are fitted on clean synthesis, far above the gate.

// DefaultNoiseRemovalBelowDB sits between the 35 dB line (36 dB and up) and
// the 20 dB one (23 dB and down).
const DefaultNoiseRemovalBelowDB = 30

// noiseRemovalBelow is the speech-over-floor level (dB) under which a channel
// is decoded with noise removal, or 0 when no channel is: with
// Config.NoiseRemoval every channel already is.
func noiseRemovalBelow(cfg Config) float64 {
	if cfg.NoiseRemoval {
		return 0
	}
	return levelGate(cfg.NoiseRemovalBelowDB, DefaultNoiseRemovalBelowDB)
}

// levelGate resolves a speech-over-floor gate (dB) as the config states it:
// 0 is the gate's default, a negative value turns it off (0 dB, which no
// channel is under), anything else is the level itself.
func levelGate(db, def float64) float64 {
	switch {
	case db < 0:
		return 0
	case db == 0:
		return def
	default:
		return db
	}
}

// denoises says whether a channel whose speech lies speechOverFloor dB above
// its floor is decoded with noise removal by the gate at below (a
// channel without speech reads 0 and is never decoded).
func denoises(speechOverFloor, below float64) bool {
	return speechOverFloor < below
}
