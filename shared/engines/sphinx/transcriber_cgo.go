//go:build cgo

package sphinx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/moonshine"
)

// Transcriber implements callscribe.Transcriber with a pool of PocketSphinx
// decoders. It is safe for concurrent use.
type Transcriber struct {
	cfg    Config
	narrow *FeatureMap // nil: narrowband audio is decoded unmapped
	// band maps the channels decoded from their voice band in narrow's
	// place (channelMap); nil when narrow is.
	band   *FeatureMap
	log    *slog.Logger
	pool   chan *decoder
	all    []*decoder
	tmpDir string
	// mappedMLLRPath and unmappedMLLRPath are the files of the MLLR
	// transforms of the narrowband channels the map mostly applies to and of
	// the others ("" for none), identityPath the identity transform's, which
	// undoes them: decoders are shared by all channels and switch.
	mappedMLLRPath, unmappedMLLRPath, identityPath string
	// mappedMLLR and unmappedMLLR are those transforms (nil for none), the
	// starting point of a channel's speaker adaptation (speaker, nil when off).
	mappedMLLR, unmappedMLLR *MLLR
	speaker                  *speakerAdapter
	// confidence maps word posteriors to confidences; nil reports the
	// posteriors (Config.DisableConfidenceCalibration).
	confidence *ConfidenceMap
	// ownModel is the neural model NewTranscriber loaded from
	// Config.MoonshineDir, which Close releases (nil when the caller's).
	ownModel *moonshine.Model
	closed   sync.Once
}

var _ callscribe.Transcriber = (*Transcriber)(nil)

// NewTranscriber loads cfg.Decoders decoders (about 0.3 s and 100 MB each).
func NewTranscriber(cfg Config) (_ *Transcriber, err error) {
	if cfg.Decoders < 1 {
		cfg.Decoders = 1
	}
	if cfg.ModelDir == "" {
		cfg.ModelDir = DefaultModelDir
	}
	if cfg.DomainLMWeight == 0 {
		cfg.DomainLMWeight = DefaultDomainLMWeight
	}
	if cfg.VADThreshold == 0 {
		cfg.VADThreshold = DefaultVADThreshold
	}
	if cfg.KeytermWeight == 0 {
		cfg.KeytermWeight = DefaultKeytermWeight
	}
	var ownModel *moonshine.Model
	if cfg.Moonshine == nil && cfg.MoonshineDir != "" {
		m, err := moonshine.Load(cfg.MoonshineDir)
		if err != nil {
			return nil, fmt.Errorf("%w (install it with make deps-speech-models, or set NEURAL_SPEECH=off)", err)
		}
		cfg.Moonshine, ownModel = m, m
		defer func() {
			if err != nil {
				m.Close()
			}
		}()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	hmm := filepath.Join(cfg.ModelDir, "en-us")
	stock := filepath.Join(cfg.ModelDir, "en-us.lm.bin")
	dict := filepath.Join(cfg.ModelDir, "cmudict-en-us.dict")
	for _, p := range []string{hmm, stock, dict} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("sphinx: model file missing (install pocketsphinx-en-us): %w", err)
		}
	}
	t := &Transcriber{cfg: cfg, log: log, pool: make(chan *decoder, cfg.Decoders), narrow: cfg.NarrowbandMap, band: cfg.VoiceBandMap, ownModel: ownModel}
	if cfg.DisableNarrowbandMap {
		t.narrow, t.band = nil, nil
	} else {
		var err error
		if t.narrow, err = mapOrBuiltin(t.narrow, BuiltinNarrowbandMap, "narrowband map"); err != nil {
			return nil, err
		}
		if t.band, err = mapOrBuiltin(t.band, BuiltinVoiceBandMap, "voice-band map"); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.DisableConfidenceCalibration:
	case cfg.ConfidenceMap != nil:
		t.confidence = cfg.ConfidenceMap
	default:
		m, err := BuiltinConfidenceMap()
		if err != nil {
			return nil, fmt.Errorf("sphinx: the built-in confidence map: %w", err)
		}
		t.confidence = m
	}
	dir, err := os.MkdirTemp("", "callscribe-sphinx-")
	if err != nil {
		return nil, err
	}
	t.tmpDir = dir
	mllr := cfg.NarrowbandMLLR
	if mllr == nil && !cfg.DisableNarrowbandMLLR {
		if mllr, err = BuiltinNarrowbandMLLR(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sphinx: the built-in narrowband MLLR transform: %w", err)
		}
	}
	unmapped := cfg.NarrowbandUnmappedMLLR
	if unmapped == nil && !cfg.DisableNarrowbandMLLR {
		if unmapped, err = BuiltinNarrowbandUnmappedMLLR(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sphinx: the built-in narrowband MLLR transform for unmapped channels: %w", err)
		}
	}
	var transforms []*MLLR
	if !cfg.DisableNarrowbandMLLR {
		for _, x := range []struct {
			m    *MLLR
			path *string
			name string
		}{{mllr, &t.mappedMLLRPath, "mapped.mllr"}, {unmapped, &t.unmappedMLLRPath, "unmapped.mllr"}} {
			if x.m == nil {
				continue
			}
			if x.m.Classes != 1 {
				// PocketSphinx applies the first class to every Gaussian.
				os.RemoveAll(dir)
				return nil, fmt.Errorf("sphinx: the narrowband MLLR transform has %d classes; the decoder applies one", x.m.Classes)
			}
			// Checked before the decoders load, which takes seconds.
			if err := x.m.checkStreams(modelStreams); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("sphinx: the narrowband MLLR transform does not fit the model: %w", err)
			}
			*x.path = filepath.Join(dir, x.name)
			if err := os.WriteFile(*x.path, x.m.Format(), 0o600); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("sphinx: writing the MLLR transform: %w", err)
			}
			transforms = append(transforms, x.m)
		}
		t.mappedMLLR, t.unmappedMLLR = mllr, unmapped
	}
	if cfg.SpeakerAdaptation {
		tools := cfg.SphinxTrainDir
		if tools == "" {
			tools = DefaultSphinxTrainDir
		}
		w := cfg.SpeakerAdaptationWeight
		if w == 0 {
			w = DefaultSpeakerAdaptationWeight
		}
		if t.speaker, err = newSpeakerAdapter(tools, hmm, dict, filepath.Join(dir, "speaker"), w); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		t.speaker.rounds = cfg.SpeakerAdaptationPasses
		if t.speaker.rounds <= 0 {
			t.speaker.rounds = DefaultSpeakerAdaptationPasses
		}
		t.speaker.minPosterior = cfg.SpeakerMinPosterior
		if t.speaker.minPosterior == 0 {
			t.speaker.minPosterior = DefaultSpeakerMinPosterior
		}
		t.speaker.variancePrior = cfg.SpeakerVariancePrior
		if t.speaker.variancePrior == 0 {
			t.speaker.variancePrior = DefaultSpeakerVariancePrior
		}
		t.speaker.warpMargin = cfg.SpeakerWarpMargin
		if !cfg.SpeakerOneTransform {
			if err := t.speaker.usePhoneClasses(); err != nil {
				log.Warn("sphinx speaker adaptation gives every Gaussian one transform: the model has no broad phone classes", "error", err)
			}
		}
		t.speaker.classPrior = cfg.SpeakerClassPrior
		if t.speaker.classPrior == 0 {
			t.speaker.classPrior = DefaultSpeakerClassPrior
		}
	}
	if len(transforms) > 0 || t.speaker != nil {
		t.identityPath = filepath.Join(dir, "identity.mllr")
		if err := os.WriteFile(t.identityPath, identityMLLR(modelStreams).Format(), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sphinx: writing the MLLR transform: %w", err)
		}
	}
	domain := ""
	if cfg.DomainLMWeight > 0 {
		domain = filepath.Join(dir, "domain.arpa")
		text := cfg.DomainText
		if text == "" {
			text = DomainText()
		}
		f, err := os.Create(domain)
		if err == nil {
			err = BuildLM(strings.NewReader(text)).WriteARPA(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sphinx: writing the domain LM: %w", err)
		}
	}
	args := []string{
		"-hmm", hmm, "-dict", dict,
		// Regions come from our VAD; the decoder must not cut them again.
		"-remove_silence", "no",
		// PocketSphinx's noise suppression off unless asked for (Config.NoiseRemoval says why).
		"-remove_noise", onOff(cfg.NoiseRemoval),
	}
	// The full search's other settings stay at PocketSphinx's defaults: the
	// ASR bench found none that helps (a larger -lw, -dither, a lower -upperf
	// for telephone audio, a fixed frequency warp, wider beams). The quick
	// search that speaker adaptation's first pass runs on leaves out the
	// flat-lexicon pass (engine_cgo.go); narrowing its beams as well (-beam
	// and -pbeam 1e-40, -wbeam 1e-24, -maxhmmpf 10000) cost the dev split 18
	// words on clean calls. A line's channel can have a quick search of its
	// own with fewer HMMs (linesearch.go).
	args = append(args, cfg.ExtraArgs...)
	start := time.Now()
	for i := 0; i < cfg.Decoders; i++ {
		d, err := newDecoder(args, stock, domain, cfg.DomainLMWeight, t.speaker != nil, cfg.QuickSearchMaxHMMs, lineQuickMaxHMMs(cfg))
		if err != nil {
			t.Close()
			return nil, err
		}
		t.all = append(t.all, d)
		t.pool <- d
		if noiseRemovalBelow(cfg) > 0 {
			if err := d.addDenoised(); err != nil {
				t.Close()
				return nil, err
			}
		}
		if t.speaker == nil {
			continue
		}
		for _, f := range speakerWarpFactors(cfg.SpeakerWarpFactors) {
			if err := d.addWarp(f); err != nil {
				t.Close()
				return nil, err
			}
		}
	}
	if err := errors.Join(mapFits(t.narrow, "narrowband map", t.all[0].cepDim()), mapFits(t.band, "voice-band map", t.all[0].cepDim())); err != nil {
		t.Close()
		return nil, err
	}
	if dim := t.all[0].cepDim(); (len(transforms) > 0 || t.speaker != nil) && dim != modelStreams[0] {
		t.Close()
		return nil, fmt.Errorf("sphinx: the model's cepstra have %d values; its MLLR transforms are for %d", dim, modelStreams[0])
	}
	log.Info("sphinx decoders ready", "decoders", cfg.Decoders, "domain_lm_weight", max(cfg.DomainLMWeight, 0),
		"narrowband_map", t.narrow != nil, "narrowband_mllr", t.mappedMLLRPath != "", "narrowband_unmapped_mllr", t.unmappedMLLRPath != "", "elapsed_ms", time.Since(start).Milliseconds())
	return t, nil
}

// modelStreams are the feature streams of pocketsphinx-en-us that MLLR
// transforms apply to: the 13 cepstra, their deltas and double deltas
// (1s_c_d_dd, -svspec 0-12/13-25/26-38).
var modelStreams = []int{13, 13, 13}

// Close frees the decoders. It waits for decoders in use to be returned.
func (t *Transcriber) Close() {
	t.closed.Do(func() {
		for range t.all {
			d := <-t.pool
			d.close()
		}
		if t.tmpDir != "" {
			os.RemoveAll(t.tmpDir)
		}
		if t.ownModel != nil {
			t.ownModel.Close()
		}
	})
}

// Transcribe decodes the audio and recognises each channel.
func (t *Transcriber) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	if !englishHint(req.Language) {
		return nil, &callscribe.JobError{Code: callscribe.JobErrUnsupportedLanguage,
			Message: fmt.Sprintf("The embedded engine recognises English only; language %q is not supported.", req.Language)}
	}
	audio, err := decode.Decode(req.Audio, decode.Format(req.Format))
	if err != nil {
		return nil, badAudio(err)
	}
	// The encoded bytes are not needed past decoding: dropping this copy of
	// the reference lets the collector free them while the channels decode
	// (the pipeline holds no other once it has called Transcribe).
	req.Audio = nil
	speech, err := t.callSpeech(audio.Channels, audio.SampleRate)
	if err != nil {
		return nil, err
	}
	if !t.cfg.KeepEcho {
		t.removeEchoes(speech)
	}
	n := len(audio.Channels)
	segs := make([][]callscribe.Segment, n)
	reports := make([]*callscribe.KeytermsReport, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for ch := range audio.Channels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			segs[ch], reports[ch], errs[ch] = t.channel(ctx, audio.Channels[ch], audio.SampleRate, ch, speech[ch], req.Keyterms)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res := buildResult(segs, audio.Duration())
	if len(req.Keyterms) > 0 {
		// Every channel plans the same terms against the same dictionary;
		// a channel without speech never took a decoder and has no report.
		var report *callscribe.KeytermsReport
		for _, r := range reports {
			if r != nil {
				report = r
				break
			}
		}
		if report == nil {
			// No speech anywhere: still say which words the dictionary lacks.
			var err error
			if report, err = t.planOnly(ctx, req.Keyterms); err != nil {
				return nil, err
			}
		}
		res.MetaData = &callscribe.TranscriptionMetaData{Keyterms: report}
	}
	return res, nil
}

func badAudio(err error) *callscribe.JobError {
	return &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "The audio could not be decoded: " + err.Error()}
}

// decodesVoiceBand reports whether a telephone channel given weight of the
// narrowband map is decoded from its voice band: a mapped channel whose
// talker reached it through a line's band only (lowband.go), unless the
// configuration turns the band-pass off.
func (t *Transcriber) decodesVoiceBand(samples []int16, rate int, regions []region, weight float64) bool {
	return mappedChannel(weight) && !t.cfg.DisableVoiceBand && voiceBandOnly(samples, rate, regions)
}

// channel recognises one channel: VAD regions, then one utterance per region on
// a pooled decoder, with the job's keyterms boosted (keyterms.go) when it has
// any; the report says what became of them.
func (t *Transcriber) channel(ctx context.Context, samples []int16, rate, ch int, speech channelSpeech, keyterms []string) (_ []callscribe.Segment, _ *callscribe.KeytermsReport, err error) {
	if len(speech.regions) == 0 {
		return nil, nil, nil
	}
	if t.cfg.Moonshine != nil && t.cfg.MoonshineOnly {
		// The neural model alone needs none of PocketSphinx's work below.
		neural, err := t.neuralWords(ctx, samples, rate, speech.regions)
		return regionSegments(neural, ch, t.cfg.AgentChannel), nil, err
	}
	// Worked out before taking a decoder from the pool, which it does not need.
	in := t.telephoneInputOf(samples, rate, speech)
	regions, weight := in.regions, in.weight
	denoise := denoises(in.speechOverFloor, noiseRemovalBelow(t.cfg))
	// denoised: this channel's front end removes noise, by the gate or on every channel.
	denoised := denoise || t.cfg.NoiseRemoval
	spread := spreadsEnergy(rate, in.speechOverFloor, energySpreadBelow(t.cfg), denoised)
	noise := []any{"speech_over_floor_db", math.Round(in.speechOverFloor*10) / 10, "noise_removal", denoised, "energy_spread", spread}
	if t.mapsNarrowband(rate) {
		t.log.Debug("sphinx narrowband channel", append([]any{"channel", ch, "median_pitch_hz", int(in.pitch), "map_weight", weight, "voice_band", in.band, "low_band_regenerated", in.lowBand, "feature_map", t.channelMapName(in)}, noise...)...)
	} else {
		t.log.Debug("sphinx channel", append([]any{"channel", ch}, noise...)...)
	}
	r := newResampler(in.samples, rate)
	var d *decoder
	select {
	case d = <-t.pool:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { t.pool <- d }()
	// The acoustic model's adaptation for this channel (none for wideband),
	// then the job's keyterms on the language model side.
	mllr, base := "", (*MLLR)(nil)
	switch {
	case rate > NarrowbandRate:
	case mappedChannel(weight):
		mllr, base = t.mappedMLLRPath, t.mappedMLLR
	default:
		mllr, base = t.unmappedMLLRPath, t.unmappedMLLR
	}
	if err := d.setMLLR(mllr, t.identityPath); err != nil {
		return nil, nil, err
	}
	var report *callscribe.KeytermsReport
	if len(keyterms) > 0 {
		plan := t.plan(d, keyterms)
		report = plan.report
		if len(plan.sentences) > 0 {
			restore, err := d.boost(plan.sentences, t.cfg.KeytermWeight)
			if err != nil {
				return nil, nil, err
			}
			// Runs before the decoder goes back to the pool (defers run last in, first out).
			defer func() {
				if rerr := restore(); rerr != nil && err == nil {
					err = rerr
				}
			}()
		}
	}
	// Speaker adaptation decodes twice, so it keeps each region's features.
	// Its first pass runs on the quick search: those words only choose the
	// frames the speaker's transform is estimated on, and the channel is
	// always decoded again on the full search (adaptAndDecode).
	adapt := t.speaker != nil && rate <= NarrowbandRate
	full := d.activeSearch()
	quick := firstPassSearch(rate, in.speechOverFloor, d.lineQuick)
	if adapt {
		if err := d.useSearch(quick); err != nil {
			return nil, nil, err
		}
		// On every path the decoder goes back to the pool on its full search
		// (this runs before the keyterms' restore).
		defer func() {
			if rerr := d.useSearch(full); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	// The front end the channel's cepstra come from (noisegate.go).
	cepstra := d.cepstra
	if denoise {
		cepstra = d.denoisedCepstra
	}
	passes := make([]regionPass, len(regions))
	// The candidates for the channel's frequency warp (warp.go): the same
	// regions through each of the decoder's warped front ends.
	var warped [][]regionPass
	if adapt {
		warped = make([][]regionPass, len(d.warps))
		for k := range warped {
			warped[k] = make([]regionPass, len(regions))
		}
	}
	var buf []int16
	dim := d.cepDim()
	featureMap := t.channelMap(in)
	for i, g := range regions {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		n := g.End - g.Start
		if cap(buf) < n {
			buf = make([]int16, n)
		}
		buf = buf[:r.Read(buf[:n], g.Start)]
		cep, err := cepstra(buf)
		if err != nil {
			return nil, nil, err
		}
		cep = t.decodedFeatures(cep, featureMap, weight, spread, dim)
		if passes[i].words, err = d.decodeCepstra(cep); err != nil {
			return nil, nil, err
		}
		if adapt {
			passes[i].cep = cep
		}
		for k := range warped {
			wcep, err := d.warpedCepstra(k, buf, denoise)
			if err != nil {
				return nil, nil, err
			}
			warped[k][i] = regionPass{cep: t.decodedFeatures(wcep, featureMap, weight, spread, dim), words: passes[i].words}
		}
	}
	if adapt {
		if err := d.useSearch(full); err != nil {
			return nil, nil, err
		}
		if len(warped) > 0 {
			if err := t.chooseWarp(ctx, d, ch, passes, warped, mllr); err != nil {
				return nil, nil, err
			}
		}
		if err := t.adaptAndDecode(ctx, d, ch, passes, base, mllr, quick); err != nil {
			return nil, nil, err
		}
	}
	// Each region's words as the engine writes them: times in seconds,
	// confidences calibrated.
	ps := make([][]callscribe.Word, len(regions))
	for i, g := range regions {
		words := passes[i].words
		if len(words) == 0 {
			continue
		}
		spans := make([]callscribe.Word, len(words))
		start := float64(g.Start) / targetRate
		for j, w := range words {
			post := w.Posterior
			spans[j] = callscribe.Word{
				Text:       w.Text,
				Start:      start + float64(w.Start)/framesPerSecond,
				End:        start + float64(w.End+1)/framesPerSecond,
				Confidence: &post,
			}
		}
		calibrate(spans, rate, t.confidence)
		ps[i] = spans
	}
	if t.cfg.Moonshine != nil {
		// Decoded while this channel holds its PocketSphinx decoder, so the
		// pool bounds how many neural decodes run at once (and their memory).
		neural, err := t.neuralWords(ctx, samples, rate, regions)
		if err != nil {
			return nil, nil, err
		}
		var whole bool
		ps, whole = combineChannel(ps, neural)
		t.log.Debug("sphinx two recognisers", "channel", ch, "neural_words_whole", whole)
	}
	return regionSegments(ps, ch, t.cfg.AgentChannel), report, nil
}

// adaptAndDecode estimates the channel's speaker transform from the first
// pass and decodes every region again with it, on the decoder's active (full)
// search, replacing the first pass's words. Each round after the first aligns
// words again with the previous round's transform, which places them on the
// frames better: the first pass's words when most of them were heard with
// confidence, and otherwise words decoded again on the quick search with that
// transform, since an unreliable first pass gives the next round wrong words
// to align (speakerRedecodeBelow). A channel with too few words to adapt to,
// or whose adaptation failed in SphinxTrain, is decoded again with its
// channel type's transform: adaptation improves a transcript, and losing one
// to it would be worse.
func (t *Transcriber) adaptAndDecode(ctx context.Context, d *decoder, ch int, passes []regionPass, base *MLLR, basePath, quick string) (err error) {
	start := time.Now()
	align := basePath
	var adapted speakerModel
	redecode := confidentShare(passes, t.speaker.minPosterior) < speakerRedecodeBelow
	rounds := 0
	for rounds < t.speaker.rounds {
		model, dir, err := t.speaker.estimate(ctx, passes, base, align, modelStreams)
		if dir != "" {
			// The transform aligns the next round's words, so its directory
			// goes only when the channel is done.
			defer os.RemoveAll(dir)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.log.Warn("sphinx speaker adaptation failed; the channel keeps its last transform", "channel", ch, "round", rounds+1, "error", err)
			break
		}
		if model.path == "" {
			break
		}
		rounds++
		align, adapted = model.path, model
		if redecode && rounds < t.speaker.rounds {
			if err := d.setMLLR(model.path, t.identityPath); err != nil {
				return err
			}
			if err := quickPass(ctx, d, passes, quick); err != nil {
				return err
			}
		}
	}
	if err := t.speaker.withClasses(&adapted, modelStreams); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.log.Warn("sphinx speaker adaptation's class transforms failed; the channel is decoded with its one transform", "channel", ch, "error", err)
	}
	if adapted.path != "" {
		if err := d.setModel(adapted.means, adapted.decodePath, t.identityPath); err != nil {
			return err
		}
	}
	domainWeight := t.fitChannelDomainWeight(d, ch, passes)
	if domainWeight != t.cfg.DomainLMWeight {
		// Runs before the decoder leaves the channel: the LM is the
		// decoder's, shared by every job it serves.
		defer func() {
			if rerr := d.setDomainWeight(t.cfg.DomainLMWeight); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	if err := decodePasses(ctx, d, passes); err != nil {
		return err
	}
	loggedWeight, elapsed := math.Round(1000*domainWeight)/1000, time.Since(start).Milliseconds()
	if adapted.path != "" {
		t.log.Debug("sphinx speaker adaptation", "channel", ch, "rounds", rounds, "redecoded", redecode, "variance_scale", adapted.scale, "classes", max(t.speaker.classes, 1), "class_frames", adapted.classFrames, "domain_lm_weight", loggedWeight, "first_pass_search", quick, "elapsed_ms", elapsed)
	} else {
		// No transform (too few words, no confident run to align, or
		// SphinxTrain failed, warned above): decoded again on the full
		// search, still at the weight its words fit.
		t.log.Debug("sphinx speaker adaptation skipped", "channel", ch, "words", wordCount(passes), "min_words", speakerMinWords, "domain_lm_weight", loggedWeight, "first_pass_search", quick, "elapsed_ms", elapsed)
	}
	return nil
}

// fitChannelDomainWeight re-weights the decoder's LM for the channel's
// final decode with the domain weight its confident words fit (lmmix.go),
// and returns that weight; with the weight fixed, without a domain LM, or if
// the fit fails (logged), it leaves the LM as it is and returns
// Config.DomainLMWeight.
func (t *Transcriber) fitChannelDomainWeight(d *decoder, ch int, passes []regionPass) float64 {
	if t.cfg.FixedDomainLMWeight || t.cfg.DomainLMWeight <= 0 {
		return t.cfg.DomainLMWeight
	}
	words, err := channelWordProbs(d, passes, t.speaker.minPosterior)
	if err != nil {
		// Only a decoder without a domain LM has no mix to read, and
		// none is built while the weight is above 0.
		t.log.Warn("sphinx domain LM weight not fitted; the channel keeps the fixed weight", "channel", ch, "error", err)
		return t.cfg.DomainLMWeight
	}
	w := fitDomainWeight(words, t.cfg.DomainLMWeight, t.cfg.DomainLMWeightPriorWords)
	if w == t.cfg.DomainLMWeight {
		return w
	}
	if err := d.setDomainWeight(w); err != nil {
		// ngram_model_set_interp changes all the weights or none.
		t.log.Warn("sphinx domain LM weight not set; the channel keeps the fixed weight", "channel", ch, "error", err)
		return t.cfg.DomainLMWeight
	}
	return w
}

// chooseWarp replaces the channel's features with the warped ones its
// first-pass words align to best, aligned with the channel type's transform
// at basePath (warp.go). A channel whose choice failed in SphinxTrain keeps
// its unwarped features.
func (t *Transcriber) chooseWarp(ctx context.Context, d *decoder, ch int, passes []regionPass, warped [][]regionPass, basePath string) error {
	start := time.Now()
	candidates := append([][]regionPass{passes}, warped...)
	best, perFrame, err := t.speaker.chooseWarp(ctx, candidates, basePath, modelStreams[0])
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.log.Warn("sphinx frequency warp failed; the channel keeps its unwarped features", "channel", ch, "error", err)
		return nil
	}
	if perFrame == nil {
		return nil
	}
	factor := 1.0
	if best > 0 {
		factor = d.warps[best-1].factor
		for i := range passes {
			passes[i].cep = warped[best-1][i].cep
		}
	}
	for k := range perFrame {
		perFrame[k] = math.Round(1000*perFrame[k]) / 1000
	}
	t.log.Debug("sphinx frequency warp", "channel", ch, "factor", factor, "loglik_per_frame", perFrame, "elapsed_ms", time.Since(start).Milliseconds())
	return nil
}

// quickPass decodes every region again on the decoder's quick search named
// quick and goes back to the active one.
func quickPass(ctx context.Context, d *decoder, passes []regionPass, quick string) error {
	full := d.activeSearch()
	if err := d.useSearch(quick); err != nil {
		return err
	}
	err := decodePasses(ctx, d, passes)
	if rerr := d.useSearch(full); err == nil {
		err = rerr
	}
	return err
}

// decodePasses decodes every region's kept features again, replacing its words.
func decodePasses(ctx context.Context, d *decoder, passes []regionPass) error {
	for i := range passes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(passes[i].cep) == 0 {
			continue
		}
		words, err := d.decodeCepstra(passes[i].cep)
		if err != nil {
			return err
		}
		passes[i].words = words
	}
	return nil
}

// planOnly checks terms against the dictionary on a pooled decoder, for a
// job with no speech to decode.
func (t *Transcriber) planOnly(ctx context.Context, keyterms []string) (*callscribe.KeytermsReport, error) {
	var d *decoder
	select {
	case d = <-t.pool:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { t.pool <- d }()
	return t.plan(d, keyterms).report, nil
}

// plan checks terms against d's dictionary; with keyterms switched off
// (KeytermWeight < 0) nothing is to be applied, and the report says so.
func (t *Transcriber) plan(d *decoder, keyterms []string) keytermPlan {
	p := planKeyterms(keyterms, d.inDict)
	if t.cfg.KeytermWeight < 0 {
		p.sentences = nil
		p.report.Method, p.report.Applied = callscribe.KeytermsNotSupported, []string{}
		p.report.Note = "Keyterms are switched off in this engine's configuration."
	}
	return p
}

// mapFeatures returns the cepstra the decoder reads for one region: the front
// end's, moved weight of the way to the output of m (the channel's map) (the front
// end's own for a weight of 0). (The two differ by a constant per coefficient
// as well, which the decoder's CMN removes.)
func (t *Transcriber) mapFeatures(cep []float32, m *FeatureMap, weight float64) []float32 {
	if weight <= 0 || len(cep) == 0 {
		return cep
	}
	mapped := m.Apply(cep)
	if weight < 1 {
		w := float32(weight)
		for i := range mapped {
			mapped[i] = w*mapped[i] + (1-w)*cep[i]
		}
	}
	return mapped
}

// decodedFeatures returns the cepstra the decoder reads for one region of a
// channel: mapped (mapFeatures), then with c0's spread scaled when spread
// says the channel's is (energyspread.go).
func (t *Transcriber) decodedFeatures(cep []float32, m *FeatureMap, weight float64, spread bool, dim int) []float32 {
	cep = t.mapFeatures(cep, m, weight)
	if spread {
		spreadEnergy(cep, dim)
	}
	return cep
}

// channelInput is what the front end reads for one channel, and what was
// decided about it on the way.
type channelInput struct {
	// samples are the channel's samples at its own rate, band-passed when
	// band is set.
	samples []int16
	// regions are the speech regions (16 kHz samples), found in the channel
	// as it came.
	regions []region
	// pitch is the channel's median pitch (Hz) and weight the share of the
	// narrowband map it gets, both 0 without a map; band says whether it is
	// decoded from its voice band (decodesVoiceBand).
	pitch, weight float64
	band          bool
	// lowBand says whether the band below the voice band was regenerated
	// (lowbandregen.go).
	lowBand bool
	// speechOverFloor is how far (dB) its speech lies above its noise
	// floor (regions.go).
	speechOverFloor float64
}

// mapOrBuiltin is the configured feature map, or the built-in one when none
// is configured; name says which map in an error.
func mapOrBuiltin(configured *FeatureMap, builtin func() (*FeatureMap, error), name string) (*FeatureMap, error) {
	if configured != nil {
		return configured, nil
	}
	m, err := builtin()
	if err != nil {
		return nil, fmt.Errorf("sphinx: the built-in %s: %w", name, err)
	}
	return m, nil
}

// mapFits checks that a feature map (nil: none) is for the model's cepstra
// of dim values.
func mapFits(m *FeatureMap, name string, dim int) error {
	if m != nil && m.Dim != dim {
		return fmt.Errorf("sphinx: the %s is for %d-long cepstra, the model's are %d", name, m.Dim, dim)
	}
	return nil
}

// channelMap is the feature map a telephone channel's cepstra go through:
// the voice-band map for a channel decoded from its voice band, the
// narrowband map for the others (featuremap.go says why two).
func (t *Transcriber) channelMap(in channelInput) *FeatureMap {
	if in.band && t.band != nil {
		return t.band
	}
	return t.narrow
}

// channelMapName names the map channelMap gives the channel, for the log:
// "voice_band", "narrowband", or "none" for a channel decoded unmapped.
func (t *Transcriber) channelMapName(in channelInput) string {
	switch m := t.channelMap(in); {
	case m == nil || in.weight <= 0:
		return "none"
	case m == t.band:
		return "voice_band"
	default:
		return "narrowband"
	}
}

// VoiceBandCepstra returns the cepstra the front end computes for a channel
// of telephone-band audio decoded from its voice band, before any map: the
// 300-3400 Hz band, with the band below it regenerated unless the
// configuration keeps it empty, as Transcribe reads a high voice that came
// through a line. The voice-band map's trainer fits on these.
func (t *Transcriber) VoiceBandCepstra(ctx context.Context, samples []int16, rate int) (cep []float32, dim int, err error) {
	band, _ := t.voiceBandSamples(samples, rate)
	return t.Cepstra(ctx, band, rate)
}

// voiceBandSamples returns a channel's voice band (voiceband.go) with the
// band below it regenerated (lowbandregen.go), unless the configuration keeps
// it empty, and whether it was.
func (t *Transcriber) voiceBandSamples(samples []int16, rate int) (band []int16, lowBand bool) {
	band = voiceBand(samples, rate)
	if t.cfg.KeepLowBandEmpty {
		return band, false
	}
	return withLowBand(band, rate), true
}

// mapsNarrowband says whether audio at rate goes through the narrowband
// map: telephone-band audio, when the engine has a map.
func (t *Transcriber) mapsNarrowband(rate int) bool {
	return t.narrow != nil && rate <= NarrowbandRate
}

// telephoneInput finds a channel's speech regions and, for telephone-band
// audio with a narrowband map, its share of the map and whether it is decoded
// from its voice band, measured on the channel as it came. Transcribe and the
// adaptation trainer's DecodedCepstra both read their channels through it, so
// the trainer fits on what the engine decodes.
func (t *Transcriber) telephoneInput(samples []int16, rate int) (channelInput, error) {
	speech, err := t.findSpeech(samples, rate)
	if err != nil {
		return channelInput{}, err
	}
	return t.telephoneInputOf(samples, rate, speech), nil
}

// channelSpeech is what the voice activity detector found in a channel: its
// speech regions (16 kHz samples), how far (dB) the speech lies above the
// channel's floor (regions.go) and its frame levels (frameLevels).
type channelSpeech struct {
	regions         []region
	speechOverFloor float64
	levels          []float64
}

// findSpeech runs the detector over one channel.
func (t *Transcriber) findSpeech(samples []int16, rate int) (channelSpeech, error) {
	regions, snr, levels, err := findRegions(newResampler(samples, rate), t.cfg.VADThreshold)
	return channelSpeech{regions: regions, speechOverFloor: snr, levels: levels}, err
}

// callSpeech runs the detector over every channel of a call, the channels
// side by side.
func (t *Transcriber) callSpeech(channels [][]int16, rate int) ([]channelSpeech, error) {
	speech := make([]channelSpeech, len(channels))
	errs := make([]error, len(channels))
	var wg sync.WaitGroup
	for ch := range channels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			speech[ch], errs[ch] = t.findSpeech(channels[ch], rate)
		}()
	}
	wg.Wait()
	return speech, errors.Join(errs...)
}

// EchoReport is what the engine found of one leg's echo of the other in a
// two-channel call (echo.go).
type EchoReport struct {
	Channel, OfChannel int
	DelayMS            int
	LossDB             float64
	// SpreadShare is how far the two legs' level difference strays at that
	// delay, as a share of the far leg's own level's spread (near 0: echo).
	SpreadShare float64
	// EchoFrames of the leg's RegionFrames of speech (10 ms frames, as the
	// detector found them) were echo and are not decoded.
	EchoFrames, RegionFrames int
}

// removeEchoes takes each channel of a two-channel call's echo of the other
// out of its regions (echo.go), measured on the regions as the detector
// found them, and reports the legs it found echo in; a call of any other
// channel count has none.
func (t *Transcriber) removeEchoes(speech []channelSpeech) []EchoReport {
	if len(speech) != 2 {
		return nil
	}
	found := slices.Clone(speech)
	var reports []EchoReport
	for near, far := range []int{1, 0} {
		p, ok := estimateEcho(found[near].levels, found[far].levels, found[far].regions)
		if !ok {
			continue
		}
		before := regionFrames(found[near].regions)
		regions, removed := removeEcho(found[near].regions, found[near].levels, found[far].levels, found[far].regions, p)
		speech[near].regions = regions
		speech[near].speechOverFloor = speechOverFloor(speech[near].levels, regions)
		r := EchoReport{Channel: near, OfChannel: far, DelayMS: p.lag * 10, LossDB: math.Round(p.lossDB*10) / 10,
			SpreadShare: math.Round(p.spreadShare*100) / 100, EchoFrames: removed, RegionFrames: before}
		t.log.Debug("sphinx echo", "channel", r.Channel, "of_channel", r.OfChannel, "delay_ms", r.DelayMS,
			"loss_db", r.LossDB, "spread_share", r.SpreadShare, "echo_frames", r.EchoFrames, "region_frames", r.RegionFrames)
		reports = append(reports, r)
	}
	return reports
}

// Echoes finds speech in each channel of a two-channel call, as Transcribe
// does, and reports the echo it would take out, without decoding (the bench
// surveys its conditions with it); a call of any other channel count has none.
func (t *Transcriber) Echoes(channels [][]int16, rate int) ([]EchoReport, error) {
	speech, err := t.callSpeech(channels, rate)
	if err != nil {
		return nil, err
	}
	return t.removeEchoes(speech), nil
}

// telephoneInputOf is telephoneInput on speech already found.
func (t *Transcriber) telephoneInputOf(samples []int16, rate int, speech channelSpeech) channelInput {
	in := channelInput{samples: samples, regions: speech.regions, speechOverFloor: speech.speechOverFloor}
	if !t.mapsNarrowband(rate) {
		return in
	}
	r := newResampler(samples, rate)
	regions := in.regions
	in.pitch = medianPitch(r, regions)
	in.weight = narrowbandMapWeight(in.pitch)
	// The band-pass keeps timing, so the regions stand.
	if in.band = t.decodesVoiceBand(samples, rate, regions, in.weight); in.band {
		in.samples, in.lowBand = t.voiceBandSamples(samples, rate)
	}
	return in
}

// Cepstra returns the cepstra a decoder's front end computes for one channel of
// audio at rate, resampled to 16 kHz as Transcribe does and before any feature
// map: frames of dim values. The narrowband-map trainer fits on these.
func (t *Transcriber) Cepstra(ctx context.Context, samples []int16, rate int) (cep []float32, dim int, err error) {
	r := newResampler(samples, rate)
	pcm := make([]int16, r.Len())
	pcm = pcm[:r.Read(pcm, 0)]
	var d *decoder
	select {
	case d = <-t.pool:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	defer func() { t.pool <- d }()
	cep, err = d.cepstra(pcm)
	return cep, d.cepDim(), err
}

// DecodedCepstra returns the cepstra the engine decodes for one channel of
// audio at rate, taken whole (no VAD regions): for telephone-band audio they
// are moved towards the narrowband map's output by the share the channel's
// median pitch gives it, from the voice band when that share is half or more
// and the speech came through that band only, as Transcribe does. weight is
// that share (0 for wideband audio or without a map). The narrowband
// adaptation trainer (infra/bench/cmd/narrowbandadapt) fits on these.
func (t *Transcriber) DecodedCepstra(ctx context.Context, samples []int16, rate int) (cep []float32, dim int, weight float64, err error) {
	if !t.mapsNarrowband(rate) {
		// Nothing to decide: the front end's cepstra as they are, without
		// running the detector for regions nothing here reads.
		cep, dim, err = t.Cepstra(ctx, samples, rate)
		return cep, dim, 0, err
	}
	in, err := t.telephoneInput(samples, rate)
	if err != nil {
		return nil, 0, 0, err
	}
	if cep, dim, err = t.Cepstra(ctx, in.samples, rate); err != nil || in.weight <= 0 {
		return cep, dim, in.weight, err
	}
	return t.mapFeatures(cep, t.channelMap(in), in.weight), dim, in.weight, nil
}

// onOff is a PocketSphinx boolean argument.
func onOff(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
