//go:build cgo

package sphinx

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
	}{
		{"default", Config{Decoders: 1, DomainLMWeight: -1, SpeakerAdaptation: true}, false},
		// Without adaptation (no warped front ends) to keep the test short.
		{"NoiseRemoval", Config{Decoders: 1, DomainLMWeight: -1, NoiseRemoval: true}, true},
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
			// The decoded front end, and every warped one beside it, which
			// copy its settings.
			fronts := map[string]func([]int16) ([]float32, error){"unwarped": d.cepstra}
			for k := range d.warps {
				fronts[fmt.Sprintf("warp %g", d.warps[k].factor)] = func(s []int16) ([]float32, error) { return d.warpedCepstra(k, s) }
			}
			if c.cfg.SpeakerAdaptation && len(fronts) < 2 {
				t.Fatal("no warped front ends to check")
			}
			for name, fe := range fronts {
				fall := c0Fall(t, fe, d.cepDim())
				switch {
				case c.removes && fall < 2:
					t.Errorf("%s: c0 of steady noise fell %.2f; with noise removal on it should fall by several units", name, fall)
				case !c.removes && (fall > 0.5 || fall < -0.5):
					t.Errorf("%s: c0 of steady noise moved %.2f; with noise removal off it should hold", name, fall)
				}
				t.Logf("%s: c0 fall %.2f", name, fall)
			}
		})
	}
}
