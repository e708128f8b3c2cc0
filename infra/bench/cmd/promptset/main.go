// Command promptset turns the Asterisk PBX's English voice prompts (Debian
// package asterisk-core-sounds-en-wav, one professional reader recorded for
// telephone use, 8 kHz) into calls the ASR bench reads like its synthesised
// ones: stereo WAVs whose two legs take the prompts in turn, each with the
// reference JSON synthcall writes.
//
// The prompts are the only transcribed real speech here besides LibriVox's
// 71 words: some 320 prompts, 14 minutes and 2,000 words of a second real
// voice (a woman's, where the LibriVox reader is a man), in the language of
// phone menus. They are laid into calls rather than read one by one because
// that is how the engine meets a voice: a leg of a minute or more, long
// enough for its speaker adaptation, where a single prompt of a few words
// never is. Their text is the package's own list (core-sounds-en.txt);
// prompts whose text is a description in brackets (tones, beeps), whose
// recording is missing, or that say a word the engine's pronouncing dictionary
// lacks (product names such as "dahdi" or "mgcp", which measure the
// vocabulary, not the acoustics) are left out, and only the top directory is
// read (its sub-directories hold single digits, letters and words). The
// recordings go in as they are, their own leading and trailing room included.
//
// Usage:
//
//	promptset -out DIR [-per-call N] [-sounds DIR] [-text FILE] [-dict FILE]
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/callscribe/callscribe/infra/bench/internal/speechdata"
	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/engines/sphinx/train"
)

type prompt struct {
	name  string
	words []string
	pcm   []int16
}

func main() {
	sounds := flag.String("sounds", "/usr/share/asterisk/sounds/en_US_f_Allison", "the prompts' WAVs (asterisk-core-sounds-en-wav)")
	textPath := flag.String("text", "/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz", "the prompts' text, NAME: TEXT a line (gzip or plain)")
	dictPath := flag.String("dict", filepath.Join(sphinx.DefaultModelDir, "cmudict-en-us.dict"), "the engine's pronouncing dictionary")
	perCall := flag.Int("per-call", 24, "prompts a call, taken in turn by its two legs")
	gap := flag.Float64("gap", 0.6, "seconds between one prompt and the next")
	out := flag.String("out", "", "directory to write the calls (promptsNN.wav, promptsNN.json) to")
	flag.Parse()
	if *out == "" || *perCall < 2 {
		fatal(fmt.Errorf("-out is required and -per-call must be at least 2"))
	}
	texts, err := readPromptTexts(*textPath)
	if err != nil {
		fatal(err)
	}
	known, err := train.ReadDictionaryWords(*dictPath)
	if err != nil {
		fatal(err)
	}
	prompts, rate, skipped, unknown, err := readPrompts(*sounds, texts, known)
	if err != nil {
		fatal(err)
	}
	if len(prompts) == 0 {
		fatal(fmt.Errorf("no prompt of %s has its WAV in %s", *textPath, *sounds))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	words, calls := 0, 0
	for i := 0; i < len(prompts); i += *perCall {
		calls++
		name := fmt.Sprintf("prompts%02d", calls)
		if err := writeCall(*out, name, prompts[i:min(i+*perCall, len(prompts))], rate, *gap); err != nil {
			fatal(err)
		}
	}
	for _, p := range prompts {
		words += len(p.words)
	}
	fmt.Fprintf(os.Stderr, "promptset: %d prompts, %d words, in %d calls in %s (%d left out: no text or no recording; %d with a word the dictionary lacks)\n",
		len(prompts), words, calls, *out, skipped, unknown)
}

// readPrompts reads the prompts the bench can score, in name order (which
// keeps a menu's prompts together), and their sample rate: the package's are
// 8 kHz, and a directory of the same prompts decoded from the G.722 package
// (16 kHz) reads as well, as long as every file has the one rate.
func readPrompts(dir string, texts map[string]string, known map[string]bool) (prompts []prompt, rate, skipped, unknown int, err error) {
	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		words := promptWords(texts[name])
		if len(words) == 0 || strings.Contains(name, "/") {
			skipped++
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name+".wav"))
		if err != nil {
			skipped++
			continue
		}
		if !allKnown(words, known) {
			unknown++
			continue
		}
		a, err := decode.DecodeWAV(b)
		if err != nil {
			return nil, 0, 0, 0, fmt.Errorf("%s: %w", name, err)
		}
		if rate == 0 {
			rate = a.SampleRate
		}
		if a.SampleRate != rate || len(a.Channels) != 1 {
			return nil, 0, 0, 0, fmt.Errorf("%s: %d Hz, %d channels; want %d Hz mono, as the prompts before it", name, a.SampleRate, len(a.Channels), rate)
		}
		prompts = append(prompts, prompt{name: name, words: words, pcm: a.Channels[0]})
	}
	return prompts, rate, skipped, unknown, nil
}

// writeCall lays the prompts into a two-leg call, the legs taking them in
// turn, and writes it with its reference.
func writeCall(dir, name string, prompts []prompt, rate int, gapSeconds float64) error {
	gap := int(gapSeconds * float64(rate))
	legs := [2][]int16{make([]int16, gap), make([]int16, gap)}
	ref := speechdata.Reference{Dialogue: name, Rate: rate}
	for i, p := range prompts {
		ch := i % 2
		at := len(legs[0])
		first, last := speechdata.AudibleSpan(p.pcm)
		speaker := "Agent"
		if ch == 1 {
			speaker = "User"
		}
		ref.Turns = append(ref.Turns, speechdata.Turn{Speaker: speaker, Channel: ch, Text: strings.Join(p.words, " "),
			Start: speechdata.Round3(float64(at+first) / float64(rate)), End: speechdata.Round3(float64(at+last+1) / float64(rate))})
		legs[ch] = append(append(legs[ch], p.pcm...), make([]int16, gap)...)
		legs[1-ch] = append(legs[1-ch], make([]int16, len(p.pcm)+gap)...)
	}
	ref.Duration = speechdata.Round3(float64(len(legs[0])) / float64(rate))
	if err := os.WriteFile(filepath.Join(dir, name+".wav"), decode.EncodeWAV(rate, legs[0], legs[1]), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(ref, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".json"), append(b, '\n'), 0o644)
}

// readPromptTexts reads the package's list: "name: text" lines, comments
// starting with ";".
func readPromptTexts(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the prompts' text (install asterisk-core-sounds-en): %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	texts := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, ";") {
			continue
		}
		name, text, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		texts[strings.TrimSpace(name)] = strings.TrimSpace(text)
	}
	return texts, sc.Err()
}

func allKnown(words []string, known map[string]bool) bool {
	for _, w := range words {
		if !known[w] {
			return false
		}
	}
	return true
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "promptset:", err)
	os.Exit(1)
}
