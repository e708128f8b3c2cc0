package sphinx

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLMSentences(t *testing.T) {
	dict := map[string]bool{}
	for _, w := range strings.Fields("hi i was charged twice for order can you help me thank you i'm") {
		dict[w] = true
	}
	known := func(w string) bool { return dict[w] }
	got := LMSentences("Hi, I was charged twice for order BW301! Can you help me? Thank you; I'm", known, 2)
	want := []string{"hi i was charged twice for order", "can you help me", "thank you"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("LMSentences = %q, want %q", got, want)
	}
	// An unknown word in the middle cuts the sentence in two.
	got = LMSentences("can you zorbix help me", known, 2)
	if want := []string{"can you", "help me"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("cut at an unknown word: %q, want %q", got, want)
	}
}

func TestDialogueSentences(t *testing.T) {
	got := DialogueSentences("Agent: How can I help? Go on.\nUser:My card was charged twice; please refund it.\n\nno prefix here", AnyWord, 3)
	want := []string{"how can i help", "my card was charged twice", "please refund it", "no prefix here"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DialogueSentences = %q, want %q", got, want)
	}
}

func TestReadDictionaryWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dict")
	if err := os.WriteFile(path, []byte(";;; comment\nhello HH AH L OW\nhello(2) HH EH L OW\n'cause K AH Z\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	words, err := ReadDictionaryWords(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"hello": true, "'cause": true}; !reflect.DeepEqual(words, want) {
		t.Fatalf("words = %v, want %v", words, want)
	}
}

// The domain LM must never have read a sentence the benches score: the ASR
// call set (testdata/dialogues), the ASR dev set (call01–call24 of the train
// split) and the tagger's dev and test splits. A sentence of eight or more
// words found verbatim in the LM text is a leak. Shorter ones are not: the
// formulas every call says ("how can i help you today", "let me check that
// for you", six words each) turn up in any call-centre text, the hand-written
// one included.
//
// independentFormulas are the eight-word exceptions: sentences of the second
// test split (testdata/insights-test2) that are also in the LM text because
// the training calls' writers said the same stock formula. The test split's
// writers never saw the LM text or the training calls, and the test split was
// frozen before it was checked against the text, so these are the same
// formula written twice, not a sentence the LM read from it. Each is listed
// with its call, so a new one still fails.
var independentFormulas = map[string]string{
	"call474.txt": "thank you for taking the time to call",
	"call475.txt": "can i have your name and date of birth",
	"call484.txt": "thank you very much you are very kind",
	"call498.txt": "do you still have the card with you",
	"call500.txt": "can i take your name and date of birth",
}

func TestDomainTextDisjointFromEvaluation(t *testing.T) {
	const leakWords = 8
	root := filepath.Join("..", "..", "testdata")
	var files []string
	for _, pattern := range []string{"dialogues/*.txt", "insights-dev/*.txt", "insights-test/*.txt", "insights-test2/*.txt"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for i := 1; i <= 24; i++ {
		files = append(files, filepath.Join(root, "insights", fmt.Sprintf("call%02d.txt", i)))
	}
	if len(files) < 24+22+37+37+78 {
		t.Fatalf("found %d evaluation files; is testdata/ where it was?", len(files))
	}
	index := NewDomainTextIndex()
	var checked, leaks, formulas int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range DialogueSentences(string(b), AnyWord, leakWords) {
			checked++
			if strings.Contains(f, "insights-test2") && independentFormulas[filepath.Base(f)] == s {
				formulas++
				continue
			}
			if index.Contains(s) {
				leaks++
				t.Errorf("%s: %q is in the domain LM text", filepath.Base(f), s)
			}
		}
	}
	if formulas != len(independentFormulas) {
		t.Errorf("%d of the %d independent formulas found: remove the ones no longer there", formulas, len(independentFormulas))
	}
	t.Logf("%d evaluation sentences of %d+ words, %d in the LM text, %d independent formulas", checked, leakWords, leaks, formulas)
}
