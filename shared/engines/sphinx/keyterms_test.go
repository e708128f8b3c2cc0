package sphinx

import (
	"slices"
	"testing"
)

func TestPlanKeyterms(t *testing.T) {
	dict := map[string]bool{"energy": true, "smart": true, "meter": true, "o'brien": true, "refund": true}
	plan := planKeyterms([]string{"Northwind Energy", "smart meter", "Zyx-Qwv", "O'Brien", "Energy bill refund"}, func(w string) bool { return dict[w] })
	if want := []string{"energy", "smart meter", "o'brien", "energy", "refund"}; !slices.Equal(plan.sentences, want) {
		t.Errorf("sentences %q, want %q (unknown words split a term into phrases)", plan.sentences, want)
	}
	r := plan.report
	if want := []string{"Northwind Energy", "smart meter", "O'Brien", "Energy bill refund"}; !slices.Equal(r.Applied, want) {
		t.Errorf("applied %q, want %q", r.Applied, want)
	}
	if want := []string{"northwind", "zyx", "qwv", "bill"}; !slices.Equal(r.UnknownWords, want) {
		t.Errorf("unknown words %q, want %q", r.UnknownWords, want)
	}
	if r.Method != "language_model" {
		t.Errorf("method %q", r.Method)
	}
}
