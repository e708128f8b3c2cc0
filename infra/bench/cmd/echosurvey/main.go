// Command echosurvey reports, for every two-channel WAV in the directories it
// is given, the echo of one leg in the other that the speech engine finds
// and would take out before decoding, without decoding anything. It is how
// the bench checks that conditions without echo get no echo path (so their
// figures cannot move with echo removal) and that the echo conditions get
// theirs (infra/bench/README.md, "Echo between the legs").
//
//	go run ./infra/bench/cmd/echosurvey .cache/asr-conditions/dev/tuned/*
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
)

func main() {
	verbose := flag.Bool("v", false, "one line per leg an echo path was found in")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: echosurvey [-v] DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	tr, err := sphinx.NewTranscriber(sphinx.Config{Decoders: 1, DomainLMWeight: -1})
	if err != nil {
		fatal(err)
	}
	defer tr.Close()
	fmt.Printf("%-50s %5s %5s %8s %14s\n", "directory", "calls", "legs", "echoed", "echo frames")
	for _, dir := range flag.Args() {
		files, err := filepath.Glob(filepath.Join(dir, "*.wav"))
		if err != nil {
			fatal(err)
		}
		sort.Strings(files)
		calls, legs, echoed, echoFrames, frames := 0, 0, 0, 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				fatal(err)
			}
			audio, err := decode.DecodeWAV(data)
			if err != nil {
				fmt.Fprintf(os.Stderr, "echosurvey: %s skipped: %v\n", f, err)
				continue
			}
			if len(audio.Channels) != 2 {
				continue
			}
			calls++
			legs += 2
			reports, err := tr.Echoes(audio.Channels, audio.SampleRate)
			if err != nil {
				fatal(fmt.Errorf("%s: %w", f, err))
			}
			for _, r := range reports {
				echoed++
				echoFrames += r.EchoFrames
				frames += r.RegionFrames
				if *verbose {
					fmt.Printf("  %s ch%d (of ch%d): %d ms late, %.1f dB down, spread share %.2f, %d of %d region frames echo\n",
						filepath.Base(f), r.Channel, r.OfChannel, r.DelayMS, r.LossDB, r.SpreadShare, r.EchoFrames, r.RegionFrames)
				}
			}
		}
		share := "-"
		if frames > 0 {
			share = fmt.Sprintf("%d/%d", echoFrames, frames)
		}
		fmt.Printf("%-50s %5d %5d %8d %14s\n", dir, calls, legs, echoed, share)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "echosurvey:", err)
	os.Exit(1)
}
