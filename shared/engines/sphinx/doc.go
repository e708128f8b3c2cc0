// Package sphinx is the embedded, offline speech engine: PocketSphinx (Debian's
// libpocketsphinx + pocketsphinx-en-us) through cgo, and beside it, when
// Config.Moonshine or Config.MoonshineDir gives one, a neural model trained on
// real speech (package moonshine): each speech region is decoded by both and
// each channel's words are combined by their confidences (combine.go says
// how and why).
//
// Per channel it resamples to 16 kHz (windowed sinc), finds speech regions with
// the sphinxbase front end's voice activity detector, and decodes each region as
// its own utterance, which keeps word times exact; decoding a long file as one
// utterance drifts by seconds. The detector's regions are refined by level
// against the channel's own noise floor (regions.go), because on a noisy line
// it stops telling the floor from speech. In a two-channel call each leg's
// echo of the other (a hybrid or a handset that leaks the other party into
// it, fainter and late) is then taken out of its regions (echo.go): the
// detector takes an echo over the line's floor for speech, and the other
// party's words would come out again on this speaker's channel. The echo
// path is estimated from the two legs' frame levels alone, and a leg with
// none keeps its regions as they were. A high-voiced channel whose speech
// came through a telephone line's voice band is band-passed to 300-3400 Hz
// before its features are taken (voiceband.go, lowband.go): the line's noise
// outside the band would otherwise reach the narrowband map, which amplifies
// it. The band below the line's edge is then regenerated from the harmonics
// the line kept (lowbandregen.go), since a real high voice misses its
// fundamental there. The decoded features are taken without PocketSphinx's own noise
// suppression (Config.NoiseRemoval says why), except on a channel whose
// speech lies less than 30 dB above its noise floor, a noisy line, where the
// suppression wins words (noisegate.go). Each segment carries its words
// with their times and a confidence: the word's posterior probability in the
// decoder's best-path lattice (ps_seg_prob) put through a monotone map per band
// (confidence.go, confidence_map.json) fitted on the ASR dev set's words, so
// that a confidence reads as the share of such words that are right (make
// bench-confidence measures how nearly, on held-out sets). The stock English
// LM is interpolated (weight 0.5) with a call-centre trigram LM that this
// package builds at start-up from in-domain text (lmdata/): a few hundred
// hand-written sentences and the sentences of the tagger's training calls
// (train/lmtext.go says which calls and why), never a sentence of an
// evaluation set. The stock LM was trained on read text; what a support call
// says, and in what order, it barely knows. A channel decoded twice (speaker
// adaptation) is decoded the second time at the weight its first pass's
// words fit (lmmix.go), so talk unlike the domain text is not pulled
// towards it.
//
// Telephone audio (8 kHz) leaves the wideband model's upper filters empty. Its
// regions are decoded from the decoder's own cepstra after a narrowband feature
// map (featuremap.go, narrowband_map.json) fitted on recorded speech seen both
// wide and band-limited (a channel decoded from a line's voice band goes
// through voiceband_map.json instead, fitted on synthesised speech); how much of the map a channel gets depends on the speaker's
// median pitch (pitch.go), because the map helps high voices and costs low ones.
// On a channel with a noise floor (a line: speech 30-50 dB over it) each
// region's log energy, c0, is then stretched about its mean half way towards
// the spread real speech shows, and never narrowed (energyspread.go), because
// the line's noise fills the pauses the model tells words apart by.
// The acoustic model is adapted to such channels too: an MLLR transform of its
// means (mllr.go), one for the channels the map applies to
// (narrowband_mapped.mllr) and one for the others (narrowband_unmapped.mllr),
// estimated with SphinxTrain by infra/bench/cmd/narrowbandadapt.
//
// Those transforms fit telephone speech in general, not the person on the line.
// With speaker adaptation on (Config.SpeakerAdaptation; the local stack's
// default) each telephone channel is decoded twice (speaker_cgo.go). A quick
// first pass (the forward-tree search alone, without the flat-lexicon pass;
// optionally, on a channel with a line's noise floor, also with fewer HMMs
// kept active per frame: linesearch.go) finds words; the runs of them heard with confidence are aligned to the
// channel's own features by SphinxTrain's bw (with the channel type's transform
// applied, and a dictionary of only those words: pronunciations.go),
// mllr_solve estimates a transform for this speaker from that alignment
// alone, a second round aligns words again with that transform and
// estimates again (the first pass's words, or, when under half of them were
// heard with confidence, words decoded again on the quick search with the first
// transform), and every region is decoded with the result on the full search.
// For that last decode the last round's alignment also gives each broad
// phonetic class of the model's Gaussians (silence and noise, sonorants,
// obstruents; mllrclass.go) a transform of its own, pulled towards the one
// transform by a prior, and the engine moves the means itself, since
// PocketSphinx applies only the first class of a transform. The transform also scales the model's variances to how
// far this speaker's frames spread around the moved means (variance.go), pulled
// towards the model's own by a prior so short channels keep most of the model's
// width. Before the rounds, the channel's frequency warp is chosen (warp.go):
// the first pass's confident words are aligned to the channel's features from
// front ends whose mel filters are warped by a few percent, and the features
// that align with the highest likelihood are the ones adapted to and decoded,
// so a voice whose formants sit off the model's middle is moved towards it
// before its transform is estimated. No transcript is needed, so the first
// pass's errors reach the alignment; on the dev sets the speaker's own
// transform still beat a half and half blend with the general one. A channel
// whose first pass has fewer than 15 words (too few frames per parameter) is
// decoded again unadapted on the full search. Supervised adaptation to the
// bench's own Agent voice, measured once as a ceiling and never shipped, took
// the ASR dev set's Agent channel from 24.4% to 18.2%; the unsupervised pass
// reaches 19.7%.
// A clean channel adapted to costs about 2.1x the CPU of one decode (decoding
// on the full search after every round cost 3.7x for nearly the same errors
// on dev); SphinxTrain failing costs the channel its adaptation, never its
// transcript.
//
// A job's keyterms (per-job vocabulary) are boosted by a tiny n-gram model
// of the terms interpolated with those LMs in a search that lives for that
// job only; words missing from the pronouncing dictionary are reported, not
// dropped (keyterms.go has the design and the alternatives).
//
// Decoders are expensive (~0.3 s and ~100 MB each), so a fixed pool is created
// once and reused; channels of a call decode in parallel on separate decoders.
// A decoder carries nothing from one utterance to the next that changes its
// words: each region starts a front-end stream of its own (engine_cgo.go says
// why) and the channel's transform is applied before its first region, so the
// same audio gives the same transcript whichever decoder it drew and whatever
// that decoder heard before.
// Builds without cgo get a stub whose NewTranscriber reports that the embedded
// engine needs a cgo build.
//
// What builds the engine's data files (the narrowband map's fit, the
// confidence map's fit, the domain LM's text and the list of evaluation sets
// it must not read) is package
// train (shared/engines/sphinx/train), which imports this one; the service
// does not link it.
package sphinx
