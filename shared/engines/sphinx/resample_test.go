package sphinx

import (
	"math"
	"testing"
)

// A sine well inside the passband must come out at the target rate with the same
// frequency and amplitude, and the block-wise Read must match a single Read.
func TestResamplerSine(t *testing.T) {
	for _, rate := range []int{8000, 11025, 16000, 22050, 44100, 48000} {
		const freq = 1000.0
		src := make([]int16, rate) // one second
		for i := range src {
			src[i] = int16(10000 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
		}
		r := newResampler(src, rate)
		if r.Len() != 16000 {
			t.Fatalf("%d Hz: Len = %d", rate, r.Len())
		}
		whole := make([]int16, r.Len())
		r.Read(whole, 0)
		var errSum, sigSum float64
		for i := 200; i < 15800; i++ { // skip the filter's edges
			want := 10000 * math.Sin(2*math.Pi*freq*float64(i)/16000)
			d := float64(whole[i]) - want
			errSum += d * d
			sigSum += want * want
		}
		if snr := 10 * math.Log10(sigSum/errSum); snr < 40 {
			t.Errorf("%d Hz: SNR %.1f dB", rate, snr)
		}
		block := make([]int16, 777)
		for from := 0; from < r.Len(); from += len(block) {
			n := r.Read(block, from)
			for k := 0; k < n; k++ {
				if block[k] != whole[from+k] {
					t.Fatalf("%d Hz: block read differs at %d", rate, from+k)
				}
			}
		}
	}
}

// Downsampling must suppress content above the new Nyquist (aliasing).
func TestResamplerAntiAlias(t *testing.T) {
	const rate = 48000
	src := make([]int16, rate)
	for i := range src {
		src[i] = int16(10000 * math.Sin(2*math.Pi*12000*float64(i)/rate)) // above 8 kHz
	}
	r := newResampler(src, rate)
	out := make([]int16, r.Len())
	r.Read(out, 0)
	var peak float64
	for _, v := range out[200 : len(out)-200] {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	if peak > 300 {
		t.Errorf("12 kHz tone leaks through at amplitude %.0f", peak)
	}
}
