//go:build cgo

package moonshine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"unicode"

	"github.com/callscribe/callscribe/shared/audio/decode"
)

// modelDir is where make deps-speech-models installs the model, or
// $MOONSHINE_MODEL_DIR.
func modelDir(t *testing.T) string {
	if d := os.Getenv("MOONSHINE_MODEL_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", ".cache", "speech-models", "moonshine-tiny")
}

var (
	sharedModel    *Model
	sharedModelErr error
)

func loadModel(t *testing.T) *Model {
	t.Helper()
	if sharedModel == nil && sharedModelErr == nil {
		sharedModel, sharedModelErr = Load(modelDir(t))
	}
	if sharedModelErr != nil {
		t.Fatalf("loading the model (make deps-speech-models installs it): %v", sharedModelErr)
	}
	return sharedModel
}

// librivox reads one of pocketsphinx-testdata's LibriVox clips (16 kHz mono,
// a real reader) as samples in [-1, 1].
func librivox(t *testing.T, name string) []float32 {
	t.Helper()
	data, err := os.ReadFile("/usr/share/pocketsphinx/test/data/librivox/" + name + ".wav")
	if err != nil {
		t.Fatalf("reading the LibriVox clip (install pocketsphinx-testdata): %v", err)
	}
	a, err := decode.Decode(data, decode.WAV)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != SampleRate || len(a.Channels) != 1 {
		t.Fatalf("clip is %d Hz, %d channels; want 16 kHz mono", a.SampleRate, len(a.Channels))
	}
	return floats(a.Channels[0])
}

func floats(pcm []int16) []float32 {
	out := make([]float32, len(pcm))
	for i, s := range pcm {
		out[i] = float32(s) / 32768
	}
	return out
}

// wordErrors is the edit distance between the words of want and got, each
// lower-cased without punctuation.
func wordErrors(want, got string) int {
	r, h := plainWords(want), plainWords(got)
	d := make([]int, len(h)+1)
	for j := range d {
		d[j] = j
	}
	for i := 1; i <= len(r); i++ {
		prev := d[0]
		d[0] = i
		for j := 1; j <= len(h); j++ {
			cost := 1
			if r[i-1] == h[j-1] {
				cost = 0
			}
			cur := min(prev+cost, d[j]+1, d[j-1]+1)
			prev, d[j] = d[j], cur
		}
	}
	return d[len(h)]
}

// plainWords lower-cases s and splits it on everything but letters and
// apostrophes.
func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
}

func TestRecognizesARealReader(t *testing.T) {
	m := loadModel(t)
	for _, c := range []struct{ clip, text string }{
		{"sense_and_sensibility_01_austen_64kb-0930", "he might even have been made amiable himself"},
		{"sense_and_sensibility_01_austen_64kb-0920", "had he married a more amiable woman he might have been made still more respectable than he was"},
	} {
		words, err := m.Recognize(context.Background(), librivox(t, c.clip))
		if err != nil {
			t.Fatal(err)
		}
		got := Text(words)
		if e := wordErrors(c.text, got); e > 1 {
			t.Errorf("%s: %d word errors: got %q, want %q", c.clip, e, got, c.text)
		}
		for _, w := range words {
			if !(w.Confidence > 0 && w.Confidence <= 1) {
				t.Errorf("%s: word %q has confidence %v, want (0, 1]", c.clip, w.Text, w.Confidence)
			}
		}
	}
}

func TestRecognizesTelephoneBandSpeech(t *testing.T) {
	// The same clip through 8 kHz and back: what a telephone channel gives
	// the model once the engine has resampled it.
	m := loadModel(t)
	wide := librivox(t, "sense_and_sensibility_01_austen_64kb-0930")
	narrow := make([]float32, 0, len(wide))
	for i := 0; i+1 < len(wide); i += 2 {
		// A crude half-band: the mean of each pair, then each value twice.
		v := (wide[i] + wide[i+1]) / 2
		narrow = append(narrow, v, v)
	}
	words, err := m.Recognize(context.Background(), narrow)
	if err != nil {
		t.Fatal(err)
	}
	if e := wordErrors("he might even have been made amiable himself", Text(words)); e > 1 {
		t.Errorf("%d word errors: got %q", e, Text(words))
	}
}

func TestShortOrSilentInputGivesNoWordsAndNoError(t *testing.T) {
	m := loadModel(t)
	for _, n := range []int{0, 1, SampleRate / 20} {
		words, err := m.Recognize(context.Background(), make([]float32, n))
		if err != nil || len(words) != 0 {
			t.Errorf("%d samples: words %v, error %v; want none", n, words, err)
		}
	}
	words, err := m.Recognize(context.Background(), make([]float32, 2*SampleRate))
	if err != nil {
		t.Fatal(err)
	}
	if len(words) > 2 {
		t.Errorf("2 s of silence: %d words (%q); the length bound should keep a silent decode short", len(words), Text(words))
	}
}

func TestACancelledDecodeStops(t *testing.T) {
	m := loadModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Recognize(ctx, librivox(t, "sense_and_sensibility_01_austen_64kb-0930"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestLoadNamesWhatIsMissing(t *testing.T) {
	_, err := Load(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), encoderFile) {
		t.Fatalf("error %v, want one naming %s", err, encoderFile)
	}
}
