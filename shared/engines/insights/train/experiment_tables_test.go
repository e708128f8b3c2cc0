package train

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
)

// The labelled splits the trainer reads.
const (
	trainDir = "../../../../testdata/insights"
	devDir   = "../../../../testdata/insights-dev"
)

const sampleClasses = `# comment
0 0 0 the a my
7 2 1 cancel postpone suspend
9 2 1 membership subscription
12 bogus line
`

func TestParseWordClasses(t *testing.T) {
	wc := parseWordClasses(sampleClasses)
	if c, ok := wc.of("postpone"); !ok || !slices.Equal(c, wordClass{7, 2, 1}) {
		t.Fatalf("postpone = %v %v, want [7 2 1]", c, ok)
	}
	if _, ok := wc.of("monitoring"); ok {
		t.Fatal("a word outside the file has a class")
	}
	// "12 bogus line": ids then words; the id-only prefix is read.
	if c, ok := wc.of("bogus"); !ok || !slices.Equal(c, wordClass{12}) {
		t.Fatalf("bogus = %v %v", c, ok)
	}
	if got := (wordClass{7, 2, 1}).names("f:"); !slices.Equal(got, []string{"f:k0:7", "f:k1:2", "f:k2:1"}) {
		t.Fatalf("names = %v", got)
	}
	var nilTable WordClasses
	if _, ok := nilTable.of("cancel"); ok {
		t.Fatal("a nil table gave a class")
	}
}

func TestLoadWordClasses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte(sampleClasses), 0o644)
	if wc, err := LoadWordClasses(good); err != nil || len(wc) != 10 {
		t.Fatalf("LoadWordClasses = %d words, %v; want 10", len(wc), err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	if _, err := LoadWordClasses(empty); err == nil {
		t.Fatal("a file without classes loaded")
	}
	if _, err := LoadWordClasses(filepath.Join(dir, "missing.txt")); err == nil {
		t.Fatal("a missing file loaded")
	}
}

// The word-class features: "stop" and "cancel" in one class share a feature,
// only when the calls carry a table, and the opening turns get their own.
func TestClusterFeatures(t *testing.T) {
	wc := parseWordClasses(sampleClasses)
	fs := insights.FeatureSet{Words: true, Opening: true, Clusters: true}
	call := func(text string, table WordClasses) map[string]float64 {
		p := &prepared{classes: table}
		return p.featuresOf(insights.ReadCall(callscribe.Transcript{Text: text}, false), callscribe.CategoryCallReason, fs)
	}
	x := call("Agent: Hello.\nUser: I want to postpone my subscription.", wc)
	for _, f := range []string{"k0:7", "k1:2", "k2:1", "k0:7_k0:0", "f:k0:7", "f:k0:9", "w:postpon"} {
		if x[f] == 0 {
			t.Errorf("feature %s missing: %v", f, keysOf(x))
		}
	}
	y := call("Agent: Hello.\nUser: I want to cancel my membership.", wc)
	if x["k0:7"] == 0 || y["k0:7"] == 0 || x["f:k0:9"] == 0 || y["f:k0:9"] == 0 {
		t.Error("words of one class do not share its feature")
	}
	for f := range call("Agent: Hello.\nUser: I want to postpone my subscription.", nil) {
		if strings.Contains(f, "k0:") {
			t.Errorf("class feature %s without a table", f)
		}
	}
}

func keysOf(m map[string]float64) []string {
	var k []string
	for f := range m {
		k = append(k, f)
	}
	slices.Sort(k)
	return k
}

// tableBytes writes a word-vector table in wordvectors' format.
func tableBytes(words []string, scales []float32, q [][]int8) []byte {
	var b []byte
	b = append(b, "CSWV1"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(words)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(q[0])))
	for _, w := range words {
		b = append(b, byte(len(w)))
		b = append(b, w...)
	}
	for i := range words {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scales[i]))
		for _, v := range q[i] {
			b = append(b, byte(v))
		}
	}
	return b
}

func TestParseWordVectors(t *testing.T) {
	good := tableBytes([]string{"the", "refund", "tomorrow"}, []float32{0.01, 0.01, 0.01}, [][]int8{{100, 0}, {0, 100}, {-100, 50}})
	wv, err := parseWordVectors(good)
	if err != nil {
		t.Fatal(err)
	}
	if wv.dims != 2 || wv.index["tomorrow"] != 2 || wv.q[4] != -100 || wv.scale[1] != 0.01 {
		t.Fatalf("parsed %+v", wv)
	}
	for name, b := range map[string][]byte{
		"magic":     append([]byte("XXXX1"), good[5:]...),
		"truncated": good[:len(good)-1],
		"short":     good[:7],
	} {
		if _, err := parseWordVectors(b); err == nil {
			t.Errorf("%s: a malformed table parsed", name)
		}
	}
	// The mean: "the" (rank 1) weighs 1/101 of itself, "refund" (rank 2)
	// 2/102; the sum is scaled to unit length; words outside add nothing.
	out := map[string]float64{}
	a := insights.ReadCall(callscribe.Transcript{Text: "User: the refund, Zanzibar"}, false)
	wv.addMean(out, "v:", a.Tokens(""))
	wThe, wRefund := 1.0/101, 2.0/102
	n := math.Hypot(wThe, wRefund)
	if math.Abs(out["v:0"]-wThe/n) > 1e-9 || math.Abs(out["v:1"]-wRefund/n) > 1e-9 {
		t.Fatalf("mean = %v, want [%v %v]", out, wThe/n, wRefund/n)
	}
	none := map[string]float64{}
	wv.addMean(none, "v:", insights.ReadCall(callscribe.Transcript{Text: "User: Zanzibar"}, false).Tokens(""))
	var nilTable *WordVectors
	nilTable.addMean(none, "v:", a.Tokens(""))
	if len(none) != 0 {
		t.Fatalf("features without known words or table: %v", none)
	}
	path := filepath.Join(t.TempDir(), "wv.bin")
	os.WriteFile(path, good, 0o644)
	if _, err := LoadWordVectors(path); err != nil {
		t.Fatal(err)
	}
}

func TestOfferFeatures(t *testing.T) {
	call := "Agent: Our new router does mesh. Premium is five pounds more a month.\n" +
		"User: That's a good deal. Let's upgrade.\n" +
		"Agent: Done, the kit arrives Friday.\n" +
		"User: Lovely, thank you."
	a := insights.ReadCall(callscribe.Transcript{Text: call}, false)
	if got := pricedTurns(a); len(got) != 1 || !got[0] {
		t.Fatalf("priced turns = %v, want the first", got)
	}
	x := map[string]float64{}
	offerFeatures(x, a)
	for _, f := range []string{"o:priced", "o:u:upgrad", "o:u:let_upgrad", "o:a:done"} {
		if x[f] == 0 {
			t.Errorf("feature %s missing: %v", f, keysOf(x))
		}
	}
	if x["o:u:lovely"] != 0 || x["o:a:kit"] == 0 {
		t.Errorf("wrong turns read: %v", keysOf(x))
	}
	// A currency sign is a price; a number alone is not.
	for text, want := range map[string]int{
		"Agent: It's £5 extra.\nUser: Fine.":          1,
		"Agent: It arrives in three days.\nUser: Ok.": 0,
		"User: I pay ten pounds a month.\nAgent: Ok.": 0, // the customer's price is no offer
	} {
		if got := pricedTurns(insights.ReadCall(callscribe.Transcript{Text: text}, false)); len(got) != want {
			t.Errorf("%q: %d priced turns, want %d", text, len(got), want)
		}
	}
	none := map[string]float64{}
	offerFeatures(none, insights.ReadCall(callscribe.Transcript{Text: "Agent: Hello.\nUser: My router is broken."}, false))
	if len(none) != 0 {
		t.Errorf("features without an offer: %v", none)
	}
}

// SelectLinear's order: cross-validation by writer, then dev clean, dev after
// speech, dev log-likelihood.
func TestBetterBreaksTiesInOrder(t *testing.T) {
	base := Alternative{CV: 0.75, Dev: 0.8, DevSpeech: 0.7, DevLL: -0.9}
	for _, c := range []struct {
		name string
		a    Alternative
		want bool
	}{
		{"cross-validation decides first", Alternative{CV: 0.76, Dev: 0.1, DevSpeech: 0.1, DevLL: -9}, true},
		{"cross-validation before dev", Alternative{CV: 0.74, Dev: 0.9, DevSpeech: 0.9, DevLL: -0.1}, false},
		{"then dev", Alternative{CV: 0.75, Dev: 0.81, DevSpeech: 0.1, DevLL: -9}, true},
		{"then after speech", Alternative{CV: 0.75, Dev: 0.8, DevSpeech: 0.71, DevLL: -9}, true},
		{"after speech before log-likelihood", Alternative{CV: 0.75, Dev: 0.8, DevSpeech: 0.69, DevLL: -0.1}, false},
		{"log-likelihood last", Alternative{CV: 0.75, Dev: 0.8, DevSpeech: 0.7, DevLL: -0.5}, true},
		{"a full tie keeps the first", base, false},
	} {
		if got := better(c.a, base); got != c.want {
			t.Errorf("%s: better = %v, want %v", c.name, got, c.want)
		}
	}
}

// writerFolds holds out whole writers: a fold is one writer's calls, the
// original calls are in no fold, and no writer is split across folds.
func TestWriterFolds(t *testing.T) {
	calls := []evalset.LabelledCall{
		{File: "a", Style: "original"},
		{File: "b", Style: "terse", Writer: "w2"},
		{File: "c", Style: "asr", Writer: "w1"},
		{File: "d", Style: "terse", Writer: "w2"},
		{File: "e", Style: "heated", Writer: "w3"},
	}
	f := writerFolds(calls)
	if want := []int{-1, 1, 0, 1, 2}; f.N != 3 || !slices.Equal(f.Of, want) {
		t.Fatalf("writerFolds = %v (N %d), want %v (N 3)", f.Of, f.N, want)
	}
	// Past maxWriterFolds writers, writers are dealt round the folds in
	// name order: a writer's calls stay together, every fold is used.
	var many []evalset.LabelledCall
	for w := 0; w < maxWriterFolds+3; w++ {
		for range 2 {
			many = append(many, evalset.LabelledCall{Style: "terse", Writer: fmt.Sprintf("w%02d", w)})
		}
	}
	many = append(many, evalset.LabelledCall{Style: "original"}, evalset.LabelledCall{Style: "terse"})
	g := writerFolds(many)
	if g.N != maxWriterFolds {
		t.Fatalf("%d writers: N = %d, want %d", maxWriterFolds+3, g.N, maxWriterFolds)
	}
	perFold := make([]int, g.N)
	for i, c := range many {
		switch {
		case c.Writer == "":
			if g.Of[i] != -1 {
				t.Errorf("call %d without a writer in fold %d", i, g.Of[i])
			}
			continue
		case g.Of[i] != g.Of[i&^1]:
			t.Errorf("writer %s split across folds %d and %d", c.Writer, g.Of[i&^1], g.Of[i])
		}
		var w int
		fmt.Sscanf(c.Writer, "w%d", &w)
		if g.Of[i] != w%maxWriterFolds {
			t.Errorf("writer %s in fold %d, want %d", c.Writer, g.Of[i], w%maxWriterFolds)
		}
		perFold[g.Of[i]]++
	}
	if slices.Contains(perFold, 0) {
		t.Errorf("calls per fold %v: a fold is empty", perFold)
	}
	if g := interleavedFolds(5, 2); g.N != 2 || !slices.Equal(g.Of, []int{0, 1, 0, 1, 0}) {
		t.Errorf("interleavedFolds(5, 2) = %v (N %d)", g.Of, g.N)
	}
}

// Every call of train and dev but the original ones names its writer, so that
// SelectLinear's cross-validation holds each one out; and there are enough
// writers for that to mean something.
func TestEveryCallHasAWriter(t *testing.T) {
	writers := map[string]int{}
	for _, dir := range []string{trainDir, devDir} {
		calls, err := evalset.LoadLabelledSet(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			switch {
			case c.Style == "original" && c.Writer != "":
				t.Errorf("%s: an original call has writer %q (they are never held out)", c.File, c.Writer)
			case c.Style != "original" && c.Writer == "":
				t.Errorf("%s/%s has no writer", dir, c.File)
			}
			if c.Writer != "" {
				writers[c.Writer]++
			}
		}
	}
	if len(writers) < 5 {
		t.Errorf("%d writers (%v): cross-validation by writer needs several", len(writers), writers)
	}
}

// chooseSecondary picks the rule whose lists match the labelled ones best,
// and keeps the lexicon's rule when nothing beats it.
func TestChooseSecondary(t *testing.T) {
	reason := callscribe.CategoryCallReason
	classes := classesOf(reason)
	probsFor := func(first, second string, p2 float64) []float64 {
		p := make([]float64, len(classes))
		p[slices.Index(classes, first)] = 1 - p2
		p[slices.Index(classes, second)] = p2
		return p
	}
	// Half the calls carry a secondary reason the model gives 0.3 and the
	// lexicon misses; the other half have none, and the model's runner-up
	// there has 0.12: a rule admitting 0.25 to 0.3 lists exactly the labels.
	var calls []evalset.LabelledCall
	var probs [][]float64
	for i := range 8 {
		c := evalset.LabelledCall{File: fmt.Sprint(i), Style: "terse", Writer: "w" + fmt.Sprint(i%2), CallReason: []string{"billing"}}
		if i%2 == 0 {
			c.CallReason = append(c.CallReason, "refund")
			probs = append(probs, probsFor("billing", "refund", 0.3))
		} else {
			probs = append(probs, probsFor("billing", "complaint", 0.12))
		}
		calls = append(calls, c)
	}
	p := prepare(calls)
	rule, notes := chooseSecondary(reason, p, writerFolds(calls), probs, 0)
	if rule == nil || rule.Min <= 0.12 || rule.Min > 0.3 {
		t.Fatalf("chooseSecondary = %+v, want a Min in (0.12, 0.3]; report %q", rule, notes)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "F1 1.000") {
		t.Errorf("report %q: want the lexicon's line and the chosen rule's at F1 1.000", notes)
	}
	// Labels without secondaries: no rule lists fewer than the first value,
	// which the lexicon's rule (nothing found here) already does.
	for i := range calls {
		calls[i].CallReason = calls[i].CallReason[:1]
	}
	if rule, notes := chooseSecondary(reason, prepare(calls), writerFolds(calls), probs, 0); rule != nil {
		t.Errorf("without secondary labels chooseSecondary = %+v, want nil (the lexicon's rule); report %q", rule, notes)
	}
}
