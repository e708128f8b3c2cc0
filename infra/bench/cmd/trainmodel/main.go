// Command trainmodel trains the built-in tagger's linear model and
// writes shared/engines/insights/model.json, which the tagger embeds.
//
// It fits on the train split only (testdata/insights) and chooses each
// category's settings (feature groups, L2 penalty, the confidence gate between
// model and lexicon) by accuracy over train and dev (testdata/insights-dev)
// cross-validated by writer: each writer's calls held out in turn
// (insightstrain.SelectLinear says why). It never reads the test splits. Training
// is deterministic: the same inputs give the same bytes, which
// TestModelIsReproducible checks.
//
// Usage:
//
//	go run ./infra/bench/cmd/trainmodel [-train testdata/insights] [-dev testdata/insights-dev] [-out shared/engines/insights/model.json] [-retrain]
//
// Ties are broken by dev's clean text, then dev's speech-engine transcripts
// (testdata/insights-dev-speech, written from bench-insights' cache by
// -save-dev-speech), then by the dev log-likelihood.
//
// -retrain skips the search and refits with the settings recorded in -out.
// -experiments compares the candidate methods (insightstrain.ExperimentMethods) on dev,
// clean and after speech (from bench-insights' cache), and by cross-validation
// over train+dev; it writes nothing.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
	insightstrain "github.com/callscribe/callscribe/shared/engines/insights/train"
)

func main() {
	trainDir := flag.String("train", "testdata/insights", "the train split")
	devDir := flag.String("dev", "testdata/insights-dev", "the dev split (settings are chosen on it)")
	out := flag.String("out", "shared/engines/insights/model.json", "where to write the model")
	retrain := flag.Bool("retrain", false, "refit with the settings recorded in -out instead of searching")
	exp := flag.Bool("experiments", false, "compare the candidate methods on dev and by cross-validation over train+dev (writes nothing)")
	only := flag.String("methods", "", "with -experiments: the methods to run, comma-separated (default all: "+insightstrain.MethodNames(insightstrain.ExperimentMethods(insightstrain.WordClasses{}, &insightstrain.WordVectors{}))+")")
	wordClasses := flag.String("word-clusters", ".cache/wordclusters.txt", "with -experiments: the word classes of the shipped+clusters method (make word-clusters writes them; that method is left out without the file)")
	wordVectors := flag.String("word-vectors", ".cache/wordvectors.bin", "with -experiments: the word vectors of the shipped+vectors method (make word-vectors writes them; that method is left out without the file)")
	cache := flag.String("speech-cache", ".cache/bench-insights", "with -experiments: bench-insights' cache of speech-engine transcripts")
	folds := flag.Int("folds", 5, "with -experiments: cross-validation folds over train+dev (0: none)")
	devSpeechDir := flag.String("dev-speech", "testdata/insights-dev-speech", "the speech engine's transcripts of the dev calls (<call>.json), the first tie break of the search")
	saveDevSpeech := flag.Bool("save-dev-speech", false, "write the dev calls' transcripts from -speech-cache to -dev-speech and exit")
	flag.Parse()

	train, err := evalset.LoadLabelledSet(*trainDir)
	if err != nil {
		fatal(err)
	}
	if *saveDevSpeech {
		dev, err := evalset.LoadLabelledSet(*devDir)
		if err != nil {
			fatal(err)
		}
		sp := speechCache(*cache, dev)
		if sp == nil {
			fatal(fmt.Errorf("%s lacks some dev transcripts: run bash infra/bench/insights.sh -mode prepare -speech-set %s", *cache, *devDir))
		}
		if err := saveSpeech(*devSpeechDir, sp); err != nil {
			fatal(err)
		}
		fmt.Printf("wrote %d transcripts to %s\n", len(sp), *devSpeechDir)
		return
	}
	if *exp {
		dev, err := evalset.LoadLabelledSet(*devDir)
		if err != nil {
			fatal(err)
		}
		experiments(train, dev, *cache, *only, *folds, *wordClasses, *wordVectors)
		return
	}
	var configs map[string]insights.LinearConfig
	if *retrain {
		old, err := os.ReadFile(*out)
		if err != nil {
			fatal(err)
		}
		if configs, err = insights.ConfigsOf(old); err != nil {
			fatal(err)
		}
	} else {
		dev, err := evalset.LoadLabelledSet(*devDir)
		if err != nil {
			fatal(err)
		}
		devSpeech, err := loadSpeech(*devSpeechDir, dev)
		if err != nil {
			fatal(fmt.Errorf("the dev calls' speech transcripts: %w (go run ./infra/bench/cmd/trainmodel -save-dev-speech writes them from bench-insights' cache)", err))
		}
		var report []insightstrain.Alternative
		configs, report = insightstrain.SelectLinear(train, dev, devSpeech)
		fmt.Printf("trained on %d calls (%s), chosen by cross-validation over train+dev by writer (ties: the %d dev calls of %s, then after speech from %s, then dev log-likelihood); best per feature set:\n", len(train), *trainDir, len(dev), *devDir, *devSpeechDir)
		for _, a := range report {
			fmt.Println(" ", a)
		}
	}
	b, err := insightstrain.TrainLinear(train, configs)
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fatal(err)
	}
	fmt.Printf("wrote %s (%d bytes)\n", *out, len(b))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "trainmodel:", err)
	os.Exit(1)
}
