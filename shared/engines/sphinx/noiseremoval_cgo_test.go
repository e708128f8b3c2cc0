//go:build cgo

package sphinx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// c0Fall is how far the front end's c0 (log energy) of steady noise falls
// from its first frames to its last: PocketSphinx's noise suppression learns a
// steady signal as the noise floor and takes it down over about a second;
// without it a steady signal keeps its energy.
func c0Fall(t *testing.T, cepstra func([]int16) ([]float32, error), dim int) float64 {
	t.Helper()
	steady := make([]int16, 3*targetRate)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range steady {
		steady[i] = int16(1000 * rng.NormFloat64())
	}
	cep, err := cepstra(steady)
	if err != nil {
		t.Fatal(err)
	}
	frames := len(cep) / dim
	if frames < 200 {
		t.Fatalf("%d frames for 3 s", frames)
	}
	mean := func(from, to int) float64 {
		var s float64
		for f := from; f < to; f++ {
			s += float64(cep[f*dim])
		}
		return s / float64(to-from)
	}
	return mean(5, 25) - mean(frames-50, frames)
}

func TestDecodedFeaturesKeepNoiseRemovalOff(t *testing.T) {
	needModel(t)
	for _, c := range []struct {
		name    string
		cfg     Config
		removes bool
		// denoised: the decoder has front ends with noise removal on for
		// noisy channels (noisegate.go) beside its own.
		denoised bool
	}{
		{"default", Config{Decoders: 1, DomainLMWeight: -1, SpeakerAdaptation: true}, false, true},
		// Without adaptation (no warped front ends) to keep the test short.
		{"NoiseRemoval", Config{Decoders: 1, DomainLMWeight: -1, NoiseRemoval: true}, true, false},
		{"no gate", Config{Decoders: 1, DomainLMWeight: -1, NoiseRemovalBelowDB: -1}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cfg.SpeakerAdaptation {
				needSphinxTrain(t)
			}
			tr, err := NewTranscriber(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			d := <-tr.pool
			defer func() { tr.pool <- d }()
			if (d.denoised != nil) != c.denoised {
				t.Fatalf("denoised front end present: %v, want %v", d.denoised != nil, c.denoised)
			}
			// The decoded front end, and every warped one beside it, which
			// copy its settings; then their denoised copies.
			type front struct {
				cepstra func([]int16) ([]float32, error)
				removes bool
			}
			fronts := map[string]front{"unwarped": {d.cepstra, c.removes}}
			for k := range d.warps {
				fronts[fmt.Sprintf("warp %g", d.warps[k].factor)] = front{func(s []int16) ([]float32, error) { return d.warpedCepstra(k, s, false) }, c.removes}
				if c.denoised {
					fronts[fmt.Sprintf("denoised warp %g", d.warps[k].factor)] = front{func(s []int16) ([]float32, error) { return d.warpedCepstra(k, s, true) }, true}
				}
			}
			if c.denoised {
				fronts["denoised"] = front{d.denoisedCepstra, true}
			}
			if c.cfg.SpeakerAdaptation && len(fronts) < 4 {
				t.Fatal("no warped front ends to check")
			}
			// Each denoised warp is warped: sphinxbase keeps warp parameters
			// in static state (addWarp), and a copy that missed them would
			// silently decode unwarped.
			if c.denoised {
				speech := make([]int16, targetRate)
				rng := rand.New(rand.NewPCG(7, 8))
				for i := range speech {
					speech[i] = int16(2000 * rng.NormFloat64())
				}
				plain, err := d.denoisedCepstra(speech)
				if err != nil {
					t.Fatal(err)
				}
				for k := range d.warps {
					warped, err := d.warpedCepstra(k, speech, true)
					if err != nil {
						t.Fatal(err)
					}
					if slices.Equal(plain, warped) {
						t.Errorf("denoised warp %g: the same cepstra as the unwarped denoised front end", d.warps[k].factor)
					}
				}
			}
			for name, fe := range fronts {
				fall := c0Fall(t, fe.cepstra, d.cepDim())
				switch {
				case fe.removes && fall < 2:
					t.Errorf("%s: c0 of steady noise fell %.2f; with noise removal on it should fall by several units", name, fall)
				case !fe.removes && (fall > 0.5 || fall < -0.5):
					t.Errorf("%s: c0 of steady noise moved %.2f; with noise removal off it should hold", name, fall)
				}
				t.Logf("%s: c0 fall %.2f", name, fall)
			}
		})
	}
}

// channelNoise is what a "sphinx narrowband channel" debug line says of the
// channel's noise and band.
type channelNoise struct {
	Channel            int     `json:"channel"`
	SpeechOverFloor    float64 `json:"speech_over_floor_db"`
	NoiseRemoval       bool    `json:"noise_removal"`
	EnergySpread       bool    `json:"energy_spread"`
	VoiceBand          bool    `json:"voice_band"`
	LowBandRegenerated bool    `json:"low_band_regenerated"`
	FeatureMap         string  `json:"feature_map"`
}

// channelLines are the "sphinx narrowband channel" debug lines logged, by channel.
func channelLines(t *testing.T, logs *bytes.Buffer) map[int]channelNoise {
	t.Helper()
	out := map[int]channelNoise{}
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(l, `"msg":"sphinx narrowband channel"`) {
			continue
		}
		var line channelNoise
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		out[line.Channel] = line
	}
	return out
}

// transcribeLogged decodes audio (a WAV) with a one-decoder transcriber of
// cfg that logs its debug lines, and returns each channel's "sphinx
// narrowband channel" line (channelLines) and each speaker's text.
func transcribeLogged(t *testing.T, cfg Config, audio []byte) (map[int]channelNoise, map[int]string) {
	t.Helper()
	res, logs := transcribeWithLogs(t, cfg, audio)
	return channelLines(t, logs), speakerTexts(res)
}

// transcribeWithLogs decodes audio (a WAV) with a one-decoder transcriber of
// cfg and returns the result with the debug lines it logged.
func transcribeWithLogs(t *testing.T, cfg Config, audio []byte) (*callscribe.TranscriptionResult, *bytes.Buffer) {
	t.Helper()
	logs := new(bytes.Buffer)
	cfg.Decoders = 1
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr, err := NewTranscriber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
	if err != nil {
		t.Fatal(err)
	}
	return res, logs
}

// speakerTexts is each speaker's words in a result, in order.
func speakerTexts(res *callscribe.TranscriptionResult) map[int]string {
	text := map[int]string{}
	for _, s := range res.Transcript {
		text[s.SpeakerID] = strings.TrimSpace(text[s.SpeakerID] + " " + s.Text)
	}
	return text
}

// noiseRMSBelow is the RMS of a noise snrDB below speech's power.
func noiseRMSBelow(speech []int16, snrDB float64) float64 {
	var power float64
	for _, v := range speech {
		power += float64(v) * float64(v)
	}
	return math.Sqrt(power/float64(len(speech))) * math.Pow(10, -snrDB/20)
}

// cleanAndNoisyTrack speaks shortLine in the rms voice at rate, half a
// second of digital silence either side, and returns that track and the same
// track under white noise snrDB below the speech's power (seeded by seed).
func cleanAndNoisyTrack(t *testing.T, rate int, snrDB float64, seed uint64) (clean, noisy []int16) {
	t.Helper()
	speech := speak(t, "rms", shortLine, rate)
	clean = track(rate, 0.5+float64(len(speech))/float64(rate)+0.5, clip{0.5, speech})
	noiseRMS := noiseRMSBelow(speech, snrDB)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	noisy = make([]int16, len(clean))
	for i, v := range clean {
		noisy[i] = int16(max(-32768, min(32767, float64(v)+noiseRMS*rng.NormFloat64())))
	}
	return clean, noisy
}

// A call whose one channel is clean and whose other carries the same talker
// under white noise 18 dB below: only the noisy channel is decoded with noise
// removal, and it comes out as it does when every channel is.
func TestOnlyNoisyChannelsAreDecodedWithNoiseRemoval(t *testing.T) {
	needModel(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	const rate = 8000
	clean, noisy := cleanAndNoisyTrack(t, rate, 18, 9)
	audio := wavOf(t, rate, clean, noisy)

	lines, got := transcribeLogged(t, Config{}, audio)
	_, want := transcribeLogged(t, Config{NoiseRemoval: true}, audio)
	// The energy spread's gate (energyspread.go) reads the same figure.
	if c := lines[0]; c.NoiseRemoval || c.EnergySpread || c.SpeechOverFloor < DefaultEnergySpreadBelowDB {
		t.Errorf("clean channel: %+v, want its speech well above the floor, no noise removal and no energy spread", c)
	}
	// Noise removal reshapes c0 itself: the spread is for the channels it leaves.
	if c := lines[1]; !c.NoiseRemoval || c.EnergySpread || c.SpeechOverFloor >= DefaultNoiseRemovalBelowDB || c.SpeechOverFloor < 5 {
		t.Errorf("noisy channel: %+v, want about 20 dB, noise removal and no energy spread", c)
	}
	if got[1] == "" || got[1] != want[1] {
		t.Errorf("noisy channel: %q, want %q as with noise removal on every channel", got[1], want[1])
	}
	if w := wer(shortLine, got[0]); w > 0.3 {
		t.Errorf("clean channel: %q (WER %.0f%%)", got[0], 100*w)
	}
	t.Logf("clean %q; noisy %q", got[0], got[1])
}
