package sphinx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPronunciationsOfOnlyTheWordsAsked(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.dict")
	if err := os.WriteFile(full, []byte(";; a comment line\n"+
		"'cause K AH Z\n"+
		"\n"+
		"read R EH D\n"+
		"read's R IY D Z\n"+
		"read(2) R IY D\n"+
		"the DH AH\r\n"+
		"the(2) DH IY\n"+
		"thee DH IY"), 0o600); err != nil { // no newline at the end
		t.Fatal(err)
	}
	out := filepath.Join(dir, "small.dict")
	// Each word once, alternates included, in the dictionary's order; a word
	// the dictionary lacks is left out.
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"the", "read", "'cause", "the", "zzyzx"}, "'cause K AH Z\nread R EH D\nread(2) R IY D\nthe DH AH\nthe(2) DH IY\n"},
		{[]string{"thee"}, "thee DH IY\n"},
		{[]string{"zzyzx"}, ""},
	} {
		if err := writePronunciations(full, out, c.words); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%q: wrote\n%s\nwant\n%s", c.words, got, c.want)
		}
	}
	if err := writePronunciations(filepath.Join(dir, "missing.dict"), out, []string{"the"}); err == nil {
		t.Error("no error for a missing dictionary")
	}
}

// The scan of the whole pronouncing dictionary each alignment pays for its
// own small one (pronunciations.go weighs it against bw's time).
func BenchmarkWritePronunciations(b *testing.B) {
	dict := filepath.Join(DefaultModelDir, "cmudict-en-us.dict")
	if _, err := os.Stat(dict); err != nil {
		b.Skip("pocketsphinx-en-us is not installed; run make deps-speech")
	}
	out := filepath.Join(b.TempDir(), "dict")
	words := NormalizeText("thank you for calling customer service how can I help you today I can see the payment on your account from last Monday")
	for b.Loop() {
		if err := writePronunciations(dict, out, words); err != nil {
			b.Fatal(err)
		}
	}
}
