// Command linesim passes a call recording through a simulated telephone line
// (package telephone: voice band, G.711 or GSM, line noise, level, clipping),
// for the speech bench's conditions.
//
// Usage:
//
//	linesim -condition NAME -in call.wav -out line.wav [-seed N]
//	linesim -list
//
// The input is a mono or stereo 16-bit WAV at 8 kHz or more; it is resampled
// to 8 kHz by sox first when it is wider, since a telephone line carries 8 kHz
// audio. Each channel gets noise of its own (seeded from -seed and the
// channel), so the output is the same on every run; the echo conditions lay
// each channel's speech into the other.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/callscribe/callscribe/infra/bench/internal/telephone"
	"github.com/callscribe/callscribe/shared/audio/decode"
)

func main() {
	name := flag.String("condition", "", "line condition (see -list)")
	in := flag.String("in", "", "WAV to read")
	out := flag.String("out", "", "WAV to write (8 kHz, same channels)")
	seed := flag.Uint64("seed", 1, "noise seed")
	list := flag.Bool("list", false, "print the known conditions and exit")
	flag.Parse()
	if *list {
		for _, c := range telephone.Conditions {
			fmt.Printf("%-14s %s\n", c.Name, c.Doc)
		}
		return
	}
	if *name == "" || *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*name, *in, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "linesim:", err)
		os.Exit(1)
	}
}

func run(name, in, out string, seed uint64) error {
	cond, err := telephone.Lookup(name)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	a, err := decode.DecodeWAV(data)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if a.SampleRate != telephone.Rate {
		if a, err = resample(in); err != nil {
			return err
		}
	}
	channels, err := cond.ApplyCall(a.Channels, seed)
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, decode.EncodeWAV(telephone.Rate, channels...), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// resample converts a wider recording to 8 kHz with sox's band-limiting
// resampler (no dither, so the result is repeatable).
func resample(in string) (*decode.Audio, error) {
	dir, err := os.MkdirTemp("", "linesim-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	narrow := filepath.Join(dir, "8k.wav")
	if b, err := exec.Command("sox", "-D", in, "-r", fmt.Sprint(telephone.Rate), "-b", "16", narrow).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sox: %v: %s", err, b)
	}
	data, err := os.ReadFile(narrow)
	if err != nil {
		return nil, err
	}
	return decode.DecodeWAV(data)
}
