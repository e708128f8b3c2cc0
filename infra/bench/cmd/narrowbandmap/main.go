// Command narrowbandmap fits the embedded engine's narrowband feature map
// (shared/engines/sphinx/narrowband_map.json) on "stereo" speech: each training
// sentence is synthesised once, then made wideband (16 kHz) and telephone-band
// (8 kHz, the same sox conversion synthcall uses for the evaluation calls), and
// the map learns to move the telephone-band cepstra onto the wideband ones. No
// transcripts are involved.
//
// Honesty rules, so that the ASR bench's 8 kHz figures stay a fair test:
//   - the sentences come from the domain LM's text (shared/engines/sphinx/lmdata),
//     which is kept disjoint from the evaluation dialogues;
//   - the voices are ones the evaluation calls do not use (they use flite's
//     slt and rms): flite's awb and kal16 and espeak-ng's English voices.
//
// Usage:
//
//	narrowbandmap [-out FILE] [-voices LIST] [-lines LIST] [-context N] [-hidden N]
//
// A voice is flite:NAME or espeak:NAME, optionally with @CENTS to shift its
// spectrum (sox pitch: vocal tract length perturbation). Every tenth sentence
// is held out and the mean squared cepstral distance to the wideband features
// (after CMN) is printed for it unmapped and mapped. Needs flite, espeak-ng and
// sox (make deps-speech).
//
// -lines passes the telephone-band speech of each training reading through one
// of the listed simulated telephone lines in turn (infra/bench/internal/telephone:
// voice band, G.711, GSM, line noise), so the map learns to undo the channel as
// well as the missing upper band; its target stays the clean wideband speech.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/callscribe/callscribe/infra/bench/internal/speechdata"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

// defaultVoices is the training voice set the shipped map was fitted on
// (speechdata.MapVoices, which says why).
const defaultVoices = speechdata.MapVoices

func main() {
	out := flag.String("out", "shared/engines/sphinx/narrowband_map.json", "where to write the map")
	voices := flag.String("voices", defaultVoices, "training voices, comma-separated")
	textPath := flag.String("text", "shared/engines/sphinx/lmdata/callcentre.txt", "training sentences, one a line (# comments)")
	contextFrames := flag.Int("context", 4, "frames of context on each side")
	ridge := flag.Float64("ridge", 1e-4, "ridge, relative to the mean diagonal")
	cache := flag.String("cache", ".cache/narrowband-map", "keeps the synthesised audio between runs")
	matchVariance := flag.Bool("match-variance", true, "scale each output to the wideband variance (chosen on the dev set)")
	hidden := flag.Int("hidden", 0, "hidden units on top of the linear map (0: linear only)")
	epochs := flag.Int("epochs", 12, "training passes for the hidden layer")
	rate := flag.Float64("rate", 1e-3, "Adam step size for the hidden layer")
	// The shipped map was fitted with PocketSphinx's noise removal on, and the
	// engine decodes with it off: refitted without it, map and transforms
	// read 5 words worse on the dev split's clean calls and 18 on its formant
	// voices (infra/bench/README.md, "Accuracy by condition").
	noiseRemoval := flag.Bool("noise-removal", true, "compute the training cepstra with PocketSphinx's noise removal on, as the shipped map was fitted")
	lineList := flag.String("lines", "", "telephone lines the 8 kHz readings pass through in turn, comma-separated (see linesim -list; empty: none)")
	flag.Parse()
	lines, err := speechdata.ParseLines(*lineList)
	if err != nil {
		fatal(err)
	}

	sentences, err := speechdata.ReadSentences(*textPath)
	if err != nil {
		fatal(err)
	}
	tr, err := sphinx.NewTranscriber(sphinx.Config{Decoders: 1, DisableNarrowbandMap: true, DomainLMWeight: -1, NoiseRemoval: *noiseRemoval})
	if err != nil {
		fatal(err)
	}
	defer tr.Close()
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fatal(err)
	}
	t := &trainer{tr: tr, sentences: sentences, lines: lines, textName: filepath.Base(*textPath), cache: *cache,
		context: *contextFrames, ridge: *ridge, matchVariance: *matchVariance,
		hidden: HiddenTraining{Units: *hidden, Epochs: *epochs, Batch: 256, Rate: *rate, Seed: 1,
			Progress: func(epoch int, mse float64) {
				fmt.Fprintf(os.Stderr, "narrowbandmap: epoch %d: training mean squared distance %.3f\n", epoch, mse)
			}}}
	m, err := t.fit(*voices)
	if err != nil {
		fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "narrowbandmap:", err)
	os.Exit(1)
}

// trainer fits maps on synthesised speech.
type trainer struct {
	tr            *sphinx.Transcriber
	sentences     []string
	lines         []string
	textName      string
	cache         string
	context       int
	ridge         float64
	matchVariance bool
	hidden        HiddenTraining
}

// fit fits one map on the sentences spoken by the comma-separated voices.
func (t *trainer) fit(voiceList string) (*sphinx.FeatureMap, error) {
	voices := strings.Split(voiceList, ",")
	ctx := context.Background()
	var (
		fitter  *train.FeatureMapFitter
		heldOut []FramePair
		pairs   []FramePair
		seconds float64
	)
	for v, voice := range voices {
		for i, text := range t.sentences {
			wide, narrow, err := speechdata.Synthesise(t.cache, voice, text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", voice, err)
			}
			if narrow, err = speechdata.ThroughLine(narrow, t.lines, v*len(t.sentences)+i); err != nil {
				return nil, err
			}
			wc, dim, err := t.tr.Cepstra(ctx, wide, 16000)
			if err != nil {
				return nil, err
			}
			nc, _, err := t.tr.Cepstra(ctx, narrow, 8000)
			if err != nil {
				return nil, err
			}
			if fitter == nil {
				fitter = train.NewFeatureMapFitter(dim, t.context)
			}
			if i%10 == 9 {
				heldOut = append(heldOut, FramePair{Narrow: nc, Wide: wc})
				continue
			}
			fitter.Add(nc, wc)
			if t.hidden.Units > 0 {
				pairs = append(pairs, FramePair{Narrow: nc, Wide: wc})
			}
			seconds += float64(len(wide)) / 16000
		}
		fmt.Fprintf(os.Stderr, "narrowbandmap: %s done (%d frames so far)\n", voice, fitter.Frames())
	}
	trainedOn := fmt.Sprintf("%.0f s of speech (%d frames): %d sentences of %s (the domain LM text, disjoint from the evaluation dialogues) in voices %s; 8 kHz made by sox from the same synthesis%s",
		seconds, fitter.Frames(), len(t.sentences)-len(t.sentences)/10, t.textName, strings.Join(voices, " "), speechdata.LinesNote(t.lines))
	m, err := fitter.Fit(t.ridge, t.matchVariance, trainedOn)
	if err != nil {
		return nil, err
	}
	if t.hidden.Units > 0 {
		if m, err = TrainHidden(m, pairs, t.hidden); err != nil {
			return nil, err
		}
		m.TrainedOn += fmt.Sprintf("; hidden layer of %d units, %d epochs of Adam", t.hidden.Units, t.hidden.Epochs)
	}
	var before, after float64
	var frames int
	for _, p := range heldOut {
		// Compared as the decoder compares them: after batch CMN.
		n := min(len(p.Narrow), len(p.Wide)) / m.Dim * m.Dim
		narrow := sphinx.MeanNormalised(p.Narrow[:n], m.Dim)
		wide := sphinx.MeanNormalised(p.Wide[:n], m.Dim)
		mapped := sphinx.MeanNormalised(m.Apply(p.Narrow[:n]), m.Dim)
		for i := 0; i < n; i++ {
			d0 := float64(narrow[i] - wide[i])
			d1 := float64(mapped[i] - wide[i])
			before += d0 * d0
			after += d1 * d1
		}
		frames += n / m.Dim
	}
	fmt.Printf("narrowbandmap: %s: %d training frames; held out %d frames: mean squared cepstral distance to wideband (after CMN) %.3f unmapped, %.3f mapped\n",
		voiceList, fitter.Frames(), frames, before/float64(frames), after/float64(frames))
	return m, nil
}
