package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/engines/insights/evalset"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

const root = "../../../.."

// The committed text must be what the generator makes of the committed calls:
// a call edited, added or relabelled without `make lm-text` fails here.
func TestCallsTextIsCurrent(t *testing.T) {
	dict := filepath.Join(sphinx.DefaultModelDir, "cmudict-en-us.dict")
	if _, err := os.Stat(dict); err != nil {
		t.Skipf("no pronouncing dictionary (%v): install pocketsphinx-en-us (make deps-speech)", err)
	}
	got, err := generate(filepath.Join(root, "testdata/insights"), filepath.Join(root, "testdata"), dict)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(root, "shared/engines/sphinx/lmdata/calls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("shared/engines/sphinx/lmdata/calls.txt is not what `make lm-text` writes from testdata/insights: run it and commit the result")
	}
}

func TestExcluded(t *testing.T) {
	cases := []struct {
		call evalset.LabelledCall
		want bool
	}{
		{evalset.LabelledCall{File: "call01.txt", Style: "original"}, true},
		{evalset.LabelledCall{File: "call24.txt", Style: "original"}, true},
		{evalset.LabelledCall{File: "call25.txt", Style: "original"}, false},
		{evalset.LabelledCall{File: "call07.txt", Style: "terse"}, true},
		{evalset.LabelledCall{File: "call007.txt", Style: "terse"}, false},
		{evalset.LabelledCall{File: "call070.txt", Style: "asr"}, true},
		{evalset.LabelledCall{File: "call070.txt", Style: "terse"}, false},
		{evalset.LabelledCall{File: "call200.txt", Style: "heated", TrainOnly: true}, false},
		{evalset.LabelledCall{File: "call704.txt", Style: "terse", TrainOnly: true}, false},
		{evalset.LabelledCall{File: "call705.txt", Style: "terse", TrainOnly: true}, true},
	}
	for _, c := range cases {
		if got := excluded(c.call); got != c.want {
			t.Errorf("excluded(%s, %s) = %v, want %v", c.call.File, c.call.Style, got, c.want)
		}
	}
}

// Every call the ASR dev set decodes must be left out, whatever the file
// numbering: the generated text names the calls it used.
func TestASRDevCallsLeftOut(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "shared/engines/sphinx/lmdata/calls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, ok := strings.CutPrefix(line, "# call")
		if ok && len(strings.TrimSuffix(name, ".txt")) == 2 && name < "25" {
			t.Errorf("calls.txt uses the ASR dev call %s", line[2:])
		}
	}
}
