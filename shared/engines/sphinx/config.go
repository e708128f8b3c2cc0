package sphinx

import (
	_ "embed"
	"log/slog"
	"strings"

	"github.com/callscribe/callscribe/shared/engines/moonshine"
)

// Config configures the embedded engine.
type Config struct {
	// Decoders is the size of the decoder pool, normally WORKERS; at least 1.
	Decoders int
	// AgentChannel is the channel whose speaker is the Agent (AGENT_CHANNEL).
	AgentChannel int
	// ModelDir holds en-us/ (acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict; default DefaultModelDir.
	ModelDir string
	// DomainLMWeight is the interpolation weight of the call-centre LM against
	// the stock LM; 0 means DefaultDomainLMWeight, negative disables the domain LM.
	DomainLMWeight float64
	// FixedDomainLMWeight decodes every channel at DomainLMWeight. Otherwise
	// each adapted channel's final decode uses the domain weight its
	// confident first-pass words fit best (lmmix.go), pulled towards
	// DomainLMWeight by a prior worth DomainLMWeightPriorWords words (0, the
	// default, fits on the words alone).
	FixedDomainLMWeight      bool
	DomainLMWeightPriorWords float64
	// DomainText replaces the built-in call-centre training text (one sentence a
	// line); used by the bench to try other corpora.
	DomainText string
	// VADThreshold is the front end's speech/noise log-ratio; 0 means default.
	VADThreshold float64
	// NarrowbandMap maps the features of telephone-band audio (a sample rate
	// of NarrowbandRate or less) before decoding; nil means the built-in map
	// (narrowband_map.json). VoiceBandMap maps, in its place, the channels
	// decoded from their voice band (lowband.go); nil means the built-in one
	// (voiceband_map.json). DisableNarrowbandMap decodes such audio unmapped.
	NarrowbandMap        *FeatureMap
	VoiceBandMap         *FeatureMap
	DisableNarrowbandMap bool
	// DisableVoiceBand decodes the telephone-band channels the narrowband
	// map applies to as they are, even those whose speech came through a
	// line's 300-3400 Hz voice band, without first removing what lies outside
	// it (lowband.go).
	DisableVoiceBand bool
	// KeepLowBandEmpty decodes the channels decoded from their voice band
	// without the band below it regenerated from the voice band's harmonics
	// (lowbandregen.go), as the engine did before.
	KeepLowBandEmpty bool
	// Moonshine, when set, decodes each speech region a second time with
	// the neural model, and each channel's words are combined from the two
	// recognisers by their confidences (combine.go); with MoonshineOnly the
	// neural model's words stand alone (their times shared out over each
	// region, since the model gives none). Keyterms boost PocketSphinx only.
	Moonshine     *moonshine.Model
	MoonshineOnly bool
	// MoonshineDir, when Moonshine is nil, is the directory NewTranscriber
	// loads the neural model from (make deps-speech-models installs it in
	// .cache/speech-models/moonshine-tiny); Close releases it.
	MoonshineDir string
	// NoiseRemoval turns PocketSphinx's own noise suppression (-remove_noise)
	// on in the front end whose cepstra are decoded, for every channel. It is
	// off by default, except for noisy channels (NoiseRemovalBelowDB):
	// it takes down whatever it hears as steady, learnt afresh in every
	// region (each starts a stream of its own), and on the ASR bench that
	// cost the formant voices, the clean calls and the low voices on a line
	// far more than it gained the high voices there (infra/bench/README.md,
	// "Accuracy by condition"). The voice activity detector keeps its own,
	// which tracks the noise floor. The built-in narrowband map and MLLR
	// transforms were fitted with it on (their trainers' -noise-removal),
	// which decodes better than refitting them without it.
	NoiseRemoval bool
	// NoiseRemovalBelowDB turns noise removal on for the channels whose
	// speech lies less than this many dB above their noise floor (noisy
	// lines; noisegate.go); 0 means DefaultNoiseRemovalBelowDB, negative
	// none. NoiseRemoval overrides it.
	NoiseRemovalBelowDB float64
	// EnergySpreadBelowDB draws the c0 (log-energy) spread of each region of
	// the telephone-band channels whose speech lies less than this many dB
	// above their noise floor half way towards that of real speech when it
	// is narrower (energyspread.go); 0 means DefaultEnergySpreadBelowDB, negative none.
	EnergySpreadBelowDB float64
	// KeytermWeight is the interpolation weight of a job's keyterm model
	// (keyterms.go); 0 means DefaultKeytermWeight, negative ignores keyterms
	// (they are still checked against the dictionary and reported).
	KeytermWeight float64

	// NarrowbandMLLR is an MLLR transform of the acoustic model's Gaussians
	// applied while decoding the telephone-band channels the narrowband map
	// mostly applies to (map weight 0.5 or more: high voices); nil means the
	// built-in one (narrowband_mapped.mllr). NarrowbandUnmappedMLLR is
	// applied to the other telephone-band channels; nil means the built-in
	// one (narrowband_unmapped.mllr). DisableNarrowbandMLLR decodes all audio
	// with the stock model, as wideband audio always is.
	NarrowbandMLLR         *MLLR
	NarrowbandUnmappedMLLR *MLLR
	DisableNarrowbandMLLR  bool
	// SpeakerAdaptation adapts the acoustic model to each telephone-band
	// channel's speaker in a second pass (speaker_cgo.go), with SphinxTrain's
	// tools from SphinxTrainDir (default DefaultSphinxTrainDir).
	// SpeakerAdaptationWeight is the channel's own transform's share against
	// its channel type's general one (0 means DefaultSpeakerAdaptationWeight).
	SpeakerAdaptation       bool
	SpeakerAdaptationWeight float64
	// SpeakerAdaptationPasses is how many times the channel's transform is
	// estimated before the final decode: each round aligns the first pass's
	// words with the previous round's transform (the first with the channel
	// type's), so a round costs an alignment, not a decode, except on a
	// channel whose first pass was mostly unsure (speakerRedecodeBelow) (0
	// means DefaultSpeakerAdaptationPasses).
	SpeakerAdaptationPasses int
	// SpeakerMinPosterior keeps only runs of words whose lattice posterior
	// reaches it (and their frames) for the alignment, so the previous pass's
	// likely errors do not steer the transform (0 means
	// DefaultSpeakerMinPosterior; negative aligns every word).
	SpeakerMinPosterior float64
	// SpeakerVariancePrior is the weight, in frames, of the belief that the
	// model's variances fit the speaker: the channel's variance scale
	// (variance.go) is its aligned frames' estimate averaged with 1 counted
	// that many times (0 means DefaultSpeakerVariancePrior; negative leaves
	// the variances as they are).
	SpeakerVariancePrior float64
	// SpeakerOneTransform gives every Gaussian the speaker's one transform;
	// otherwise each broad phonetic class of them (silence, sonorants,
	// obstruents) gets its own (mllrclass.go). SpeakerClassPrior is the
	// weight, in frames, pulling each class's transform towards the
	// one-class transform (0 means DefaultSpeakerClassPrior).
	SpeakerOneTransform bool
	SpeakerClassPrior   float64
	// SpeakerWarpFactors are the frequency warps (warp.go) tried for each
	// adapted channel besides none (1): the channel's features are those of
	// the warp its first-pass words align to best. nil means
	// DefaultSpeakerWarpFactors; a list without a factor other than 1 tries
	// none. SpeakerWarpMargin is how much higher, in log-likelihood per frame,
	// a warp's alignment must score than the unwarped one's to be chosen.
	SpeakerWarpFactors []float64
	SpeakerWarpMargin  float64
	SphinxTrainDir     string
	// ConfidenceMap maps each word's lattice posterior to a calibrated
	// confidence (confidence.go); nil means the built-in map
	// (confidence_map.json). DisableConfidenceCalibration reports the
	// posterior itself, as the bench that fits the map needs.
	ConfidenceMap                *ConfidenceMap
	DisableConfidenceCalibration bool
	// KeepEcho leaves each channel of a two-channel call with whatever echo
	// of the other it carries; otherwise the stretches of its regions that
	// are the other channel's echo are dropped (echo.go).
	KeepEcho bool
	// QuickSearchMaxHMMs caps the HMMs the quick search (speaker
	// adaptation's first pass) keeps active per frame; 0 leaves it at the
	// decoder's -maxhmmpf.
	QuickSearchMaxHMMs int
	// LineQuickSearchMaxHMMs, when above 0, caps the HMMs the first pass
	// keeps active per frame on a telephone-band channel with a line's noise
	// floor (speech under DefaultLineFloorBelowDB over it): less CPU for a
	// few words (linesearch.go). 0, the default, caps nothing.
	LineQuickSearchMaxHMMs int
	// ExtraArgs are appended to the decoder's arguments (tuning, benches).
	ExtraArgs []string
	Logger    *slog.Logger
}

// Defaults.
const (
	DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"
	// DefaultDomainLMWeight was chosen on the two dev sets (ASR dev and the
	// tagger's dev split, errors summed: 0.3 → 1,031, 0.5 → 1,009, 0.7 →
	// 1,007) once the domain text grew from 319 to 2,972 sentences; 0.5, not
	// 0.7: the two tie within two words, and the smaller weight leaves the
	// stock LM more of the talk that is not call-centre (0.7 was not measured
	// on LibriVox; 0.3 and 0.5 score the same there). The weight was not
	// chosen again on the current text (8,695 sentences, with the calls of
	// 474 train calls). With speaker adaptation it is the first pass's
	// weight; each adapted channel's last decode uses the weight its words
	// fit (Config.FixedDomainLMWeight).
	DefaultDomainLMWeight = 0.5
	DefaultVADThreshold   = 2.0
	// DefaultSpeakerAdaptationWeight: see Config.SpeakerAdaptationWeight.
	// Chosen on the two dev sets (errors, ASR dev + tagger dev): no
	// adaptation 458 + 527, the channel's transform blended half and half
	// with its type's 383 + 478, the channel's own 377 + 448.
	DefaultSpeakerAdaptationWeight = 1.0
	// DefaultSpeakerAdaptationPasses and DefaultSpeakerMinPosterior were
	// chosen on the bench's dev split (infra/bench/README.md, "Accuracy by
	// condition"): two rounds, each aligning only runs of words with a raw
	// posterior of 0.5 or more, took the tuned voices' dev WER from 14.6% to
	// 11.3% and helped the formant-synthesis voices most. One round read 167
	// errors on dev's clean calls and 255 on its line against two rounds' 150
	// and 215; a quick first pass whose words both rounds align (the second
	// with the first's transform), with one decode at the end, read 152 and
	// 215 for 2.1x the CPU of one decode instead of 3.7x.
	DefaultSpeakerAdaptationPasses = 2
	DefaultSpeakerMinPosterior     = 0.5
	// DefaultSpeakerVariancePrior: chosen on the dev split and the LibriVox
	// clips (infra/bench/README.md, "Accuracy by condition"). Errors before,
	// without a prior and with 500 frames: tuned voices clean 152 / - / 149,
	// through a line 210 / 195 / 204, formant voices 455 / - / 417, LibriVox
	// 28 / 31 / 25 of 71.
	DefaultSpeakerVariancePrior = 500.0
	// DefaultSpeakerClassPrior: see Config.SpeakerOneTransform.
	DefaultSpeakerClassPrior = 200.0
	// speakerMinWords: a channel whose first pass has fewer words is decoded
	// again without a speaker transform.
	speakerMinWords = 15
	// speakerRedecodeBelow: a channel whose first pass has a smaller share of
	// confident words (SpeakerMinPosterior) is decoded again on the quick
	// search between adaptation rounds (adaptAndDecode). On dev the share read
	// 0.60-0.92 on the tuned voices' clean channels, 0.37-0.72 through a line
	// and 0.31-0.62 for the formant voices, whose words the extra decode
	// improves most.
	speakerRedecodeBelow = 0.5
	// NarrowbandRate is the highest source sample rate whose features go
	// through the narrowband map: the map was fitted on audio band-limited to
	// 4 kHz, so it fits 8 kHz telephone audio and nothing wider.
	NarrowbandRate = 8000
)

// builtinNarrowbandMap is the feature map fitted by infra/bench/cmd/narrowbandmap
// (make narrowband-map); its trained_on field says on what.
//
//go:embed narrowband_map.json
var builtinNarrowbandMap []byte

// BuiltinNarrowbandMap returns the feature map the engine uses by default.
func BuiltinNarrowbandMap() (*FeatureMap, error) { return ParseFeatureMap(builtinNarrowbandMap) }

// builtinVoiceBandMap is the feature map for the channels decoded from their
// voice band, fitted by infra/bench/cmd/narrowbandmap on synthesised speech
// (make voiceband-map); its trained_on field says on what.
//
//go:embed voiceband_map.json
var builtinVoiceBandMap []byte

// BuiltinVoiceBandMap returns the feature map the engine uses by default for
// the channels decoded from their voice band.
func BuiltinVoiceBandMap() (*FeatureMap, error) { return ParseFeatureMap(builtinVoiceBandMap) }

// builtinNarrowbandMLLR is the MLLR transform estimated by
// infra/bench/cmd/narrowbandadapt (make narrowband-adapt) for the channels the
// narrowband map applies to; its trailing comment says on what.
//
//go:embed narrowband_mapped.mllr
var builtinNarrowbandMLLR []byte

// BuiltinNarrowbandMLLR returns the MLLR transform the engine applies by
// default to the telephone-band channels the narrowband map applies to.
func BuiltinNarrowbandMLLR() (*MLLR, error) { return ParseMLLR(builtinNarrowbandMLLR) }

// builtinNarrowbandUnmappedMLLR is the transform for the other telephone-band
// channels (low voices), estimated the same way on the voices the map leaves
// alone.
//
//go:embed narrowband_unmapped.mllr
var builtinNarrowbandUnmappedMLLR []byte

// BuiltinNarrowbandUnmappedMLLR returns the MLLR transform the engine applies
// by default to the telephone-band channels the narrowband map leaves alone.
func BuiltinNarrowbandUnmappedMLLR() (*MLLR, error) { return ParseMLLR(builtinNarrowbandUnmappedMLLR) }

// Language is what this engine recognises.
const Language = "en"

// englishHint reports whether a BCP-47 / ISO language hint is English (or
// empty): its primary subtag must be "en" ("en", "en-US", "EN_gb", "eng").
func englishHint(tag string) bool {
	tag = strings.TrimSpace(tag)
	if tag == "" {
		return true
	}
	primary, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	primary = strings.ToLower(primary)
	return primary == "en" || primary == "eng"
}
