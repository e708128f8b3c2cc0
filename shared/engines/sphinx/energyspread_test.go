package sphinx

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// c0Stats are the mean and standard deviation of c0 over frames of dim values.
func c0Stats(cep []float32, dim int) (mean, sd float64) {
	frames := len(cep) / dim
	for f := 0; f < frames; f++ {
		mean += float64(cep[f*dim])
	}
	mean /= float64(frames)
	for f := 0; f < frames; f++ {
		d := float64(cep[f*dim]) - mean
		sd += d * d
	}
	return mean, math.Sqrt(sd / float64(frames))
}

// randomCepstra are frames of dim values whose c0 has the given mean and
// spread and whose other coefficients are noise of their own.
func randomCepstra(frames, dim int, mean, sd float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	cep := make([]float32, frames*dim)
	for f := 0; f < frames; f++ {
		cep[f*dim] = float32(mean + sd*rng.NormFloat64())
		for k := 1; k < dim; k++ {
			cep[f*dim+k] = float32(rng.NormFloat64())
		}
	}
	return cep
}

// A line's narrow c0 is widened half way (in the log) to real speech's
// spread, about the same mean, and nothing but c0 moves; a region that
// already spreads as wide as real speech, or wider (clean synthesis's
// digital silence, a codec's quantiser floor), is left exactly as it was.
func TestEnergySpreadWidensANarrowC0AboutItsMean(t *testing.T) {
	const dim = 13
	for _, sd := range []float64{4, 10, 12.5, 23} {
		cep := randomCepstra(300, dim, 55, sd, uint64(sd*10))
		before, beforeSD := c0Stats(cep, dim)
		orig := slices.Clone(cep)
		spreadEnergy(cep, dim)
		if beforeSD >= energySpread {
			if !slices.Equal(cep, orig) {
				t.Errorf("c0 spread %.1f: changed, want it left as wide as it was", beforeSD)
			}
			continue
		}
		mean, got := c0Stats(cep, dim)
		if want := math.Sqrt(beforeSD * energySpread); math.Abs(got-want) > 1e-3 || got <= beforeSD {
			t.Errorf("c0 spread %.1f: %.4f after, want %.4f", beforeSD, got, want)
		}
		if math.Abs(mean-before) > 1e-3 {
			t.Errorf("c0 spread %.1f: mean moved from %.4f to %.4f", beforeSD, before, mean)
		}
		for i := range cep {
			if i%dim != 0 && cep[i] != orig[i] {
				t.Fatalf("c0 spread %.1f: coefficient %d of frame %d moved", beforeSD, i%dim, i/dim)
			}
		}
		// A frame above the mean stays above it, further out.
		for f := 0; f < 300; f++ {
			if (float64(orig[f*dim]) > before) != (float64(cep[f*dim]) > mean) {
				t.Fatalf("c0 spread %.1f: frame %d crossed the mean", beforeSD, f)
			}
		}
	}
}

// Too short a region to measure, or a c0 that does not move, is left alone;
// so is input that is not whole frames of a positive dimension.
func TestEnergySpreadLeavesWhatItCannotMeasure(t *testing.T) {
	const dim = 13
	short := randomCepstra(energySpreadMinFrames-1, dim, 50, 5, 1)
	flat := randomCepstra(200, dim, 50, 0, 2)
	for name, cep := range map[string][]float32{"short": short, "flat": flat} {
		orig := slices.Clone(cep)
		spreadEnergy(cep, dim)
		if !slices.Equal(cep, orig) {
			t.Errorf("%s region changed", name)
		}
	}
	cep := randomCepstra(100, dim, 50, 5, 3)
	orig := slices.Clone(cep)
	spreadEnergy(cep, 0)
	spreadEnergy(nil, dim)
	if !slices.Equal(cep, orig) {
		t.Error("a zero dimension changed the cepstra")
	}
}

// Only telephone-band channels with a noise floor that noise removal leaves
// alone are scaled, at the gate the config sets.
func TestEnergySpreadGate(t *testing.T) {
	below := energySpreadBelow(Config{})
	for _, c := range []struct {
		rate      int
		overFloor float64
		denoised  bool
		want      bool
	}{
		{8000, 37, false, true},  // the 35 dB line
		{8000, 24, true, false},  // the 20 dB line: noise removal's
		{8000, 37, true, false},  // Config.NoiseRemoval on every channel
		{8000, 75, false, false}, // clean synthesis: digital silence between words
		{16000, 37, false, false},
		{44100, 37, false, false},
	} {
		if got := spreadsEnergy(c.rate, c.overFloor, below, c.denoised); got != c.want {
			t.Errorf("%d Hz, %.0f dB over the floor, denoised %v: %v, want %v", c.rate, c.overFloor, c.denoised, got, c.want)
		}
	}
	for _, c := range []struct {
		cfg  Config
		want float64
	}{
		{Config{}, DefaultEnergySpreadBelowDB},
		{Config{EnergySpreadBelowDB: 40}, 40},
		{Config{EnergySpreadBelowDB: -1}, 0},
	} {
		if got := energySpreadBelow(c.cfg); got != c.want {
			t.Errorf("%+v: %v, want %v", c.cfg, got, c.want)
		}
	}
	if spreadsEnergy(8000, 5, 0, false) {
		t.Error("a gate at 0 dB scaled a channel")
	}
}
