package sphinx

import (
	"reflect"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// words makes a region's words from text and confidences, a second each.
func words(at float64, pairs ...any) []callscribe.Word {
	var out []callscribe.Word
	for i := 0; i+1 < len(pairs); i += 2 {
		c := pairs[i+1].(float64)
		out = append(out, callscribe.Word{Text: pairs[i].(string), Start: at, End: at + 1, Confidence: &c})
		at++
	}
	return out
}

func texts(ws []callscribe.Word) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out
}

func TestRoverKeepsAgreedWordsAndTakesTheMoreConfidentWhereTheyDiffer(t *testing.T) {
	ps := words(10, "thanks", 0.9, "for", 0.9, "calling", 0.4, "line", 0.8, "the", 0.2)
	ms := words(0, "thanks", 0.6, "for", 0.99, "falling", 0.95, "line", 0.2, "energy", 0.7)
	got := roverRegion(ps, ms)
	want := []string{"thanks", "for", "falling", "line", "energy"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Fatalf("words %v, want %v", texts(got), want)
	}
	// A word both wrote keeps PocketSphinx's times and confidence; a
	// substitution keeps PocketSphinx's times with the neural confidence.
	if got[0].Start != 10 || *got[0].Confidence != 0.9 {
		t.Errorf("agreed word %+v, want PocketSphinx's time 10 and confidence 0.9", got[0])
	}
	if got[2].Start != 12 || *got[2].Confidence != 0.95 {
		t.Errorf("substituted word %+v, want time 12 and confidence 0.95", got[2])
	}
}

func TestRoverDropsALoneWordUnderTheThreshold(t *testing.T) {
	ps := words(0, "a", 0.9, "uh", roverKeepAlone-0.01, "b", 0.9)
	ms := words(0, "a", 0.9, "b", 0.9, "c", roverKeepAlone)
	if got := texts(roverRegion(ps, ms)); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("words %v, want [a b c]", got)
	}
	if got := roverRegion(nil, nil); len(got) != 0 {
		t.Fatalf("two empty regions gave %v", texts(got))
	}
}

func TestAChannelWhoseNeuralWordsAreMoreConfidentTakesThemWhole(t *testing.T) {
	ps := [][]callscribe.Word{words(0, "and", 0.3, "power", 0.4), nil}
	ms := [][]callscribe.Word{words(0, "in", 0.9, "his", 0.8, "power", 0.9), words(5, "to", 0.7)}
	got, whole := combineChannel(ps, ms)
	if !whole || !reflect.DeepEqual(texts(got[0]), texts(ms[0])) || !reflect.DeepEqual(got[1], ms[1]) {
		t.Fatalf("whole %v, words %v; want the neural words whole", whole, got)
	}
	// The first region's neural words (0-3 s) move into the 0-2 s that
	// PocketSphinx's words span; the second, where PocketSphinx wrote none,
	// keeps its times.
	if w := got[0]; w[0].Start != 0 || w[2].End != 2 || w[1].Start != 2.0/3 {
		t.Errorf("neural words at %v-%v, %v: want them scaled into 0-2 s", w[0].Start, w[2].End, w[1].Start)
	}
	// The other way round the regions are combined word by word.
	got, whole = combineChannel(ms, ps)
	if whole || len(got) != 2 || !reflect.DeepEqual(texts(got[0]), []string{"in", "his", "power"}) || !reflect.DeepEqual(texts(got[1]), []string{"to"}) {
		t.Fatalf("whole %v, words %v %v; want a word-by-word combination", whole, texts(got[0]), texts(got[1]))
	}
}

func TestRegionSegmentTakesItsTimesFromItsWords(t *testing.T) {
	seg := regionSegment(words(1.004, "hello", 0.5, "there", 1.0), 1, "User")
	if seg.Text != "hello there" || seg.TimeStart != 1 || seg.TimeEnd != 3 || seg.SpeakerID != 1 || seg.SpeakerAlias != "User" {
		t.Fatalf("segment %+v", seg)
	}
	if seg.Confidence == nil || *seg.Confidence != 0.75 {
		t.Fatalf("segment confidence %v, want 0.75", seg.Confidence)
	}
}

func TestWordsOnlyTheNeuralModelWroteSitBesideTheMeasuredOnes(t *testing.T) {
	// PocketSphinx heard "b c" at 10-12 s; the neural model "a b c d" over
	// the padded region from 0 s, a second a word.
	ps := words(10, "b", 0.9, "c", 0.9)
	ms := words(0, "a", 0.9, "b", 0.9, "c", 0.9, "d", 0.9)
	got := roverRegion(ps, ms)
	want := [][2]float64{{9, 10}, {10, 11}, {11, 12}, {12, 13}}
	if len(got) != len(want) {
		t.Fatalf("words %v", texts(got))
	}
	for i, w := range got {
		if w.Start != want[i][0] || w.End != want[i][1] {
			t.Errorf("%s at %v-%v, want %v-%v", w.Text, w.Start, w.End, want[i][0], want[i][1])
		}
	}
}
