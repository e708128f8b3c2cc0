package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
	insightstrain "github.com/callscribe/callscribe/shared/engines/insights/train"
)

// speechCache reads the speech engine's transcripts of calls from
// bench-insights' cache (.cache/bench-insights: <key>-<engine>.json, key as in
// infra/bench/cmd/insights' textKey). It returns nil unless every call has
// one: a partial set would score a different dev split.
func speechCache(dir string, calls []evalset.LabelledCall) map[string]callscribe.Transcript {
	if dir == "" {
		return nil
	}
	out := map[string]callscribe.Transcript{}
	for _, c := range calls {
		h := sha256.Sum256([]byte(fmt.Sprintf("rate=%d\n%s", 8000, c.Text)))
		files, _ := filepath.Glob(filepath.Join(dir, hex.EncodeToString(h[:8])+"-*.json"))
		if len(files) == 0 {
			return nil
		}
		// The newest transcript (the current engine's when the engine changed).
		slices.SortFunc(files, func(a, b string) int {
			ia, _ := os.Stat(a)
			ib, _ := os.Stat(b)
			return ib.ModTime().Compare(ia.ModTime())
		})
		b, err := os.ReadFile(files[0])
		if err != nil {
			return nil
		}
		var segs []callscribe.Segment
		if json.Unmarshal(b, &segs) != nil {
			return nil
		}
		out[c.File] = callscribe.Transcript{Segments: segs}
	}
	return out
}

// experiments prints the comparison of the candidate methods (insightstrain.Experiment).
func experiments(train, dev []evalset.LabelledCall, cache, only string, folds int, wordClassesPath, wordVectorsPath string) {
	tr := insightstrain.Corpus{Calls: train, Speech: speechCache(cache, train)}
	dv := insightstrain.Corpus{Calls: dev, Speech: speechCache(cache, dev)}
	fmt.Printf("speech transcripts: train %d of %d, dev %d of %d (from %s)\n", len(tr.Speech), len(train), len(dv.Speech), len(dev), cache)
	wc, err := insightstrain.LoadWordClasses(wordClassesPath)
	if err != nil {
		fmt.Printf("no word classes (%v): the word-class method is left out; make word-clusters writes them\n", err)
		wc = nil
	}
	wv, err := insightstrain.LoadWordVectors(wordVectorsPath)
	if err != nil {
		fmt.Printf("no word vectors (%v): the word-vector method is left out; make word-vectors writes them\n", err)
		wv = nil
	}
	var methods []insightstrain.Method
	for _, m := range insightstrain.ExperimentMethods(wc, wv) {
		if only == "" || slices.Contains(strings.Split(only, ","), m.Name) {
			if m.Augment && tr.Speech == nil {
				fmt.Printf("skipping %s: no speech transcripts of the train split\n", m.Name)
				continue
			}
			methods = append(methods, m)
		}
	}
	start := time.Now()
	insightstrain.Experiment(tr, dv, methods, folds, func(s string) {
		fmt.Printf("[%5.0fs] %s\n", time.Since(start).Seconds(), s)
	})
}

// saveSpeech writes each call's transcript to dir/<call>.json.
func saveSpeech(dir string, speech map[string]callscribe.Transcript) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, tr := range speech {
		b, err := json.MarshalIndent(tr.Segments, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(file, ".txt")+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// loadSpeech reads dir/<call>.json for every call; nil when dir is empty or
// a call has none.
func loadSpeech(dir string, calls []evalset.LabelledCall) (map[string]callscribe.Transcript, error) {
	if dir == "" {
		return nil, nil
	}
	out := map[string]callscribe.Transcript{}
	for _, c := range calls {
		b, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(c.File, ".txt")+".json"))
		if err != nil {
			return nil, err
		}
		var segs []callscribe.Segment
		if err := json.Unmarshal(b, &segs); err != nil {
			return nil, fmt.Errorf("%s: %w", c.File, err)
		}
		out[c.File] = callscribe.Transcript{Segments: segs}
	}
	return out, nil
}
