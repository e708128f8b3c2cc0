// Command narrowbandadapt adapts the acoustic model of the embedded engine to
// telephone-band speech with SphinxTrain (Debian package sphinxtrain): bw
// collects Baum-Welch statistics of the en-us model on narrowband speech whose
// transcripts are known, then mllr_solve estimates an MLLR mean transform
// (the default, written to shared/engines/sphinx/narrowband_mapped.mllr) or map_adapt makes
// MAP-adapted means and variances (-method map, a model directory).
//
// The speech is what the narrowband map is fitted on (infra/bench/internal/speechdata):
// sentences of the domain LM text, disjoint from the evaluation dialogues and
// from the dev calls, spoken by voices the ASR bench does not use, converted
// to 8 kHz by sox. The features are the ones the engine decodes for that audio
// (-features engine: upsampled, then moved by the narrowband map as far as the
// pitch rule says), or the plain upsampled ones (-features plain).
//
// Usage:
//
//	narrowbandadapt [-out FILE] [-work DIR] [-method mllr|map] [-features engine|plain] [-voices mapped|unmapped|LIST]
//
// The model files SphinxTrain needs and PocketSphinx's package does not ship
// in that form are made from it: the model definition as text (PocketSphinx's
// own bin_mdef_write_text) and the mixture weights from the quantised sendump.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/callscribe/callscribe/infra/bench/internal/speechdata"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

// mappedVoices are the voices of the narrowband map's training set
// (speechdata.MapVoices) whose features the engine maps: the pitch rule gives
// them a mean map weight of 1.00 (espeak's en-us f1-f4) and 0.99 (awb shifted
// up 500 cents), the others 0.00-0.03, as this command logs per voice. The
// shipped transform is for the channels the map applies to, so it is
// estimated on these.
const mappedVoices = "espeak:en-us+f1,espeak:en-us+f2,espeak:en-us+f3,espeak:en-us+f4,flite:awb@500"

// unmappedVoices are the others, for the transform of the channels the map
// leaves alone (narrowband_unmapped.mllr).
const unmappedVoices = "flite:awb,flite:kal16,espeak:en-us+m3,espeak:en-gb+f3,flite:awb@250,flite:kal16@250,flite:kal16@500"

func main() {
	out := flag.String("out", "shared/engines/sphinx/narrowband_mapped.mllr", "where to write the MLLR transform (-method mllr) or the model directory (-method map)")
	method := flag.String("method", "mllr", "mllr (a mean transform) or map (MAP-adapted means and variances)")
	features := flag.String("features", "engine", "engine (the features the engine decodes: narrowband map by the pitch rule) or plain (upsampled, unmapped)")
	voices := flag.String("voices", "mapped", "training voices: mapped, unmapped (the map's training voices the engine maps, or not) or a comma-separated list (as narrowbandmap)")
	textPath := flag.String("text", "shared/engines/sphinx/lmdata/callcentre.txt", "training sentences, one a line (# comments)")
	cache := flag.String("cache", ".cache/narrowband-map", "synthesised audio (shared with narrowbandmap)")
	work := flag.String("work", ".cache/narrowband-adapt", "work directory (features, statistics, model copies)")
	modelDir := flag.String("model", sphinx.DefaultModelDir, "PocketSphinx model directory (en-us/, cmudict-en-us.dict)")
	tools := flag.String("sphinxtrain", "/usr/lib/sphinxtrain", "directory of SphinxTrain's bw, mllr_solve and map_adapt")
	limit := flag.Int("sentences", 0, "use only the first N sentences (0: all)")
	tau := flag.Float64("tau", 10, "MAP prior weight (map_adapt -tau with -fixedtau)")
	// As narrowbandmap's -noise-removal: the shipped transforms were
	// estimated with it on.
	noiseRemoval := flag.Bool("noise-removal", true, "compute the training cepstra with PocketSphinx's noise removal on, as the shipped transforms were estimated")
	lineList := flag.String("lines", "", "telephone lines the readings pass through in turn, comma-separated (as narrowbandmap -lines; empty: none)")
	reuse := flag.Bool("reuse-stats", false, "reuse the Baum-Welch statistics of an earlier run with the same -features and -voices (skips features and bw)")
	flag.Parse()
	lines, err := speechdata.ParseLines(*lineList)
	if err != nil {
		fatal(err)
	}
	switch *voices {
	case "mapped":
		*voices = mappedVoices
	case "unmapped":
		*voices = unmappedVoices
	}
	if *method != "mllr" && *method != "map" {
		fatal(fmt.Errorf("-method %q: want mllr or map", *method))
	}
	if *features != "engine" && *features != "plain" {
		fatal(fmt.Errorf("-features %q: want engine or plain", *features))
	}
	start := time.Now()
	sentences, err := speechdata.ReadSentences(*textPath)
	if err != nil {
		fatal(err)
	}
	if *limit > 0 && *limit < len(sentences) {
		sentences = sentences[:*limit]
	}
	base := filepath.Join(*work, "base")
	if err := sphinx.PrepareTrainingModel(filepath.Join(*modelDir, "en-us"), base); err != nil {
		fatal(fmt.Errorf("preparing the model for SphinxTrain: %w", err))
	}
	dict := filepath.Join(*modelDir, "cmudict-en-us.dict")
	words, err := train.ReadDictionaryWords(dict)
	if err != nil {
		fatal(err)
	}
	accum := filepath.Join(*work, "accum-"+*features)
	b, err := os.ReadFile(filepath.Join(accum, "description"))
	desc := string(b)
	if !*reuse || err != nil {
		if desc, err = collectStats(*features, *voices, lines, *noiseRemoval, *textPath, *cache, *work, accum, sentences, words, dict, base, *tools); err != nil {
			fatal(err)
		}
	}
	switch *method {
	case "mllr":
		tmp := filepath.Join(*work, "mllr_matrix-"+*features)
		logPath := filepath.Join(*work, "mllr_solve-"+*features+".log")
		fmt.Fprintf(os.Stderr, "narrowbandadapt: mllr_solve (log %s)\n", logPath)
		if _, err := sphinx.SolveMLLR(context.Background(), *tools, base, accum, tmp, logPath); err != nil {
			fatal(err)
		}
		b, err := os.ReadFile(tmp)
		if err != nil {
			fatal(err)
		}
		// The engine's reader stops after the numbers, so a trailing comment
		// line records what the transform was estimated on.
		b = append(b, []byte("\n# narrowbandadapt: "+desc+"\n")...)
		if err := os.WriteFile(*out, b, 0o644); err != nil {
			fatal(err)
		}
	case "map":
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fatal(err)
		}
		logPath := filepath.Join(*work, "map_adapt.log")
		fmt.Fprintf(os.Stderr, "narrowbandadapt: map_adapt (log %s)\n", logPath)
		if err := sphinx.RunSphinxTrain(context.Background(), filepath.Join(*tools, "map_adapt"), logPath,
			"-moddeffn", filepath.Join(base, "mdef.txt"), "-ts2cbfn", ".ptm.",
			"-meanfn", filepath.Join(base, "means"), "-varfn", filepath.Join(base, "variances"),
			"-mixwfn", filepath.Join(base, "mixture_weights"), "-tmatfn", filepath.Join(base, "transition_matrices"),
			"-accumdir", accum, "-fixedtau", "yes", "-tau", fmt.Sprint(*tau), "-bayesmean", "no",
			"-mapmeanfn", filepath.Join(*out, "means"), "-mapvarfn", filepath.Join(*out, "variances"),
			"-mapmixwfn", filepath.Join(*work, "map_mixture_weights"), "-maptmatfn", filepath.Join(*work, "map_transition_matrices")); err != nil {
			fatal(err)
		}
		// The rest of the model is the stock one: only the Gaussians move.
		src := filepath.Join(*modelDir, "en-us")
		for _, f := range []string{"mdef", "sendump", "transition_matrices", "noisedict", "feat.params"} {
			if err := sphinx.CopyFile(filepath.Join(src, f), filepath.Join(*out, f)); err != nil {
				fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(*out, "README"), []byte("MAP-adapted means and variances of pocketsphinx-en-us (tau "+fmt.Sprint(*tau)+") by narrowbandadapt: "+desc+"\n"), 0o644); err != nil {
			fatal(err)
		}
	}
	fmt.Printf("narrowbandadapt: wrote %s (%s) in %s\n", *out, desc, time.Since(start).Round(time.Second))
}

// collectStats computes the training features, runs bw and returns what the
// statistics were collected on (also kept in accum/description).
func collectStats(features, voices string, lines []string, noiseRemoval bool, textPath, cache, work, accum string, sentences []string, words map[string]bool, dict, base, tools string) (string, error) {
	// The shipped transforms were estimated on clean synthesis through the
	// map fitted on synthesised voices, which the engine keeps for channels
	// decoded from a line's voice band (voiceband_map.json); the narrowband
	// map it uses for the others came after them, fitted on recordings. So
	// the readings here go through the former, to rebuild the transforms as
	// shipped.
	synthesisMap, err := sphinx.BuiltinVoiceBandMap()
	if err != nil {
		return "", err
	}
	tr, err := sphinx.NewTranscriber(sphinx.Config{Decoders: 1, DomainLMWeight: -1, DisableNarrowbandMap: features == "plain", NarrowbandMap: synthesisMap, NoiseRemoval: noiseRemoval})
	if err != nil {
		return "", err
	}
	defer tr.Close()
	feat := filepath.Join(work, "feat-"+features)
	if err := os.MkdirAll(feat, 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	var ctl, lsn strings.Builder
	var seconds float64
	n, skipped := 0, 0
	ctx := context.Background()
	for v, voice := range strings.Split(voices, ",") {
		var weights float64
		for i, text := range sentences {
			toks := sphinx.NormalizeText(text)
			if !allKnown(toks, words) {
				skipped++
				continue
			}
			_, narrow, err := speechdata.Synthesise(cache, voice, text)
			if err != nil {
				return "", fmt.Errorf("%s: %w", voice, err)
			}
			if narrow, err = speechdata.ThroughLine(narrow, lines, v*len(sentences)+i); err != nil {
				return "", err
			}
			cep, dim, w, err := tr.DecodedCepstra(ctx, narrow, 8000)
			if err != nil {
				return "", err
			}
			if dim != 13 {
				return "", fmt.Errorf("cepstra of %d values, want 13", dim)
			}
			id := fmt.Sprintf("%s-%03d", strings.NewReplacer(":", "-", "+", "-", "@", "-").Replace(voice), i)
			if err := sphinx.WriteMFC(filepath.Join(feat, id+".mfc"), cep); err != nil {
				return "", err
			}
			fmt.Fprintln(&ctl, id)
			fmt.Fprintf(&lsn, "<s> %s </s> (%s)\n", strings.Join(toks, " "), id)
			weights += w
			seconds += float64(len(narrow)) / 8000
			n++
		}
		fmt.Fprintf(os.Stderr, "narrowbandadapt: %s: features done (mean map weight %.2f)\n", voice, weights/float64(len(sentences)))
	}
	ctlPath, lsnPath := filepath.Join(work, "train-"+features+".fileids"), filepath.Join(work, "train-"+features+".transcription")
	if err := os.WriteFile(ctlPath, []byte(ctl.String()), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(lsnPath, []byte(lsn.String()), 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "narrowbandadapt: %d utterances (%.0f s), %d sentence readings skipped for words outside the dictionary\n", n, seconds, skipped)
	if err := os.RemoveAll(accum); err != nil {
		return "", err
	}
	if err := os.MkdirAll(accum, 0o755); err != nil {
		return "", err
	}
	logPath := filepath.Join(work, "bw-"+features+".log")
	fmt.Fprintf(os.Stderr, "narrowbandadapt: bw (log %s)\n", logPath)
	if err := sphinx.RunBW(ctx, tools, base, dict, ctlPath, lsnPath, feat, accum, "", logPath); err != nil {
		return "", err
	}
	desc := fmt.Sprintf("%.0f s of speech (%d utterances): sentences of %s (the domain LM text) in voices %s; 8 kHz by sox%s, %s features",
		seconds, n, filepath.Base(textPath), strings.Join(strings.Split(voices, ","), " "), speechdata.LinesNote(lines), features)
	return desc, os.WriteFile(filepath.Join(accum, "description"), []byte(desc), 0o644)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "narrowbandadapt:", err)
	os.Exit(1)
}

func allKnown(toks []string, words map[string]bool) bool {
	for _, t := range toks {
		if !words[t] {
			return false
		}
	}
	return len(toks) > 0
}
