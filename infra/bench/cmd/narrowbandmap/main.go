// Command narrowbandmap fits the embedded engine's feature maps
// (shared/engines/sphinx/narrowband_map.json and voiceband_map.json) on
// "stereo" speech: each training reading is seen wideband (16 kHz) and
// telephone-band (8 kHz, made from it by the same sox conversion synthcall
// uses for the evaluation calls), and the map learns to move the
// telephone-band cepstra onto the wideband ones. No transcripts are involved.
//
// The readings are sentences synthesised by -voices, recordings under the
// -recordings directories (16 kHz WAV, or G.722 as Debian packages the
// Asterisk PBX's prompts), or both. make narrowband-map fits the narrowband
// map on recordings alone, make voiceband-map the voice-band map on the
// voices alone (the engine's featuremap.go says why two).
//
// Honesty rules, so that the ASR bench's 8 kHz figures stay a fair test:
//   - the sentences come from the domain LM's text (shared/engines/sphinx/lmdata),
//     which is kept disjoint from the evaluation dialogues;
//   - the voices are ones the evaluation calls do not use (they use flite's
//     slt and rms): flite's awb and kal16 and espeak-ng's English voices;
//   - the recordings are voices the bench does not read: the Asterisk prompts
//     in French, Italian and Russian (the English and Spanish ones are one
//     woman's, the bench's prompts condition).
//
// Usage:
//
//	narrowbandmap [-out FILE] [-voices LIST] [-recordings DIRS] [-voice-band] [-lines LIST] [-context N] [-hidden N]
//	narrowbandmap -model DIR [-model-by-difference=false] [-model-prior N] [-voices LIST] [-recordings DIRS]
//
// A voice is flite:NAME or espeak:NAME, optionally with @CENTS to shift its
// spectrum (sox pitch: vocal tract length perturbation). Every tenth reading
// is held out and the mean squared cepstral distance to the wideband features
// (after CMN) is printed for it unmapped and mapped. Needs flite, espeak-ng,
// sox and spandsp (make deps-speech).
//
// -lines passes the telephone-band speech of each training reading through one
// of the listed simulated telephone lines in turn (infra/bench/internal/telephone:
// voice band, G.711, GSM, line noise), so the map learns to undo the channel as
// well as the missing upper band; its target stays the clean wideband speech.
// -voice-band reads the telephone-band side as the engine reads a channel
// decoded from its voice band (300-3400 Hz, the band below regenerated).
//
// -model DIR fits no map: it writes a copy of the acoustic model whose
// Gaussians are retrained for the telephone-band cepstra on the same readings
// (single-pass retraining, shared/engines/sphinx/train/retrain.go), for
// asrbench -model-dir to measure. It was measured against the shipped
// transforms and not kept (infra/bench/README.md, "Levers tried on dev").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	recordings := flag.String("recordings", "", "directories of 16 kHz WAV recordings to fit on as well as the voices' sentences (-voices \"\" for the recordings alone), comma-separated; their 8 kHz side made by sox")
	voiceBand := flag.Bool("voice-band", false, "fit the voice-band map: the 8 kHz side read as the engine reads a channel decoded from its voice band (300-3400 Hz, the band below regenerated)")
	lineList := flag.String("lines", "", "telephone lines the 8 kHz readings pass through in turn, comma-separated (see linesim -list; empty: none)")
	modelDir := flag.String("model", "", "instead of a map, write to this directory a copy of the acoustic model whose Gaussians are retrained for the 8 kHz side's features")
	modelPrior := flag.Float64("model-prior", 20, "with -model: frames pulling each retrained Gaussian towards its prior")
	modelVarFloor := flag.Float64("model-var-floor", 0.5, "with -model: the least share of its prior a retrained variance keeps")
	modelPriorMLLR := flag.String("model-prior-mllr", "unmapped", "with -model: the transform of the stock means the retrained ones are pulled towards: unmapped, mapped (the engine's built-in ones), none, or a file")
	modelMapped := flag.Bool("model-mapped", false, "with -model: the 8 kHz side's cepstra go through the narrowband map (the voice-band map with -voice-band) first, as a high voice's do")
	modelByDifference := flag.Bool("model-by-difference", true, "with -model: move each stock Gaussian by the band's difference on the frames it was assigned (false: estimate it anew from the 8 kHz frames)")
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
	t := &trainer{tr: tr, sentences: sentences, lines: lines, voiceBand: *voiceBand, textName: filepath.Base(*textPath), cache: *cache,
		context: *contextFrames, ridge: *ridge, matchVariance: *matchVariance,
		hidden: HiddenTraining{Units: *hidden, Epochs: *epochs, Batch: 256, Rate: *rate, Seed: 1,
			Progress: func(epoch int, mse float64) {
				fmt.Fprintf(os.Stderr, "narrowbandmap: epoch %d: training mean squared distance %.3f\n", epoch, mse)
			}}}
	readings := t.synthesised(*voices)
	var what []string
	if len(readings) > 0 {
		what = append(what, fmt.Sprintf("%d sentences of %s (the domain LM text, disjoint from the evaluation dialogues) in voices %s",
			len(t.sentences)-len(t.sentences)/10, t.textName, strings.Join(strings.Split(*voices, ","), " ")))
	}
	if *recordings != "" {
		dirs := strings.Split(*recordings, ",")
		recorded, err := t.recorded(dirs)
		if err != nil {
			fatal(err)
		}
		names := make([]string, len(dirs))
		for i, d := range dirs {
			names[i] = filepath.Base(filepath.Clean(d))
		}
		what = append(what, fmt.Sprintf("%d recordings in %s", len(recorded)-len(recorded)/10, strings.Join(names, " ")))
		readings = append(readings, recorded...)
	}
	side := "8 kHz made by sox from the same synthesis"
	if *recordings != "" {
		side = "8 kHz made by sox from the same audio"
	}
	if *voiceBand {
		side += ", read through the engine's voice band with the band below it regenerated"
	}
	if *modelDir != "" {
		how, err := retrainingFrom(*modelPriorMLLR, *modelPrior, *modelVarFloor, *modelMapped, *voiceBand, *modelByDifference)
		if err != nil {
			fatal(err)
		}
		fmt.Printf("narrowbandmap: retraining on %s; %s\n", strings.Join(what, " and "), side)
		if err := t.retrain(readings, how, *modelDir); err != nil {
			fatal(err)
		}
		return
	}
	m, err := t.fit(readings, strings.Join(what, " and ")+"; "+side)
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
	// voiceBand reads the 8 kHz side through the engine's voice band.
	voiceBand bool
}

// narrowCepstra returns the cepstra of an 8 kHz training reading as the map
// will meet them.
func (t *trainer) narrowCepstra(ctx context.Context, narrow []int16) ([]float32, error) {
	var (
		cep []float32
		err error
	)
	if t.voiceBand {
		cep, _, err = t.tr.VoiceBandCepstra(ctx, narrow, 8000)
	} else {
		cep, _, err = t.tr.Cepstra(ctx, narrow, 8000)
	}
	return cep, err
}

// cepstraOf returns the i-th training reading's wideband cepstra and its
// telephone-band ones (through the i-th of the lines, as the map will meet
// them), their length, and the reading's seconds.
func (t *trainer) cepstraOf(ctx context.Context, i int, r reading) (wide, narrow []float32, dim int, seconds float64, err error) {
	w, n, err := r.load()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if n, err = speechdata.ThroughLine(n, t.lines, i); err != nil {
		return nil, nil, 0, 0, err
	}
	if wide, dim, err = t.tr.Cepstra(ctx, w, 16000); err != nil {
		return nil, nil, 0, 0, err
	}
	if narrow, err = t.narrowCepstra(ctx, n); err != nil {
		return nil, nil, 0, 0, err
	}
	return wide, narrow, dim, float64(len(w)) / 16000, nil
}

// reading is one training reading: how to load its wideband and
// telephone-band sides, and whether it is held out of the fit.
type reading struct {
	load    func() (wide, narrow []int16, err error)
	heldOut bool
}

// heldOut says whether the i-th sentence or recording is held out of the
// fit: every tenth.
func heldOut(i int) bool { return i%10 == 9 }

// synthesised are the training sentences spoken by each of the
// comma-separated voices ("" for none).
func (t *trainer) synthesised(voiceList string) []reading {
	var out []reading
	for _, voice := range strings.Split(voiceList, ",") {
		if voice == "" {
			continue
		}
		for i, text := range t.sentences {
			out = append(out, reading{heldOut: heldOut(i), load: func() ([]int16, []int16, error) {
				wide, narrow, err := speechdata.Synthesise(t.cache, voice, text)
				if err != nil {
					err = fmt.Errorf("%s: %w", voice, err)
				}
				return wide, narrow, err
			}})
		}
	}
	return out
}

// minRecordingSamples is 0.2 s at 16 kHz: some packages hold empty or
// near-empty recordings, too short to fit on.
const minRecordingSamples = 16000 / 5

// recorded are the 16 kHz recordings under the directories (WAV, or G.722 as
// Debian packages the Asterisk prompts at 16 kHz), in path order, each with
// its 8 kHz side made by sox; recordings under 0.2 s are left out.
func (t *trainer) recorded(dirs []string) ([]reading, error) {
	var out []reading
	for _, dir := range dirs {
		var found []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ext := filepath.Ext(path); !d.IsDir() && (ext == ".wav" || ext == ".g722") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no .wav or .g722 recordings under %s", dir)
		}
		slices.Sort(found)
		for _, path := range found {
			wide, err := speechdata.ReadWideband(path)
			if err != nil {
				return nil, err
			}
			if len(wide) < minRecordingSamples {
				continue
			}
			out = append(out, reading{heldOut: heldOut(len(out)), load: func() ([]int16, []int16, error) {
				narrow, err := speechdata.Narrowband(t.cache, path, wide)
				return wide, narrow, err
			}})
		}
	}
	return out, nil
}

// fit fits one map on the readings, those marked held out only measured;
// trainedOn says what they are and how their 8 kHz side was made.
func (t *trainer) fit(readings []reading, trainedOn string) (*sphinx.FeatureMap, error) {
	if len(readings) == 0 {
		return nil, fmt.Errorf("nothing to fit on: no voices and no recordings")
	}
	ctx := context.Background()
	var (
		fitter  *train.FeatureMapFitter
		held    []FramePair
		pairs   []FramePair
		seconds float64
	)
	for i, r := range readings {
		wc, nc, dim, s, err := t.cepstraOf(ctx, i, r)
		if err != nil {
			return nil, err
		}
		if fitter == nil {
			fitter = train.NewFeatureMapFitter(dim, t.context)
		}
		if r.heldOut {
			held = append(held, FramePair{Narrow: nc, Wide: wc})
			continue
		}
		fitter.Add(nc, wc)
		if t.hidden.Units > 0 {
			pairs = append(pairs, FramePair{Narrow: nc, Wide: wc})
		}
		seconds += s
		if (i+1)%len(t.sentences) == 0 {
			fmt.Fprintf(os.Stderr, "narrowbandmap: %d readings done (%d frames so far)\n", i+1, fitter.Frames())
		}
	}
	m, err := fitter.Fit(t.ridge, t.matchVariance, fmt.Sprintf("%.0f s of speech (%d frames): %s%s",
		seconds, fitter.Frames(), trainedOn, speechdata.LinesNote(t.lines)))
	if err != nil {
		return nil, err
	}
	if t.hidden.Units > 0 {
		if m, err = TrainHidden(m, pairs, t.hidden); err != nil {
			return nil, err
		}
		m.TrainedOn += fmt.Sprintf("; hidden layer of %d units, %d epochs of Adam", t.hidden.Units, t.hidden.Epochs)
	}
	before, after, frames := heldOutDistance(m, held)
	fmt.Printf("narrowbandmap: %s: %d training frames; held out %d frames: mean squared cepstral distance to wideband (after CMN) %.3f unmapped, %.3f mapped\n",
		trainedOn, fitter.Frames(), frames, before, after)
	return m, nil
}

// heldOutDistance is the mean squared cepstral distance per frame of the
// held-out readings' narrowband frames to their wideband ones, unmapped and
// through m, compared as the decoder compares them: after batch CMN.
func heldOutDistance(m *sphinx.FeatureMap, heldOut []FramePair) (before, after float64, frames int) {
	for _, p := range heldOut {
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
	if frames == 0 {
		return 0, 0, 0
	}
	return before / float64(frames), after / float64(frames), frames
}
