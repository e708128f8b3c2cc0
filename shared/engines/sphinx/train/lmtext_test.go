package train

import (
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

// The domain LM must never have read a sentence the benches score
// (EvaluationFiles): a sentence of LeakWords or more found verbatim in the LM
// text is a leak. make lm-text leaves such sentences out of calls.txt, stock
// formulas written independently by other writers included, so this holds
// for the hand-written text and the generated one alike.
func TestDomainTextDisjointFromEvaluation(t *testing.T) {
	files, err := EvaluationFiles(filepath.Join("..", "..", "..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 24+22+37+37+78 {
		t.Fatalf("found %d evaluation files; is testdata/ where it was?", len(files))
	}
	index := NewDomainTextIndex()
	var checked, leaks int
	for _, f := range files {
		sentences, err := EvaluationSentences([]string{f})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sentences {
			checked++
			if index.Contains(s) {
				leaks++
				t.Errorf("%s: %q is in the domain LM text", filepath.Base(f), s)
			}
		}
	}
	t.Logf("%d evaluation sentences of %d+ words, %d in the LM text", checked, LeakWords, leaks)
}
