package moonshine

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text joins the words with single spaces.
func Text(words []Word) string {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.Text
	}
	return strings.Join(texts, " ")
}

// testVocabulary writes a small vocabulary: the three special pieces, then
// the given pieces from id 3.
func testVocabulary(t *testing.T, pieces ...string) *Vocabulary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.txt")
	all := append([]string{"<unk>", "<s>", "</s>"}, pieces...)
	if err := os.WriteFile(path, []byte(strings.Join(all, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := ReadVocabulary(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWordsJoinPiecesAtTheMarkerAndMultiplyTheirProbabilities(t *testing.T) {
	//                      3        4       5      6       7        8
	v := testVocabulary(t, "▁Hello", ",", "▁wor", "ld", "<0x21>", "▁")
	words := v.Words([]Token{{3, 0.9}, {4, 0.5}, {5, 0.8}, {6, 0.5}, {7, 1}})
	if got := Text(words); got != "Hello, world!" {
		t.Fatalf("text %q, want %q", got, "Hello, world!")
	}
	want := []float64{0.45, 0.4}
	for i, w := range words {
		if math.Abs(w.Confidence-want[i]) > 1e-9 {
			t.Errorf("word %q confidence %v, want %v", w.Text, w.Confidence, want[i])
		}
	}
	// A lone marker piece opens the next word and lends it its probability.
	words = v.Words([]Token{{3, 1}, {8, 0.5}, {7, 0.5}})
	if len(words) != 2 || words[1].Text != "!" || math.Abs(words[1].Confidence-0.25) > 1e-9 {
		t.Errorf("words %+v, want Hello and ! at 0.25", words)
	}
}

func TestWordsDecodeBytePiecesAsUTF8AndSkipWhatNamesNoPiece(t *testing.T) {
	v := testVocabulary(t, "▁caf", "<0xC3>", "<0xA9>", "<0xFF>", "<0x20>", "▁ok")
	//                     3       4          5          6          7          8
	words := v.Words([]Token{
		{startToken, 1}, {3, 1}, {4, 1}, {5, 1}, // café
		{unknownToken, 1}, {99, 1}, // nothing: unknown, past the vocabulary
		{7, 1}, {6, 1}, // a space byte, then a byte that is not UTF-8 alone
		{8, 1}, {endToken, 1},
	})
	if got := Text(words); got != "café ok" {
		t.Fatalf("text %q, want %q", got, "café ok")
	}
}

func TestReadVocabularyRefusesAFileWithoutTheSpecialPieces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.txt")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVocabulary(path); err == nil {
		t.Fatal("no error for a vocabulary without <unk>, <s>, </s>")
	}
	if _, err := ReadVocabulary(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("no error for a missing file")
	}
}

func TestProbOfIsTheSoftmaxOfTheChosenLogit(t *testing.T) {
	logits := []float32{1, 3, 2}
	want := math.Exp(3) / (math.Exp(1) + math.Exp(3) + math.Exp(2))
	if got := probOf(logits, 1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("probOf = %v, want %v", got, want)
	}
}
