package evalset

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The labelled calls are split by call into train (testdata/insights), dev
// (testdata/insights-dev) and test (testdata/insights-test). These tests keep
// the split honest: the test split is frozen by its SHA256SUMS, and the
// assignment of every call written after the original 48 is the seeded rule
// below, so nobody can move a call between splits after seeing a score.

const (
	trainDir = "../../../../testdata/insights"
	devDir   = "../../../../testdata/insights-dev"
	testDir  = "../../../../testdata/insights-test"
	// test2Dir is the second test split, written after the first
	// was spent and frozen before anything was chosen; outside the seeded split.
	test2Dir = "../../../../testdata/insights-test2"
	// test3Dir is the third test split, written and frozen
	// after model v10 was trained, when test2 had been read five times.
	test3Dir = "../../../../testdata/insights-test3"
	// sixTurnDir holds the held-out calls of the six_turn style, frozen
	// before any sentiment method was scored on them.
	sixTurnDir = "../../../../testdata/insights-sixturn"
)

// laterTestDirs are the test splits written outside the seeded split.
var laterTestDirs = []string{test2Dir, test3Dir}

// splitSeed and splitPattern define the split. The calls other than the
// original 48 (which all stay in train: the lexicon was written next to them)
// are ordered by stratum (call_outcome, style), then customer_sentiment, then
// sha256(splitSeed + ":" + file); the k-th call goes to splitPattern[k%7], which
// gives 2/7 each to dev and test and 3/7 to train, spread over every stratum.
const splitSeed = "callscribe-evalset-2026-11"

var splitPattern = [7]string{"dev", "test", "train", "dev", "test", "train", "train"}

func loadSplits(t *testing.T) map[string][]LabelledCall {
	t.Helper()
	out := map[string][]LabelledCall{}
	for name, dir := range map[string]string{"train": trainDir, "dev": devDir, "test": testDir} {
		calls, err := LoadLabelledSet(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = calls
	}
	return out
}

// TestTestSplitIsFrozen fails when any file of a test split differs from its
// SHA256SUMS, or a file was added or removed. The test splits are read only to
// report figures; if one really must change, regenerate its checksums in a
// commit of its own and say why.
func TestTestSplitIsFrozen(t *testing.T) {
	for _, dir := range append([]string{testDir, sixTurnDir}, laterTestDirs...) {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkFrozen(t, dir) })
	}
}

func checkFrozen(t *testing.T, dir string) {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		want[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		if e.Name() == "SHA256SUMS" {
			continue
		}
		if e.IsDir() {
			t.Errorf("unexpected directory %s in the test split", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		switch sum, ok := want[e.Name()]; {
		case !ok:
			t.Errorf("%s is not in SHA256SUMS: the test split is frozen", e.Name())
		case sum != hex.EncodeToString(h[:]):
			t.Errorf("%s differs from SHA256SUMS: the test split is frozen", e.Name())
		default:
			seen++
		}
	}
	if seen != len(want) {
		t.Errorf("%d files of SHA256SUMS present and intact, want %d", seen, len(want))
	}
}

// TestLaterTestSplits checks what the second and third test splits must be
// to measure anything: large enough that one call is under 1.5 points, every
// primary reason and every outcome well represented, several writers, and no
// call that is also in train, dev, the first test split or the other later
// split (by file name or by dialogue).
func TestLaterTestSplits(t *testing.T) {
	for _, dir := range laterTestDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			others := slices.DeleteFunc(slices.Clone(laterTestDirs), func(o string) bool { return o == dir })
			checkLaterTestSplit(t, dir, others)
		})
	}
}

func checkLaterTestSplit(t *testing.T, dir string, otherDirs []string) {
	calls, err := LoadLabelledSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 75 {
		t.Errorf("%d calls, want at least 75", len(calls))
	}
	primary, outcome, writers := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range calls {
		primary[c.CallReason[0]]++
		outcome[c.CallOutcome]++
		writers[c.Writer]++
		if c.TrainOnly || c.Style == "" || c.Style == "original" || c.Writer == "" {
			t.Errorf("%s: train_only %v, style %q, writer %q", c.File, c.TrainOnly, c.Style, c.Writer)
		}
	}
	for _, cat := range callscribe.Taxonomy() {
		for _, v := range cat.Values {
			if cat.Name == callscribe.CategoryCallReason && primary[v.Value] < 5 {
				t.Errorf("call_reason %s is primary in %d calls, want at least 5", v.Value, primary[v.Value])
			}
			if cat.Name == callscribe.CategoryCallOutcome && outcome[v.Value] < 9 {
				t.Errorf("call_outcome %s in %d calls, want at least 9", v.Value, outcome[v.Value])
			}
		}
	}
	if len(writers) < 3 {
		t.Errorf("writers %v, want at least three", writers)
	}
	elsewhere := map[string]string{}
	splits := loadSplits(t)
	for _, o := range otherDirs {
		oc, err := LoadLabelledSet(o)
		if err != nil {
			t.Fatal(err)
		}
		splits[filepath.Base(o)] = oc
	}
	for name, others := range splits {
		for _, c := range others {
			elsewhere[c.File] = name
			elsewhere[strings.TrimSpace(c.Text)] = name + "/" + c.File
		}
	}
	for _, c := range calls {
		if s, ok := elsewhere[c.File]; ok {
			t.Errorf("%s is also a file of %s", c.File, s)
		}
		if s, ok := elsewhere[strings.TrimSpace(c.Text)]; ok {
			t.Errorf("%s has the dialogue of %s", c.File, s)
		}
	}
}

// TestSplitAssignment recomputes the seeded split from the union of the three
// splits and checks every call sits where the rule puts it.
func TestSplitAssignment(t *testing.T) {
	splits := loadSplits(t)
	type entry struct {
		call  LabelledCall
		split string
	}
	var pool []entry
	files := map[string]string{}
	for name, calls := range splits {
		for _, c := range calls {
			if prev, dup := files[c.File]; dup {
				t.Errorf("%s is in both %s and %s", c.File, prev, name)
			}
			files[c.File] = name
			if c.TrainOnly {
				if name != "train" {
					t.Errorf("train-only call %s is in %s", c.File, name)
				}
				continue
			}
			if c.Style == "original" {
				if name != "train" {
					t.Errorf("original call %s is in %s, want train", c.File, name)
				}
				continue
			}
			pool = append(pool, entry{c, name})
		}
	}
	key := func(file string) string {
		h := sha256.Sum256([]byte(splitSeed + ":" + file))
		return hex.EncodeToString(h[:])
	}
	slices.SortFunc(pool, func(a, b entry) int {
		return cmp.Or(
			cmp.Compare(a.call.CallOutcome+"/"+a.call.Style, b.call.CallOutcome+"/"+b.call.Style),
			cmp.Compare(a.call.CustomerSentiment, b.call.CustomerSentiment),
			cmp.Compare(key(a.call.File), key(b.call.File)))
	})
	for k, e := range pool {
		if want := splitPattern[k%len(splitPattern)]; e.split != want {
			t.Errorf("%s is in %s, the seeded split puts it in %s", e.call.File, e.split, want)
		}
	}
}

// TestLabelledSetComposition checks what the tagger's targets ask of the set: at least 150
// calls; at least four writing styles besides the original, each with at least
// 20 calls; every call_reason and call_outcome value well represented (at least
// 8 calls as primary reason / outcome over all splits), and every outcome present
// in dev and in test.
func TestLabelledSetComposition(t *testing.T) {
	splits := loadSplits(t)
	total := 0
	style := map[string]int{}
	primary := map[string]int{}
	outcome := map[string]int{}
	for name, calls := range splits {
		inSplit := map[string]bool{}
		for _, c := range calls {
			if c.Style == "" {
				t.Errorf("%s/%s has no style", name, c.File)
			}
			if c.TrainOnly {
				continue // added later to train on; the evaluation set is the rest
			}
			total++
			style[c.Style]++
			primary[c.CallReason[0]]++
			outcome[c.CallOutcome]++
			inSplit[c.CallOutcome] = true
		}
		if name != "train" {
			for _, cat := range callscribe.Taxonomy() {
				if cat.Name != callscribe.CategoryCallOutcome {
					continue
				}
				for _, v := range cat.Values {
					if !inSplit[v.Value] {
						t.Errorf("%s split has no call with call_outcome %s", name, v.Value)
					}
				}
			}
		}
	}
	if total < 150 {
		t.Errorf("%d labelled calls, want at least 150", total)
	}
	styles := 0
	for s, n := range style {
		if s == "original" {
			continue
		}
		styles++
		if n < 20 {
			t.Errorf("style %s has %d calls, want at least 20", s, n)
		}
	}
	if styles < 4 {
		t.Errorf("styles %v: want at least four new styles", style)
	}
	for _, cat := range callscribe.Taxonomy() {
		for _, v := range cat.Values {
			switch cat.Name {
			case callscribe.CategoryCallReason:
				if primary[v.Value] < 8 {
					t.Errorf("call_reason %s is primary in %d calls, want at least 8", v.Value, primary[v.Value])
				}
			case callscribe.CategoryCallOutcome:
				if outcome[v.Value] < 8 {
					t.Errorf("call_outcome %s in %d calls, want at least 8", v.Value, outcome[v.Value])
				}
			}
		}
	}
}

// The bench's reason-list figures: precision over the listed values,
// recall over the labelled ones, values listed a call; the hit rate counts
// the primary anywhere in the list.
func TestTallyScoresReasonLists(t *testing.T) {
	var tally Tally
	calls := []LabelledCall{
		{File: "a", CallReason: []string{"billing", "refund"}, CustomerSentiment: "neutral", CallOutcome: "resolved"},
		{File: "b", CallReason: []string{"delivery"}, CustomerSentiment: "neutral", CallOutcome: "resolved"},
	}
	tally.Add(calls[0], map[string][]string{callscribe.CategoryCallReason: {"refund", "billing", "complaint"}})
	tally.Add(calls[1], map[string][]string{callscribe.CategoryCallReason: {"order_status"}})
	s := tally.Scores()
	if s.ReasonPrecision != 0.5 || s.ReasonRecall != 2.0/3 || s.ReasonListed != 2 || s.ReasonHit != 0.5 || s.ReasonTop1 != 0 {
		t.Errorf("precision %v, recall %v, listed %v, hit %v, top-1 %v; want 0.5, 2/3, 2, 0.5, 0", s.ReasonPrecision, s.ReasonRecall, s.ReasonListed, s.ReasonHit, s.ReasonTop1)
	}
	if (&Tally{}).Scores().ReasonPrecision != 0 {
		t.Error("an empty tally has no precision")
	}
}
