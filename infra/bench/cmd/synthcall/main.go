// Command synthcall turns a two-speaker dialogue into a stereo call recording
// with a JSON reference, for the ASR and insights benches.
//
// A dialogue file has one turn per line, "Agent: ..." or "User: ..." (blank lines
// and lines starting with # are skipped). Each turn is synthesised with Debian's
// flite, the Agent on channel 0 and the User on channel 1 with different voices.
// Turns follow each other with a short pause and each channel is silent while the
// other speaks, as on a two-channel call recorder.
//
// Usage:
//
//	go run ./infra/bench/cmd/synthcall -in dialogue.txt -out call.wav [-rate 8000] [-mp3 call.mp3] [-ref ref.json]
//
// Flags:
//
//	-in FILE        dialogue text (required)
//	-out FILE       stereo 16-bit WAV to write (required)
//	-rate N         sample rate, 8000 (telephone, default) or 16000
//	-mp3 FILE       also write an MP3 of the call (sox with libsox-fmt-mp3)
//	-mp3-kbps N     MP3 bit rate in kbit/s (default 32)
//	-ref FILE       write the reference: per turn speaker, channel, text and the
//	                start/end in seconds of its audible speech
//	-agent-voice V  voice of the Agent (default slt): a flite voice name, or
//	                flite:NAME or espeak:NAME (an espeak-ng voice, e.g. en-us+f5)
//	-user-voice V   voice of the User (default rms), the same forms
//	-pause S        seconds of silence between turns (default 0.6)
//
// Needs flite, espeak-ng (for espeak voices) and sox on PATH (make deps-speech
// installs them).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/callscribe/callscribe/infra/bench/internal/speechdata"
	"github.com/callscribe/callscribe/shared/audio/decode"
)

func main() {
	in := flag.String("in", "", "dialogue text file")
	out := flag.String("out", "", "stereo WAV to write")
	rate := flag.Int("rate", 8000, "sample rate (8000 or 16000)")
	mp3 := flag.String("mp3", "", "also write this MP3")
	kbps := flag.Int("mp3-kbps", 32, "MP3 bit rate, kbit/s")
	ref := flag.String("ref", "", "write the JSON reference here")
	agentVoice := flag.String("agent-voice", "slt", "voice of the Agent (flite NAME, flite:NAME or espeak:NAME)")
	userVoice := flag.String("user-voice", "rms", "voice of the User (the same forms)")
	pause := flag.Float64("pause", 0.6, "seconds of silence between turns")
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, *rate, *mp3, *kbps, *ref, *agentVoice, *userVoice, *pause); err != nil {
		fmt.Fprintln(os.Stderr, "synthcall:", err)
		os.Exit(1)
	}
}

func run(in, out string, rate int, mp3 string, kbps int, refPath, agentVoice, userVoice string, pause float64) error {
	turns, err := readDialogue(in)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "synthcall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	gap := int(pause * float64(rate))
	ch := [2][]int16{make([]int16, gap), make([]int16, gap)}
	ref := speechdata.Reference{Dialogue: filepath.Base(in), Rate: rate}
	for i, t := range turns {
		voice := agentVoice
		if t.Channel == 1 {
			voice = userVoice
		}
		pcm, err := synth(tmp, i, voice, t.Text, rate)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		at := len(ch[0])
		first, last := speechdata.AudibleSpan(pcm)
		t.Start = speechdata.Round3(float64(at+first) / float64(rate))
		t.End = speechdata.Round3(float64(at+last+1) / float64(rate))
		ref.Turns = append(ref.Turns, t)
		silence := make([]int16, len(pcm)+gap)
		speech := append(append([]int16{}, pcm...), make([]int16, gap)...)
		ch[t.Channel] = append(ch[t.Channel], speech...)
		ch[1-t.Channel] = append(ch[1-t.Channel], silence...)
	}
	ref.Duration = speechdata.Round3(float64(len(ch[0])) / float64(rate))
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := decode.WriteWAV(f, rate, ch[0], ch[1]); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if mp3 != "" {
		cmd := exec.Command("sox", out, "-C", fmt.Sprint(kbps), mp3)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("sox mp3: %v: %s", err, b)
		}
	}
	if refPath != "" {
		b, _ := json.MarshalIndent(ref, "", "  ")
		if err := os.WriteFile(refPath, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readDialogue(path string) ([]speechdata.Turn, error) {
	lines, err := speechdata.ReadLines(path)
	if err != nil {
		return nil, err
	}
	var turns []speechdata.Turn
	for _, line := range lines {
		n := line.N
		who, text, ok := strings.Cut(line.Text, ":")
		text = strings.TrimSpace(text)
		switch who = strings.TrimSpace(who); {
		case !ok || text == "":
			return nil, fmt.Errorf("%s:%d: want \"Agent: ...\" or \"User: ...\"", path, n)
		case strings.EqualFold(who, "Agent"):
			turns = append(turns, speechdata.Turn{Speaker: "Agent", Channel: 0, Text: text})
		case strings.EqualFold(who, "User"):
			turns = append(turns, speechdata.Turn{Speaker: "User", Channel: 1, Text: text})
		default:
			return nil, fmt.Errorf("%s:%d: unknown speaker %q (want Agent or User)", path, n, who)
		}
	}
	if len(turns) == 0 {
		return nil, errors.New(path + ": no turns")
	}
	return turns, nil
}

// synth speaks text with flite or espeak-ng and converts it to the call's
// rate with sox (flite voices are 8 or 16 kHz, espeak-ng's 22.05 kHz).
func synth(dir string, i int, voice, text string, rate int) ([]int16, error) {
	raw := filepath.Join(dir, fmt.Sprintf("t%d.wav", i))
	conv := filepath.Join(dir, fmt.Sprintf("t%d-%d.wav", i, rate))
	engine, name, ok := strings.Cut(voice, ":")
	if !ok {
		engine, name = "flite", voice
	}
	var cmd *exec.Cmd
	switch engine {
	case "flite":
		cmd = exec.Command("flite", "-voice", name, "-t", text, "-o", raw)
	case "espeak":
		cmd = exec.Command("espeak-ng", "-v", name, "-w", raw, text)
	default:
		return nil, fmt.Errorf("voice %q: want NAME, flite:NAME or espeak:NAME", voice)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", engine, err, b)
	}
	if b, err := exec.Command("sox", raw, "-r", fmt.Sprint(rate), "-c", "1", "-b", "16", conv).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sox: %v: %s", err, b)
	}
	return speechdata.ReadWAV(conv)
}
