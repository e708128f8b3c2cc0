// Package speechdata synthesises the training speech of the engine's
// narrowband tools (infra/bench/cmd/narrowbandmap, narrowbandadapt): sentences
// of the domain LM text spoken by voices the ASR bench does not use, as 16 kHz
// and 8 kHz mono PCM made by sox from one synthesis, cached on disk.
package speechdata

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/callscribe/callscribe/infra/bench/internal/g722"
	"github.com/callscribe/callscribe/infra/bench/internal/telephone"
	"github.com/callscribe/callscribe/shared/audio/decode"
)

// MapVoices is the training voice set the shipped narrowband map was fitted on. It mixes
// low and high voices, and adds awb and kal16 with their vocal tract shortened
// (sox pitch +250 and +500 cents): on the ASR bench a map fitted on
// female-range voices alone, or on male voices alone, did worse on either kind
// of voice, and the perturbed voices won on the dev set.
const MapVoices = "flite:awb,flite:kal16,espeak:en-us+f1,espeak:en-us+f2,espeak:en-us+f3,espeak:en-us+f4,espeak:en-us+m3,espeak:en-gb+f3," +
	"flite:awb@250,flite:kal16@250,flite:awb@500,flite:kal16@500"

// Line is a line of a text file with its 1-based number in the file.
type Line struct {
	N    int
	Text string
}

// ReadLines reads a text file's lines, trimmed, skipping blank lines and #
// comments, keeping each line's number for error messages.
func ReadLines(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, Line{N: n, Text: line})
		}
	}
	return out, sc.Err()
}

// ReadSentences reads one sentence a line, skipping blank lines and # comments.
func ReadSentences(path string) ([]string, error) {
	lines, err := ReadLines(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out, nil
}

// Synthesise speaks text and returns it as 16 kHz and as 8 kHz mono PCM, both
// converted by sox from the one synthesis. The pair is kept in cache under a
// name made of the voice and a hash of the text.
func Synthesise(cache, voice, text string) (wide, narrow []int16, err error) {
	spec, shift, _ := strings.Cut(voice, "@")
	engine, name, ok := strings.Cut(spec, ":")
	key := fmt.Sprintf("%x", sha256.Sum256([]byte(voice+"\x00"+text)))[:16]
	base := filepath.Join(cache, strings.NewReplacer(":", "-", "+", "-").Replace(voice)+"-"+key)
	if wide, err = ReadWAV(base + "-16k.wav"); err == nil {
		if narrow, err = ReadWAV(base + "-8k.wav"); err == nil {
			return wide, narrow, nil
		}
	}
	raw := base + "-raw.wav"
	defer os.Remove(raw)
	var cmd *exec.Cmd
	switch {
	case ok && engine == "flite":
		cmd = exec.Command("flite", "-voice", name, "-t", text, "-o", raw)
	case ok && engine == "espeak":
		cmd = exec.Command("espeak-ng", "-v", name, "-w", raw, text)
	default:
		return nil, nil, fmt.Errorf("voice %q: want flite:NAME or espeak:NAME", voice)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("%s: %v: %s", engine, err, b)
	}
	for _, rate := range []int{16000, 8000} {
		conv := fmt.Sprintf("%s-%dk.wav", base, rate/1000)
		args := []string{raw, "-r", fmt.Sprint(rate), "-c", "1", "-b", "16", conv}
		if shift != "" {
			// Vocal tract length perturbation: sox's pitch effect moves the
			// whole spectrum, formants included, as a shorter or longer vocal
			// tract would.
			args = append(args, "pitch", shift)
		}
		if b, err := exec.Command("sox", args...).CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("sox: %v: %s", err, b)
		}
	}
	if wide, err = ReadWAV(base + "-16k.wav"); err != nil {
		return nil, nil, err
	}
	narrow, err = ReadWAV(base + "-8k.wav")
	return wide, narrow, err
}

// ReadWideband reads a 16 kHz recording: a WAV file's first channel, or a
// raw G.722 stream (.g722) decoded.
func ReadWideband(path string) ([]int16, error) {
	if filepath.Ext(path) != ".g722" {
		pcm, rate, err := readWAVRate(path)
		if err == nil && rate != 16000 {
			err = fmt.Errorf("%s: %d Hz, want a 16 kHz recording", path, rate)
		}
		return pcm, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return g722.Decode(data)
}

// Narrowband returns the 8 kHz side of a 16 kHz recording (wide, read from
// path), made by sox as Synthesise makes a synthesis's, and kept in cache
// under a name made of a hash of the path.
func Narrowband(cache, path string, wide []int16) ([]int16, error) {
	key := fmt.Sprintf("%x", sha256.Sum256([]byte(path)))[:16]
	conv := filepath.Join(cache, "recording-"+key+"-8k.wav")
	if narrow, err := ReadWAV(conv); err == nil {
		return narrow, nil
	}
	cmd := exec.Command("sox", "-t", "wav", "-", "-r", "8000", "-b", "16", conv)
	cmd.Stdin = bytes.NewReader(decode.EncodeWAV(16000, wide))
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sox: %v: %s", err, b)
	}
	return ReadWAV(conv)
}

// ReadWAV reads the first channel of a WAV file.
func ReadWAV(path string) ([]int16, error) {
	pcm, _, err := readWAVRate(path)
	return pcm, err
}

// readWAVRate reads the first channel of a WAV file and its sample rate.
func readWAVRate(path string) ([]int16, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	a, err := decode.DecodeWAV(data)
	if err != nil {
		return nil, 0, err
	}
	return a.Channels[0], a.SampleRate, nil
}

// ThroughLine passes the i-th training reading of 8 kHz speech (counted over
// all voices, so each sentence meets several lines) through one of the named
// telephone lines (package telephone), taking them in turn, so a
// trainer sees the channels a call meets as well as clean speech. An empty
// list, or the line "clean", leaves the speech as it is.
func ThroughLine(narrow []int16, lines []string, i int) ([]int16, error) {
	if len(lines) == 0 {
		return narrow, nil
	}
	c, err := telephone.Lookup(lines[i%len(lines)])
	if err != nil {
		return nil, err
	}
	return c.Apply(narrow, uint64(i))
}

// ParseLines splits a comma-separated list of telephone line names, checking
// each ("" gives none).
func ParseLines(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	names := strings.Split(list, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if _, err := telephone.Lookup(names[i]); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// LinesNote is the phrase a trainer adds to its description of the training
// speech when the readings went through telephone lines ("" for none).
func LinesNote(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ", each reading then through one of the simulated telephone lines " + strings.Join(lines, " ") + " in turn"
}

// AudibleSpan returns the first and last sample louder than -40 dBFS, so a
// reference turn's times leave out the silence a synthesiser or a recording
// leaves around the speech.
func AudibleSpan(pcm []int16) (first, last int) {
	const threshold = 328 // 32768 * 10^(-40/20)
	loud := func(v int16) bool { return v >= threshold || v <= -threshold }
	first, last = 0, len(pcm)-1
	for first < len(pcm) && !loud(pcm[first]) {
		first++
	}
	for last > first && !loud(pcm[last]) {
		last--
	}
	return first, last
}

// Turn is one turn of a bench call's reference: who spoke, on which channel,
// what, and when (seconds, first and last audible sample).
type Turn struct {
	Speaker string  `json:"speaker"` // "Agent" or "User"
	Channel int     `json:"channel"`
	Text    string  `json:"text"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
}

// Reference is a bench call's reference file (NAME.json beside NAME.wav), as
// synthcall and promptset write it and asrbench reads it.
type Reference struct {
	Dialogue string  `json:"dialogue"`
	Rate     int     `json:"rate"`
	Duration float64 `json:"duration"`
	Turns    []Turn  `json:"turns"`
}

// Round3 rounds a reference time to the millisecond.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }
