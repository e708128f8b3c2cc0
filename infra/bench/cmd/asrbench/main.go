// Command asrbench measures the embedded speech engine (shared/engines/sphinx) on
// synthesised calls made by synthcall, or on Debian's pocketsphinx-testdata
// LibriVox clips, and prints word error rate, timing accuracy, real-time factor
// and peak memory. infra/bench/asr.sh runs it; the README's "Measured figures" section records its results.
//
// Usage:
//
//	asrbench -calls DIR -ext wav|mp3     # DIR holds NAME.json (synthcall -ref) and NAME.EXT
//	asrbench -librivox DIR               # DIR holds fileids, transcription and the WAVs
//	asrbench -calls DIR -keyterms FILE   # each call gets its keyterms (FILE: {"NAME": ["term", ...]})
//
// With -keyterms the bench also scores the terms themselves: a reference word
// is a term word where one of the call's terms occurs (as a phrase), and it
// counts as recognised when the alignment pairs it with the same word. Term
// WER is (term words missed + term words wrongly put in the hypothesis) over
// the reference's term words, so boosting that makes a term appear where it
// was not said is charged too.
//
// The real-time factor is the CPU time (user+sys, from getrusage) of the
// process and of the SphinxTrain tools speaker adaptation runs as child processes,
// spent in Transcribe divided by audio time per channel, with one decoder: the
// one-core figure, and unlike wall time it does not depend on what else the
// machine is running. Wall time is printed too.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/moonshine"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

// onlyChannel, when 0 or 1, silences the other channel of each call.
var onlyChannel int

type turn struct {
	Channel int     `json:"channel"`
	Text    string  `json:"text"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
}

type reference struct {
	Duration float64 `json:"duration"`
	Turns    []turn  `json:"turns"`
}

// tally accumulates word errors.
type tally struct{ errs, words int }

func (t *tally) add(ref, hyp []string) {
	t.errs += editDistance(ref, hyp)
	t.words += len(ref)
}

func (t tally) String() string {
	if t.words == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%5.1f%% (%d/%d)", 100*float64(t.errs)/float64(t.words), t.errs, t.words)
}

func main() {
	calls := flag.String("calls", "", "directory of synthesised calls (NAME.json + NAME.EXT)")
	ext := flag.String("ext", "wav", "audio extension of the calls")
	libri := flag.String("librivox", "", "pocketsphinx-testdata librivox directory")
	label := flag.String("label", "", "label printed with the results")
	weight := flag.Float64("lm-weight", 0, "domain LM weight (0 default, <0 off)")
	domainText := flag.String("domain-text", "", "domain LM training text, one sentence a line (default: the built-in text)")
	vad := flag.Float64("vad", 0, "VAD threshold (0 default)")
	noiseRemoval := flag.Bool("noise-removal", false, "decode every channel from cepstra with PocketSphinx's noise suppression (-remove_noise) on")
	noiseRemovalBelow := flag.Float64("noise-removal-below", 0, "decode with noise suppression the channels whose speech lies less than this many dB above their noise floor (0 default, negative: none)")
	energySpreadBelow := flag.Float64("energy-spread-below", 0, "stretch each region's c0 spread half way to real speech's, when narrower, on the 8 kHz channels whose speech lies less than this many dB above their noise floor (0 default, negative: none)")
	extra := flag.String("args", "", "extra decoder arguments, space separated")
	keepEcho := flag.Bool("keep-echo", false, "leave each channel's echo of the other in its regions")
	lineMaxHMMs := flag.Int("line-quick-maxhmmpf", 0, "HMMs the first pass keeps active per frame on channels with a line's noise floor (0: no cap, the engine's default)")
	quickMaxHMMs := flag.Int("quick-maxhmmpf", 0, "HMMs the quick (first-pass) search keeps active per frame (0: the decoder's -maxhmmpf)")
	mapFile := flag.String("narrowband-map", "", "feature map for the 8 kHz channels not decoded from their voice band (default: the built-in one)")
	noMap := flag.Bool("no-narrowband-map", false, "decode 8 kHz audio without the narrowband feature map")
	keepLowBandEmpty := flag.Bool("keep-low-band-empty", false, "decode the 8 kHz channels decoded from their voice band without the band below it regenerated from the band's harmonics")
	noVoiceBand := flag.Bool("no-voice-band", false, "decode the 8 kHz channels the narrowband map applies to without first band-passing to 300-3400 Hz those whose speech came through that band only")
	keytermsFile := flag.String("keyterms", "", "JSON file of each call's keyterms ({\"NAME\": [terms]}); scores the terms even without -use-keyterms")
	useKeyterms := flag.Bool("use-keyterms", false, "send each call's keyterms with it (with -keyterms)")
	keytermWeight := flag.Float64("keyterm-weight", 0, "keyterm LM weight (0 default)")
	bandMapFile := flag.String("voice-band-map", "", "feature map for the 8 kHz channels decoded from their voice band (default: the built-in one)")
	mllrFile := flag.String("narrowband-mllr", "", "MLLR transform for the 8 kHz channels the narrowband map applies to (default: the built-in one)")
	unmappedMLLRFile := flag.String("narrowband-unmapped-mllr", "", "MLLR transform for the other 8 kHz channels (default: the built-in one)")
	noMLLR := flag.Bool("no-narrowband-mllr", false, "decode 8 kHz audio with the stock acoustic model (no MLLR transform)")
	noSpeaker := flag.Bool("no-speaker-adapt", false, "decode 8 kHz audio once, without adapting to each channel's speaker (the local stack's SPEAKER_ADAPTATION=off)")
	speakerWeight := flag.Float64("speaker-weight", 0, "the channel's own transform's share in speaker adaptation (0 default)")
	speakerPasses := flag.Int("speaker-passes", 0, "speaker adaptation rounds before the final decode (0 default)")
	speakerMinPosterior := flag.Float64("speaker-min-posterior", 0, "align only runs of words with at least this posterior for speaker adaptation (0 default, negative: every word)")
	speakerVariancePrior := flag.Float64("speaker-variance-prior", 0, "frames of prior belief in the model's variances against each speaker's variance scale (0 default, negative: no variance scale)")
	speakerOneTransform := flag.Bool("speaker-one-transform", false, "give every Gaussian the speaker's one transform instead of one per broad phonetic class")
	speakerClassPrior := flag.Float64("speaker-class-prior", 0, "frames pulling each class's transform towards the one-class transform (0 default)")
	fixedLMWeight := flag.Bool("fixed-lm-weight", false, "decode every channel at -lm-weight instead of the domain weight each adapted channel's first-pass words fit")
	lmWeightPrior := flag.Float64("lm-weight-prior", 0, "words of prior belief pulling each channel's fitted domain weight towards -lm-weight (0: none)")
	speakerWarps := flag.String("speaker-warps", "", "comma-separated frequency warps tried for each adapted channel besides none (default: the engine's; \"1\": no warp)")
	speakerWarpMargin := flag.Float64("speaker-warp-margin", 0, "log-likelihood per frame a warp must gain over none to be chosen")
	neural := flag.String("neural-speech", "on", "on: decode each speech region with the neural model too and combine the two recognisers' words, as the engine ships; only: the neural model's words alone; off: PocketSphinx alone (the default with -words-out, whose records are PocketSphinx's posteriors)")
	moonshineDir := flag.String("moonshine", ".cache/speech-models/moonshine-tiny", "the neural model's directory (make deps-speech-models)")
	modelDir := flag.String("model-dir", "", "directory with en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict (default: Debian's)")
	verbose := flag.Bool("v", false, "print each hypothesis")
	debug := flag.Bool("debug", false, "log the engine's debug lines (each channel's warp and speaker adaptation) to stderr")
	resultsOut := flag.String("results-out", "", "write each call's or clip's transcription result (segments, words, times, confidences) to this JSON-lines file, one {\"item\", \"result\"} a line")
	wordsOut := flag.String("words-out", "", "write each recognised word (its raw lattice posterior, duration, rate, and whether the alignment to the reference pairs it with the same word) to this JSON-lines file, for cmd/confidence")
	flag.IntVar(&onlyChannel, "only-channel", -1, "decode only this channel of each call (WAV): the other is silenced, so its WER and the RTF do not count (a quicker look at one channel)")
	flag.Parse()
	level := slog.LevelWarn
	if *debug {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	cfg := sphinx.Config{Decoders: 1, DomainLMWeight: *weight, VADThreshold: *vad, NoiseRemoval: *noiseRemoval, NoiseRemovalBelowDB: *noiseRemovalBelow, EnergySpreadBelowDB: *energySpreadBelow, DisableNarrowbandMap: *noMap, DisableVoiceBand: *noVoiceBand, KeepLowBandEmpty: *keepLowBandEmpty, KeytermWeight: *keytermWeight, DisableNarrowbandMLLR: *noMLLR,
		SpeakerAdaptation: !*noSpeaker, SpeakerAdaptationWeight: *speakerWeight,
		SpeakerAdaptationPasses: *speakerPasses, SpeakerMinPosterior: *speakerMinPosterior, SpeakerVariancePrior: *speakerVariancePrior,
		SpeakerOneTransform: *speakerOneTransform, SpeakerClassPrior: *speakerClassPrior,
		FixedDomainLMWeight: *fixedLMWeight, DomainLMWeightPriorWords: *lmWeightPrior,
		SpeakerWarpMargin: *speakerWarpMargin}
	if *speakerWarps != "" {
		for _, f := range strings.Split(*speakerWarps, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				fatal(fmt.Errorf("-speaker-warps: %w", err))
			}
			cfg.SpeakerWarpFactors = append(cfg.SpeakerWarpFactors, v)
		}
	}
	if *domainText != "" {
		b, err := os.ReadFile(*domainText)
		if err != nil {
			fatal(err)
		}
		cfg.DomainText = string(b)
	}
	var keyterms map[string][]string
	if *keytermsFile != "" {
		keyterms = fromFile(*keytermsFile, func(b []byte) (map[string][]string, error) {
			var m map[string][]string
			err := json.Unmarshal(b, &m)
			return m, err
		})
	}
	if *mapFile != "" {
		cfg.NarrowbandMap = fromFile(*mapFile, sphinx.ParseFeatureMap)
	}
	if *bandMapFile != "" {
		cfg.VoiceBandMap = fromFile(*bandMapFile, sphinx.ParseFeatureMap)
	}
	if *mllrFile != "" {
		cfg.NarrowbandMLLR = fromFile(*mllrFile, sphinx.ParseMLLR)
	}
	if *unmappedMLLRFile != "" {
		cfg.NarrowbandUnmappedMLLR = fromFile(*unmappedMLLRFile, sphinx.ParseMLLR)
	}
	if *extra != "" {
		cfg.ExtraArgs = strings.Fields(*extra)
	}
	cfg.ModelDir = *modelDir
	neuralSet := false
	flag.Visit(func(f *flag.Flag) { neuralSet = neuralSet || f.Name == "neural-speech" })
	if *wordsOut != "" && !neuralSet {
		*neural = "off"
	}
	switch *neural {
	case "off":
	case "on", "only":
		m, err := moonshine.Load(*moonshineDir)
		if err != nil {
			fatal(err)
		}
		defer m.Close()
		cfg.Moonshine, cfg.MoonshineOnly = m, *neural == "only"
	default:
		fatal(fmt.Errorf("-neural-speech must be on, off or only, got %q", *neural))
	}
	cfg.QuickSearchMaxHMMs = *quickMaxHMMs
	cfg.LineQuickSearchMaxHMMs = *lineMaxHMMs
	cfg.KeepEcho = *keepEcho
	if *wordsOut != "" {
		// The records carry the decoder's own posterior, which the mapping is
		// fitted to and applied to.
		cfg.DisableConfidenceCalibration = true
		var done func()
		records, done = createLines(*wordsOut)
		defer done()
	}
	if *resultsOut != "" {
		var done func()
		results, done = createLines(*resultsOut)
		defer done()
	}
	tr, err := sphinx.NewTranscriber(cfg)
	if err != nil {
		fatal(err)
	}
	defer tr.Close()
	switch {
	case *calls != "":
		err = benchCalls(tr, *calls, *ext, *label, *verbose, keyterms, *useKeyterms)
	case *libri != "":
		err = benchLibrivox(tr, *libri, *label, *verbose)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fatal(err)
	}
}

// records, when not nil, receives a wordRecord a line (-words-out).
var records *bufio.Writer

// createLines creates the JSON-lines file at path and returns a writer to it
// and the function that flushes and closes it (fatal on any error).
func createLines(path string) (*bufio.Writer, func()) {
	f, err := os.Create(path)
	if err != nil {
		fatal(err)
	}
	w := bufio.NewWriter(f)
	return w, func() {
		if err := w.Flush(); err != nil {
			fatal(err)
		}
		if err := f.Close(); err != nil {
			fatal(err)
		}
	}
}

// results, when not nil, receives each item's result a line (-results-out).
var results *bufio.Writer

// writeResult writes one item's transcription result to results.
func writeResult(item string, res *callscribe.TranscriptionResult) {
	if results == nil {
		return
	}
	line, err := json.Marshal(struct {
		Item   string                          `json:"item"`
		Result *callscribe.TranscriptionResult `json:"result"`
	}{item, res})
	if err != nil {
		fatal(err)
	}
	results.Write(append(line, '\n'))
}

// wordRecord is one recognised word scored against the reference.
type wordRecord struct {
	Item      string  `json:"item"` // the call or clip
	Text      string  `json:"text"`
	Posterior float64 `json:"posterior"`
	Duration  float64 `json:"duration"`
	Rate      int     `json:"rate"`
	Correct   bool    `json:"correct"`
}

// writeWords aligns the words of segs (one channel's, or a clip's) to ref and
// writes a record per word. A word is correct when every token NormalizeText
// makes of it is paired with the same reference token; a substituted or
// inserted word is not.
func writeWords(item string, ref []string, segs []callscribe.Segment, rate int) {
	if records == nil {
		return
	}
	var (
		words []callscribe.Word
		hyp   []string
		owner []int // owner[k]: the index in words of hyp[k]
	)
	for _, s := range segs {
		for _, w := range s.Words {
			for _, tok := range sphinx.NormalizeText(w.Text) {
				hyp = append(hyp, tok)
				owner = append(owner, len(words))
			}
			words = append(words, w)
		}
	}
	correct := make([]bool, len(words))
	for i := range correct {
		correct[i] = true
	}
	seen := make([]bool, len(words))
	for _, p := range align(ref, hyp) {
		if p.h < 0 {
			continue
		}
		seen[owner[p.h]] = true
		if p.r < 0 || ref[p.r] != hyp[p.h] {
			correct[owner[p.h]] = false
		}
	}
	enc := json.NewEncoder(records)
	for i, w := range words {
		if w.Confidence == nil {
			continue
		}
		rec := wordRecord{Item: item, Text: w.Text, Posterior: *w.Confidence, Duration: math.Round((w.End-w.Start)*100) / 100, Rate: rate, Correct: correct[i] && seen[i]}
		if err := enc.Encode(rec); err != nil {
			fatal(err)
		}
	}
}

// fromFile reads a flag's file and parses it, or stops the bench.
func fromFile[T any](path string, parse func([]byte) (T, error)) T {
	b, err := os.ReadFile(path)
	if err != nil {
		fatal(err)
	}
	v, err := parse(b)
	if err != nil {
		fatal(fmt.Errorf("%s: %w", path, err))
	}
	return v
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "asrbench:", err)
	os.Exit(1)
}

func benchCalls(tr *sphinx.Transcriber, dir, ext, label string, verbose bool, keyterms map[string][]string, useKeyterms bool) error {
	refs, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(refs) == 0 {
		return fmt.Errorf("no *.json references in %s", dir)
	}
	sort.Strings(refs)
	var (
		perChannel [2]tally
		all        tally
		audioSec   float64 // channel-seconds
		wall, cpu  time.Duration
		timing     []float64 // |hyp - ref| of turn starts and ends, seconds
		terms      termTally
		unknown    = map[string]bool{}
	)
	for _, rp := range refs {
		var ref reference
		b, err := os.ReadFile(rp)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			return fmt.Errorf("%s: %w", rp, err)
		}
		audio, err := os.ReadFile(strings.TrimSuffix(rp, ".json") + "." + ext)
		if err != nil {
			return err
		}
		if onlyChannel >= 0 {
			a, err := decode.DecodeWAV(audio)
			if err != nil {
				return fmt.Errorf("%s: %w", rp, err)
			}
			for ch := range a.Channels {
				if ch != onlyChannel {
					clear(a.Channels[ch])
				}
			}
			audio = decode.EncodeWAV(a.SampleRate, a.Channels...)
		}
		name := strings.TrimSuffix(filepath.Base(rp), ".json")
		req := callscribe.TranscriptionRequest{Audio: audio, Language: "en-US"}
		if keyterms != nil {
			if _, ok := keyterms[name]; !ok {
				return fmt.Errorf("%s: no keyterms for this call", name)
			}
		}
		if useKeyterms {
			req.Keyterms = keyterms[name]
		}
		rate, err := sampleRate(audio, ext)
		if err != nil {
			return fmt.Errorf("%s: %w", rp, err)
		}
		start, cpu0 := time.Now(), cpuTime()
		res, err := tr.Transcribe(context.Background(), req)
		if err != nil {
			return fmt.Errorf("%s: %w", rp, err)
		}
		if res.MetaData != nil && res.MetaData.Keyterms != nil {
			for _, w := range res.MetaData.Keyterms.UnknownWords {
				unknown[w] = true
			}
		}
		wall += time.Since(start)
		cpu += cpuTime() - cpu0
		audioSec += res.DurationSeconds * 2
		for ch := 0; ch < 2; ch++ {
			var refWords, hypWords []string
			for _, t := range ref.Turns {
				if t.Channel == ch {
					refWords = append(refWords, sphinx.NormalizeText(t.Text)...)
				}
			}
			for _, s := range res.Transcript {
				if s.SpeakerID == ch {
					hypWords = append(hypWords, sphinx.NormalizeText(s.Text)...)
				}
			}
			perChannel[ch].add(refWords, hypWords)
			all.add(refWords, hypWords)
			var chSegs []callscribe.Segment
			for _, s := range res.Transcript {
				if s.SpeakerID == ch {
					chSegs = append(chSegs, s)
				}
			}
			writeWords(name, refWords, chSegs, rate)
			if keyterms != nil {
				terms.add(refWords, hypWords, keyterms[name])
			}
		}
		writeResult(name, res)
		timing = append(timing, turnTiming(ref.Turns, res.Transcript)...)
		if verbose {
			fmt.Printf("--- %s\n", filepath.Base(rp))
			for _, s := range res.Transcript {
				fmt.Printf("  [%6.2f-%6.2f] %s: %s\n", s.TimeStart, s.TimeEnd, s.SpeakerAlias, s.Text)
			}
		}
	}
	within := 0
	var sum float64
	for _, d := range timing {
		sum += d
		if d <= 0.1 {
			within++
		}
	}
	fmt.Printf("%-22s calls=%d  WER agent(ch0)=%s  user(ch1)=%s  overall=%s\n", label, len(refs), perChannel[0], perChannel[1], all)
	fmt.Printf("%-22s RTF per channel=%.3f (CPU %.1fs, wall %.1fs, for %.1f channel-seconds)  turn boundaries within 0.1s: %d/%d (mean error %.3fs)  peak RSS=%s\n",
		label, cpu.Seconds()/audioSec, cpu.Seconds(), wall.Seconds(), audioSec, within, len(timing), sum/math.Max(1, float64(len(timing))), peakRSS())
	if keyterms != nil {
		words := make([]string, 0, len(unknown))
		for w := range unknown {
			words = append(words, w)
		}
		sort.Strings(words)
		fmt.Printf("%-22s keyterms sent=%v  term words recognised=%d/%d (%.1f%%)  wrongly inserted=%d  term WER=%.1f%%  unknown words=%v\n",
			label, useKeyterms, terms.correct, terms.words, 100*float64(terms.correct)/math.Max(1, float64(terms.words)), terms.falseHits,
			100*float64(terms.words-terms.correct+terms.falseHits)/math.Max(1, float64(terms.words)), words)
	}
	return nil
}

// termTally scores a call's keyterms in its transcript.
type termTally struct{ words, correct, falseHits int }

// add aligns hyp to ref and counts the reference's term words (positions
// where a term's words occur in sequence), those paired with the same
// hypothesis word, and hypothesis words that belong to a term but are not
// paired with the same reference word (a term heard where it was not said).
func (t *termTally) add(ref, hyp []string, terms []string) {
	isTerm := make([]bool, len(ref))
	termWord := map[string]bool{}
	for _, term := range terms {
		ws := sphinx.NormalizeText(term)
		for _, w := range ws {
			termWord[w] = true
		}
		for i := 0; len(ws) > 0 && i+len(ws) <= len(ref); i++ {
			match := true
			for k, w := range ws {
				if ref[i+k] != w {
					match = false
					break
				}
			}
			if match {
				for k := range ws {
					isTerm[i+k] = true
				}
			}
		}
	}
	for _, p := range align(ref, hyp) {
		same := p.r >= 0 && p.h >= 0 && ref[p.r] == hyp[p.h]
		if p.r >= 0 && isTerm[p.r] {
			t.words++
			if same {
				t.correct++
			}
		}
		if p.h >= 0 && termWord[hyp[p.h]] && !same {
			t.falseHits++
		}
	}
}

// pair is one step of an alignment: r or h is -1 for an insertion or a deletion.
type pair struct{ r, h int }

// align returns a minimum-edit alignment of hyp to ref.
func align(ref, hyp []string) []pair {
	n, m := len(ref), len(hyp)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			c := d[i-1][j-1]
			if ref[i-1] != hyp[j-1] {
				c++
			}
			d[i][j] = min(c, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	var out []pair
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && d[i][j] == d[i-1][j-1]+boolInt(ref[i-1] != hyp[j-1]):
			out = append(out, pair{i - 1, j - 1})
			i, j = i-1, j-1
		case i > 0 && d[i][j] == d[i-1][j]+1:
			out = append(out, pair{i - 1, -1})
			i--
		default:
			out = append(out, pair{-1, j - 1})
			j--
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// turnTiming pairs each reference turn with the recognised segments on its
// channel that overlap it and returns the start and end errors. A turn spoken in
// one breath is one VAD region, so its first segment's start and last segment's
// end are the turn's boundaries.
func turnTiming(turns []turn, segs []callscribe.Segment) []float64 {
	var out []float64
	for _, t := range turns {
		first, last := -1, -1
		for i, s := range segs {
			if s.SpeakerID == t.Channel && s.TimeEnd > t.Start && s.TimeStart < t.End {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 {
			continue
		}
		out = append(out, math.Abs(segs[first].TimeStart-t.Start), math.Abs(segs[last].TimeEnd-t.End))
	}
	return out
}

func benchLibrivox(tr *sphinx.Transcriber, dir, label string, verbose bool) error {
	if label == "" {
		label = "librivox 16kHz"
	}
	f, err := os.Open(filepath.Join(dir, "transcription"))
	if err != nil {
		return err
	}
	defer f.Close()
	var (
		all       tally
		audioSec  float64
		wall, cpu time.Duration
		n         int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		i := strings.LastIndexByte(line, '(')
		if i < 0 {
			continue
		}
		id := strings.TrimSuffix(line[i+1:], ")")
		text := strings.NewReplacer("<s>", "", "</s>", "").Replace(line[:i])
		audio, err := os.ReadFile(filepath.Join(dir, id+".wav"))
		if err != nil {
			return err
		}
		start, cpu0 := time.Now(), cpuTime()
		res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		wall += time.Since(start)
		cpu += cpuTime() - cpu0
		audioSec += res.DurationSeconds
		var hyp []string
		for _, s := range res.Transcript {
			hyp = append(hyp, sphinx.NormalizeText(s.Text)...)
		}
		all.add(sphinx.NormalizeText(text), hyp)
		rate, err := sampleRate(audio, "wav")
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		writeWords(id, sphinx.NormalizeText(text), res.Transcript, rate)
		writeResult(id, res)
		n++
		if verbose {
			fmt.Printf("  %s\n    ref: %s\n    hyp: %s\n", id, strings.Join(sphinx.NormalizeText(text), " "), strings.Join(hyp, " "))
		}
	}
	fmt.Printf("%-22s clips=%d  WER=%s  RTF=%.3f (CPU %.1fs, wall %.1fs, for %.1fs)  peak RSS=%s\n", label, n, all, cpu.Seconds()/audioSec, cpu.Seconds(), wall.Seconds(), audioSec, peakRSS())
	return sc.Err()
}

// sampleRate is the source sample rate of a call's audio, which decides
// whether the engine treats it as telephone audio.
func sampleRate(audio []byte, ext string) (int, error) {
	if ext != "wav" {
		// The bench's MP3s are made from its 8 kHz WAVs.
		return 8000, nil
	}
	a, err := decode.DecodeWAV(audio)
	if err != nil {
		return 0, err
	}
	return a.SampleRate, nil
}

// editDistance is the word-level Levenshtein distance (substitutions,
// insertions, deletions), the numerator of WER.
func editDistance(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(hyp); j++ {
			c := prev[j-1]
			if ref[i-1] != hyp[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)]
}

// cpuTime is the process's user+sys CPU time so far.
func cpuTime() time.Duration {
	var total time.Duration
	// The engine's own CPU and its finished child processes' (SphinxTrain's
	// tools, run by speaker adaptation), so adaptation's cost counts.
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// peakRSS reads the process's high-water resident set size.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return fmt.Sprintf("%d MiB", kb/1024)
		}
	}
	return "n/a"
}
