// Command confidence measures how well the embedded speech engine's word
// confidences are calibrated and fits the map that calibrates them
// (shared/engines/sphinx/confidence_map.json).
//
// It reads the word records asrbench writes with -words-out (make
// bench-confidence runs the speech bench with ASR_WORDS_DIR): each
// recognised word's raw lattice posterior, its duration, the source sample
// rate, and whether the alignment to the reference pairs it with the same
// word. For each set it prints the reliability table (10 equal bins of
// confidence: words, mean confidence, fraction correct) and the expected
// calibration error (ECE, the words-weighted mean gap), of the raw posterior
// and of the map's confidence.
//
// The map is fitted on the ASR dev set only: "dev" (8 kHz) for the
// narrowband curve and "dev-16k" (the same calls at 16 kHz) for the wideband
// one; the call sets and LibriVox are held out. The model is logistic
// regression on the posterior's log-odds (Platt scaling), written as a
// piecewise-linear curve, or with -model isotonic an isotonic regression.
// -compare scores both, and logistic regression on the log-odds, the word's
// duration and its length, by two-fold cross-validation over the dev calls:
// the choice between them is made there, never on a held-out set.
//
// Usage:
//
//	confidence -dir .cache/confidence                 # report with the built-in map
//	confidence -dir .cache/confidence -fit -out FILE  # fit on dev, write the map, report with it
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

// record is one line of asrbench -words-out.
type record struct {
	Item      string  `json:"item"`
	Text      string  `json:"text"`
	Posterior float64 `json:"posterior"`
	Duration  float64 `json:"duration"`
	Rate      int     `json:"rate"`
	Correct   bool    `json:"correct"`
}

// minBlock is the fewest dev words a knot of the isotonic map rests on.
const minBlock = 100

func main() {
	dir := flag.String("dir", ".cache/confidence", "directory of asrbench -words-out files (VARIANT.jsonl)")
	sets := flag.String("sets", "dev dev-16k 8k 8k-mp3 16k librivox librivox-8k", "variants to report, in order (missing files are skipped)")
	fit := flag.Bool("fit", false, "fit the map on dev (narrowband) and dev-16k (wideband) instead of using the built-in one")
	out := flag.String("out", "", "with -fit, write the map here")
	compare := flag.Bool("compare", false, "compare the isotonic map with a logistic model by two-fold cross-validation on the dev calls")
	bins := flag.Bool("bins", true, "print each set's reliability table")
	model := flag.String("model", "logistic", "with -fit, the map's model: logistic (on the posterior's log-odds; chosen by -compare on dev, where it beat isotonic on ECE, log loss and Brier score) or isotonic")
	flag.Parse()

	data := map[string][]record{}
	for _, s := range strings.Fields(*sets) {
		recs, err := read(filepath.Join(*dir, s+".jsonl"))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			fatal(err)
		}
		data[s] = recs
	}
	var m *sphinx.ConfidenceMap
	if *fit {
		m = &sphinx.ConfidenceMap{}
		for _, f := range []struct {
			set   string
			curve *sphinx.ConfidenceCurve
		}{{"dev", &m.Narrowband}, {"dev-16k", &m.Wideband}} {
			recs := data[f.set]
			if len(recs) == 0 {
				fatal(fmt.Errorf("no words of %s in %s: run make bench-confidence first", f.set, *dir))
			}
			var c sphinx.ConfidenceCurve
			var err error
			switch *model {
			case "isotonic":
				c, err = isotonic(recs)
			case "logistic":
				c, err = logisticCurve(recs)
			default:
				err = fmt.Errorf("unknown model %q", *model)
			}
			if err != nil {
				fatal(err)
			}
			*f.curve = c
		}
		how := fmt.Sprintf("isotonic regression (blocks of at least %d words)", minBlock)
		if *model == "logistic" {
			how = "logistic regression on the posterior's log-odds, sampled at knots every 0.5 in log-odds"
		}
		items := func(recs []record) int {
			seen := map[string]bool{}
			for _, r := range recs {
				seen[r.Item] = true
			}
			return len(seen)
		}
		m.TrainedOn = fmt.Sprintf("%s on the ASR dev set's recognised words scored against the reference: narrowband on dev (8 kHz, %d calls, %d words), wideband on dev-16k (%d calls, %d words)",
			how, items(data["dev"]), len(data["dev"]), items(data["dev-16k"]), len(data["dev-16k"]))
		if *out != "" {
			b, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				fatal(err)
			}
			if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
				fatal(err)
			}
			fmt.Printf("wrote %s\n", *out)
		}
	} else {
		var err error
		if m, err = sphinx.BuiltinConfidenceMap(); err != nil {
			fatal(err)
		}
	}

	fmt.Printf("%-12s %7s %9s %9s %9s\n", "set", "words", "correct", "ECE raw", "ECE map")
	for _, s := range strings.Fields(*sets) {
		recs := data[s]
		if len(recs) == 0 {
			continue
		}
		raw, cal, right := scores(recs, m)
		_, eRaw := train.Calibration(raw, right, 10)
		_, eCal := train.Calibration(cal, right, 10)
		fmt.Printf("%-12s %7d %8.1f%% %9.3f %9.3f\n", s, len(recs), 100*fraction(right), eRaw, eCal)
	}
	if *bins {
		for _, s := range strings.Fields(*sets) {
			recs := data[s]
			if len(recs) == 0 {
				continue
			}
			raw, cal, right := scores(recs, m)
			tRaw, _ := train.Calibration(raw, right, 10)
			tCal, _ := train.Calibration(cal, right, 10)
			fmt.Printf("\n%s: bin | raw: words, mean confidence, fraction correct | mapped: words, mean confidence, fraction correct\n", s)
			for i := range tRaw {
				fmt.Printf("  %.1f-%.1f | %6d %6.3f %6s | %6d %6.3f %6s\n", tRaw[i].Lo, tRaw[i].Hi,
					tRaw[i].Words, tRaw[i].MeanConfidence, frac(tRaw[i]), tCal[i].Words, tCal[i].MeanConfidence, frac(tCal[i]))
			}
		}
	}
	if *compare {
		compareOnDev(data["dev"], "dev")
		compareOnDev(data["dev-16k"], "dev-16k")
	}
}

func frac(b train.CalibrationBin) string {
	if b.Words == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", b.FractionRight)
}

func isotonic(recs []record) (sphinx.ConfidenceCurve, error) {
	post := make([]float64, len(recs))
	right := make([]bool, len(recs))
	for i, r := range recs {
		post[i], right[i] = r.Posterior, r.Correct
	}
	return train.FitIsotonic(post, right, minBlock)
}

// logisticCurve fits P(correct) = σ(a + b·logit(posterior)) (Platt
// scaling) and writes it as the engine's piecewise-linear curve: knots every
// 0.5 in log-odds from -10 to 14 (posteriors 0.00005 to 0.999999), flat
// beyond, where the decoder's posteriors lie.
func logisticCurve(recs []record) (sphinx.ConfidenceCurve, error) {
	var x [][]float64
	var y []bool
	for _, r := range recs {
		x, y = append(x, features(r)[:1]), append(y, r.Correct)
	}
	w := train.FitLogistic(x, y, 1e-3)
	if w[1] <= 0 {
		return sphinx.ConfidenceCurve{}, fmt.Errorf("the fitted confidence falls as the posterior rises (slope %g)", w[1])
	}
	var c sphinx.ConfidenceCurve
	for z := -10.0; z <= 14; z += 0.5 {
		c.Posterior = append(c.Posterior, 1/(1+math.Exp(-z)))
		c.Confidence = append(c.Confidence, train.Logistic(w, []float64{z}))
	}
	return c, c.Check()
}

// scores are the records' raw posteriors, their confidences under m and
// their outcomes.
func scores(recs []record, m *sphinx.ConfidenceMap) (raw, cal []float64, right []bool) {
	for _, r := range recs {
		raw = append(raw, r.Posterior)
		cal = append(cal, m.Apply(r.Posterior, r.Rate))
		right = append(right, r.Correct)
	}
	return raw, cal, right
}

func fraction(b []bool) float64 {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return float64(n) / math.Max(1, float64(len(b)))
}

// features are a word's inputs to the logistic model: the log-odds of its
// posterior, its duration in seconds and its length in letters.
func features(r record) []float64 {
	p := min(max(r.Posterior, 1e-6), 1-1e-6)
	return []float64{math.Log(p / (1 - p)), r.Duration, float64(len(r.Text))}
}

// compareOnDev splits the dev calls in two (alternate calls), fits the
// isotonic map and the logistic model on each half and scores them on the
// other: ECE, log loss and Brier score over both held-out halves.
func compareOnDev(recs []record, name string) {
	if len(recs) == 0 {
		return
	}
	items := map[string]bool{}
	for _, r := range recs {
		items[r.Item] = true
	}
	names := make([]string, 0, len(items))
	for it := range items {
		names = append(names, it)
	}
	sort.Strings(names)
	fold := map[string]int{}
	for i, it := range names {
		fold[it] = i % 2
	}
	var iso, logit, plattOnly []float64
	var right []bool
	for k := 0; k < 2; k++ {
		var fitRecs, testRecs []record
		for _, r := range recs {
			if fold[r.Item] == k {
				testRecs = append(testRecs, r)
			} else {
				fitRecs = append(fitRecs, r)
			}
		}
		curve, err := isotonic(fitRecs)
		if err != nil {
			fatal(err)
		}
		var x [][]float64
		var y []bool
		for _, r := range fitRecs {
			f := features(r)
			x, y = append(x, f), append(y, r.Correct)
		}
		w := train.FitLogistic(x, y, 1e-3)
		platt, err := logisticCurve(fitRecs)
		if err != nil {
			fatal(err)
		}
		for _, r := range testRecs {
			f := features(r)
			iso = append(iso, curve.Apply(r.Posterior))
			logit = append(logit, train.Logistic(w, f))
			plattOnly = append(plattOnly, platt.Apply(r.Posterior))
			right = append(right, r.Correct)
		}
	}
	fmt.Printf("\n%s, two-fold cross-validation over its %d calls: model | ECE | log loss | Brier\n", name, len(names))
	for _, m := range []struct {
		name string
		conf []float64
	}{{"isotonic on the posterior", iso}, {"logistic on log-odds (as the engine applies it)", plattOnly}, {"logistic on log-odds, duration, letters", logit}} {
		_, ece := train.Calibration(m.conf, right, 10)
		var ll, brier float64
		for i, c := range m.conf {
			c = min(max(c, 1e-6), 1-1e-6)
			y := 0.0
			if right[i] {
				y = 1
			}
			ll -= y*math.Log(c) + (1-y)*math.Log(1-c)
			brier += (c - y) * (c - y)
		}
		n := float64(len(right))
		fmt.Printf("  %-40s | %.3f | %.4f | %.4f\n", m.name, ece, ll/n, brier/n)
	}
}

func read(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "confidence:", err)
	os.Exit(1)
}
